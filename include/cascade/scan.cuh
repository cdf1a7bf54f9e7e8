#pragma once
// cascade::inclusive_scan and cascade::exclusive_scan, like their std::
// namesakes. In-place (d_first == first) is allowed. op must be associative;
// scans never need it to commute.
//
//   OutIt inclusive_scan(policy, first, last, d_first);               // plus
//   OutIt inclusive_scan(policy, first, last, d_first, op);
//   OutIt inclusive_scan(policy, first, last, d_first, op, T init);
//   OutIt exclusive_scan(policy, first, last, d_first, T init);       // plus
//   OutIt exclusive_scan(policy, first, last, d_first, T init, op);
//
// Accumulator (P0571): the input's value type without init, T with it.
// On a GPU policy the scans are stream-ordered and return at once.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/resources.cuh>
#include <cascade/detail/dispatch/scan.cuh>

#include <cuda/std/functional>

namespace cascade {

// A first argument that is no cascade policy stops at one message: the
// failing branch goes no further (no follow-on errors from below).
template <class Policy, class It, class OutIt, class BinaryOp>
OutIt inclusive_scan(const Policy& policy, It first, It last, OutIt d_first, BinaryOp op) {
  if constexpr (!is_execution_policy_v<Policy>) {
    static_assert(is_execution_policy_v<Policy>,
                  "cascade::inclusive_scan: the first argument must be a cascade policy (cascade::seq, "
                  "cascade::par, cascade::device); a thrust:: or std:: policy is not one");
    return d_first;
  } else {
    using acc_t = detail::value_t<It>;
    return detail::scan(policy, first, last, d_first, op, detail::scan_request<acc_t>{std::nullopt, false},
                        "cascade::inclusive_scan");
  }
}

template <class Policy, class It, class OutIt>
OutIt inclusive_scan(const Policy& policy, It first, It last, OutIt d_first) {
  return cascade::inclusive_scan(policy, first, last, d_first, ::cuda::std::plus<>{});
}

template <class Policy, class It, class OutIt, class BinaryOp, class T>
OutIt inclusive_scan(const Policy& policy, It first, It last, OutIt d_first, BinaryOp op, T init) {
  if constexpr (!is_execution_policy_v<Policy>) {
    static_assert(is_execution_policy_v<Policy>,
                  "cascade::inclusive_scan: the first argument must be a cascade policy (cascade::seq, "
                  "cascade::par, cascade::device); a thrust:: or std:: policy is not one");
    return d_first;
  } else {
    return detail::scan(policy, first, last, d_first, op, detail::scan_request<T>{init, false},
                        "cascade::inclusive_scan");
  }
}

template <class Policy, class It, class OutIt, class T, class BinaryOp>
OutIt exclusive_scan(const Policy& policy, It first, It last, OutIt d_first, T init, BinaryOp op) {
  if constexpr (!is_execution_policy_v<Policy>) {
    static_assert(is_execution_policy_v<Policy>,
                  "cascade::exclusive_scan: the first argument must be a cascade policy (cascade::seq, "
                  "cascade::par, cascade::device); a thrust:: or std:: policy is not one");
    return d_first;
  } else {
    return detail::scan(policy, first, last, d_first, op, detail::scan_request<T>{init, true},
                        "cascade::exclusive_scan");
  }
}

template <class Policy, class It, class OutIt, class T>
OutIt exclusive_scan(const Policy& policy, It first, It last, OutIt d_first, T init) {
  return cascade::exclusive_scan(policy, first, last, d_first, init, ::cuda::std::plus<>{});
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
