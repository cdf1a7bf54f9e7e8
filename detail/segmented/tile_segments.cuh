#pragma once
// The numbered segments of one tile, staged in shared memory by its block
// before the tile's items are read (the scan engine's per-tile prologue,
// primitives/tile_staging.cuh): the segments of the tile's first and last
// items (one search each, by two warps: 32 probes a round, so about
// log32(segments) dependent reads), the begins of the segments
// between them (CSR offsets: read once, coalesced), and each item's segment,
// written by the thread that owns it walking its consecutive items. Items
// then read their segment from shared memory, and the output policies their
// segment ends: no search and no offset read per item.
//
// A tile with more segment starts than items (mostly empty segments) stages
// the first begins only; later ones are read from the offsets, and a walk
// that would step over more than two segments searches instead.

#include <cascade/detail/primitives/shuffle.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/math.cuh>
#include <cascade/detail/primitives/tile_staging.cuh>

#include <cuda/std/limits>

namespace cascade::detail {

// A tile's segment ends: enough to tell where each segment in it begins.
template <class Id, offset_t TileItems>
struct segment_begins {
  static constexpr int capacity = int(TileItems) + 2;
  static_assert(TileItems + 2 <= 0xffff, "begins are staged in 16 bits");
  offset_t base;  // the tile's first item
  int begins;     // begin[k] holds segment first + k's begin, k < begins
  Id first, last;  // the segments of the tile's first and last items
  // begin(first + k) - base + 1, clamped to [0, TileItems + 2]: exact
  // inside the tile, and on the right side of every item outside it.
  unsigned short begin[capacity];
};

// ... and each item's segment.
template <class Id, offset_t TileItems>
struct segment_tile : segment_begins<Id, TileItems> {
  Id segment[TileItems];  // item base + p lies in segment first + segment[p]
};

// The segmentation as one tile sees it: segment_of for the tile's own items
// only (the engine reads nothing else through a tile's view), from shared
// memory with no check; begin(j) from shared memory where staged, else from
// the segmentation itself (the same answers either way).
template <class Segments, offset_t TileItems>
struct staged_segments {
  using id_type = typename Segments::id_type;
  static constexpr bool stage_begins = Segments::stage_begins;
  template <offset_t N>
  using tile_storage = segment_tile<id_type, N>;  // (a staged view is not staged again)
  Segments global;
  id_type segments;
  offset_t base;   // the tile's first item
  id_type first;   // its segment
  id_type last;    // the segment of the tile's last item
  int begins;      // the begins staged
  const segment_begins<id_type, TileItems>* tile;
  const id_type* segment;  // the items' segments, where staged

  __device__ static staged_segments of(const Segments& segs, const segment_begins<id_type, TileItems>& s,
                                       const id_type* segment = nullptr) {
    return {segs, segs.segments, s.base, s.first, s.last, s.begins, &s, segment};
  }
  __device__ static staged_segments of(const Segments& segs, const segment_tile<id_type, TileItems>& s) {
    return of(segs, s, s.segment);
  }
  __device__ offset_t begin(id_type j) const {
    const id_type k = j - first;
    if (k >= 0 && k < id_type(begins)) return base + tile->begin[k] - 1;
    return global.begin(j);
  }
  __device__ id_type segment_of(offset_t i) const { return first + segment[int(i - base)]; }
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
template <class Segments, class Id>
__device__ void warp_probe(const Segments& segs, Id probe, offset_t i, Id& lo, Id& hi) {
  const int below = __popc(__ballot_sync(kFullMask, segs.begin(probe) <= i));  // probes at or before i
  // Begins ascend, so the probes at or before i are lanes 0 .. below - 1.
  const Id last_at = shuffle_idx(probe, below > 0 ? below - 1 : 0);
  const Id first_after = shuffle_idx(probe, below < kWarpThreads ? below : kWarpThreads - 1);
  if (below > 0) lo = last_at;
  if (below < kWarpThreads) hi = first_after - 1;
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
// dependent reads; elsewhere it narrows the search as any round does.
template <class Segments>
__device__ typename Segments::id_type warp_segment_of(const Segments& segs, offset_t i) {
  using Id = typename Segments::id_type;
  if constexpr (Segments::stage_begins) {
    Id lo = 0, hi = Id(segs.segments - 1);
    if (hi > lo) warp_probe(segs, clamp_to<Id>(segs.guess(i) - Id(kWarpThreads / 2) + Id(lane_id()), Id(lo + 1), hi), i, lo, hi);
    return warp_last_begun(segs, lo, hi, i);
  } else {
    return segs.segment_of(i);
  }
}

// Block-wide: stages the ends and begins of the tile [base, base + valid)
// of `segs`; the view answers begin() (segment_of needs stage_segments).
// Each thread keeps up to Batch begins in flight (registers: 2 per begin).
template <offset_t TileItems, int Batch = 24, class Segments>
__device__ staged_segments<Segments, TileItems> stage_begins(
    const Segments& segs, offset_t base, int valid, segment_begins<typename Segments::id_type, TileItems>& s) {
  using Id = typename Segments::id_type;
  // Warps 0 and 1 (warp 0 alone in a block of one warp) find the tile's ends.
  const int warp = warp_id(), last_warp = blockDim.x > kWarpThreads ? 1 : 0;
  if (warp == 0) {
    const Id first = warp_segment_of(segs, base);
    if (lane_id() == 0) s.first = first;
  }
  if (warp == last_warp) {
    const Id last = warp_segment_of(segs, base + valid - 1);
    if (lane_id() == 0) s.last = last;
  }
  __syncthreads();
  const Id first = s.first, last = s.last;
  const int begins = Segments::stage_begins ? int(min_of<Id>(last - first + 2, Id(s.capacity))) : 0;
  stage_each<Batch>(begins, [&](int k) { return segs.begin(first + Id(k)) - base + 1; },
                 [&](int k, offset_t b) { s.begin[k] = static_cast<unsigned short>(clamp_to<offset_t>(b, 0, TileItems + 2)); });
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
template <offset_t TileItems, int Batch, class Segments>
__device__ staged_segments<Segments, TileItems> tile_view(
    const Segments& segs, offset_t base, int valid, segment_begins<typename Segments::id_type, TileItems>& s) {
  if constexpr (Segments::stage_begins) {
    return stage_begins<TileItems, Batch>(segs, base, valid, s);
  } else {
    return {segs, segs.segments, base, segs.segment_of(base), segs.segment_of(base + valid - 1), 0, nullptr, nullptr};
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

// Block-wide: stages the tile [base, base + valid) of `segs`, each item's
// segment included.
template <offset_t TileItems, class Segments>
__device__ staged_segments<Segments, TileItems> stage_segments(
    const Segments& segs, offset_t base, int valid, segment_tile<typename Segments::id_type, TileItems>& s) {
  using Id = typename Segments::id_type;
  const auto ends = stage_begins<TileItems>(segs, base, valid, s);
  const Id first = s.first, last = s.last;
  const int per = int(TileItems) / int(blockDim.x);
  const int p0 = int(threadIdx.x) * per;
  const int count = clamp_to(valid - p0, 0, per);
  if (count > 0) {
    Id j = first_segment(ends, segs, first, last, base + p0);
    offset_t next = end_of(ends, j, last);
    for (int k = 0; k < count; ++k) {
      const offset_t i = base + p0 + k;
      if (i >= next) {
        j = next_segment(ends, j, last, i);
        next = end_of(ends, j, last);
      }
      s.segment[p0 + k] = j - first;
    }
  }
  __syncthreads();
  return staged_segments<Segments, TileItems>::of(segs, s);
}

}  // namespace cascade::detail
