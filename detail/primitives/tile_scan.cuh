#pragma once
// Scanning one tile of a block: load, scan each thread's items, scan the
// thread totals across the block, ask for the tile's prefix, apply it, store.
// Threads and items past the end of a partial tile never reach the operator.
// The caller supplies the tile's prefix through a functor, called by every
// thread with the tile's aggregate: decoupled look-back, or a carried value.

#include <cascade/detail/util/math.cuh>

#include <cascade/detail/primitives/block_scan.cuh>
#include <cascade/detail/primitives/shuffle.cuh>
#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/primitives/load.cuh>
#include <cascade/detail/util/iterator.cuh>

namespace cascade::detail {

// What to compute: inclusive or exclusive, with or without an initial value
// (an exclusive scan always has one).
template <class AccT>
struct scan_mode {
  AccT init;
  bool has_init;
  bool exclusive;
};

// A value that may be absent (no identity is ever needed to stand for "none").
template <class T>
struct maybe {
  T value;
  bool has;
};

template <class T, class Op>
__device__ __forceinline__ maybe<T> then(maybe<T> a, const T& b, Op op) {
  return {a.has ? static_cast<T>(op(a.value, b)) : b, true};
}

// How a tile reaches the blocked arrangement (each thread owning `Items`
// consecutive items): read directly (16-byte vectors where the pointers are
// aligned), or read coalesced by each warp and transposed through the warp's
// own shared memory (no block-wide barrier either way).
enum class tile_io { direct, warp_transpose };

template <int BlockThreads, int Items, class AccT, tile_io Io = tile_io::direct>
struct tile_scan_storage {
  static constexpr int warp_items = kWarpThreads * Items;
  static constexpr int warp_slots = Io == tile_io::warp_transpose ? warp_items + warp_items / 32 : 0;
  // One padding slot per 32 items keeps the transposed accesses free of bank conflicts.
  __host__ __device__ static constexpr int padded(int i) { return i + i / 32; }

  block_scan_storage<BlockThreads / 32, AccT> scan;
  uninitialized_array<maybe<AccT>, 1> prefix;
  uninitialized_array<AccT, (BlockThreads / 32) * warp_slots + 1> exchange;
};

// Moves a warp's segment of a tile between memory and the threads' blocked
// registers. `count` is this thread's number of valid items; `warp_valid` the
// warp's. Loading converts to AccT; storing converts to the output's type.
template <int Items, tile_io Io, class Storage, class AccT, class InIt>
__device__ __forceinline__ void load_tile(InIt in, offset_t first, offset_t warp_first, int count, int warp_valid,
                                          bool full_tile, Storage& storage, AccT (&items)[Items]) {
  if constexpr (Io == tile_io::direct) {
    load_blocked(in, first, count, full_tile && aligned16(in), items);
  } else {
    AccT* ex = &storage.exchange[warp_id() * Storage::warp_slots];
    const int lane = lane_id();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int i = k * kWarpThreads + lane;
      if (i < warp_valid) ex[Storage::padded(i)] = static_cast<AccT>(in[warp_first + i]);
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (k < count) items[k] = ex[Storage::padded(lane * Items + k)];
    }
    __syncwarp();
  }
}

template <int Items, tile_io Io, class Storage, class AccT, class OutIt>
__device__ __forceinline__ void store_tile(OutIt out, offset_t first, offset_t warp_first, int count, int warp_valid,
                                           bool full_tile, Storage& storage, const AccT (&items)[Items]) {
  if constexpr (Io == tile_io::direct) {
    store_blocked(out, first, count, full_tile && aligned16(out), items);
  } else {
    AccT* ex = &storage.exchange[warp_id() * Storage::warp_slots];
    const int lane = lane_id();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (k < count) ex[Storage::padded(lane * Items + k)] = items[k];
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int i = k * kWarpThreads + lane;
      if (i < warp_valid) out[warp_first + i] = ex[Storage::padded(i)];
    }
    __syncwarp();
  }
}

// Scans the tile [base, base + valid) with one barrier (the block scan's) and
// the prefix functor's: a tile's latency is what limits a single-pass scan.
template <int BlockThreads, int Items, tile_io Io, class AccT, class InIt, class OutIt, class Op, class PrefixFn>
__device__ __forceinline__ AccT scan_tile(InIt in, OutIt out, offset_t base, int valid, const scan_mode<AccT>& mode,
                                          Op op, tile_scan_storage<BlockThreads, Items, AccT, Io>& storage,
                                          PrefixFn tile_prefix) {
  const int tid = threadIdx.x;
  const int count = clamp_to(valid - tid * Items, 0, Items);
  const offset_t first = base + offset_t(tid) * Items;
  constexpr int warp_items = kWarpThreads * Items;
  const offset_t warp_first = base + offset_t(warp_id()) * warp_items;
  const int warp_valid = clamp_to(valid - warp_id() * warp_items, 0, warp_items);
  const bool full_tile = valid == BlockThreads * Items;  // only the last tile is partial
  AccT items[Items];
  load_tile<Items, Io>(in, first, warp_first, count, warp_valid, full_tile, storage, items);

  // Each thread scans its own items; the last one is its total.
  AccT total = items[0];
#pragma unroll
  for (int k = 1; k < Items; ++k) {
    if (k < count) items[k] = total = op(total, items[k]);
  }
  const int threads_valid = (valid + Items - 1) / Items;
  const block_scan_result<AccT> block = block_scan(total, op, threads_valid, storage.scan);

  // The prefix of everything before this tile (init included), then this thread's.
  const maybe<AccT> prefix = tile_prefix(block.aggregate, storage);
  maybe<AccT> running = prefix;
  if (tid > 0) running = then(prefix, block.exclusive, op);

  if (count > 0) {
    if (mode.exclusive) {
#pragma unroll
      for (int k = Items - 1; k > 0; --k) {
        if (k < count) items[k] = op(running.value, items[k - 1]);
      }
      items[0] = running.value;
    } else if (running.has) {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        if (k < count) items[k] = op(running.value, items[k]);
      }
    }
  }
  store_tile<Items, Io>(out, first, warp_first, count, warp_valid, full_tile, storage, items);
  __syncthreads();  // the storage is free for the next tile
  return block.aggregate;
}

}  // namespace cascade::detail
