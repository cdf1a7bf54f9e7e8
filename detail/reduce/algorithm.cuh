#pragma once
// The reduce strategy registry: reduce_algorithm<Tag>::run launches the
// strategy's kernels. Each strategy's file specialises it; a reduce tag
// without a specialisation is declared in the API but not implemented yet.
// Either misuse stops at one message: a scan tag here has had its own from
// dispatch (require_reduce_strategy), and run accepts any call.

#include <cascade/execution.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <cuda_runtime_api.h>

namespace cascade::detail {

template <class>
inline constexpr bool dependent_false = false;

template <class Strategy>
struct reduce_algorithm {
  static_assert(!strategy::is_reduce_strategy_v<Strategy>,
                "cascade::reduce: this strategy is declared but not implemented yet (see the strategy "
                "named in the instantiation above); use cascade::strategy::automatic");
  template <class... Args>
  static void run(Args&&...) {}
};

}  // namespace cascade::detail
