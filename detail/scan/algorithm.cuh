#pragma once
// The scan strategy registry: scan_algorithm<Tag>::run launches the
// strategy's kernels. Each strategy's file specialises it; a tag without a
// specialisation is declared in the API but not implemented yet.

#include <cascade/execution.cuh>
#include <cascade/detail/reduce/algorithm.cuh>

namespace cascade::detail {

template <class Strategy>
struct scan_algorithm {
  static_assert(dependent_false<Strategy>,
                "cascade scan: this strategy is declared but not implemented yet (see the strategy named "
                "in the instantiation above); use cascade::strategy::automatic");
};

}  // namespace cascade::detail
