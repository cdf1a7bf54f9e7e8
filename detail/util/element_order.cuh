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

#include <cascade/functional.cuh>
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

// The candidate b replaces a when it ranks better, or ranks alike as an
// ordinary value and is strictly better by comp (smaller, comp(b, a), for a
// min; larger, comp(a, b), for a max), or is equivalent and earlier. With the
// position as the last key this is a total order: any tree and any order of
// the candidates select std's, so the operator commutes and the reduce lets
// each lane fold its own share of every row (one warp reduction per batch
// instead of one per row).
//
// Written as one boolean and one select, without branches: as if-returns,
// nvcc made three branches of every item's selection (sm_90 SASS), and the
// kernel issued 1.6x CUB's instructions per item (H200, int32 2^28: 70% of
// the DRAM bandwidth, against CUB's ArgMin at 92%; Nsight Compute).
#pragma nv_exec_check_disable
template <bool Max, class Comp, class T>
__host__ __device__ candidate<T> select(const candidate<T>& a, const candidate<T>& b, const Comp& comp) {
  const bool ordinary = a.rank == 1;
  const bool b_better = ordinary & bool(Max ? comp(a.value, b.value) : comp(b.value, a.value));
  const bool a_better = ordinary & bool(Max ? comp(b.value, a.value) : comp(a.value, b.value));
  const bool take_b = a.rank != b.rank ? b.rank < a.rank : b_better | (!a_better & (b.index < a.index));
  return take_b ? b : a;
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

// A run of items on a 16-byte boundary, read as one load: min_element and
// max_element select within each run first (from_run), so that the reduce
// combines one candidate per 16 bytes instead of one per item.
template <class T>
struct alignas(16) run_of {
  static constexpr int size = 16 / sizeof(T);
  T v[size];
};

// Run k's candidate: its first best item, as std's loop over the run (a later
// item replaces the best only when strictly better), where a NaN under less
// or greater gives way to any ordinary value; a NaN at position 0 is kept
// (rank 0), as make_candidate ranks it. Per item one comparison and two
// selects instead of a whole candidate's selection (docs/performance.md).
template <class Comp, bool Max, class T>
struct from_run {
  Comp comp;
#pragma nv_exec_check_disable
  __host__ __device__ candidate<T> operator()(offset_t k, const run_of<T>& r) const {
    T best = r.v[0];
    int at = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int j = 1; j < run_of<T>::size; ++j) {
      const T& x = r.v[j];
      bool take = Max ? comp(best, x) : comp(x, best);
      if constexpr (nan_aware_v<Comp, T>) take |= is_nan_under<Comp>(best) & !is_nan_under<Comp>(x);
      best = take ? x : best;
      at = take ? j : at;
    }
    const offset_t first = k * run_of<T>::size;
    if (first == 0 && is_nan_under<Comp>(r.v[0])) return make_candidate<Comp>(0, r.v[0]);
    return make_candidate<Comp>(first + at, best);
  }
};

// The answer of a reduce of runs: the items after the last whole run
// ([from, n), fewer than a run) placed after it, in order; then the position.
template <class Comp, bool Max, class It>
struct place_tail {
  It x;
  offset_t from;
  offset_t n;
  Comp comp;
#pragma nv_exec_check_disable
  __host__ __device__ offset_t operator()(candidate<value_t<It>> c) const {
    for (offset_t i = from; i < n; ++i) c = select<Max>(c, make_candidate<Comp>(i, value_t<It>(x[i])), comp);
    return c.index;
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

// Two ways to combine the states of runs of pairs.
//
// Ordered (Unordered = false): a is the run before b. The max is a "reset"
// monoid: a run holding a NaN candidate decides the max alone. Exact for
// every input, but it does not commute, so the reduce reduces each row
// across the warp to keep the order.
//
// Unordered: a and b are any two disjoint sets of pairs. Ties go to the
// smaller position for the min and the larger for the max, so the min and
// the max are total orders and the operator commutes. A NaN max candidate
// cannot be placed this way (after one, the next candidate always replaces
// the max): it is only flagged (max_reset), and a call whose answer carries
// the flag runs the ordered reduce instead. Without NaN candidates (every
// type and comparator but less / greater on floating point) the two agree.
template <class Comp, bool Unordered = false>
struct combine_minmax {
  Comp comp;
#pragma nv_exec_check_disable
  template <class T>
  __host__ __device__ minmax_state<T> operator()(const minmax_state<T>& a, const minmax_state<T>& b) const {
    // Booleans and selects, no branches (see select above).
    const bool ordinary = a.min_rank == 1;
    const bool b_smaller = ordinary & bool(comp(b.min, a.min));
    bool b_min;
    if constexpr (Unordered) {
      const bool a_smaller = ordinary & bool(comp(a.min, b.min));
      b_min = a.min_rank != b.min_rank ? b.min_rank < a.min_rank
                                       : b_smaller | (!a_smaller & (b.min_index < a.min_index));
    } else {
      b_min = a.min_rank != b.min_rank ? b.min_rank < a.min_rank : b_smaller;
    }
    const int a_kind = a.flags & max_kinds, b_kind = b.flags & max_kinds;
    const bool a_value = a_kind == max_value;
    bool b_max;
    if constexpr (Unordered) {
      // Only values compete; NaN candidates left the flag behind.
      const bool b_larger = a_value & bool(comp(a.max, b.max));
      const bool a_larger = a_value & bool(comp(b.max, a.max));
      b_max = (b_kind == max_value) & (!a_value | b_larger | (!a_larger & (b.max_index > a.max_index)));
    } else {
      const bool b_below = a_value & bool(comp(b.max, a.max));
      b_max = bool(b.flags & max_reset) | ((b_kind != max_none) & !b_below);
    }
    minmax_state<T> r;
    r.min_index = b_min ? b.min_index : a.min_index;
    r.min = b_min ? b.min : a.min;
    r.min_rank = b_min ? b.min_rank : a.min_rank;
    r.max_index = b_max ? b.max_index : a.max_index;
    r.max = b_max ? b.max : a.max;
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
  int nan_max;  // the state held a NaN max candidate: an unordered reduce's max is not std's
};
template <class Comp, class It>
struct resolve_minmax {
  It x;
  offset_t n;
  Comp comp;
#pragma nv_exec_check_disable
  __host__ __device__ minmax_positions operator()(const minmax_state<value_t<It>>& s) const {
    minmax_positions p{s.min_index, s.max_index, (s.flags & max_reset) != 0};
    if (n % 2 == 1) {
      const value_t<It> lone = x[n - 1];
      if (comp(lone, s.min)) p.min = n - 1;
      else if (!comp(lone, s.max)) p.max = n - 1;
    }
    return p;
  }
};

}  // namespace cascade::detail

namespace cascade {
// The selections commute (see select and combine_minmax above).
template <class Comp, bool Max>
struct is_commutative<detail::select_first<Comp, Max>> : ::cuda::std::true_type {};
template <class Comp>
struct is_commutative<detail::combine_minmax<Comp, true>> : ::cuda::std::true_type {};
}  // namespace cascade
