#pragma once
// The reduce strategy registry: reduce_algorithm<Tag>::run launches the
// strategy's kernels. Each strategy's file specialises it; a tag without a
// specialisation is declared in the API but not implemented yet.

#include <cascade/execution.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <cuda_runtime_api.h>

namespace cascade::detail {

template <class>
inline constexpr bool dependent_false = false;

template <class Strategy>
struct reduce_algorithm {
  static_assert(dependent_false<Strategy>,
                "cascade::reduce: this strategy is declared but not implemented yet (see the strategy "
                "named in the instantiation above); use cascade::strategy::automatic");
};

}  // namespace cascade::detail
