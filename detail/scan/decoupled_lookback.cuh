#pragma once
// Single-pass scan with decoupled look-back (Merrill & Garland 2016): the
// engine that the named strategy and the automatic scan share.
//
// Block b scans tile b: it loads the tile, scans it, publishes its aggregate,
// and its first warp finds the tile's prefix from its predecessors' status
// words, by a prefix rule; the tile then writes its outputs. Rules:
// - nearest_prefix (here, the named strategy decoupled_lookback, the
//   textbook, and mostly the automatic scan of integral values, see
//   exact_prefix): look back over
//   windows of 32 predecessors, combining their
//   aggregates in order until one has published its inclusive prefix, then
//   publish the tile's own. Which prefix a tile meets depends on timing, so
//   the association of the operator, and a float result's bits, do too.
// - group_prefix (reproducible_lookback.cuh: strategy reproducible_lookback
//   and the automatic scan of every other type): every prefix a function of
//   the tile index only.
// Small inputs are scanned by a single block that carries the prefix from
// tile to tile: one launch, no status. Larger inputs of 4- and 8-byte values
// between 16-byte aligned arrays keep each tile in shared memory (bulk copies
// on sm_90, the threads' own copies before) instead of in registers through
// the look-back (shared_tile.cuh): more tiles per SM. Other inputs wait in
// the warps' exchange slots (tile_scan.cuh), loaded by the threads. The
// tile's shape, and so its combination tree, depends on the value type and N
// only, never on where the tile lives, the pointers' alignment or the
// architecture.
//
// Progress never depends on the order in which the hardware runs blocks: a
// predecessor that has published nothing after a while may not be running
// at all (its SM slots held by successors waiting for it), so the waiting
// warp reads that tile's inputs and reduces them itself, with the tree the
// tile's own block uses, so the value and its bits are the same either way
// (Levien's fallback for portable look-back scans). Its contract: a tile
// publishes its aggregate before it writes any output, so a tile whose
// aggregate is not yet published has not overwritten its inputs; the
// recomputation reads them while that tile may start writing, which an
// in-place scan must take into account. Tiles need no atomic ticket, so a
// block's first loads start at once.

#include <cascade/detail/scan/algorithm.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/primitives/prefetch.cuh>
#include <cascade/detail/primitives/tile_status.cuh>
#include <cascade/detail/tuning/scan.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/launch.cuh>
#include <cascade/detail/util/temporary.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <nv/target>

#include <cuda/std/type_traits>

#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <cascade/detail/util/math.cuh>

namespace cascade::detail::decoupled_lookback {

// Whether the operator may say that a tile's aggregate absorbs whatever
// precedes it (op.absorbs(aggregate, first item): op(x, aggregate) ==
// aggregate; segmented/pairs.cuh). The reproducible rule then finds such a
// tile's successors' prefixes without looking further back.
template <class Op, class AccT, class = void>
inline constexpr bool can_absorb = false;
template <class Op, class AccT>
inline constexpr bool can_absorb<Op, AccT,
                                 std::void_t<decltype(std::declval<const Op&>().absorbs(
                                     std::declval<const AccT&>(), std::declval<AccT (&)()>()))>> = true;

template <class Op, class AccT, class First>
__device__ __forceinline__ bool absorbs(const Op& op, const AccT& aggregate, First first) {
  if constexpr (can_absorb<Op, AccT>) return op.absorbs(aggregate, first);
  else return false;
}

// The back-off between polls: none on small grids, where every wait is latency.
template <class Tuning>
__device__ __forceinline__ unsigned spin_nanoseconds() {
  return gridDim.x >= Tuning::paced_grid ? Tuning::spin_nanoseconds : 0;
}

// Gives the predecessors time to publish before the first poll: polls are
// L2 traffic that competes with the data, which matters only when many
// tiles are in flight. Tile 0 has no predecessor to wait for. `extra_ns`: a
// caller's own addition (a tile that knows it and its neighbours are slow).
template <class Tuning>
__device__ __forceinline__ void pace_first_poll(offset_t tile, unsigned extra_ns = 0) {
  const unsigned ns = Tuning::first_poll_delay_ns + extra_ns;
  if (tile > 0 && ns > 0 && gridDim.x >= Tuning::paced_grid) __nanosleep(ns);
}

// The first warp of tile `tile` (> 0) finds the combination of every element
// before the tile, init included; every lane returns it. Each round polls
// Tuning::lookback_windows windows of 32 predecessors at once (the nearest
// prefix is typically about a hundred tiles back, and each round is an L2
// round trip), then combines them nearest first until one holds an inclusive
// prefix. `aggregate_of(t, state)` (warp-collective) recomputes tile t's
// aggregate when t has published nothing in time (and may report, through
// `state`, a publication made meanwhile: see the kernel).
template <class Tuning, class Status, class AccT, class Op, class Recompute>
__device__ AccT look_back(const Status& status, offset_t tile, const maybe<AccT>& init, Op op,
                          Recompute aggregate_of) {
  constexpr int windows = Tuning::lookback_windows;
  const int lane = lane_id();
  const unsigned spin_ns = spin_nanoseconds<Tuning>();
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
    // The warp polls together while any lane waits: lanes that stopped early
    // waited for the rest at the ballots below, diverged, which cost the
    // reduce's finish (the same loop) 3 us.
    for (int polls = 1; __any_sync(kFullMask, poll(polls == 1)) && polls < Tuning::polls_before_fallback; ++polls) {
      __nanosleep(spin_ns);
    }

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
        tile_state found = tile_aggregate;
        const AccT recomputed = aggregate_of(window_end - kWarpThreads + l, found);
        if (lane == l) value[k] = recomputed, state[k] = found;
      }
      // A recomputed tile may have published its prefix meanwhile (in place,
      // aggregate_of then returns that instead): the search may end nearer.
      const unsigned found_prefixes = __ballot_sync(kFullMask, state[k] == tile_prefix);
      const int from = found_prefixes ? 31 - __clz(found_prefixes) : first;
      const AccT window = warp_reduce_all(value[k], op, from, kWarpThreads);
      exclusive.value = exclusive.has ? op(window, exclusive.value) : window;
      exclusive.has = true;
      if (found_prefixes) return exclusive.value;  // a prefix includes init
      // Tile 0's aggregate, recomputed, ends the search without init.
      if (window_end <= kWarpThreads) return init.has ? op(init.value, exclusive.value) : exclusive.value;
    }
  }
}

// The textbook rule: publish the aggregate, look back to the nearest
// inclusive prefix (look_back), publish the tile's own inclusive prefix.
// Called by the tile's first warp; returns the tile's exclusive prefix
// (init included; none for tile 0 without init).
struct nearest_prefix {
  static constexpr offset_t status_words(offset_t tiles) { return tiles; }
  template <class Tuning>
  static constexpr offset_t single_block_tiles = Tuning::single_block_tiles;

  // (`absorbing` is not used: pairs, whose aggregates may absorb, take the
  // reproducible rule.)
  template <class Tuning, class Status, class AccT, class Op, class Recompute>
  __device__ static maybe<AccT> exclusive_prefix(const Status& status, offset_t tile, const AccT& aggregate, bool,
                                                 const maybe<AccT>& init, Op op, Recompute aggregate_of) {
    publish_aggregate(status, tile, aggregate, init, op);
    pace_first_poll<Tuning>(tile);
    return prefix_after_publishing<Tuning>(status, tile, aggregate, init, op, aggregate_of);
  }

  // The rule in two steps, for a tile with work to do between them (the
  // first by thread 0 of the block, the second by its first warp):
  // publishing the aggregate (tile 0: its inclusive prefix) ...
  template <class Status, class AccT, class Op>
  __device__ static void publish_aggregate(const Status& status, offset_t tile, const AccT& aggregate,
                                           const maybe<AccT>& init, Op op) {
    if (threadIdx.x != 0) return;
    if (tile == 0) status.publish(0, tile_prefix, then(init, aggregate, op).value);
    else status.publish(tile, tile_aggregate, aggregate);
  }

  // ... and looking back, then publishing the inclusive prefix.
  template <class Tuning, class Status, class AccT, class Op, class Recompute>
  __device__ static maybe<AccT> prefix_after_publishing(const Status& status, offset_t tile, const AccT& aggregate,
                                                        const maybe<AccT>& init, Op op, Recompute aggregate_of) {
    if (tile == 0) return init;
    const AccT exclusive = look_back<Tuning, Status, AccT>(status, tile, init, op, aggregate_of);
    if (threadIdx.x == 0) status.publish(tile, tile_prefix, op(exclusive, aggregate));
    return {exclusive, true};
  }
};

// Which tile block b scans: b, or (for the progress test only) the reverse,
// so that the successors run first.
template <class Tuning>
__device__ __forceinline__ offset_t tile_of_block() {
  return Tuning::reversed_tiles ? offset_t(gridDim.x) - 1 - blockIdx.x : offset_t(blockIdx.x);
}

// Whether a scan may write over its own input (d_first == first, the one
// overlap the standard allows): unless both arrays are known and differ.
// Such scans take the in-place protocol below: fences, and a silent
// predecessor polled again after its recomputation. (An iterator that cannot
// say might read the output: a segmented scan's items over the values it
// overwrites were wrong under compute-sanitizer before it took the protocol.)
template <class InIt, class OutIt>
__device__ __forceinline__ bool may_overlap(InIt in, OutIt out) {
  const array_address a = array_of(in), b = array_of(out);
  return !a.known || !b.known || (a.p != nullptr && a.p == b.p);
}

// Whether tiles stay in shared memory (Tuning::shared_tiles; shared_tile.cuh):
// bulk copies move the accumulator's bytes between arrays of it.
template <class Tuning, class InIt, class OutIt, class AccT>
inline constexpr bool shared_tiles_v =
    Tuning::shared_tiles && shared_tile_fits<AccT, Tuning::items_per_thread> && std::is_pointer_v<InIt> &&
    std::is_pointer_v<OutIt> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<InIt>>, AccT> &&
    std::is_same_v<std::remove_pointer_t<OutIt>, AccT>;

// The blocks per SM that __launch_bounds__ allows: a shape chosen for
// shared tiles may give its register-tile kernel (misaligned arrays, other
// iterators) fewer, since those load and scan the tile in registers.
template <class Tuning, bool SharedTiles>
inline constexpr int blocks_per_sm_v =
    !SharedTiles && Tuning::register_tile_blocks_per_sm > 0 ? Tuning::register_tile_blocks_per_sm
                                                            : Tuning::min_blocks_per_sm;

// A block's shared memory: the register path's, or (only one is used per
// block) the shared tile's.
template <class Tuning, class AccT, bool SharedTiles>
union kernel_storage {
  tile_scan_storage<Tuning::block_threads, Tuning::items_per_thread, AccT, Tuning::io> registers;
  ::cuda::std::conditional_t<SharedTiles,
                             shared_tile_scan_storage<Tuning::block_threads, Tuning::items_per_thread, AccT>, char>
      shared;
};

// In place, a predecessor's inputs become its outputs, and the fallback
// reads a silent tile's inputs while that tile may start and write. A tile
// writes its outputs only after its publications, fenced (block_prefix)
// before the barrier that releases the stores. The fallback fences, loads,
// fences and polls the tile again: if the tile is still silent, none of its
// outputs had reached the loads (they would have brought its publication
// with them), so the recomputed value is the tile's; if it has published
// meanwhile, its publication is taken instead. The in-place progress tests
// (reversed tiles, one poll before recomputing) check both tile kinds.
//
// silent_tile(t, state): tile t's aggregate, recomputed by one warp from the
// items `in` with the tree of the tile's own block (warp_tile_aggregate).
template <int Threads, int Items, class AccT, class InIt, class Status, class Op>
struct silent_tile {
  InIt in;
  Status status;
  Op op;
  bool in_place;
  __device__ AccT operator()(offset_t t, tile_state& state) const {
    if (in_place) __threadfence();  // the loads after the poll that found t silent
    AccT value = warp_tile_aggregate<Threads, Items, AccT>(in, t * (offset_t(Threads) * Items), op);
    state = tile_aggregate;
    if (in_place) {
      __threadfence();
      AccT published;
      const tile_state now = status.peek(t, published);
      if (now != tile_invalid) state = now, value = published;
    }
    return value;
  }
};

// Rules that find the prefixes of some grids with the whole block, not its
// first warp alone (reproducible_lookback.cuh), for these tiles, values and
// operator; Rule::whole_block<Tuning>(tile) says whether this tile does.
template <class Rule, class Tuning, class AccT, class Op>
inline constexpr bool has_whole_block_rule = false;

// Block-wide: the tile's exclusive prefix (init included; none for tile 0
// without init), found by its first warp by the rule (or by the whole
// block) and handed to the block through `slot`. first() reads the tile's
// first item (absorbs).
template <class Tuning, class Rule, class Status, class AccT, class First, class Op, class Recompute>
__device__ __forceinline__ maybe<AccT> block_prefix(const Status& status, offset_t tile, const AccT& aggregate,
                                                    First first, const maybe<AccT>& init, Op op,
                                                    const Recompute& recompute, maybe<AccT>& slot) {
  if constexpr (has_whole_block_rule<Rule, Tuning, AccT, Op>) {
    if (Rule::template whole_block<Tuning>(tile)) {
      Rule::template block_exclusive_prefix<Tuning>(status, tile, aggregate, init, op, recompute, slot);
      if (recompute.in_place) __threadfence();  // this tile's publications before its outputs
      __syncthreads();
      return slot;
    }
  }
  if (threadIdx.x < kWarpThreads) {
    const maybe<AccT> p = Rule::template exclusive_prefix<Tuning>(status, tile, aggregate, absorbs(op, aggregate, first),
                                                                  init, op, recompute);
    if (recompute.in_place) __threadfence();  // this tile's publications before its outputs
    if (threadIdx.x == 0) slot = p;
  }
  __syncthreads();
  return slot;
}

template <class Tuning, class Rule, bool SharedTiles, class InIt, class OutIt, class AccT, class Op>
__global__ void __launch_bounds__(Tuning::block_threads, (blocks_per_sm_v<Tuning, SharedTiles>))
    kernel(InIt in, OutIt out, offset_t n, scan_mode<AccT> mode, tile_status<AccT> status, Op op) {
  constexpr int threads = Tuning::block_threads;
  constexpr int items = Tuning::items_per_thread;
  constexpr offset_t tile_items = offset_t(threads) * items;
  __shared__ kernel_storage<Tuning, AccT, SharedTiles> storage;
  const maybe<AccT> init{mode.init, mode.has_init};

  // Only kernels that launch_tiles may launch as one block carry that path
  // (a kernel's code is compiled whether it runs or not).
  if constexpr (!SharedTiles && Rule::template single_block_tiles<Tuning> > 0) {
    if (gridDim.x == 1) {
      // One block: tiles in order, the prefix carried from each to the next
      // (launch_tiles sends shared tiles through the status path even then).
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
  const silent_tile<threads, items, AccT, InIt, tile_status<AccT>, Op> recompute{in, status, op, may_overlap(in, out)};
  // The tile's prefix, given its aggregate; first() reads the tile's first item.
  auto prefix_with = [&](auto first) {
    return [&, first](const AccT& aggregate, auto& s) -> maybe<AccT> {
      return block_prefix<Tuning, Rule>(status, tile, aggregate, first, init, op, recompute, s.prefix[0]);
    };
  };
  if constexpr (SharedTiles) {
    // run_tuned sends only 16-byte aligned arrays.
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                      (if (threadIdx.x == 0) storage.shared.tile.start_load(in + base, valid);),
                      (storage.shared.tile.copy_in(in + base, valid);))
    storage.shared.tile.load_rest(in + base, valid);
    prefetch_tile<Tuning, tile_items>(in, n, tile);
    __syncthreads();  // the tile's barrier is armed, its last values written
    scan_shared_tile(out + base, valid, mode, op, storage.shared,
                     prefix_with([&] { return static_cast<AccT>(in[base]); }));
  } else {
    prefetch_tile<Tuning, tile_items>(in, n, tile);
    scan_tile<threads, items, Tuning::io>(in, out, base, valid, mode, op, storage.registers,
                                          prefix_with([&] { return static_cast<AccT>(in[base]); }));
  }
}

template <class Tuning, class Rule, bool SharedTiles, class InIt, class OutIt, class AccT, class Op>
void launch_tiles(InIt in, offset_t n, OutIt out, offset_t tiles, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  auto* k = kernel<Tuning, Rule, SharedTiles, InIt, OutIt, AccT, Op>;
  const stream_place at = place_of(stream);
  if (!SharedTiles && tiles <= Rule::template single_block_tiles<Tuning>) {
    launch(at, k, 1, Tuning::block_threads, "cascade look-back scan kernel (single block)", in, out, n, mode,
           tile_status<AccT>{}, op);
    return;
  }
  const launch_status<AccT> status(Rule::status_words(tiles), at);
  launch(at, k, static_cast<unsigned>(tiles), Tuning::block_threads, "cascade look-back scan kernel", in, out, n,
         mode, status.words(), op);
}

// One scan with the given tile shape and prefix rule: tiles in shared memory
// where the shape allows them and the arrays are 16-byte aligned, else in
// registers (the same combination tree either way).
template <class Tuning, class Rule = nearest_prefix, class InIt, class OutIt, class AccT, class Op>
void run_tuned(InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  constexpr offset_t tile_items = offset_t(Tuning::block_threads) * Tuning::items_per_thread;
  const offset_t tiles = (n + tile_items - 1) / tile_items;
  if (tiles > 0x7fffffffll) throw std::invalid_argument("cascade scan: the input needs more than 2^31 - 1 tiles");
  if (tiles == 0) return;
  if constexpr (shared_tiles_v<Tuning, InIt, OutIt, AccT>) {
    if (aligned16(in) && aligned16(out)) return launch_tiles<Tuning, Rule, true>(in, n, out, tiles, mode, op, stream);
  }
  launch_tiles<Tuning, Rule, false>(in, n, out, tiles, mode, op, stream);
}

// The tile shape is chosen by the value type and N only (see the header).
template <class Rule, class InIt, class OutIt, class AccT, class Op>
void run(InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  if constexpr (lookback_scan_small_tuning<AccT>::max_items > 0) {
    if (n <= lookback_scan_small_tuning<AccT>::max_items) {
      return run_tuned<lookback_scan_small_tuning<AccT>, Rule>(in, n, out, mode, op, stream);
    }
  }
  using shared_tuning = lookback_scan_shared_tuning<AccT>;
  using wide_tuning = lookback_scan_wide_tuning<AccT>;
  if constexpr (shared_tuning::shared_tiles) {
    if (n >= wide_tuning::min_items) return run_tuned<wide_tuning, Rule>(in, n, out, mode, op, stream);
    if (n >= shared_tuning::min_items) return run_tuned<shared_tuning, Rule>(in, n, out, mode, op, stream);
  }
  run_tuned<lookback_scan_tuning<AccT>, Rule>(in, n, out, mode, op, stream);
}

}  // namespace cascade::detail::decoupled_lookback

namespace cascade::detail {

// The textbook look-back, by name (its float bits may differ from run to
// run; strategy::reproducible_lookback's and the automatic scan's do not).
template <>
struct scan_algorithm<strategy::decoupled_lookback_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::decoupled_lookback_t, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    decoupled_lookback::run<decoupled_lookback::nearest_prefix>(in, n, out, mode, op, stream);
  }
};

}  // namespace cascade::detail

// The reproducible rule, its scan_algorithm and the automatic scan's come
// with the engine, so that code calling scan_algorithm<strategy::...> may
// include this file alone (the rule's file includes this one first).
#include <cascade/detail/scan/reproducible_lookback.cuh>
