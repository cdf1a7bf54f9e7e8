#pragma once
// Keyed algorithms: runs of consecutive keys that pred calls equal (default
// cuda::std::equal_to<>), Thrust's signatures and accumulator rules.
//
//   pair<KOut, VOut> reduce_by_key(policy, keys_first, keys_last, values_first, keys_out, values_out [, pred [, op]]);
//   void  reduce_by_key_into(policy, keys_first, keys_last, values_first, keys_out, values_out, num_runs_out, pred, op);
//   OutIt inclusive_scan_by_key(policy, keys_first, keys_last, values_first, d_first [, pred [, op]]);
//   OutIt exclusive_scan_by_key(policy, keys_first, keys_last, values_first, d_first, init [, pred [, op]]);
//
// A run starts at item 0 and at every i where !pred(keys[i - 1], keys[i]).
// op (default plus) must be associative; it need not commute, sees values
// of one run only, in order, and needs no identity.
//
// Accumulators (Thrust's): reduce_by_key and inclusive_scan_by_key
// accumulate in the values' value type; exclusive_scan_by_key in the type of
// init (default: the values' value type, value-initialised). Results convert
// to the outputs' types on the way out.
//
// reduce_by_key writes, for run r, the run's first key to keys_out[r] and the
// combination of its values to values_out[r], and returns the ends of both
// outputs; on a GPU policy it waits for its stream. reduce_by_key_into
// writes the number of runs to *num_runs_out instead (device memory) and is
// stream-ordered, as are the scans. Scans may run in place (d_first ==
// values_first); the keys must not overlap an output.
//
// GPU results are bitwise identical run to run (the combination tree
// depends on the keys and values only).

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/detail/dispatch/segmented.cuh>

#include <cuda/std/functional>

#include <optional>
#include <utility>

namespace cascade {

template <class Policy, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class CountOut, class Pred, class Op>
void reduce_by_key_into(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                        KeysOut keys_out, ValuesOut values_out, CountOut num_runs_out, Pred pred, Op op) {
  static_assert(is_execution_policy_v<Policy>, "cascade::reduce_by_key_into: the first argument must be a cascade policy");
  using V = detail::value_t<ValueIt>;
  const detail::offset_t n = detail::checked_distance(keys_first, keys_last, "cascade::reduce_by_key_into");
  if constexpr (is_host_policy_v<Policy>) {
    *num_runs_out = detail::host::reduce_by_key<std::is_same_v<Policy, parallel_policy>, V>(
        keys_first, n, values_first, keys_out, values_out, pred, op);
  } else {
    detail::cuda_reduce_by_key_into<V>(policy, keys_first, n, values_first, keys_out, values_out, num_runs_out,
                                       detail::device_operator(pred), detail::device_operator(op),
                                       "cascade::reduce_by_key_into");
  }
}

template <class Policy, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class Pred, class Op>
std::pair<KeysOut, ValuesOut> reduce_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                                            ValueIt values_first, KeysOut keys_out, ValuesOut values_out, Pred pred,
                                            Op op) {
  static_assert(is_execution_policy_v<Policy>, "cascade::reduce_by_key: the first argument must be a cascade policy");
  using V = detail::value_t<ValueIt>;
  const detail::offset_t n = detail::checked_distance(keys_first, keys_last, "cascade::reduce_by_key");
  if constexpr (is_host_policy_v<Policy>) {
    const auto runs = detail::host::reduce_by_key<std::is_same_v<Policy, parallel_policy>, V>(
        keys_first, n, values_first, keys_out, values_out, pred, op);
    return {keys_out + runs, values_out + runs};
  } else {
    return detail::cuda_reduce_by_key<V>(policy, keys_first, n, values_first, keys_out, values_out,
                                         detail::device_operator(pred), detail::device_operator(op));
  }
}

template <class Policy, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class Pred>
std::pair<KeysOut, ValuesOut> reduce_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                                            ValueIt values_first, KeysOut keys_out, ValuesOut values_out, Pred pred) {
  return cascade::reduce_by_key(policy, keys_first, keys_last, values_first, keys_out, values_out, pred,
                                ::cuda::std::plus<>{});
}

template <class Policy, class KeyIt, class ValueIt, class KeysOut, class ValuesOut>
std::pair<KeysOut, ValuesOut> reduce_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                                            ValueIt values_first, KeysOut keys_out, ValuesOut values_out) {
  return cascade::reduce_by_key(policy, keys_first, keys_last, values_first, keys_out, values_out,
                                ::cuda::std::equal_to<>{}, ::cuda::std::plus<>{});
}

namespace detail {
// Exclusive where init is given; absent, the scan is inclusive (and no value
// is made from nothing: on the host the values need not be default
// constructible).
template <class Policy, class KeyIt, class ValueIt, class OutIt, class Pred, class Op, class T>
OutIt scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first, OutIt out, Pred pred,
                  Op op, const std::optional<T>& init, const char* name) {
  static_assert(is_execution_policy_v<Policy>, "cascade scan_by_key: the first argument must be a cascade policy");
  const offset_t n = checked_distance(keys_first, keys_last, name);
  if constexpr (is_host_policy_v<Policy>) {
    host::scan_by_key<std::is_same_v<Policy, parallel_policy>>(keys_first, n, values_first, out, pred, op, init);
  } else {
    cuda_scan_by_key(policy, keys_first, n, values_first, out, device_operator(pred), device_operator(op), init, name);
  }
  return out + n;
}
}  // namespace detail

template <class Policy, class KeyIt, class ValueIt, class OutIt, class Pred, class Op>
OutIt inclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                            OutIt d_first, Pred pred, Op op) {
  return detail::scan_by_key(policy, keys_first, keys_last, values_first, d_first, pred, op,
                             std::optional<detail::value_t<ValueIt>>(), "cascade::inclusive_scan_by_key");
}
template <class Policy, class KeyIt, class ValueIt, class OutIt, class Pred>
OutIt inclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                            OutIt d_first, Pred pred) {
  return cascade::inclusive_scan_by_key(policy, keys_first, keys_last, values_first, d_first, pred,
                                        ::cuda::std::plus<>{});
}
template <class Policy, class KeyIt, class ValueIt, class OutIt>
OutIt inclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                            OutIt d_first) {
  return cascade::inclusive_scan_by_key(policy, keys_first, keys_last, values_first, d_first,
                                        ::cuda::std::equal_to<>{}, ::cuda::std::plus<>{});
}

template <class Policy, class KeyIt, class ValueIt, class OutIt, class T, class Pred, class Op>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                            OutIt d_first, T init, Pred pred, Op op) {
  return detail::scan_by_key(policy, keys_first, keys_last, values_first, d_first, pred, op, std::optional<T>(init),
                             "cascade::exclusive_scan_by_key");
}
template <class Policy, class KeyIt, class ValueIt, class OutIt, class T, class Pred>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                            OutIt d_first, T init, Pred pred) {
  return cascade::exclusive_scan_by_key(policy, keys_first, keys_last, values_first, d_first, init, pred,
                                        ::cuda::std::plus<>{});
}
template <class Policy, class KeyIt, class ValueIt, class OutIt, class T>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                            OutIt d_first, T init) {
  return cascade::exclusive_scan_by_key(policy, keys_first, keys_last, values_first, d_first, init,
                                        ::cuda::std::equal_to<>{}, ::cuda::std::plus<>{});
}
template <class Policy, class KeyIt, class ValueIt, class OutIt>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValueIt values_first,
                            OutIt d_first) {
  return cascade::exclusive_scan_by_key(policy, keys_first, keys_last, values_first, d_first,
                                        detail::value_t<ValueIt>{});
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
