#pragma once
// The segments of every tile's first and last items, found by a kernel of
// their own before the tiles' kernel (the offsets forms of both segmented
// engines, where the tiles are many): a tile then reads its two segment ids
// and stages its begins at once, one round trip after it starts, whatever
// the segment lengths. Searching inside the tile costs a round trip a round
// of 32 probes after a first round around the proportional guess, which
// finds the segment where lengths are even but not where they vary (a power
// law: log32(segments) more round trips, each one the whole block's wait).
// Here every search is in flight at once: groups of tile_ends_lanes lanes
// each (tuning/segmented.cuh says why that many).

#include <cascade/detail/segmented/segmentations.cuh>
#include <cascade/detail/segmented/tile_segments.cuh>
#include <cascade/detail/tuning/segmented.cuh>
#include <cascade/detail/util/launch.cuh>

namespace cascade::detail {

// Search q (a group of Lanes lanes each): the segment of tile q / 2's first
// item (q even) or last item (q odd), into the tile's record (segmentations.cuh:
// csr_segments::tile_ends); the first's group also records the begins from
// that segment on. Tiles past the items (a grid sized by a bound) find
// nothing: their blocks return.
template <offset_t TileItems, int Lanes, class Segments, class Extent>
__global__ void tile_ends_kernel(Segments segs, Extent extent, offset_t tiles, offset_t* records) {
  using Id = typename Segments::id_type;
  let_dependents_launch_now();  // the tiles' kernel, which waits before it reads the records
  const offset_t n = extent.resolve(segs).n;
  const offset_t q = (offset_t(blockIdx.x) * blockDim.x + threadIdx.x) / Lanes;
  const offset_t base = q / 2 * TileItems;
  if (q >= 2 * tiles || base >= n) return;  // (whole groups)
  const bool first = q % 2 == 0;
  const Id j = warp_segment_of<Lanes>(segs, first ? base : min_of(n, base + TileItems) - 1);
  offset_t* record = records + q / 2 * kTileRecordSlots;
  const int rank = group_rank<Lanes>();
  if (rank == 0) record[first ? 0 : 1] = offset_t(j);
  static_assert(Lanes >= kTileRecordBegins, "a group records the begins");
  if (first && rank < kTileRecordBegins && j + Id(rank) <= segs.segments) record[2 + rank] = segs.begin(j + Id(rank));
}

// The bytes of device memory the records of `tiles` tiles take.
constexpr std::size_t tile_ends_bytes(offset_t tiles) { return std::size_t(tiles) * kTileRecordSlots * sizeof(offset_t); }

// Whether a launch of `tiles` tiles of these segments finds their ends first.
template <class Segments>
bool finds_tile_ends(offset_t tiles) {
  return Segments::stage_begins && tiles >= tile_ends_min_tiles;
}

// Enqueues the search of the ends of `tiles` tiles of TileItems items into
// `records` (tile_ends_bytes of device memory) and returns the segmentation
// that reads them. `extent` reports the offsets' ends where it does (the
// tiles' kernel, launched after, must then not: extent.unreported()), and
// the tiles' kernel is to be launched with launch_early_if(true, ...).
template <offset_t TileItems, class Segments, class Extent>
Segments find_tile_ends(Segments segs, const Extent& extent, offset_t tiles, void* records, const stream_place& at) {
  constexpr int lanes = tile_ends_lanes, threads = 256;
  const offset_t blocks = (2 * tiles * lanes + threads - 1) / threads;
  launch(at, tile_ends_kernel<TileItems, lanes, Segments, Extent>, static_cast<unsigned>(blocks), threads,
         "cascade segmented tile ends kernel", segs, extent, tiles, static_cast<offset_t*>(records));
  segs.tile_ends = static_cast<const offset_t*>(records);
  return segs;
}

}  // namespace cascade::detail
