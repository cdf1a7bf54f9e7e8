#pragma once
// Dispatch for reduce: validate the range, pick the backend (host or GPU) and
// the strategy, size nothing itself (each strategy plans its own launch).

#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/detail/host/parallel.cuh>
#include <cascade/detail/host/sequential.cuh>
#include <cascade/detail/dispatch/gpu_call.cuh>
#include <cascade/detail/reduce/algorithm.cuh>
#include <cascade/detail/reduce/strategies.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <cuda_runtime_api.h>

#include <cstring>
#include <type_traits>

namespace cascade::detail {

template <class OutIt, class T>
__global__ void write_value_kernel(OutIt out, T value) {
  *out = value;
}

template <class S>
constexpr void require_reduce_strategy() {
  static_assert(strategy::is_reduce_strategy_v<S>,
                "cascade::reduce / reduce_into: the policy names a scan strategy (hillis_steele, blelloch, "
                "blelloch_conflict_free, reduce_then_scan, decoupled_lookback, reproducible_lookback); pick a reduce strategy or "
                "cascade::strategy::automatic");
}

template <class S, class It, class OutIt, class T, class Op>
void cuda_reduce_into(const cuda_policy<S>& policy, It first, It last, OutIt result, T init, Op op,
                      const char* name) {
  require_gpu_value<T>();
  require_reduce_strategy<S>();
  const offset_t n = checked_distance(first, last, name);
  const gpu_call call(policy, name);
  if (n > 0) check_device_accessible(first, name, "the input range");
  check_device_accessible(result, name, "the result");
  if (n == 0) {
    write_value_kernel<<<1, 1, 0, policy.stream()>>>(unwrap(result), init);
    check_launch("cascade write-init kernel");
    return;
  }
  reduce_algorithm<S>::run(policy.strategy(), unwrap(first), n, unwrap(result), init, device_operator(op),
                           policy.stream());
}

template <class S, class It, class T, class Op>
T cuda_reduce(const cuda_policy<S>& policy, It first, It last, T init, Op op) {
  require_gpu_value<T>();
  require_reduce_strategy<S>();
  constexpr const char* name = "cascade::reduce";
  const offset_t n = checked_distance(first, last, name);
  if (n == 0) return init;
  const gpu_call call(policy, name);
  require_not_capturing(policy.stream(), name, "cascade::reduce_into");
  check_device_accessible(first, name, "the input range");
  return wait_for_value<T>(policy.stream(), call.at(), [&](T* out) {
    reduce_algorithm<S>::run(policy.strategy(), unwrap(first), n, out, init, device_operator(op), policy.stream());
  });
}

template <class Policy, class It, class T, class Op>
T host_reduce(const Policy&, It first, It last, T init, Op op) {
  const offset_t n = checked_distance(first, last, "cascade::reduce");
  if constexpr (std::is_same_v<Policy, parallel_policy>) return host::parallel_fold(first, n, init, op);
  else return host::fold(first, n, init, op);
}

}  // namespace cascade::detail
