#pragma once
// cascade::seq: one host thread, left to right. These loops are also the
// per-chunk work of cascade::par. Ranges are (first, n).

#include <cstdint>

namespace cascade::detail::host {

// init op x[0] op ... op x[n-1], left to right.
template <class It, class T, class Op>
T fold(It first, std::int64_t n, T init, Op op) {
  for (std::int64_t i = 0; i < n; ++i, ++first) init = op(init, *first);
  return init;
}

// Inclusive scan seeded with `carry` (when has_carry), else starting from x[0].
// Each input is read before its output is written, so in-place is safe.
template <class It, class OutIt, class T, class Op>
OutIt inclusive_scan(It first, std::int64_t n, OutIt out, Op op, T carry, bool has_carry) {
  for (std::int64_t i = 0; i < n; ++i, ++first, ++out) {
    carry = has_carry ? static_cast<T>(op(carry, *first)) : static_cast<T>(*first);
    has_carry = true;
    *out = carry;
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
