#pragma once
// Segments (or runs) that span tiles, joined in order by a second launch:
// each tile leaves its piece of the segment that began before it (first)
// and of the one that goes on past it (last), and the tile where a segment
// that began in an earlier tile ends names it (closing). One warp per such
// tile then combines the segment's pieces: the last piece of the tile it
// began in, then the first piece of each tile after, up to the closing one.
// Lane l folds a run of consecutive pieces and the warp combines the runs
// in lane order: a tree that depends on the number of pieces only, so the
// bits depend on the items and the segmentation, never on timing.
// reduce_by_key (masked_scan.cuh); segmented_reduce joins its segments in
// its tiles kernel instead (tile_totals.cuh).

#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/launch.cuh>

namespace cascade::detail {

// What each tile leaves for the segments that cross its edges.
template <class Id, class T>
struct carries {
  T* first;     // its piece of its first segment, where that one began in an earlier tile
  T* last;      // its piece of its last segment, where that one goes on past the tile
  Id* closing;  // the segment begun in an earlier tile that ends in this one, else -1
};

// One warp per tile: segment j = closing[tile], begun in tile
// start_tile(j, tile) (warp-collective), gets init op its pieces (or its
// pieces alone, without init).
template <int BlockThreads, class StartTile, class OutIt, class Id, class T, class Op>
__global__ void __launch_bounds__(BlockThreads)
    spans_kernel(StartTile start_tile, offset_t tiles, OutIt out, maybe<T> init, Op op, carries<Id, T> carry) {
  const offset_t tile = (blockIdx.x * offset_t(blockDim.x) + threadIdx.x) / kWarpThreads;
  if (tile >= tiles) return;  // a whole warp
  wait_for_prior_grid();  // the tiles' carries (a dependent launch)
  const Id j = carry.closing[tile];
  if (j < 0) return;
  const offset_t from = start_tile(j, tile);
  const offset_t pieces = tile - from + 1;
  const offset_t run = (pieces + kWarpThreads - 1) / kWarpThreads;
  const offset_t p = lane_id() * run;
  const int lanes = static_cast<int>((pieces + run - 1) / run);
  T acc{};
  if (p < pieces) {
    auto piece_at = [&](offset_t q) { return q == 0 ? carry.last[from] : carry.first[from + q]; };
    acc = piece_at(p);
    const offset_t end = min_of(p + run, pieces);
#pragma unroll 4
    for (offset_t q = p + 1; q < end; ++q) acc = static_cast<T>(op(acc, piece_at(q)));
  }
  acc = warp_reduce(acc, op, 0, lanes);
  if (lane_id() == 0) out[j] = init.has ? static_cast<T>(op(init.value, acc)) : acc;
}

// The second launch over the carries of the `tiles` tiles of the kernel
// before it (one block per tile, which calls let_dependents_launch): a warp
// per tile.
template <int BlockThreads, class StartTile, class OutIt, class Id, class T, class Op>
void launch_spans(const stream_place& at, const char* what, StartTile start_tile, offset_t tiles, OutIt out,
                  maybe<T> init, Op op, carries<Id, T> carry) {
  constexpr offset_t warps = BlockThreads / kWarpThreads;
  launch_after_prior(at, static_cast<unsigned>(tiles), spans_kernel<BlockThreads, StartTile, OutIt, Id, T, Op>,
                     static_cast<unsigned>((tiles + warps - 1) / warps), BlockThreads, what, start_tile, tiles, out,
                     init, op, carry);
}

}  // namespace cascade::detail
