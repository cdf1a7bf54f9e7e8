#pragma once
// The keys of one tile, staged in shared memory by its block before the
// tile's items are read (primitives/tile_staging.cuh): keys[base - 1] (the
// previous tile's last, read once) to keys[base + valid], read coalesced
// once; the head and last-item tests and the outputs' keys then read shared
// memory instead of each key two or three times from global memory.
// Only trivially copyable, default-constructible keys (a thread holds a batch
// of them between load and store) whose tile fits beside the engine's
// (fits_beside_tile) are staged; else the runs read the keys themselves.

#include <cascade/detail/primitives/tile_staging.cuh>
#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/util/math.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <type_traits>

namespace cascade::detail {

template <class K, offset_t TileItems>
struct key_tile {
  offset_t base;
  uninitialized_array<K, int(TileItems) + 2> key;  // key[p] = keys[base - 1 + p], where that exists
};

template <class K, offset_t TileItems>
using key_tile_if_copyable =
    std::enable_if_t<std::is_trivially_copyable_v<K> && std::is_default_constructible_v<K>, key_tile<K, TileItems>>;

// Runs of keys as one tile sees them, for the tile's own items only (the
// engine reads and writes nothing else through a tile's view): every test
// reads staged keys, with no bounds check and no global fallback per item.
template <class Runs, offset_t TileItems>
struct staged_runs {
  using key_type = typename Runs::key_type;
  template <offset_t N>
  using tile_storage = key_tile<key_type, N>;  // (a staged view is not staged again)
  Runs global;
  offset_t n;
  offset_t base;  // the tile's first item
  const key_tile<key_type, TileItems>* tile;

  __device__ static staged_runs of(const Runs& runs, const key_tile<key_type, TileItems>& s) {
    return {runs, runs.n, s.base, &s};
  }
  // Where item i's key is staged.
  __device__ int at(offset_t i) const { return int(i - base) + 1; }
  __device__ key_type key(offset_t i) const { return tile->key[at(i)]; }
  __device__ bool head(offset_t i) const { return i == 0 || !global.pred(tile->key[at(i) - 1], tile->key[at(i)]); }
  __device__ bool last(offset_t i) const {
    return i == n - 1 || !global.pred(tile->key[at(i)], tile->key[at(i) + 1]);
  }
};

// Block-wide: stages the keys around the tile [base, base + valid).
template <offset_t TileItems, class Runs>
__device__ staged_runs<Runs, TileItems> stage_runs(const Runs& runs, offset_t base, int valid,
                                                   key_tile<typename Runs::key_type, TileItems>& s) {
  // Keys base - 1 .. base + valid, where they exist: all of a thread's loads
  // in flight at once (128 threads stage a tile of 2560 in one round).
  const offset_t from = max_of<offset_t>(base - 1, 0);
  const int count = int(min_of<offset_t>(base + valid + 1, runs.n) - from);
  const int skip = int(from - (base - 1));
  stage_each<24>(count, [&](int p) { return static_cast<typename Runs::key_type>(runs.key(from + p)); },
                 [&](int p, const typename Runs::key_type& k) { s.key[skip + p] = k; });
  if (threadIdx.x == 0) s.base = base;
  __syncthreads();
  return staged_runs<Runs, TileItems>::of(runs, s);
}

}  // namespace cascade::detail
