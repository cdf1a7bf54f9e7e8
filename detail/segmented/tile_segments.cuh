#pragma once
// The numbered segments of one tile, staged in shared memory by its block
// before the tile's items are read (both segmented engines, tile_totals.cuh
// and masked_scan.cuh): the segments of the tile's first and last items (one
// search each, by two warps: 32 probes a round, so about log32(segments)
// dependent reads) and the begins of the segments between them (CSR
// offsets: read once, coalesced). Each thread then finds the segment starts
// among its consecutive items from the staging's marks of where segments
// begin (segment_starts): no search and no offset read per item.
//
// A tile with more segment starts than items (mostly empty segments) stages
// the first begins only; later ones are read from the offsets, and a walk
// that would step over more than two segments searches instead.

#include <cascade/detail/primitives/prefetch.cuh>
#include <cascade/detail/primitives/shuffle.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/math.cuh>
#include <cascade/detail/primitives/stage_each.cuh>

#include <cuda/std/limits>

namespace cascade::detail {

// A tile's segment ends: enough to tell where each segment in it begins.
template <class Id, offset_t TileItems>
struct segment_begins {
  static constexpr int capacity = int(TileItems) + 2;
  static_assert(TileItems + 2 <= 0xffff, "begins are staged in 16 bits");
  offset_t base;  // the tile's first item
  int begins;     // begin[k] holds segment first + k's begin, k < begins
  // Written before the staging's first barrier and read after it, while the
  // fields above and below are written: 16-byte units of their own, since
  // their reads may be merged into one 16-byte load (next to `begins`, that
  // load raced with its write).
  alignas(16) Id first;  // the segment of the tile's first item
  Id last;               // and of its last
  Id probed_first;  // warp 0's search's probes (probed_begins), -1 if none
  // begin(first + k) - base + 1, clamped to [0, TileItems + 2]: exact
  // inside the tile, and on the right side of every item outside it.
  alignas(16) unsigned short begin[capacity];
  // Where the tile spans at most `capacity` begins, the back of begin[]
  // marks where segments start, a byte an item: starts_at()[p] = 1 where
  // item base + p begins one (p <= TileItems), marked as the begins are
  // staged, and a thread reads its items' starts there (segment_starts).
  // Only the first marked_begins begins are kept then (more, as segments
  // of about an item give, are read from the offsets where asked for).
  // (Marks of their own, 4 KB more a block, took tiles of long segments
  // 1.12-1.16x the time: H200, 2^26.)
  static constexpr int marks_bytes = int(TileItems) + 16;
  static constexpr int marks_at = (int(sizeof(begin)) - marks_bytes) / 16 * 16;  // (bytes into begin[])
  static constexpr int marked_begins = marks_at / int(sizeof(unsigned short));
  static_assert(marks_at >= 0, "a tile's marks fit in its begins' storage");
  __device__ unsigned char* starts_at() { return reinterpret_cast<unsigned char*>(begin) + marks_at; }
  __device__ const unsigned char* starts_at() const { return reinterpret_cast<const unsigned char*>(begin) + marks_at; }
};

// The segmentation as one tile sees it: begin(j) from shared memory where
// staged, else from the segmentation itself (the same answers either way).
template <class Segments, offset_t TileItems>
struct staged_segments {
  using id_type = typename Segments::id_type;
  static constexpr bool stage_begins = Segments::stage_begins;
  Segments global;
  id_type segments;
  offset_t base;   // the tile's first item
  id_type first;   // its segment
  id_type last;    // the segment of the tile's last item
  int begins;      // the begins staged
  const segment_begins<id_type, TileItems>* tile;

  __device__ static staged_segments of(const Segments& segs, const segment_begins<id_type, TileItems>& s) {
    return {segs, segs.segments, s.base, s.first, s.last, s.begins, &s};
  }
  __device__ offset_t begin(id_type j) const {
    const id_type k = j - first;
    if (k >= 0 && k < id_type(begins)) return base + tile->begin[k] - 1;
    return global.begin(j);
  }
  // Whether the starts are marked in the tile's storage (stage_begins).
  __device__ bool marked() const {
    return stage_begins && last - first + 2 <= id_type(segment_begins<id_type, TileItems>::capacity);
  }
};

// The last segment in [lo, hi] that begins at or before i (begin(lo) <= i).
template <class View, class Id>
__device__ Id last_begun(const View& v, Id lo, Id hi, offset_t i) {
  while (hi > lo) {
    const Id mid = lo + (hi - lo + 1) / 2;
    if (v.begin(mid) <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Warp-collective: one round of the search below. Each lane probes a
// segment in (lo, hi], ascending with the lane; [lo, hi] narrows to the
// probes on either side of i.
// Returns the begin this lane probed.
template <class Segments, class Id>
__device__ offset_t warp_probe(const Segments& segs, Id probe, offset_t i, Id& lo, Id& hi) {
  const offset_t begin = segs.begin(probe);
  const int below = __popc(__ballot_sync(kFullMask, begin <= i));  // probes at or before i
  // Begins ascend, so the probes at or before i are lanes 0 .. below - 1.
  const Id last_at = shuffle_idx(probe, below > 0 ? below - 1 : 0);
  const Id first_after = shuffle_idx(probe, below < kWarpThreads ? below : kWarpThreads - 1);
  if (below > 0) lo = last_at;
  if (below < kWarpThreads) hi = first_after - 1;
  return begin;
}

// Warp-collective: the same as last_begun, by 32 ascending probes in
// (lo, hi] a round; every lane returns it.
template <class Segments, class Id>
__device__ Id warp_last_begun(const Segments& segs, Id lo, Id hi, offset_t i) {
  const int lane = lane_id();
  while (hi > lo) {
    warp_probe(segs, Id(lo + Id((offset_t(hi - lo) * (lane + 1) + kWarpThreads - 1) / kWarpThreads)), i, lo, hi);
  }
  return lo;
}

// The segment of item i: a division for fixed sizes, a warp's search of
// the offsets (warp-collective either way). The search's first round probes
// the 32 segments around the segmentation's guess: where segments are of
// even length that round finds it, instead of log32(segments) rounds of
// dependent reads. Where it misses (lengths that vary), the search goes on
// from the side of the guess it missed on, or (SearchOver, the tuning's
// search_over_after_miss) starts over from all segments: its rounds then
// probe the same segments for every tile whose item lies in the same
// bracket, which the tiles before have brought to L2, where brackets
// narrowed from each tile's guess are its own.
//
// probed: where that first round's probes were 32 consecutive segments, the
// first of them (else -1), and this lane's begin: the tile's staging can take
// its begins from there (stage_begins).
template <class Id>
struct probed_begins {
  Id first = Id(-1);
  offset_t begin = 0;  // begin(first + lane)
};
template <bool SearchOver, class Segments>
__device__ typename Segments::id_type warp_segment_of(const Segments& segs, offset_t i,
                                                      probed_begins<typename Segments::id_type>* probed = nullptr) {
  using Id = typename Segments::id_type;
  if constexpr (Segments::stage_begins) {
    Id lo = 0, hi = Id(segs.segments - 1);
    if (hi > lo) {
      const Id probe = clamp_to<Id>(segs.guess(i) - Id(kWarpThreads / 2) + Id(lane_id()), Id(lo + 1), hi);
      const offset_t begin = warp_probe(segs, probe, i, lo, hi);
      const Id first = shuffle_idx(probe, 0);
      if (probed != nullptr && __all_sync(kFullMask, probe == first + Id(lane_id()))) *probed = {first, begin};
      if (SearchOver && hi > lo) lo = 0, hi = Id(segs.segments - 1);  // missed: over from all segments
    }
    return warp_last_begun(segs, lo, hi, i);
  } else {
    return segs.segment_of(i);
  }
}

// Block-wide: stages the ends and begins of the tile [base, base + valid)
// of `segs`; the view answers begin().
// Each thread keeps up to Batch begins in flight (registers: 2 per begin).
template <offset_t TileItems, int Batch, bool SearchOver, class Segments>
__device__ staged_segments<Segments, TileItems> stage_begins(
    const Segments& segs, offset_t base, int valid, segment_begins<typename Segments::id_type, TileItems>& s) {
  using Id = typename Segments::id_type;
  // No starts marked yet (the staging below marks them, after the barrier;
  // a tile of more begins than `capacity` overwrites these zeros with them).
  for (int p = static_cast<int>(threadIdx.x) * 16; p < s.marks_bytes; p += static_cast<int>(blockDim.x) * 16) {
    *reinterpret_cast<uint4*>(s.starts_at() + p) = uint4{0u, 0u, 0u, 0u};
  }
  // Warps 0 and 1 (warp 0 alone in a block of one warp) find the tile's ends.
  const int warp = warp_id(), last_warp = blockDim.x > kWarpThreads ? 1 : 0;
  probed_begins<Id> probed;
  if (warp == 0) {
    const Id first = warp_segment_of<SearchOver>(segs, base, &probed);
    if (lane_id() == 0) {
      s.first = first;
      s.probed_first = probed.first;
    }
  }
  if (warp == last_warp) {
    const Id last = warp_segment_of<SearchOver>(segs, base + valid - 1);
    if (lane_id() == 0) s.last = last;
  }
  __syncthreads();
  const Id first = s.first, last = s.last;
  // Every begin the tile spans is read and marked where they number at most
  // its items and two, and the first marked_begins of them kept (later ones
  // are read from the offsets again where asked for: their room holds the
  // marks); more (mostly empty segments) are staged up to the capacity,
  // unmarked.
  const Id spanned = last - first + 2;
  const bool marking = spanned <= Id(s.capacity);
  const int read = int(min_of<Id>(spanned, Id(s.capacity)));
  const int begins = marking ? min_of(read, int(s.marked_begins)) : read;
  unsigned char* const marks = s.starts_at();
  auto stage = [&](int k, offset_t begin) {
    if (k < begins) s.begin[k] = static_cast<unsigned short>(clamp_to<offset_t>(begin - base + 1, 0, TileItems + 2));
    if (marking && begin >= base && begin - base <= TileItems) marks[begin - base] = 1;
  };
  // Where warp 0's probes hold every begin the tile needs (segments of about
  // a tile or longer), it stages them from its registers: one round trip
  // fewer before the tile's segments are known.
  const Id probed_first = s.probed_first;
  if (probed_first >= 0 && probed_first <= first && first + Id(read) <= probed_first + Id(kWarpThreads)) {
    const int k = lane_id() - int(first - probed_first);
    if (warp == 0 && k >= 0 && k < read) stage(k, probed.begin);
  } else {
    stage_each<Batch>(read, [&](int k) { return segs.begin(first + Id(k)); }, stage);
  }
  if (threadIdx.x == 0) {
    s.base = base;
    s.begins = begins;
  }
  __syncthreads();
  return staged_segments<Segments, TileItems>::of(segs, s);
}

// The tile's view for a kernel that needs begin() only: staged where the
// segmentation reads memory (CSR offsets), else (fixed sizes) computed by
// every thread, with no shared memory and no barrier.
template <offset_t TileItems, int Batch, bool SearchOver, class Segments>
__device__ staged_segments<Segments, TileItems> tile_view(
    const Segments& segs, offset_t base, int valid, segment_begins<typename Segments::id_type, TileItems>& s) {
  if constexpr (Segments::stage_begins) {
    return stage_begins<TileItems, Batch, SearchOver>(segs, base, valid, s);
  } else {
    return {segs, segs.segments, base, segs.segment_of(base), segs.segment_of(base + valid - 1), 0, nullptr};
  }
}

// Asks L2 for the segment begins that the tile prefetch_tile asks for will
// search and stage (the block's last thread, beside thread 0's values),
// where they number Tuning::begins_prefetch_min..max. A hint; `segs`:
// numbered segments or a scan's heads (prefetch).
template <class Tuning, offset_t TileItems, class Value, class Segments>
__device__ __forceinline__ void prefetch_segments(const Segments& segs, offset_t n, offset_t tile) {
  if constexpr (Tuning::prefetch_bytes > 0 && Tuning::begins_prefetch_max > 0) {
    const offset_t first = tile_ahead<Tuning, TileItems, Value>(tile) * TileItems;
    if (threadIdx.x != blockDim.x - 1 || first >= n) return;
    segs.prefetch(first, min_of(n, first + TileItems) - 1, Tuning::begins_prefetch_min, Tuning::begins_prefetch_max);
  }
}

// Walking a thread's consecutive items with the next segment's begin at
// hand: a compare per item, a search only past two segment ends.
// first_segment: the segment of item i (a search of the staged begins, or a
// division); next_segment: that of item i, the first item past segment j
// (j < last; skips the empty segments between).
template <class View, class Segments>
__device__ typename View::id_type first_segment(const View& view, const Segments& segs, typename View::id_type first,
                                                typename View::id_type last, offset_t i) {
  return Segments::stage_begins ? last_begun(view, first, last, i) : segs.segment_of(i);
}
template <class View, class Id>
__device__ Id next_segment(const View& view, Id j, Id last, offset_t i) {
  return j + 1 < last && view.begin(j + 2) <= i ? last_begun(view, Id(j + 2), last, i) : Id(j + 1);
}
// The begin of segment j + 1: where j ends (never, past the tile's last).
template <class View, class Id>
__device__ offset_t end_of(const View& view, Id j, Id last) {
  return j < last ? view.begin(j + 1) : ::cuda::std::numeric_limits<offset_t>::max();
}

// Where segments start among the `count` items from i0 of a tile (its view,
// a thread's consecutive items): bit k set where item i0 + k begins a
// segment, read from the staging's marks, else (fixed sizes, or a tile of
// more segments than items and two: mostly empty ones) by a walk over the
// segment ends, not the items. `last_ends`: whether item i0 + count - 1 is
// its segment's last.
struct thread_starts {
  unsigned starts;
  bool last_ends;
};
// Bit k: whether marks[k] (0 or 1) is set, for k < Items; `marks` at a
// thread's first item, a multiple of Items into the tile (so whole words
// where Items % 4 == 0). Four marks a word: the multiplication moves byte
// b's bit to bit 24 + b, and no two of its terms meet.
template <int Items>
__device__ __forceinline__ unsigned marked_bits(const unsigned char* marks) {
  unsigned bits = 0;
  if constexpr (Items % 4 == 0) {
#pragma unroll
    for (int w = 0; w < Items; w += 4) {
      const unsigned word = *reinterpret_cast<const unsigned*>(marks + w);
      bits |= ((word * 0x01020408u) >> 24 & 0xfu) << w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < Items; ++k) bits |= unsigned(marks[k]) << k;
  }
  return bits;
}
// A thread of Items items per thread (its first, i0, at a multiple of
// Items in the tile).
template <int Items, class View, class Segments>
__device__ thread_starts segment_starts(const View& view, const Segments& segs, offset_t i0, int count) {
  using Id = typename View::id_type;
  thread_starts t{0u, false};
  if (count <= 0) return t;
  // Where the staging marked the starts, they are read, not walked to: a
  // search and a step per segment fewer. H200, 2^26, segmented_reduce by
  // offsets and segmented_inclusive_scan in segments of 1-256 items, half
  // empty and power law: about 0.75-0.9x the time (docs/segmented.md).
  if (view.marked()) {
    const int p = static_cast<int>(i0 - view.base);
    const unsigned char* marks = view.tile->starts_at();
    const unsigned bits = marked_bits<Items>(marks + p);
    t.starts = count < Items ? bits & ((1u << count) - 1) : bits;
    t.last_ends = marks[p + count] != 0;
    return t;
  }
  const Id last = view.last;
  Id j = first_segment(view, segs, view.first, last, i0);
  if (view.begin(j) == i0) t.starts = 1;
  for (offset_t next = end_of(view, j, last); next < i0 + count; next = end_of(view, j, last)) {
    t.starts |= 1u << int(next - i0);
    j = next_segment(view, j, last, next);
  }
  t.last_ends = view.begin(j + 1) == i0 + count;  // (j < segments: begin(j + 1) exists)
  return t;
}

}  // namespace cascade::detail
