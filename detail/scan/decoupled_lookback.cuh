#pragma once
// Single-pass scan with decoupled look-back (Merrill & Garland 2016).
//
// Each block takes the next tile index from an atomic ticket, so a tile's
// predecessors are always already running and progress never depends on the
// order in which the hardware schedules blocks. A tile scans itself, publishes
// its aggregate, and its first warp looks back over windows of 32
// predecessors: it combines their aggregates in order until it meets one that
// has published its inclusive prefix. The tile then publishes its own
// inclusive prefix and writes its outputs. Small inputs are scanned by a
// single block that carries the prefix from tile to tile: one launch, no status.

#include <cascade/detail/scan/algorithm.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/scan/tile_status.cuh>
#include <cascade/detail/tuning/scan.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cascade/detail/util/math.cuh>

namespace cascade::detail::decoupled_lookback {

// The first warp of tile `tile` (> 0) finds the combination of every element
// before the tile; lane 0 returns it.
template <class Status, class AccT, class Op>
__device__ AccT look_back(const Status& status, offset_t tile, Op op, unsigned spin_ns) {
  const int lane = lane_id();
  maybe<AccT> exclusive{};
  exclusive.has = false;
  for (offset_t window_end = tile;; window_end -= kWarpThreads) {
    const offset_t predecessor = window_end - kWarpThreads + lane;
    AccT value;
    tile_state state = tile_invalid;
    if (predecessor >= 0) state = status.wait(predecessor, value, spin_ns);
    // The closest predecessor holding an inclusive prefix ends the search;
    // without one, the whole window's aggregates are combined.
    const unsigned prefixes = __ballot_sync(kFullMask, state == tile_prefix);
    const int first = prefixes ? 31 - __clz(prefixes) : static_cast<int>(max_of<offset_t>(0, kWarpThreads - window_end));
    const AccT window = warp_reduce_all(value, op, first, kWarpThreads);
    exclusive.value = exclusive.has ? op(window, exclusive.value) : window;
    exclusive.has = true;
    if (prefixes) return exclusive.value;
  }
}

template <class Tuning, class InIt, class OutIt, class AccT, class Op>
__global__ void __launch_bounds__(Tuning::block_threads)
    kernel(InIt in, OutIt out, offset_t n, scan_mode<AccT> mode, tile_status<AccT> status, unsigned* ticket, Op op) {
  constexpr int threads = Tuning::block_threads;
  constexpr int items = Tuning::items_per_thread;
  constexpr offset_t tile_items = offset_t(threads) * items;
  using storage_t = tile_scan_storage<threads, items, AccT>;
  __shared__ storage_t storage;
  __shared__ offset_t tile_index;

  const maybe<AccT> init{mode.init, mode.has_init};

  if (gridDim.x == 1) {
    // One block: tiles in order, the prefix carried from each to the next.
    maybe<AccT> carry = init;
    for (offset_t base = 0; base < n; base += tile_items) {
      const int valid = static_cast<int>(min_of<offset_t>(tile_items, n - base));
      const AccT aggregate = scan_tile<threads, items>(in, out, base, valid, mode, op, storage,
                                                        [&](const AccT&, storage_t&) { return carry; });
      carry = then(carry, aggregate, op);
    }
    return;
  }

  if (threadIdx.x == 0) tile_index = atomicAdd(ticket, 1u);
  __syncthreads();
  const offset_t tile = tile_index;
  const offset_t base = tile * tile_items;
  const int valid = static_cast<int>(min_of<offset_t>(tile_items, n - base));

  auto prefix = [&](const AccT& aggregate, storage_t& s) -> maybe<AccT> {
    if (threadIdx.x < kWarpThreads) {
      maybe<AccT> p = init;
      if (tile == 0) {
        if (threadIdx.x == 0) status.publish(0, tile_prefix, then(init, aggregate, op).value);
      } else {
        if (threadIdx.x == 0) status.publish(tile, tile_aggregate, aggregate);
        const AccT exclusive = look_back<tile_status<AccT>, AccT>(status, tile, op, Tuning::spin_nanoseconds);
        p = {exclusive, true};
        if (threadIdx.x == 0) status.publish(tile, tile_prefix, op(exclusive, aggregate));
      }
      if (threadIdx.x == 0) s.prefix[0] = p;
    }
    __syncthreads();
    return s.prefix[0];
  };
  scan_tile<threads, items>(in, out, base, valid, mode, op, storage, prefix);
}

template <class InIt, class OutIt, class AccT, class Op>
void run(InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  using tuning = lookback_scan_tuning<AccT>;
  constexpr offset_t tile_items = offset_t(tuning::block_threads) * tuning::items_per_thread;
  const offset_t tiles = (n + tile_items - 1) / tile_items;
  auto* k = kernel<tuning, InIt, OutIt, AccT, Op>;

  if (tiles <= tuning::single_block_tiles) {
    k<<<1, tuning::block_threads, 0, stream>>>(in, out, n, mode, tile_status<AccT>{}, nullptr, op);
    check_launch("cascade decoupled look-back scan kernel (single block)");
    return;
  }
  // The ticket sits just before the status words: one memset clears both.
  temporary_layout layout;
  const std::size_t ticket_at = layout.add<unsigned>(1);
  const std::size_t status_at = layout.add<char>(tile_status<AccT>::bytes(tiles));
  temporary_buffer temp(layout.bytes(), stream);
  unsigned* ticket = temp.at<unsigned>(ticket_at);
  const tile_status<AccT> status = tile_status<AccT>::at(temp.at<char>(status_at), tiles);
  check(cudaMemsetAsync(ticket, 0, status_at + status.clear_bytes(tiles), stream), "cudaMemsetAsync");
  k<<<static_cast<unsigned>(tiles), tuning::block_threads, 0, stream>>>(in, out, n, mode, status, ticket, op);
  check_launch("cascade decoupled look-back scan kernel");
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
