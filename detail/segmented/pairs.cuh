#pragma once
// The values a segmented scan carries: an item's value with what says where
// segments start, and the operator that never combines across a start.
//
// headed<C, V>: (heads, value), heads counting the segment heads in the range
// (C = bool: whether there is one). (ha, a) + (hb, b) = (ha + hb, hb ? b : a op b):
// associative for any associative op, no identity needed, and the value is
// always the combination of the range's last segment piece. The count of
// heads up to an item is its run's index plus one (reduce_by_key).
//
// tagged<Id, V>: (segment, value) for segments numbered in ascending order
// (offsets): (sa, a) + (sb, b) = (sb, sa == sb ? a op b : b). Because ids never
// decrease, sa == sb means the whole of b and a's last piece lie in one
// segment; the id itself says where the value goes.
//
// absorbs(a, first): whether op(x, a) == a, bits and all, for every x the
// scan engine may put before a's range (whose first item `first()` gives):
// the combination of the items before it, or AccT{} (which stands in for
// what a prefix does not need; reproducible_lookback.cuh). Such a range's
// prefix is known without its predecessors.

#include <cascade/detail/tuning/scan.cuh>
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

template <class Id, class V>
struct tagged {
  Id segment;
  V value;
};

template <class Op>
struct tagged_op {
  Op op;
  template <class Id, class V>
  __host__ __device__ tagged<Id, V> operator()(const tagged<Id, V>& a, const tagged<Id, V>& b) const {
    return {b.segment, a.segment == b.segment ? static_cast<V>(op(a.value, b.value)) : b.value};
  }
  // A range ending in a later segment than its first item's: whatever
  // precedes it lies in an earlier segment still, and AccT{} in segment 0.
  template <class Id, class V, class First>
  __host__ __device__ bool absorbs(const tagged<Id, V>& a, First first) const {
    return first().segment != a.segment;
  }
};

// The pairs' tiles (tuning/scan.cuh: 128 threads, 20 items of 8 bytes, 4
// blocks per SM by default), as measured. H100, 2^26 floats in segments of
// 64, items x blocks per SM:
// - tagged pairs (the segmented scans; measured on the fixed-size
//   segmented_reduce, which ran on this engine then) 20 x 4 / 6 / 8 660 /
//   564 / 725 us; after the prefetch of segmented inputs 20 x 6 516, 12 x 6
//   536, 12 x 8 503 (spilling 1.7 KB), 14 x 6 511, 16 x 6 525 us: 20 x 6 stays.
// - headed pairs, after that prefetch: the scans by key (boolean heads) 20 x
//   4 429, 20 x 5 496, 24 x 4 451, 16 x 5 410, 16 x 6 397, 14 x 6 469, 12 x
//   6 473 us; reduce_by_key_into (counted heads) 20 x 6 523, 16 x 6 487, 16
//   x 5 526, 12 x 6 581 us: 16 x 6 for both. (Their 25 KB of shared memory
//   let 5 blocks in; launch bounds for 6 give each thread 80 registers, and
//   the scans by key spill about 0.6 KB.)
template <class Id, class V>
inline constexpr int register_tile_blocks<tagged<Id, V>> = 6;
template <class C, class V>
inline constexpr int register_tile_blocks<headed<C, V>> = 6;
template <class C, class V>
inline constexpr int shared_tile_items<headed<C, V>> = sizeof(headed<C, V>) == 8 ? 16 : 1;

}  // namespace cascade::detail
