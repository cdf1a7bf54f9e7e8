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

#include <optional>
#include <type_traits>

namespace cascade::detail {

template <class S>
constexpr void require_scan_strategy() {
  static_assert(strategy::is_scan_strategy_v<S>,
                "cascade::inclusive_scan / exclusive_scan: the policy names a reduce strategy "
                "(interleaved_divergent ... radix4_pyramid); pick a scan strategy or "
                "cascade::strategy::automatic");
}

// An init that may be absent, as the host policies take it: std::optional,
// so that no value of T is made from nothing and accumulators need not be
// default constructible, as for std's scans. The GPU kernels take it as a
// maybe<T> (GPU values are default constructible: gpu_call.cuh).
template <class T>
maybe<T> on_device(const std::optional<T>& init) {
  return {init ? *init : T{}, init.has_value()};
}

// What a scan call asks for before a backend is chosen: its init where one
// is given, and whether it is exclusive (then one is).
template <class AccT>
struct scan_request {
  std::optional<AccT> init;
  bool exclusive;

  scan_mode<AccT> on_device() const {
    const maybe<AccT> m = detail::on_device(init);
    return {m.value, m.has, exclusive};
  }
};

// One entry for all scans; AccT is already decided by the caller.
template <class Policy, class It, class OutIt, class AccT, class Op>
OutIt scan(const Policy& policy, It first, It last, OutIt out, Op op, const scan_request<AccT>& request,
           const char* name) {
  const offset_t n = checked_distance(first, last, name);
  if constexpr (is_host_policy_v<Policy>) {
    if constexpr (std::is_same_v<Policy, parallel_policy>) {
      return host::parallel_scan(first, n, out, op, request.init, request.exclusive);
    } else if (request.exclusive) {
      return host::exclusive_scan(first, n, out, *request.init, op);
    } else {
      return host::inclusive_scan(first, n, out, op, request.init);
    }
  } else {
    using strategy_t = std::decay_t<decltype(policy.strategy())>;
    require_gpu_value<AccT>();
    require_scan_strategy<strategy_t>();
    if (n == 0) return out;
    const gpu_call call(policy, name);
    check_device_accessible(first, name, "the input range");
    check_device_accessible(out, name, "the output range");
    scan_algorithm<strategy_t>::run(policy.strategy(), unwrap(first), n, unwrap(out), request.on_device(),
                                    device_operator(op), policy.stream());
    return out + n;
  }
}

}  // namespace cascade::detail
