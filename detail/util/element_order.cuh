#pragma once
// min_element, max_element and minmax_element as order-preserving reduces:
// the items are candidates (value and position) and the operators select
// among them exactly as the standard library's left-to-right loops would.
//
// With a strict weak order, "keep the earlier unless the later is strictly
// better" is associative, so any tree of it agrees with std's loop. A NaN
// under < or > (comparing false with everything) breaks that: std's
// min_element keeps a NaN found at position 0 (nothing compares less) and
// never picks one found later, so (1, NaN, 0) gives 0, while a tree that
// first selects within (NaN, 0) keeps the NaN and then the 1. So NaNs are
// left out of the selection (a total order again: values by comp, then
// position), and a NaN at position 0 is placed when the answer is read
// (position_of): it is the answer whatever follows.
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
#include <cascade/detail/primitives/shuffle.cuh>
#include <cascade/detail/primitives/tile_status.cuh>
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

// min_element's and max_element's candidates: a value and its position.
// Index is 32-bit where every position fits (fewer registers in the reduce,
// and a candidate of up to 12 bytes travels in one status word), else 64.
// The reduce's init is `none`, which any candidate replaces. A NaN under
// less or greater enters as none too (std's loop never picks one after
// position 0), and a NaN at position 0, which std's loop keeps (nothing
// compares less), is placed by the answer's resolver (position_of,
// place_tail): no NaN test in the selection.
template <class T, class Index = std::uint64_t>
struct candidate {
  T value;
  Index index;
  static constexpr Index none = ~Index(0);  // never a position: n <= ~Index(0)

  // As a launch argument (the reduce's init), its members' bytes without the
  // tail padding, so that a repeated call's launch compares equal
  // (util/launch.cuh).
  template <class Buffer>
  void append_members(Buffer& b) const {
    b.append(value);
    b.append(index);
  }
};

// Its tail padding stays out of the status words (a double and a 32-bit
// position publish 12 bytes, in one word with the tag).
template <class T, class Index>
struct status_payload<candidate<T, Index>>
    : ::cuda::std::integral_constant<std::size_t, (sizeof(T) + alignof(Index) - 1) / alignof(Index) * alignof(Index) +
                                                      sizeof(Index)> {};

// The position type for n items: 32 bits where they fit.
template <class F>
decltype(auto) with_index_for(offset_t n, F&& f) {
  if (n <= offset_t(~std::uint32_t(0))) return f(std::uint32_t{});
  return f(std::uint64_t{});
}

// The candidate b replaces a when a is none, or b is not none and b is
// strictly better by comp (smaller, comp(b, a), for a min; larger, comp(a,
// b), for a max), or equivalent and earlier. With the position as the last key this is a
// total order: any tree and any order of the candidates select std's, so
// the operator commutes and the reduce lets each lane fold its own share of
// every row (one warp reduction per batch instead of one per row).
//
// Written as booleans and one select, without branches: as if-returns, nvcc
// made three branches of every item's selection (sm_90 SASS), and the
// kernel issued 1.6x CUB's instructions per item (H200, int32 2^28: 70% of
// the DRAM bandwidth, against CUB's ArgMin at 92%; Nsight Compute).
#pragma nv_exec_check_disable
template <bool Max, class Comp, class T, class Index>
__host__ __device__ candidate<T, Index> select(const candidate<T, Index>& a, const candidate<T, Index>& b,
                                               const Comp& comp) {
  using c = candidate<T, Index>;
  const bool b_better = bool(Max ? comp(a.value, b.value) : comp(b.value, a.value));
  const bool a_better = bool(Max ? comp(b.value, a.value) : comp(a.value, b.value));
  const bool take_b = (a.index == c::none) | ((b.index != c::none) & (b_better | (!a_better & (b.index < a.index))));
  return take_b ? b : a;
}

// Item i as a candidate: none where it is a NaN under less or greater.
template <class Comp, class T, class Index>
__host__ __device__ candidate<T, Index> make_candidate(offset_t i, const T& x) {
  return {x, is_nan_under<Comp>(x) ? candidate<T, Index>::none : static_cast<Index>(i)};
}

// x -> candidate, for the element reduces.
template <class Comp, class T, class Index = std::uint64_t>
struct to_candidate {
  __host__ __device__ candidate<T, Index> operator()(offset_t i, const T& x) const {
    return make_candidate<Comp, T, Index>(i, x);
  }
};

// select<Max>(a, b) where every item behind a comes before b's (a thread
// folding its own items in order): an equivalent b is later, so it never
// wins, and only the values are compared (one comparison instead of two, no
// positions); a none (a NaN's candidate) exists only for NaN-aware types.
#pragma nv_exec_check_disable
template <bool Max, class Comp, class T, class Index>
__host__ __device__ candidate<T, Index> select_later(const candidate<T, Index>& a, const candidate<T, Index>& b,
                                                     const Comp& comp) {
  bool take_b = bool(Max ? comp(a.value, b.value) : comp(b.value, a.value));
  if constexpr (nan_aware_v<Comp, T>) {
    using c = candidate<T, Index>;
    take_b = (a.index == c::none) | ((b.index != c::none) & take_b);
  }
  return take_b ? b : a;
}

// min_element: the first smallest. max_element: the first largest. InOrder:
// the form for a thread's fold of its own items in order (select_later).
template <class Comp, bool Max, bool InOrder = false>
struct select_first {
  Comp comp;
  template <class Buffer>
  void append_members(Buffer& b) const {  // launch bytes: the comparator's own (see place_tail)
    b.append(comp);
  }
  template <class T, class Index>
  __host__ __device__ candidate<T, Index> operator()(const candidate<T, Index>& a,
                                                     const candidate<T, Index>& b) const {
    if constexpr (InOrder) return select_later<Max>(a, b, comp);
    else return select<Max>(a, b, comp);
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
// or greater gives way to any other value (none if all are NaN). Per item one comparison and two
// selects instead of a whole candidate's selection (docs/performance.md).
template <class Comp, bool Max, class T, class Index = std::uint64_t>
struct from_run {
  Comp comp;
  template <class Buffer>
  void append_members(Buffer& b) const {  // launch bytes: the comparator's own (see place_tail)
    b.append(comp);
  }
#pragma nv_exec_check_disable
  __host__ __device__ candidate<T, Index> operator()(offset_t k, const run_of<T>& r) const {
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
    return make_candidate<Comp, T, Index>(k * run_of<T>::size + at, best);
  }
};

// The answer of a reduce of candidates, as a position: x[0] when it is a NaN
// under less or greater (std's loop keeps it), else the candidate's.
template <class Comp, class It>
struct position_of {
  It x;
#pragma nv_exec_check_disable
  template <class Index>
  __host__ __device__ offset_t operator()(const candidate<value_t<It>, Index>& c) const {
    if constexpr (nan_aware_v<Comp, value_t<It>>) {
      if (is_nan_under<Comp>(value_t<It>(x[0]))) return 0;
    }
    return static_cast<offset_t>(c.index);
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
  template <class Buffer>
  void append_members(Buffer& b) const {  // an empty comparator's byte is padding: see candidate
    b.append(x);
    b.append(from);
    b.append(n);
    b.append(comp);
  }
#pragma nv_exec_check_disable
  template <class Index>
  __host__ __device__ offset_t operator()(candidate<value_t<It>, Index> c) const {
    for (offset_t i = from; i < n; ++i) c = select<Max>(c, make_candidate<Comp, value_t<It>, Index>(i, x[i]), comp);
    return position_of<Comp, It>{x}(c);
  }
};

// minmax_element's state over a run of pairs: the min candidate, the max
// candidate, and flags: what the max holds (nothing, a value, or a NaN
// candidate, which the next candidate replaces) and whether the run holds a
// NaN candidate (then what precedes it no longer matters). The min is
// selected as min_element's (a NaN enters as none; a NaN at position 0 is
// placed by resolve_minmax). It is the reduce's accumulator, kept in registers by the
// row: 32-bit positions where they fit (20 bytes for 4-byte values).
enum minmax_flags : int { max_none = 0, max_value = 1, max_nan = 2, max_kinds = 3, max_reset = 4 };
template <class T, class Index = std::uint64_t>
struct minmax_state {
  candidate<T, Index> min;
  candidate<T, Index> max;
  int flags;
  template <class Buffer>
  void append_members(Buffer& b) const {  // see candidate
    b.append(min);
    b.append(max);
    b.append(flags);
  }
};

template <class T, class Index = std::uint64_t>
__host__ __device__ minmax_state<T, Index> empty_minmax() {
  minmax_state<T, Index> s{};
  s.min.index = candidate<T, Index>::none;
  s.flags = max_none;
  return s;
}

// The pair (a, b) = (x[2k], x[2k+1]), as libstdc++ splits it.
#pragma nv_exec_check_disable
template <class Index, class Comp, class T>
__host__ __device__ minmax_state<T, Index> summarize_pair(offset_t k, const T& a, const T& b, const Comp& comp) {
  const Index i = static_cast<Index>(2 * k);
  const bool b_less = comp(b, a);
  minmax_state<T, Index> s;
  s.min = make_candidate<Comp, T, Index>(b_less ? i + 1 : i, b_less ? b : a);
  s.max = {b_less ? a : b, b_less ? i : i + 1};
  s.flags = is_nan_under<Comp>(s.max.value) ? (max_nan | max_reset) : max_value;
  return s;
}

// Pair k of any iterator, read item by item.
template <class Comp, class It, class Index = std::uint64_t>
struct to_minmax_pair {
  It x;
  Comp comp;
  template <class Buffer>
  void append_members(Buffer& b) const {  // see place_tail
    b.append(x);
    b.append(comp);
  }
#pragma nv_exec_check_disable
  __host__ __device__ minmax_state<value_t<It>, Index> operator()(offset_t k) const {
    // (T named: x[i] may be a proxy, e.g. a thrust::device_reference under
    // cuda::permutation_iterator, whose copies in the state would not be values.)
    return summarize_pair<Index, Comp, value_t<It>>(k, x[2 * k], x[2 * k + 1], comp);
  }
};

// An array whose pairs start on a boundary of their size, seen as an array of
// pairs: one load per pair, two per 16-byte vector for 4-byte items. Only
// items of 1-8 bytes, a power of two, are read so; for others (a 12-byte
// float3, a 40-byte struct) pair_of keeps the item's alignment, since
// alignas(2 * sizeof(T)) would not be a power of two, and is never loaded.
template <class T>
inline constexpr bool loads_as_pairs_v = sizeof(T) <= 8 && (sizeof(T) & (sizeof(T) - 1)) == 0;
template <class T>
struct alignas(loads_as_pairs_v<T> ? 2 * sizeof(T) : alignof(T)) pair_of {
  T a, b;
};
template <class Comp, class T, class Index = std::uint64_t>
struct from_pair {
  Comp comp;
  template <class Buffer>
  void append_members(Buffer& b) const {  // launch bytes: the comparator's own (see place_tail)
    b.append(comp);
  }
  __host__ __device__ minmax_state<T, Index> operator()(offset_t k, const pair_of<T>& p) const {
    return summarize_pair<Index>(k, p.a, p.b, comp);
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
  template <class Buffer>
  void append_members(Buffer& b) const {  // launch bytes: the comparator's own (see place_tail)
    b.append(comp);
  }
#pragma nv_exec_check_disable
  template <class T, class Index>
  __host__ __device__ minmax_state<T, Index> operator()(const minmax_state<T, Index>& a,
                                                        const minmax_state<T, Index>& b) const {
    // Booleans and selects, no branches (see select above). The min: ties
    // go to the earlier position, which is a's when a precedes b.
    const bool a_value = (a.flags & max_kinds) == max_value;
    const int a_kind = a.flags & max_kinds, b_kind = b.flags & max_kinds;
    bool b_max;
    if constexpr (Unordered) {
      // Only values compete; NaN candidates left the flag behind.
      const bool b_larger = a_value & bool(comp(a.max.value, b.max.value));
      const bool a_larger = a_value & bool(comp(b.max.value, a.max.value));
      b_max = (b_kind == max_value) & (!a_value | b_larger | (!a_larger & (b.max.index > a.max.index)));
    } else {
      const bool b_below = a_value & bool(comp(b.max.value, a.max.value));
      b_max = bool(b.flags & max_reset) | ((b_kind != max_none) & !b_below);
    }
    minmax_state<T, Index> r;
    r.min = select<false>(a.min, b.min, comp);
    r.max = b_max ? b.max : a.max;
    r.flags = (b_max ? b_kind : a_kind) | ((a.flags | b.flags) & max_reset);
    return r;
  }
};

// combine_minmax<Comp, true>(a, b) where a's pairs all come before b's (a
// thread folding its own pairs in order): the min as select_later, and a
// later max candidate wins unless it is smaller (ties go to the later), so
// no positions are compared. Without NaN candidates (every type and
// comparator but less / greater on floating point) every state's max holds a
// value and the flags stay as they are.
template <class Comp>
struct combine_minmax_in_order {
  Comp comp;
#pragma nv_exec_check_disable
  template <class T, class Index>
  __host__ __device__ minmax_state<T, Index> operator()(const minmax_state<T, Index>& a,
                                                        const minmax_state<T, Index>& b) const {
    minmax_state<T, Index> r;
    r.min = select_later<false>(a.min, b.min, comp);
    bool b_max = !bool(comp(b.max.value, a.max.value));
    r.flags = a.flags;
    if constexpr (nan_aware_v<Comp, T>) {
      // Only values compete (see combine_minmax); NaN candidates left the flag.
      const int a_kind = a.flags & max_kinds, b_kind = b.flags & max_kinds;
      b_max = (b_kind == max_value) & ((a_kind != max_value) | b_max);
      r.flags = (b_max ? b_kind : a_kind) | ((a.flags | b.flags) & max_reset);
    }
    r.max = b_max ? b.max : a.max;
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
  template <class Buffer>
  void append_members(Buffer& b) const {  // see place_tail
    b.append(x);
    b.append(n);
    b.append(comp);
  }
#pragma nv_exec_check_disable
  template <class Index>
  __host__ __device__ minmax_positions operator()(const minmax_state<value_t<It>, Index>& s) const {
    using T = value_t<It>;
    minmax_positions p{static_cast<offset_t>(s.min.index), static_cast<offset_t>(s.max.index),
                       (s.flags & max_reset) != 0};
    T min = s.min.value;
    if constexpr (nan_aware_v<Comp, T>) {
      const T first = x[0];
      if (is_nan_under<Comp>(first)) {  // std keeps a NaN at position 0 as the min
        p.min = 0;
        min = first;
      }
    }
    if (n % 2 == 1) {
      const T lone = x[n - 1];
      if (comp(lone, min)) p.min = n - 1;
      else if (!comp(lone, s.max.value)) p.max = n - 1;
    }
    return p;
  }
};

}  // namespace cascade::detail

namespace cascade {
// The selections commute (see select and combine_minmax above).
template <class Comp, bool Max>
struct is_commutative<detail::select_first<Comp, Max, false>> : ::cuda::std::true_type {};
template <class Comp>
struct is_commutative<detail::combine_minmax<Comp, true>> : ::cuda::std::true_type {};
}  // namespace cascade

namespace cascade::detail {
// Candidates shuffle member by member (primitives/shuffle.cuh): no tail
// padding through the warp reductions. H100, Nsight Compute, the element
// kernels before / after: min_element int64 2^14 7.23 / 6.34 us, 2^20 6.75 /
// 6.08, 2^22 10.27 / 9.47, double 2^22 10.59 / 9.89. Not the minmax states:
// shuffled member by member, the 8-byte ones took 6.85 / 9.47 us at 2^14,
// 7.36 / 9.92 at 2^18 and 14.94 / 17.44 at 2^22 (ptxas used fewer registers
// and issued fewer instructions; why it ran slower is not known), so they
// keep the word-by-word path.
template <class T, class Index>
struct shuffle_members<candidate<T, Index>> : ::cuda::std::true_type {
  template <class F>
  __device__ static candidate<T, Index> apply(const candidate<T, Index>& c, F f) {
    return {f(c.value), f(c.index)};
  }
};

// Their in-order forms, for the reduce's folds of a thread's own items.
template <class Comp, bool Max>
struct in_order<select_first<Comp, Max, false>> {
  static __host__ __device__ select_first<Comp, Max, true> form(const select_first<Comp, Max, false>& op) {
    return {op.comp};
  }
};
template <class Comp>
struct in_order<combine_minmax<Comp, true>> {
  static __host__ __device__ combine_minmax_in_order<Comp> form(const combine_minmax<Comp, true>& op) {
    return {op.comp};
  }
};
}  // namespace cascade::detail
