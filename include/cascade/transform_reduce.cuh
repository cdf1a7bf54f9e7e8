#pragma once
// cascade::transform_reduce and the transform scans, like their std::
// namesakes (std signatures after the policy).
//
//   T     transform_reduce(policy, first1, last1, first2, init);                   // inner product
//   T     transform_reduce(policy, first1, last1, first2, init, reduce_op, transform_op);
//   T     transform_reduce(policy, first, last, init, reduce_op, unary_op);
//   void  transform_reduce_into(policy, first1, last1, first2, result, init [, reduce_op, transform_op]);
//   void  transform_reduce_into(policy, first, last, result, init, reduce_op, unary_op);
//   OutIt transform_inclusive_scan(policy, first, last, d_first, binary_op, unary_op [, init]);
//   OutIt transform_exclusive_scan(policy, first, last, d_first, init, binary_op, unary_op);
//
// Accumulators as in std: T of init for transform_reduce and for the scans
// with init; without init, the type of unary_op(*first). reduce_op and
// binary_op must be associative, never commutative; the items are combined
// in order, with the reproducibility of cascade::reduce / inclusive_scan.
// transform_reduce on a GPU policy returns on the host (it waits for its
// stream); transform_reduce_into writes *result (device memory) in stream
// order, as reduce_into does, and may be captured in a graph; the scans are
// stream-ordered and may run in place.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/detail/dispatch/transform.cuh>

#include <cuda/std/functional>

namespace cascade {

template <class Policy, class It1, class It2, class T, class ReduceOp, class TransformOp>
T transform_reduce(const Policy& policy, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                   TransformOp transform_op) {
  static_assert(is_execution_policy_v<Policy>, "cascade::transform_reduce: the first argument must be a cascade policy");
  const auto n = detail::checked_distance(first1, last1, "cascade::transform_reduce");
  return detail::transform_reduce(policy, n, init, reduce_op, transform_op, first1, first2);
}

template <class Policy, class It1, class It2, class T>
T transform_reduce(const Policy& policy, It1 first1, It1 last1, It2 first2, T init) {
  return cascade::transform_reduce(policy, first1, last1, first2, init, ::cuda::std::plus<>{},
                                   ::cuda::std::multiplies<>{});
}

template <class Policy, class It, class T, class ReduceOp, class UnaryOp>
T transform_reduce(const Policy& policy, It first, It last, T init, ReduceOp reduce_op, UnaryOp unary_op) {
  static_assert(is_execution_policy_v<Policy>, "cascade::transform_reduce: the first argument must be a cascade policy");
  const auto n = detail::checked_distance(first, last, "cascade::transform_reduce");
  return detail::transform_reduce(policy, n, init, reduce_op, unary_op, first);
}

template <class Policy, class It1, class It2, class OutIt, class T, class ReduceOp, class TransformOp>
void transform_reduce_into(const Policy& policy, It1 first1, It1 last1, It2 first2, OutIt result, T init,
                           ReduceOp reduce_op, TransformOp transform_op) {
  static_assert(is_execution_policy_v<Policy>,
                "cascade::transform_reduce_into: the first argument must be a cascade policy");
  const auto n = detail::checked_distance(first1, last1, "cascade::transform_reduce_into");
  detail::transform_reduce_into(policy, n, result, init, reduce_op, transform_op, first1, first2);
}

template <class Policy, class It1, class It2, class OutIt, class T>
void transform_reduce_into(const Policy& policy, It1 first1, It1 last1, It2 first2, OutIt result, T init) {
  cascade::transform_reduce_into(policy, first1, last1, first2, result, init, ::cuda::std::plus<>{},
                                 ::cuda::std::multiplies<>{});
}

template <class Policy, class It, class OutIt, class T, class ReduceOp, class UnaryOp>
void transform_reduce_into(const Policy& policy, It first, It last, OutIt result, T init, ReduceOp reduce_op,
                           UnaryOp unary_op) {
  static_assert(is_execution_policy_v<Policy>,
                "cascade::transform_reduce_into: the first argument must be a cascade policy");
  const auto n = detail::checked_distance(first, last, "cascade::transform_reduce_into");
  detail::transform_reduce_into(policy, n, result, init, reduce_op, unary_op, first);
}

template <class Policy, class It, class OutIt, class BinaryOp, class UnaryOp>
OutIt transform_inclusive_scan(const Policy& policy, It first, It last, OutIt d_first, BinaryOp binary_op,
                               UnaryOp unary_op) {
  static_assert(is_execution_policy_v<Policy>,
                "cascade::transform_inclusive_scan: the first argument must be a cascade policy");
  using acc_t = ::cuda::std::decay_t<::cuda::std::invoke_result_t<UnaryOp&, detail::value_t<It>>>;
  return detail::transform_scan(policy, first, last, d_first, binary_op, unary_op,
                                detail::scan_request<acc_t>{std::nullopt, false}, "cascade::transform_inclusive_scan");
}

template <class Policy, class It, class OutIt, class BinaryOp, class UnaryOp, class T>
OutIt transform_inclusive_scan(const Policy& policy, It first, It last, OutIt d_first, BinaryOp binary_op,
                               UnaryOp unary_op, T init) {
  static_assert(is_execution_policy_v<Policy>,
                "cascade::transform_inclusive_scan: the first argument must be a cascade policy");
  return detail::transform_scan(policy, first, last, d_first, binary_op, unary_op, detail::scan_request<T>{init, false},
                                "cascade::transform_inclusive_scan");
}

template <class Policy, class It, class OutIt, class T, class BinaryOp, class UnaryOp>
OutIt transform_exclusive_scan(const Policy& policy, It first, It last, OutIt d_first, T init, BinaryOp binary_op,
                               UnaryOp unary_op) {
  static_assert(is_execution_policy_v<Policy>,
                "cascade::transform_exclusive_scan: the first argument must be a cascade policy");
  return detail::transform_scan(policy, first, last, d_first, binary_op, unary_op, detail::scan_request<T>{init, true},
                                "cascade::transform_exclusive_scan");
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
