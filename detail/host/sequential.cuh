#pragma once
// cascade::seq: one host thread, left to right. These loops are also the
// per-chunk work of cascade::par. Ranges are (first, n).

#include <cstdint>
#include <optional>

namespace cascade::detail::host {

// init op x[0] op ... op x[n-1], left to right.
template <class It, class T, class Op>
T fold(It first, std::int64_t n, T init, Op op) {
  for (std::int64_t i = 0; i < n; ++i, ++first) init = op(init, *first);
  return init;
}

// Inclusive scan seeded with `carry` where there is one, else starting from
// x[0] (no value of T is made from nothing: T need not be default
// constructible, as for std::inclusive_scan). Each input is read before its
// output is written, so in-place is safe.
template <class It, class OutIt, class T, class Op>
OutIt inclusive_scan(It first, std::int64_t n, OutIt out, Op op, const std::optional<T>& carry) {
  std::optional<T> acc = carry;
  for (std::int64_t i = 0; i < n; ++i, ++first, ++out) {
    if (acc) *acc = static_cast<T>(op(*acc, *first));
    else acc.emplace(static_cast<T>(*first));
    *out = *acc;
  }
  return out;
}

template <class It, class OutIt, class T, class Op>
OutIt exclusive_scan(It first, std::int64_t n, OutIt out, T carry, Op op) {
  for (std::int64_t i = 0; i < n; ++i, ++first, ++out) {
    T next = op(carry, *first);  // read x[i] before out[i] may overwrite it
    *out = carry;
    carry = next;
  }
  return out;
}

}  // namespace cascade::detail::host
