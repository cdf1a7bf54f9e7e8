#pragma once
// cascade::seq: one host thread, left to right. These loops are also the
// per-chunk work of cascade::par.

#include <iterator>

namespace cascade::detail::host {

// init op x[0] op ... op x[n-1], left to right.
template <class It, class T, class Op>
T fold(It first, It last, T init, Op op) {
  for (; first != last; ++first) init = op(init, *first);
  return init;
}

// Inclusive scan seeded with `carry` (when has_carry), else starting from x[0].
// Each input is read before its output is written, so in-place is safe.
template <class It, class OutIt, class T, class Op>
OutIt inclusive_scan(It first, It last, OutIt out, Op op, T carry, bool has_carry) {
  if (first == last) return out;
  if (!has_carry) {
    carry = *first;
    *out = carry;
    ++first;
    ++out;
  }
  for (; first != last; ++first, ++out) {
    carry = op(carry, *first);
    *out = carry;
  }
  return out;
}

template <class It, class OutIt, class T, class Op>
OutIt exclusive_scan(It first, It last, OutIt out, T carry, Op op) {
  for (; first != last; ++first, ++out) {
    T next = op(carry, *first);  // read x[i] before out[i] may overwrite it
    *out = carry;
    carry = next;
  }
  return out;
}

}  // namespace cascade::detail::host
