#pragma once
// cascade::reduce and cascade::reduce_into.
//
//   T cascade::reduce(policy, first, last, T init, BinaryOp op);
//   T cascade::reduce(policy, first, last, T init);          // op = plus
//   V cascade::reduce(policy, first, last);                  // init = V{}
//   void cascade::reduce_into(policy, first, last, OutIt result, T init, BinaryOp op);
//   void cascade::reduce_into(policy, first, last, OutIt result, T init);    // op = plus
//   void cascade::reduce_into(policy, first, last, OutIt result);            // init = V{}
//
// Like std::reduce: the accumulator is T, the type of init, which enters the
// result exactly once. op must be associative; it need not commute unless the
// chosen strategy says so. On a GPU policy reduce() waits for its stream and
// returns on the host; reduce_into() writes *result in stream order and
// returns at once.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/resources.cuh>
#include <cascade/detail/dispatch/reduce.cuh>

#include <cuda/std/functional>

namespace cascade {

// A first argument that is no cascade policy stops at one message: the
// failing branch goes no further (no follow-on errors from below).
template <class Policy, class It, class T, class BinaryOp>
T reduce(const Policy& policy, It first, It last, T init, BinaryOp op) {
  if constexpr (!is_execution_policy_v<Policy>) {
    static_assert(is_execution_policy_v<Policy>,
                  "cascade::reduce: the first argument must be a cascade policy (cascade::seq, cascade::par, "
                  "cascade::device); a thrust:: or std:: policy is not one");
    return init;  // no further errors after the one above
  } else if constexpr (is_host_policy_v<Policy>) {
    return detail::host_reduce(policy, first, last, init, op);
  } else {
    return detail::cuda_reduce(policy, first, last, init, op);
  }
}

template <class Policy, class It, class T>
T reduce(const Policy& policy, It first, It last, T init) {
  return cascade::reduce(policy, first, last, init, ::cuda::std::plus<>{});
}

template <class Policy, class It>
detail::value_t<It> reduce(const Policy& policy, It first, It last) {
  return cascade::reduce(policy, first, last, detail::value_t<It>{}, ::cuda::std::plus<>{});
}

template <class Policy, class It, class OutIt, class T, class BinaryOp>
void reduce_into(const Policy& policy, It first, It last, OutIt result, T init, BinaryOp op) {
  if constexpr (!is_execution_policy_v<Policy>) {
    static_assert(is_execution_policy_v<Policy>,
                  "cascade::reduce_into: the first argument must be a cascade policy (cascade::seq, "
                  "cascade::par, cascade::device); a thrust:: or std:: policy is not one");
  } else if constexpr (is_host_policy_v<Policy>) {
    *result = detail::host_reduce(policy, first, last, init, op);
  } else {
    detail::cuda_reduce_into(policy, first, last, result, init, op, "cascade::reduce_into");
  }
}

template <class Policy, class It, class OutIt, class T>
void reduce_into(const Policy& policy, It first, It last, OutIt result, T init) {
  cascade::reduce_into(policy, first, last, result, init, ::cuda::std::plus<>{});
}

template <class Policy, class It, class OutIt>
void reduce_into(const Policy& policy, It first, It last, OutIt result) {
  cascade::reduce_into(policy, first, last, result, detail::value_t<It>{}, ::cuda::std::plus<>{});
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
