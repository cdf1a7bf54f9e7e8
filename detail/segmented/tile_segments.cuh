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

template <class Id, offset_t TileItems>
struct segment_tile {
  static constexpr int capacity = int(TileItems) + 2;
  static_assert(TileItems + 2 <= 0xffff, "begins are staged in 16 bits");
  offset_t base;  // the tile's first item
  int begins;     // begin[k] holds segment first + k's begin, k < begins
  Id first, last;  // the segments of the tile's first and last items
  // begin(first + k) - base + 1, clamped to [0, TileItems + 2]: exact
  // inside the tile, and on the right side of every item outside it.
  unsigned short begin[capacity];
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
  int begins;      // the begins staged
  const segment_tile<id_type, TileItems>* tile;

  __device__ static staged_segments of(const Segments& segs, const segment_tile<id_type, TileItems>& s) {
    return {segs, segs.segments, s.base, s.first, s.begins, &s};
  }
  __device__ offset_t begin(id_type j) const {
    const id_type k = j - first;
    if (k >= 0 && k < id_type(begins)) return base + tile->begin[k] - 1;
    return global.begin(j);
  }
  __device__ id_type segment_of(offset_t i) const { return first + tile->segment[int(i - base)]; }
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

// Warp-collective: the same, by 32 ascending probes in (lo, hi] a round;
// every lane returns it.
template <class Segments, class Id>
__device__ Id warp_last_begun(const Segments& segs, Id lo, Id hi, offset_t i) {
  const int lane = lane_id();
  while (hi > lo) {
    const Id probe = lo + Id((offset_t(hi - lo) * (lane + 1) + kWarpThreads - 1) / kWarpThreads);
    const int below = __popc(__ballot_sync(kFullMask, segs.begin(probe) <= i));  // probes at or before i
    // Begins ascend, so the probes at or before i are lanes 0 .. below - 1.
    const Id last_at = shuffle_idx(probe, below > 0 ? below - 1 : 0);
    const Id first_after = shuffle_idx(probe, below < kWarpThreads ? below : kWarpThreads - 1);
    if (below > 0) lo = last_at;
    if (below < kWarpThreads) hi = first_after - 1;
  }
  return lo;
}

// The segment of item i: a division for fixed sizes, a warp's search of
// the offsets (warp-collective either way).
template <class Segments>
__device__ typename Segments::id_type warp_segment_of(const Segments& segs, offset_t i) {
  using Id = typename Segments::id_type;
  if constexpr (Segments::stage_begins) return warp_last_begun(segs, Id(0), Id(segs.segments - 1), i);
  else return segs.segment_of(i);
}

// Block-wide: stages the tile [base, base + valid) of `segs`.
template <offset_t TileItems, class Segments>
__device__ staged_segments<Segments, TileItems> stage_segments(
    const Segments& segs, offset_t base, int valid, segment_tile<typename Segments::id_type, TileItems>& s) {
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
  stage_each<24>(begins, [&](int k) { return segs.begin(first + Id(k)) - base + 1; },
                 [&](int k, offset_t b) { s.begin[k] = static_cast<unsigned short>(clamp_to<offset_t>(b, 0, TileItems + 2)); });
  if (threadIdx.x == 0) {
    s.base = base;
    s.begins = begins;
  }
  __syncthreads();
  const auto view = staged_segments<Segments, TileItems>::of(segs, s);
  // Each thread walks its consecutive items, with the next segment's begin
  // at hand: a compare per item, a search only past two segment ends.
  const int per = int(TileItems) / int(blockDim.x);
  const int p0 = int(threadIdx.x) * per;
  const int count = clamp_to(valid - p0, 0, per);
  if (count > 0) {
    constexpr offset_t never = ::cuda::std::numeric_limits<offset_t>::max();
    auto next_begin = [&](Id j) { return j < last ? view.begin(j + 1) : never; };
    Id j = Segments::stage_begins ? last_begun(view, first, last, base + p0) : segs.segment_of(base + p0);
    offset_t next = next_begin(j);
    for (int k = 0; k < count; ++k) {
      const offset_t i = base + p0 + k;
      if (i >= next) {
        j = j + 1 < last && view.begin(j + 2) <= i ? last_begun(view, Id(j + 2), last, i) : Id(j + 1);
        next = next_begin(j);
      }
      s.segment[p0 + k] = j - first;
    }
  }
  __syncthreads();
  return view;
}

}  // namespace cascade::detail
