#pragma once
// min_element, max_element and minmax_element as order-preserving reduces:
// the items are candidates (position, value, rank) and the operators select
// among them exactly as the standard library's left-to-right loops would.
//
// With a strict weak order, "keep the earlier unless the later is strictly
// better" is associative, so any tree of it agrees with std's loop. A NaN
// under < or > (comparing false with everything) breaks that: std's
// min_element keeps a NaN found at position 0 (nothing compares less) and
// never picks one found later, so (1, NaN, 0) gives 0, while a tree that
// first selects within (NaN, 0) keeps the NaN and then the 1. The rank makes
// that explicit, a total order again: NaN at position 0 < ordinary values
// (by comp, then position) < NaNs elsewhere < nothing (the reduce's init).
// The library knows a NaN only for the comparators it recognises (less and
// greater, on floating-point values); any other comparator must be a strict
// weak order, as std requires.
//
// minmax_element follows libstdc++, which takes the items in pairs
// (x[2k], x[2k+1]): the smaller of a pair (the first on ties, x[2k] when
// either is NaN) may replace the min when comp(c, min); the larger (the
// second on ties, x[2k+1] when either is NaN) replaces the max unless
// comp(c, max), so the LAST largest wins, and a NaN candidate always
// replaces the max, after which the next candidate always replaces it. A
// lone last item (odd n) is a min candidate first and a max candidate only
// if it did not become the min. So the reduce's items are the whole pairs,
// and its state keeps, beside the min candidate, the max as a "reset"
// monoid: a segment that holds a NaN candidate decides the max alone. The
// lone item is placed after the reduce (resolve_minmax).

#include <cascade/detail/util/iterator.cuh>

#include <cuda/std/functional>

#include <cstdint>
#include <functional>
#include <type_traits>

namespace cascade::detail {

// Comparators under which a floating-point NaN compares false with everything
// (thrust::less / greater are cuda::std's).
template <class Comp>
struct nan_unordered_comparator : std::false_type {};
template <class T>
struct nan_unordered_comparator<::cuda::std::less<T>> : std::true_type {};
template <class T>
struct nan_unordered_comparator<::cuda::std::greater<T>> : std::true_type {};
template <class T>
struct nan_unordered_comparator<std::less<T>> : std::true_type {};
template <class T>
struct nan_unordered_comparator<std::greater<T>> : std::true_type {};

template <class Comp, class T>
inline constexpr bool nan_aware_v = nan_unordered_comparator<Comp>::value && ::cuda::std::is_floating_point_v<T>;

template <class Comp, class T>
__host__ __device__ bool is_nan_under(const T& x) {
  if constexpr (nan_aware_v<Comp, T>) return x != x;
  return false;
}

// rank: 0 NaN at position 0, 1 ordinary, 2 NaN elsewhere, 3 none.
template <class T>
struct candidate {
  offset_t index;
  T value;
  int rank;
};
inline constexpr int kRankNone = 3;

template <class Comp, class T>
__host__ __device__ candidate<T> make_candidate(offset_t i, const T& x) {
  return {i, x, is_nan_under<Comp>(x) ? (i == 0 ? 0 : 2) : 1};
}

// The candidate of the later item b replaces a (the earlier) when it ranks
// better, or ranks alike as an ordinary value and is strictly better by comp:
// smaller (comp(b, a)) for a min, larger (comp(a, b)) for a max.
#pragma nv_exec_check_disable
template <bool Max, class Comp, class T>
__host__ __device__ candidate<T> select(const candidate<T>& a, const candidate<T>& b, const Comp& comp) {
  if (a.rank != b.rank) return b.rank < a.rank ? b : a;
  return a.rank == 1 && (Max ? comp(a.value, b.value) : comp(b.value, a.value)) ? b : a;
}

// x -> candidate, for the element reduces.
template <class Comp, class T>
struct to_candidate {
  __host__ __device__ candidate<T> operator()(offset_t i, const T& x) const { return make_candidate<Comp>(i, x); }
};

// min_element: the first smallest. max_element: the first largest.
template <class Comp, bool Max>
struct select_first {
  Comp comp;
  template <class T>
  __host__ __device__ candidate<T> operator()(const candidate<T>& a, const candidate<T>& b) const {
    return select<Max>(a, b, comp);
  }
};

// The position a candidate holds: what min_element / max_element return.
struct position_of {
  template <class T>
  __host__ __device__ offset_t operator()(const candidate<T>& c) const { return c.index; }
};

// minmax_element's state over a run of pairs: the min candidate (position,
// value, rank), the max candidate, and flags: what the max holds (nothing, a
// value, or a NaN candidate, which the next candidate replaces) and whether
// the run holds a NaN candidate (then what precedes it no longer matters).
// Flat and without padding for 4- and 8-byte values: it is the reduce's
// accumulator, kept in registers by the row.
enum minmax_flags : int { max_none = 0, max_value = 1, max_nan = 2, max_kinds = 3, max_reset = 4 };
template <class T>
struct minmax_state {
  offset_t min_index;
  offset_t max_index;
  T min;
  T max;
  int min_rank;
  int flags;
};

template <class T>
__host__ __device__ minmax_state<T> empty_minmax() {
  minmax_state<T> s{};
  s.min_rank = kRankNone;
  s.flags = max_none;
  return s;
}

// The pair (a, b) = (x[2k], x[2k+1]), as libstdc++ splits it.
#pragma nv_exec_check_disable
template <class Comp, class T>
__host__ __device__ minmax_state<T> summarize_pair(offset_t k, const T& a, const T& b, const Comp& comp) {
  const offset_t i = 2 * k;
  const bool b_less = comp(b, a);
  minmax_state<T> s;
  s.min_index = b_less ? i + 1 : i;
  s.min = b_less ? b : a;
  s.min_rank = make_candidate<Comp>(s.min_index, s.min).rank;
  s.max_index = b_less ? i : i + 1;
  s.max = b_less ? a : b;
  s.flags = is_nan_under<Comp>(s.max) ? (max_nan | max_reset) : max_value;
  return s;
}

// Pair k of any iterator, read item by item.
template <class Comp, class It>
struct to_minmax_pair {
  It x;
  Comp comp;
#pragma nv_exec_check_disable
  __host__ __device__ minmax_state<value_t<It>> operator()(offset_t k) const {
    return summarize_pair(k, x[2 * k], x[2 * k + 1], comp);
  }
};

// An array whose pairs start on a boundary of their size, seen as an array of
// pairs: one load per pair, two per 16-byte vector for 4-byte items.
template <class T>
struct alignas(2 * sizeof(T)) pair_of {
  T a, b;
};
template <class Comp, class T>
struct from_pair {
  Comp comp;
  __host__ __device__ minmax_state<T> operator()(offset_t k, const pair_of<T>& p) const {
    return summarize_pair(k, p.a, p.b, comp);
  }
};

template <class Comp>
struct combine_minmax {
  Comp comp;
#pragma nv_exec_check_disable
  template <class T>
  __host__ __device__ minmax_state<T> operator()(const minmax_state<T>& a, const minmax_state<T>& b) const {
    minmax_state<T> r = a;
    const bool b_min = a.min_rank != b.min_rank ? b.min_rank < a.min_rank : a.min_rank == 1 && comp(b.min, a.min);
    if (b_min) {
      r.min_index = b.min_index;
      r.min = b.min;
      r.min_rank = b.min_rank;
    }
    const int a_kind = a.flags & max_kinds, b_kind = b.flags & max_kinds;
    const bool b_max = (b.flags & max_reset) || (b_kind != max_none && (a_kind != max_value || !comp(b.max, a.max)));
    if (b_max) {
      r.max_index = b.max_index;
      r.max = b.max;
    }
    r.flags = (b_max ? b_kind : a_kind) | ((a.flags | b.flags) & max_reset);
    return r;
  }
};

// The answer: positions of the min and the max, after placing the lone last
// item of an odd n (read here, once) as libstdc++ does. n >= 2, so the state
// holds at least one pair.
struct minmax_positions {
  offset_t min;
  offset_t max;
};
template <class Comp, class It>
struct resolve_minmax {
  It x;
  offset_t n;
  Comp comp;
#pragma nv_exec_check_disable
  __host__ __device__ minmax_positions operator()(const minmax_state<value_t<It>>& s) const {
    minmax_positions p{s.min_index, s.max_index};
    if (n % 2 == 1) {
      const value_t<It> lone = x[n - 1];
      if (comp(lone, s.min)) p.min = n - 1;
      else if (!comp(lone, s.max)) p.max = n - 1;
    }
    return p;
  }
};

}  // namespace cascade::detail
