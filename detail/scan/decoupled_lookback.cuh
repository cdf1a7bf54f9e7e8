#pragma once
// Single-pass scan with decoupled look-back (Merrill & Garland 2016).
//
// Blocks take tile indices from an atomic ticket, so a tile's predecessors
// are always held by running blocks and progress never depends on the order
// in which the hardware schedules blocks. A tile scans itself, publishes
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
#include <cascade/detail/util/workspace.cuh>

#include <stdexcept>

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

// The tile ticket: a 64-bit word, epoch << 32 | draws so far. Tiles go to
// blocks in the order the blocks draw, so a tile's predecessors are always
// held by running blocks, whatever order the hardware starts blocks in. A
// launch makes tiles + gridDim.x draws (each block's last draw is past the
// end); the block that makes the last one knows every other draw is done, so
// it restores the count to zero and advances the epoch: the word is ready for
// the next launch, and this launch's status words become stale for it.
struct ticket {
  offset_t tile;
  unsigned epoch;
};
__device__ __forceinline__ unsigned long long draw(unsigned long long* word) { return atomicAdd(word, 1ull); }
__device__ __forceinline__ ticket settle(unsigned long long* word, unsigned long long drawn, offset_t draws) {
  const ticket t{static_cast<offset_t>(drawn & 0xffffffffull), static_cast<unsigned>(drawn >> 32)};
  if (t.tile == draws - 1) atomicExch(word, static_cast<unsigned long long>(t.epoch + 1) << 32);
  return t;
}

template <class Tuning, class InIt, class OutIt, class AccT, class Op>
__global__ void __launch_bounds__(Tuning::block_threads, Tuning::min_blocks_per_sm)
    kernel(InIt in, OutIt out, offset_t n, scan_mode<AccT> mode, void* status_memory,
           unsigned long long* ticket_word, Op op) {
  constexpr int threads = Tuning::block_threads;
  constexpr int items = Tuning::items_per_thread;
  constexpr offset_t tile_items = offset_t(threads) * items;
  using storage_t = tile_scan_storage<threads, items, AccT, Tuning::io>;
  __shared__ storage_t storage;
  __shared__ ticket drawn;

  const maybe<AccT> init{mode.init, mode.has_init};
  const offset_t tiles = (n + tile_items - 1) / tile_items;

  if (ticket_word == nullptr) {
    // One block: tiles in order, the prefix carried from each to the next.
    maybe<AccT> carry = init;
    for (offset_t base = 0; base < n; base += tile_items) {
      const int valid = static_cast<int>(min_of<offset_t>(tile_items, n - base));
      const AccT aggregate = scan_tile<threads, items, Tuning::io>(in, out, base, valid, mode, op, storage,
                                                                   [&](const AccT&, storage_t&) { return carry; });
      carry = then(carry, aggregate, op);
    }
    return;
  }

  // One block per tile makes `tiles` draws; a persistent grid loops, and each
  // of its blocks also makes one last draw past the end.
  const offset_t draws = Tuning::persistent_grid ? tiles + gridDim.x : tiles;
  if (threadIdx.x == 0) drawn = settle(ticket_word, draw(ticket_word), draws);
  __syncthreads();
  ticket current = drawn;
  const tile_status<AccT> status = tile_status<AccT>::at(status_memory, tiles, current.epoch);

  while (current.tile < tiles) {
    const offset_t tile = current.tile;
    const offset_t base = tile * tile_items;
    const int valid = static_cast<int>(min_of<offset_t>(tile_items, n - base));

    auto prefix = [&](const AccT& aggregate, storage_t& s) -> maybe<AccT> {
      if (threadIdx.x < kWarpThreads) {
        maybe<AccT> p = init;
        if (tile == 0) {
          if (threadIdx.x == 0) status.publish(0, tile_prefix, then(init, aggregate, op).value);
        } else {
          if (threadIdx.x == 0) status.publish(tile, tile_aggregate, aggregate);
          // Give the predecessors time to publish before polling: polls are
          // L2 traffic that competes with the data.
          if (Tuning::first_poll_delay_ns > 0) __nanosleep(Tuning::first_poll_delay_ns);
          const AccT exclusive = look_back<tile_status<AccT>, AccT>(status, tile, op, Tuning::spin_nanoseconds);
          p = {exclusive, true};
          if (threadIdx.x == 0) status.publish(tile, tile_prefix, op(exclusive, aggregate));
        }
        if (threadIdx.x == 0) s.prefix[0] = p;
      }
      __syncthreads();
      return s.prefix[0];
    };
    scan_tile<threads, items, Tuning::io>(in, out, base, valid, mode, op, storage, prefix);
    if (!Tuning::persistent_grid) return;
    // Only now the next draw: a tile drawn early but scanned late would hold
    // up every successor's look-back (measured: 1.7x CUB's time, from 1.2x),
    // and a block that draws after its only tile holds its SM a round trip
    // longer (1.43x against 1.17x), hence one block per tile by default.
    if (threadIdx.x == 0) drawn = settle(ticket_word, draw(ticket_word), draws);
    __syncthreads();
    current = drawn;
  }
}

template <class Tuning, class InIt, class OutIt, class AccT, class Op>
void run_tuned(InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  constexpr offset_t tile_items = offset_t(Tuning::block_threads) * Tuning::items_per_thread;
  const offset_t tiles = (n + tile_items - 1) / tile_items;
  auto* k = kernel<Tuning, InIt, OutIt, AccT, Op>;

  if (tiles <= Tuning::single_block_tiles) {
    k<<<1, Tuning::block_threads, 0, stream>>>(in, out, n, mode, nullptr, nullptr, op);
    check_launch("cascade decoupled look-back scan kernel (single block)");
    return;
  }
  if (tiles > 0x7fffffffll) throw std::invalid_argument("cascade scan: the input needs more than 2^31 - 1 tiles");
  // A persistent grid keeps every block resident, looping over tiles;
  // otherwise one block per tile.
  const offset_t grid =
      Tuning::persistent_grid ? min_of<offset_t>(tiles, resident_blocks(k, Tuning::block_threads)) : tiles;
  const std::size_t status_bytes = tile_status<AccT>::bytes(tiles);
  if (workspace* w = stream_workspace(stream)) {
    // The stream's own ticket and status words: nothing to clear, except once
    // every 2^30 launches, when the epoch tag wraps.
    grow(w->status, status_bytes, current_device(), stream);
    if (++w->scan_launches % (kEpochMask + 1ull) == 0) {
      check(cudaMemsetAsync(w->status.ptr, 0, w->status.bytes, stream), "cudaMemsetAsync");
    }
    auto* ticket_word = reinterpret_cast<unsigned long long*>(w->counters + scan_tile_ticket);
    k<<<static_cast<unsigned>(grid), Tuning::block_threads, 0, stream>>>(in, out, n, mode, w->status.ptr,
                                                                           ticket_word, op);
  } else {
    // Being captured into a graph: per-call temporaries, cleared by a memset
    // node, so that every replay starts from epoch 0 with no stale words.
    temporary_layout layout;
    const std::size_t ticket_at = layout.add<unsigned long long>(1);
    const std::size_t status_at = layout.add<char>(status_bytes);
    temporary_buffer temp(layout.bytes(), stream);
    check(cudaMemsetAsync(temp.at<char>(0), 0, layout.bytes(), stream), "cudaMemsetAsync");
    k<<<static_cast<unsigned>(grid), Tuning::block_threads, 0, stream>>>(
        in, out, n, mode, temp.at<char>(status_at), temp.at<unsigned long long>(ticket_at), op);
  }
  check_launch("cascade decoupled look-back scan kernel");
}

template <class InIt, class OutIt, class AccT, class Op>
void run(InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  run_tuned<lookback_scan_tuning<AccT>>(in, n, out, mode, op, stream);
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
