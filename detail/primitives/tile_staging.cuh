#pragma once
// A per-tile prologue for the scan engine's inputs and outputs. An input may
// name shared storage that each tile fills once, by its whole block, before
// its items are read: what the tile's items have in common, found once per
// tile instead of once per item (a segmented input: the tile's segment
// boundaries, from one search). The tile then reads its items, and an
// output may store them, through views of that storage. Plain iterators name
// none: the engine uses them as they are, and none of this is compiled.
//
// tile_staging<InIt, TileItems>: storage (the shared storage, empty for
// plain inputs) and stage(in, base, valid, storage), a block-wide call that
// fills it for the tile [base, base + valid) and returns the tile's input.
// tile_output_view<OutIt, Storage>::view(out, storage): the tile's output.

#include <cascade/detail/util/iterator.cuh>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace cascade::detail {

template <class InIt, offset_t TileItems, class = void>
struct tile_staging {
  static constexpr bool staged = false;
  struct storage {};
  __device__ static InIt stage(const InIt& in, offset_t, int, storage&) { return in; }
};

// Whether `staging_bytes` of staged data beside the engine's register tile
// of `tile_items` values of AccT (its warp exchange, padded, and the block
// scan's words) keep the block's static shared memory within 48 KB. Inputs
// whose staging does not fit stage nothing.
template <class AccT>
constexpr bool fits_beside_tile(std::size_t staging_bytes, offset_t tile_items) {
  return staging_bytes + sizeof(AccT) * std::size_t(tile_items + tile_items / 32 + 64) + 512 <= 48 * 1024;
}

// Block-wide: store(p, load(p)) for p in [0, count), with up to Batch loads
// of each thread in flight before their stores. A plain loop waits for each
// load before the next (the store in between may alias it, for all the
// compiler knows): a tile's staging then took a memory latency per item of
// each thread (keyed scans, H100: 1.27 -> 1.00 ms at 2^26 with 8 in flight).
template <int Batch, class Load, class Store>
__device__ __forceinline__ void stage_each(int count, Load load, Store store) {
  for (int p0 = threadIdx.x; p0 < count; p0 += Batch * blockDim.x) {
    decltype(load(0)) v[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const int p = p0 + b * int(blockDim.x);
      if (p < count) v[b] = load(p);
    }
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const int p = p0 + b * int(blockDim.x);
      if (p < count) store(p, v[b]);
    }
  }
}

template <class OutIt, class Storage, class = void>
struct tile_output_view {
  __device__ static OutIt view(const OutIt& out, const Storage&) { return out; }
};

}  // namespace cascade::detail
