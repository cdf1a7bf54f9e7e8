#pragma once
// Scanning one tile of a block: load (coalesced, transposed through shared
// memory into a blocked arrangement), scan each thread's items, scan the
// thread totals across the block, ask for the tile's prefix, apply it, store.
// Threads and items past the end of a partial tile never reach the operator.
// The caller supplies the tile's prefix through a functor, called by every
// thread with the tile's aggregate: decoupled look-back, or a carried value.

#include <cascade/detail/util/math.cuh>

#include <cascade/detail/primitives/block_scan.cuh>
#include <cascade/detail/primitives/uninitialized.cuh>
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

template <int BlockThreads, int Items, class AccT>
struct tile_scan_storage {
  static constexpr int tile_items = BlockThreads * Items;
  // One padding slot per 32 items keeps the blocked reads free of bank conflicts.
  __host__ __device__ static constexpr int padded(int i) { return i + i / 32; }
  union {
    uninitialized_array<AccT, tile_items + tile_items / 32> exchange;
    block_scan_storage<BlockThreads / 32, AccT> scan;
  };
  uninitialized_array<maybe<AccT>, 1> prefix;
};

template <int BlockThreads, int Items, class AccT, class InIt, class OutIt, class Op, class PrefixFn>
__device__ __forceinline__ AccT scan_tile(InIt in, OutIt out, offset_t base, int valid, const scan_mode<AccT>& mode,
                                          Op op, tile_scan_storage<BlockThreads, Items, AccT>& storage,
                                          PrefixFn tile_prefix) {
  using storage_t = tile_scan_storage<BlockThreads, Items, AccT>;
  const int tid = threadIdx.x;

  // Load: striped and coalesced into shared memory, then blocked into registers.
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int i = k * BlockThreads + tid;
    if (i < valid) storage.exchange[storage_t::padded(i)] = static_cast<AccT>(in[base + i]);
  }
  __syncthreads();
  const int count = clamp_to(valid - tid * Items, 0, Items);
  AccT items[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (k < count) items[k] = storage.exchange[storage_t::padded(tid * Items + k)];
  }
  __syncthreads();  // the exchange space becomes the block-scan space

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

  // Store: blocked into shared memory, then striped and coalesced out.
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (k < count) storage.exchange[storage_t::padded(tid * Items + k)] = items[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int i = k * BlockThreads + tid;
    if (i < valid) out[base + i] = storage.exchange[storage_t::padded(i)];
  }
  __syncthreads();  // the storage is free for the next tile
  return block.aggregate;
}

}  // namespace cascade::detail
