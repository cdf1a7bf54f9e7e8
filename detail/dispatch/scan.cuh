#pragma once
// Dispatch for the scans: validate the ranges, choose the accumulator type
// (P0571: the input's value type without init, init's type with it), pick
// the backend and the strategy.

#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/detail/host/parallel.cuh>
#include <cascade/detail/dispatch/gpu_call.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/scan/algorithm.cuh>
#include <cascade/detail/scan/strategies.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <type_traits>

namespace cascade::detail {

template <class S>
constexpr void require_scan_strategy() {
  static_assert(strategy::is_scan_strategy_v<S>,
                "cascade::inclusive_scan / exclusive_scan: the policy names a reduce strategy "
                "(interleaved_divergent ... radix4_pyramid); pick a scan strategy or "
                "cascade::strategy::automatic");
}

// One entry for all scans; AccT is already decided by the caller.
template <class Policy, class It, class OutIt, class AccT, class Op>
OutIt scan(const Policy& policy, It first, It last, OutIt out, Op op, scan_mode<AccT> mode, const char* name) {
  const offset_t n = checked_distance(first, last, name);
  if constexpr (is_host_policy_v<Policy>) {
    if constexpr (std::is_same_v<Policy, parallel_policy>) {
      return host::parallel_scan(first, n, out, op, mode.init, mode.has_init, mode.exclusive);
    } else if (mode.exclusive) {
      return host::exclusive_scan(first, n, out, mode.init, op);
    } else {
      return host::inclusive_scan(first, n, out, op, mode.init, mode.has_init);
    }
  } else {
    using strategy_t = std::decay_t<decltype(policy.strategy())>;
    require_scan_strategy<strategy_t>();
    if (n == 0) return out;
    const gpu_call call(policy, name);
    check_device_accessible(first, name, "the input range");
    check_device_accessible(out, name, "the output range");
    scan_algorithm<strategy_t>::run(policy.strategy(), unwrap(first), n, unwrap(out), mode, device_operator(op),
                                    policy.stream());
    return out + n;
  }
}

}  // namespace cascade::detail
