#pragma once
// Scanning one tile of a block: load, scan each thread's items, scan the
// thread totals across the block, ask for the tile's prefix, apply it, store.
// Threads and items past the end of a partial tile never reach the operator.
// The caller supplies the tile's prefix through a functor, called by every
// thread with the tile's aggregate: decoupled look-back, or a carried value.

#include <cascade/detail/util/math.cuh>

#include <cascade/detail/primitives/block_scan.cuh>
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

template <int BlockThreads, int Items, class AccT>
struct tile_scan_storage {
  block_scan_storage<BlockThreads / 32, AccT> scan;
  uninitialized_array<maybe<AccT>, 1> prefix;
};

// Scans the tile [base, base + valid): each thread owns `Items` consecutive
// items (the blocked arrangement), read and written directly, as 16-byte
// vectors where the iterators allow (aligned raw pointers, a whole thread's
// worth of items). No shared-memory transposition and no barrier but the block
// scan's: a tile's latency is what limits a single-pass scan.
template <int BlockThreads, int Items, class AccT, class InIt, class OutIt, class Op, class PrefixFn>
__device__ __forceinline__ AccT scan_tile(InIt in, OutIt out, offset_t base, int valid, const scan_mode<AccT>& mode,
                                          Op op,
                                          tile_scan_storage<BlockThreads, Items, AccT>& storage, PrefixFn tile_prefix) {
  const int tid = threadIdx.x;
  const int count = clamp_to(valid - tid * Items, 0, Items);
  const offset_t first = base + offset_t(tid) * Items;
  AccT items[Items];
  load_blocked(in, first, count, aligned16(in), items);

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
  store_blocked(out, first, count, aligned16(out), items);
  __syncthreads();  // the storage is free for the next tile
  return block.aggregate;
}

}  // namespace cascade::detail
