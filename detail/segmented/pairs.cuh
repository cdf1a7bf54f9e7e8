#pragma once
// The values a segmented scan combines across threads and tiles: a range's
// value with what says where segments start in it, and the operator that
// never combines across a start.
//
// headed<C, V>: (heads, value), heads counting the segment heads in the range
// (C = bool: whether there is one). (ha, a) + (hb, b) = (ha + hb, hb ? b : a op b):
// associative for any associative op, no identity needed, and the value is
// always the combination of the range's last segment piece. The count of
// heads up to an item is its run's index plus one (reduce_by_key).
//
// absorbs(a, first): whether op(x, a) == a, bits and all, for every x the
// scan engine may put before a's range (whose first item `first()` gives):
// the combination of the items before it, or AccT{} (which stands in for
// what a prefix does not need; reproducible_lookback.cuh). Such a range's
// prefix is known without its predecessors.

#include <cascade/detail/util/iterator.cuh>

#include <type_traits>

namespace cascade::detail {

template <class C, class V>
struct headed {
  C heads;
  V value;
};

template <class Op>
struct headed_op {
  Op op;
  template <class C, class V>
  __host__ __device__ headed<C, V> operator()(const headed<C, V>& a, const headed<C, V>& b) const {
    C heads;
    if constexpr (std::is_same_v<C, bool>) heads = a.heads || b.heads;
    else heads = static_cast<C>(a.heads + b.heads);
    return {heads, b.heads ? b.value : static_cast<V>(op(a.value, b.value))};
  }
  // A range with a head (counted heads never absorb: the count adds up).
  template <class V, class First>
  __host__ __device__ bool absorbs(const headed<bool, V>& a, First) const {
    return a.heads;
  }
};

}  // namespace cascade::detail
