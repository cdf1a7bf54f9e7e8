#pragma once
// The keys of one tile, staged in shared memory by its block before the
// tile's items are read (primitives/tile_staging.cuh): keys[base - 1] (the
// previous tile's last, read once) to keys[base + valid], read coalesced
// once; the head and last-item tests and the outputs' keys then read shared
// memory instead of each key two or three times from global memory.
// Only trivially copyable keys whose tile fits beside the engine's
// (fits_beside_tile) are staged; else the runs read the keys themselves.

#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <type_traits>

namespace cascade::detail {

template <class K, offset_t TileItems>
struct key_tile {
  offset_t base;
  int items;
  uninitialized_array<K, int(TileItems) + 2> key;  // key[p] = keys[base - 1 + p], where that exists
};

template <class K, offset_t TileItems>
using key_tile_if_copyable = std::enable_if_t<std::is_trivially_copyable_v<K>, key_tile<K, TileItems>>;

// Runs of keys as the tile sees them: staged inside the tile, the runs
// themselves elsewhere (the same answers either way).
template <class Runs, offset_t TileItems>
struct staged_runs {
  using key_type = typename Runs::key_type;
  template <offset_t N>
  using tile_storage = key_tile<key_type, N>;  // (a staged view is not staged again)
  Runs global;
  offset_t n;
  const key_tile<key_type, TileItems>* tile;

  __device__ bool inside(offset_t i) const { return i >= tile->base && i < tile->base + tile->items; }
  __device__ const key_type& at(offset_t i) const { return tile->key[int(i - tile->base) + 1]; }
  __device__ key_type key(offset_t i) const { return inside(i) ? at(i) : global.key(i); }
  __device__ bool head(offset_t i) const {
    if (!inside(i)) return global.head(i);
    return i == 0 || !global.pred(tile->key[int(i - tile->base)], at(i));
  }
  __device__ bool last(offset_t i) const {
    if (!inside(i)) return global.last(i);
    return i == n - 1 || !global.pred(at(i), tile->key[int(i - tile->base) + 2]);
  }
};

// Block-wide: stages the keys around the tile [base, base + valid).
template <offset_t TileItems, class Runs>
__device__ staged_runs<Runs, TileItems> stage_runs(const Runs& runs, offset_t base, int valid,
                                                   key_tile<typename Runs::key_type, TileItems>& s) {
  for (int p = threadIdx.x; p < valid + 2; p += blockDim.x) {
    const offset_t i = base - 1 + p;
    if (i >= 0 && i < runs.n) s.key[p] = static_cast<typename Runs::key_type>(runs.key(i));
  }
  if (threadIdx.x == 0) {
    s.base = base;
    s.items = valid;
  }
  __syncthreads();
  return {runs, runs.n, &s};
}

}  // namespace cascade::detail
