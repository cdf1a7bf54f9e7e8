#pragma once
// Single-pass scan with decoupled look-back (Merrill & Garland 2016).
//
// Block b scans tile b: it loads the tile, scans it, publishes its aggregate,
// and its first warp looks back over windows of 32 predecessors, combining
// their aggregates in order until it meets one that has published its
// inclusive prefix. The tile then publishes its own inclusive prefix and
// writes its outputs. Small inputs are scanned by a single block that carries
// the prefix from tile to tile: one launch, no status. Larger inputs of 4-
// and 8-byte values keep each tile in shared memory, moved by bulk copies,
// instead of in registers through the look-back (shared_tile.cuh): more
// tiles per SM.
//
// Progress never depends on the order in which the hardware runs blocks: a
// predecessor that has published nothing after a while may not be running
// at all (its SM slots held by successors waiting for it), so the waiting
// warp reads that tile's inputs and reduces them itself, with the tree the
// tile's own block uses, so the value and its bits are the same either way
// (Levien's fallback for portable look-back scans). Tiles need no atomic
// ticket, so a block's first loads start at once.

#include <cascade/detail/scan/algorithm.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/primitives/tile_status.cuh>
#include <cascade/detail/tuning/scan.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/launch.cuh>
#include <cascade/detail/util/temporary.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <nv/target>

#include <cuda/std/type_traits>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include <cascade/detail/util/math.cuh>

namespace cascade::detail::decoupled_lookback {

// The first warp of tile `tile` (> 0) finds the combination of every element
// before the tile, init included; every lane returns it. Each round polls
// Tuning::lookback_windows windows of 32 predecessors at once (the nearest
// prefix is typically about a hundred tiles back, and each round is an L2
// round trip), then combines them nearest first until one holds an inclusive
// prefix. `aggregate_of(t)` (warp-collective) recomputes tile t's aggregate
// when t has published nothing in time.
template <class Tuning, class Status, class AccT, class Op, class Recompute>
__device__ AccT look_back(const Status& status, offset_t tile, const maybe<AccT>& init, Op op,
                          Recompute aggregate_of) {
  constexpr int windows = Tuning::lookback_windows;
  const int lane = lane_id();
  const unsigned spin_ns = gridDim.x >= Tuning::paced_grid ? Tuning::spin_nanoseconds : 0;
  maybe<AccT> exclusive{};
  exclusive.has = false;
  for (offset_t end = tile;; end -= windows * kWarpThreads) {
    // Window k holds the predecessors [end - 32 (k + 1), end - 32 k).
    AccT value[windows];
    tile_state state[windows];
    auto poll = [&](bool first_poll) {
      bool pending = false;
#pragma unroll
      for (int k = 0; k < windows; ++k) {
        const offset_t predecessor = end - (k + 1) * kWarpThreads + lane;
        if (first_poll) state[k] = tile_invalid;
        if (predecessor >= 0 && state[k] == tile_invalid) {
          state[k] = status.peek(predecessor, value[k]);
          pending |= state[k] == tile_invalid;
        }
      }
      return pending;
    };
    for (int polls = 1; poll(polls == 1) && polls < Tuning::polls_before_fallback; ++polls) __nanosleep(spin_ns);

#pragma unroll
    for (int k = 0; k < windows; ++k) {
      const offset_t window_end = end - k * kWarpThreads;
      // The closest predecessor holding an inclusive prefix ends the search;
      // without one, the whole window's aggregates are combined.
      const unsigned prefixes = __ballot_sync(kFullMask, state[k] == tile_prefix);
      const int first =
          prefixes ? 31 - __clz(prefixes) : static_cast<int>(max_of<offset_t>(0, kWarpThreads - window_end));
      for (unsigned silent = __ballot_sync(kFullMask, state[k] == tile_invalid) & (kFullMask << first); silent;
           silent &= silent - 1) {
        const int l = __ffs(silent) - 1;
        const AccT recomputed = aggregate_of(window_end - kWarpThreads + l);
        if (lane == l) value[k] = recomputed;
      }
      const AccT window = warp_reduce_all(value[k], op, first, kWarpThreads);
      exclusive.value = exclusive.has ? op(window, exclusive.value) : window;
      exclusive.has = true;
      if (prefixes) return exclusive.value;  // a prefix includes init
      // Tile 0's aggregate, recomputed, ends the search without init.
      if (window_end <= kWarpThreads) return init.has ? op(init.value, exclusive.value) : exclusive.value;
    }
  }
}

// Which tile block b scans: b, or (for the progress test only) the reverse,
// so that the successors run first.
template <class Tuning>
__device__ __forceinline__ offset_t tile_of_block() {
  return Tuning::reversed_tiles ? offset_t(gridDim.x) - 1 - blockIdx.x : offset_t(blockIdx.x);
}

// Asks L2 for the inputs of the tile Tuning::prefetch_bytes after `tile`,
// which a block starting about a wave later will read: those loads are in
// flight while this SM's blocks look back, and hold no registers. A hint
// (one bulk prefetch by one thread): no result depends on it.
template <class Tuning, offset_t TileItems, class InIt>
__device__ __forceinline__ void prefetch_tile(InIt in, offset_t n, offset_t tile) {
  if constexpr (std::is_pointer_v<InIt> && Tuning::prefetch_bytes > 0) {
    constexpr offset_t tile_bytes = TileItems * offset_t(sizeof(*in));
    constexpr offset_t ahead = Tuning::prefetch_bytes > tile_bytes ? Tuning::prefetch_bytes / tile_bytes : 1;
    const offset_t first = (tile + ahead) * TileItems;
    if (threadIdx.x != 0 || first >= n) return;
    // Whole 16-byte units inside the tile's inputs.
    const auto begin = (reinterpret_cast<std::uintptr_t>(in + first) + 15) / 16 * 16;
    const auto end = reinterpret_cast<std::uintptr_t>(in + min_of(n, first + TileItems)) / 16 * 16;
    if (end > begin) {
      NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin),
                                                    "r"(unsigned(end - begin)) : "memory");))
    }
  }
}

// Whether tiles stay in shared memory (Tuning::shared_tiles; shared_tile.cuh):
// bulk copies move the accumulator's bytes between arrays of it.
template <class Tuning, class InIt, class OutIt, class AccT>
inline constexpr bool shared_tiles_v =
    Tuning::shared_tiles && shared_tile_fits<AccT, Tuning::items_per_thread> && std::is_pointer_v<InIt> &&
    std::is_pointer_v<OutIt> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<InIt>>, AccT> &&
    std::is_same_v<std::remove_pointer_t<OutIt>, AccT>;

// A block's shared memory: the register path's, or (only one is used per
// block) the shared tile's.
template <class Tuning, class AccT, bool SharedTiles>
union kernel_storage {
  tile_scan_storage<Tuning::block_threads, Tuning::items_per_thread, AccT, Tuning::io> registers;
  ::cuda::std::conditional_t<SharedTiles,
                             shared_tile_scan_storage<Tuning::block_threads, Tuning::items_per_thread, AccT>, char>
      shared;
};

template <class Tuning, class InIt, class OutIt, class AccT, class Op>
__global__ void __launch_bounds__(Tuning::block_threads, Tuning::min_blocks_per_sm)
    kernel(InIt in, OutIt out, offset_t n, scan_mode<AccT> mode, tile_status<AccT> status, Op op) {
  constexpr int threads = Tuning::block_threads;
  constexpr int items = Tuning::items_per_thread;
  constexpr offset_t tile_items = offset_t(threads) * items;
  constexpr bool shared_tiles = shared_tiles_v<Tuning, InIt, OutIt, AccT>;
  __shared__ kernel_storage<Tuning, AccT, shared_tiles> storage;
  const maybe<AccT> init{mode.init, mode.has_init};

  // Only the tunings that run_tuned may launch as one block carry that path
  // (a kernel's code is compiled whether it runs or not).
  if constexpr (!shared_tiles && Tuning::single_block_tiles > 0) {
    if (gridDim.x == 1) {
      // One block: tiles in order, the prefix carried from each to the next
      // (run_tuned sends shared tiles through the status path even then).
      maybe<AccT> carry = init;
      for (offset_t base = 0; base < n; base += tile_items) {
        const int valid = static_cast<int>(min_of<offset_t>(tile_items, n - base));
        const AccT aggregate = scan_tile<threads, items, Tuning::io>(in, out, base, valid, mode, op, storage.registers,
                                                                     [&](const AccT&, auto&) { return carry; });
        carry = then(carry, aggregate, op);
      }
      return;
    }
  }

  const offset_t tile = tile_of_block<Tuning>();
  const offset_t base = tile * tile_items;
  const int valid = static_cast<int>(min_of<offset_t>(tile_items, n - base));
  auto prefix = [&](const AccT& aggregate, auto& s) -> maybe<AccT> {
    if (threadIdx.x < kWarpThreads) {
      maybe<AccT> p = init;
      if (tile == 0) {
        if (threadIdx.x == 0) status.publish(0, tile_prefix, then(init, aggregate, op).value);
      } else {
        if (threadIdx.x == 0) status.publish(tile, tile_aggregate, aggregate);
        // Give the predecessors time to publish before polling: polls are
        // L2 traffic that competes with the data, which matters only when
        // many tiles are in flight.
        if (Tuning::first_poll_delay_ns > 0 && gridDim.x >= Tuning::paced_grid) __nanosleep(Tuning::first_poll_delay_ns);
        const AccT exclusive = look_back<Tuning, tile_status<AccT>, AccT>(status, tile, init, op, [&](offset_t t) {
          return warp_tile_aggregate<threads, items, AccT>(in, t * tile_items, op);
        });
        p = {exclusive, true};
        if (threadIdx.x == 0) status.publish(tile, tile_prefix, op(exclusive, aggregate));
      }
      if (threadIdx.x == 0) s.prefix[0] = p;
    }
    __syncthreads();
    return s.prefix[0];
  };
  if constexpr (shared_tiles) {
    // run() sends only 16-byte aligned arrays, and only to GPUs of sm_90 and
    // later; code built for an older target (run on such a GPU) keeps the
    // tile in registers. Each target compiles only its own path.
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (
      if (threadIdx.x == 0) storage.shared.tile.start_load(in + base, valid);
      storage.shared.tile.load_rest(in + base, valid);
      prefetch_tile<Tuning, tile_items>(in, n, tile);
      __syncthreads();  // the tile's barrier is armed, its last values written
      scan_shared_tile(out + base, valid, mode, op, storage.shared, prefix);
    ), (
      scan_tile<threads, items, Tuning::io>(in, out, base, valid, mode, op, storage.registers, prefix);
    ))
  } else {
    prefetch_tile<Tuning, tile_items>(in, n, tile);
    scan_tile<threads, items, Tuning::io>(in, out, base, valid, mode, op, storage.registers, prefix);
  }
}

template <class Tuning, class InIt, class OutIt, class AccT, class Op>
void run_tuned(InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  constexpr offset_t tile_items = offset_t(Tuning::block_threads) * Tuning::items_per_thread;
  const offset_t tiles = (n + tile_items - 1) / tile_items;
  auto* k = kernel<Tuning, InIt, OutIt, AccT, Op>;
  using status_t = tile_status<AccT>;

  if (tiles > 0x7fffffffll) throw std::invalid_argument("cascade scan: the input needs more than 2^31 - 1 tiles");
  if (tiles == 0) return;
  if (shared_tiles_v<Tuning, InIt, OutIt, AccT> && !(aligned16(in) && aligned16(out))) {
    throw std::invalid_argument("cascade scan: tiles kept in shared memory need 16-byte aligned input and output");
  }
  const stream_place at = place_of(stream);
  if (!shared_tiles_v<Tuning, InIt, OutIt, AccT> && tiles <= Tuning::single_block_tiles) {
    launch(at, k, 1, Tuning::block_threads, "cascade decoupled look-back scan kernel (single block)", in, out, n, mode,
           status_t{}, op);
    return;
  }
  const launch_status<AccT> status(tiles, at);
  launch(at, k, static_cast<unsigned>(tiles), Tuning::block_threads, "cascade decoupled look-back scan kernel", in,
         out, n, mode, status.words(), op);
}

// The register tiles for the inputs past the small tuning's: where the small
// tuning takes every input of one tile, these are always several tiles, and
// their kernel carries no single-block path (the same launches, less code:
// see scripts/compile-time).
template <class AccT>
struct lookback_scan_large_tuning : lookback_scan_tuning<AccT> {
  static constexpr int single_block_tiles =
      lookback_scan_small_tuning<AccT>::max_items >=
              offset_t(lookback_scan_tuning<AccT>::block_threads) * lookback_scan_tuning<AccT>::items_per_thread
          ? 0
          : lookback_scan_tuning<AccT>::single_block_tiles;
};

template <class InIt, class OutIt, class AccT, class Op>
void run(InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  if constexpr (lookback_scan_small_tuning<AccT>::max_items > 0) {
    if (n <= lookback_scan_small_tuning<AccT>::max_items) {
      return run_tuned<lookback_scan_small_tuning<AccT>>(in, n, out, mode, op, stream);
    }
  }
  using shared_tuning = lookback_scan_shared_tuning<AccT>;
  if constexpr (shared_tiles_v<shared_tuning, InIt, OutIt, AccT>) {
    if (n >= shared_tuning::min_items && aligned16(in) && aligned16(out) && has_bulk_copy()) {
      return run_tuned<shared_tuning>(in, n, out, mode, op, stream);
    }
  }
  run_tuned<lookback_scan_large_tuning<AccT>>(in, n, out, mode, op, stream);
}

}  // namespace cascade::detail::decoupled_lookback

namespace cascade::detail {

// The look-back scan, by name and (for now) as the automatic scan.
template <>
struct scan_algorithm<strategy::decoupled_lookback_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::decoupled_lookback_t, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    decoupled_lookback::run(in, n, out, mode, op, stream);
  }
};
template <>
struct scan_algorithm<strategy::automatic_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::automatic_t, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    decoupled_lookback::run(in, n, out, mode, op, stream);
  }
};

}  // namespace cascade::detail
