#pragma once
// The scan strategy registry: scan_algorithm<Tag>::run launches the
// strategy's kernels. Each strategy's file specialises it; a scan tag without
// a specialisation is declared in the API but not implemented yet. Either
// misuse stops at one message: a reduce tag here has had its own from
// dispatch (require_scan_strategy), and run accepts any call.

#include <cascade/execution.cuh>
#include <cascade/detail/reduce/algorithm.cuh>

namespace cascade::detail {

template <class Strategy>
struct scan_algorithm {
  static_assert(!strategy::is_scan_strategy_v<Strategy>,
                "cascade scan: this strategy is declared but not implemented yet (see the strategy named "
                "in the instantiation above); use cascade::strategy::automatic");
  template <class... Args>
  static void run(Args&&...) {}
};

}  // namespace cascade::detail
