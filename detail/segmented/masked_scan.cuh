#pragma once
// The keyed and segmented scans' engine (inclusive_scan_by_key,
// exclusive_scan_by_key, reduce_by_key, segmented_inclusive_scan,
// segmented_exclusive_scan): the look-back scan of tiles of plain values,
// where each thread holds the segment heads among its items as a bit mask.
//
// A warp loads its values coalesced through its exchange slots (as the flat
// scan does); each thread learns where segments start among its consecutive
// items (heads.cuh: from the keys, loaded the same way, or from a walk over
// the segment begins) and folds its items, restarting at each start. The
// block scans the threads' folds as headed pairs (pairs.cuh: a head count,
// or whether there is one, and the value of the last segment piece), the
// tile's prefix comes from the reproducible look-back
// (reproducible_lookback.cuh), and each thread folds its items again from
// its prefix, writing what the output policy asks: every scanned value
// (coalesced, through the exchange) or each run's key and total. Pairs never
// sit in memory: a tile moves its values and its keys, nothing else, and the
// combination tree (each thread's items left to right, the block scan's, the
// look-back's) depends on the items and the segmentation only, so results
// are bitwise identical whatever the grid, the timing or the GPU.
//
// A tile with a segment head absorbs whatever precedes it: its successors'
// prefixes need nothing before it (the look-back's shortcut).
//
// reduce_by_key needs of its predecessors only how many runs they began
// (its runs' indices): integers, looked back by the textbook rule, whose
// sums have the same bits under any association. A run that spans tiles is
// joined from the tiles' pieces by a second launch (spans.cuh), in a fixed
// order. Its counted pairs through the reproducible look-back, which never
// absorb (the count adds up), kept every tile waiting for the chain of all
// its predecessors. Block 0 chases the tiles' counts (spans.cuh,
// chase_run_counts) and publishes each tile's inclusive count as the counts
// come out, so a tile's look-back finds one beside it.

#include <cascade/detail/primitives/block_scan.cuh>
#include <cascade/detail/primitives/dynamic_shared.cuh>
#include <cascade/detail/primitives/partial_barrier.cuh>
#include <cascade/detail/primitives/prefetch.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/scan/decoupled_lookback.cuh>
#include <cascade/detail/segmented/heads.cuh>
#include <cascade/detail/segmented/index_iterators.cuh>
#include <cascade/detail/segmented/pairs.cuh>
#include <cascade/detail/segmented/spans.cuh>
#include <cascade/detail/tuning/segmented.cuh>
#include <cascade/detail/util/launch.cuh>
#include <cascade/detail/util/temporary.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <cuda/std/functional>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace cascade::detail::masked_scan {

// The heads a thread's pair counts: whether there is one, or how many.
template <class C>
__device__ __forceinline__ C heads_in(unsigned starts) {
  if constexpr (std::is_same_v<C, bool>) return starts != 0;
  else return static_cast<C>(__popc(starts));
}

// Where a thread's items lie: `count` from i0, in the warp's `warp_valid`
// from warp_first, in the tile's `valid` from base.
struct thread_place {
  offset_t base;
  int valid;
  offset_t i0;
  int count;
  offset_t warp_first;
  int warp_valid;
  offset_t tile;
};

// What precedes a thread's items: the tile's prefix, and that combined with
// the block's threads before this one; and the tile's aggregate.
template <class Pair>
struct prefixes {
  maybe<Pair> tile;
  maybe<Pair> thread;
  Pair aggregate;
};

// Scans: every item's value, written coalesced. Inclusive: the segment up to
// the item, init (where given) entering first; exclusive: init at a segment
// head, else init op the segment before the item.
template <bool Exclusive, class OutIt, class T, class Op>
struct scanned_values {
  OutIt out;
  maybe<T> init;
  Op op;
  __device__ OutIt array() const { return out; }  // (the engine's in-place test)
  // The outputs of items from `first` on (the items' place, read on the GPU).
  __device__ scanned_values from(offset_t first) const { return {out + first, init, op}; }
  // x: the thread's items (its warp's exchange slots free).
  template <bool Full, int Items, class View, class Pair, class Exchange, class Staged, class Carry, class RunsBefore>
  __device__ void operator()(const View&, const thread_starts& h, const prefixes<Pair>& p, T (&x)[Items],
                             const thread_place& at, Exchange& exchange, Staged&, const Carry&,
                             const RunsBefore&) const {
    T acc = p.thread.value.value;
    bool has = p.thread.has;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (!Full && k >= at.count) break;
      const bool continues = has && !((h.starts >> k) & 1);
      const T before = acc;
      acc = continues ? static_cast<T>(op(acc, x[k])) : x[k];
      has = true;
      if constexpr (Exclusive) x[k] = continues ? static_cast<T>(op(init.value, before)) : init.value;
      else x[k] = init.has ? static_cast<T>(op(init.value, acc)) : acc;
    }
    store_tile<Full, Items, tile_io::warp_transpose>(out, at.i0, at.warp_first, at.count, at.warp_valid, exchange, x);
  }
};

// The tile's prefix (uncounted heads), found by its first warp, for the
// warps that need it: those with no segment head before their first item
// (lane 0's; `starts` and `exclusive` from the block scan). The others go on
// at once with none (their outputs do not depend on it), and where no warp
// needs it the first warp does not wait for its predecessors either
// (reproducible_lookback.cuh). An in-place scan's outputs wait for the
// tile's publication all the same (decoupled_lookback.cuh). Counted heads
// (reduce_by_key) take block_prefix: the count numbers every warp's runs.
template <class Tuning, class Rule, class Status, class T, class First, class Op, class Recompute>
__device__ maybe<headed<bool, T>> prefix_for_warps(const Status& status, offset_t tile,
                                                   const headed<bool, T>& aggregate, unsigned starts,
                                                   const headed<bool, T>& exclusive, First first, Op op,
                                                   const Recompute& recompute, maybe<headed<bool, T>>& slot) {
  using Pair = headed<bool, T>;
  using handed = partial_barrier<1>;
  const maybe<Pair> none{Pair{}, false};
  const bool warp_needs = !__shfl_sync(kFullMask, (starts & 1) || (threadIdx.x > 0 && exclusive.heads), 0);
  if (warp_id() == 0) {
    const maybe<Pair> p = Rule::template exclusive_prefix<Tuning>(
        status, tile, aggregate, decoupled_lookback::absorbs(op, aggregate, first), none, op, recompute, warp_needs);
    if (recompute.in_place) __threadfence();  // the tile's publications before its outputs
    if (lane_id() == 0) slot = p;
    handed::sync();
    return p;
  }
  if (!warp_needs && !recompute.in_place) {
    handed::arrive();
    return none;
  }
  handed::sync();
  return slot;
}

// N values of T in registers where Has, else nothing (T need not be default constructible then).
template <bool Has, class T, int N>
struct registers_if {
  T x[N];
};
template <class T, int N>
struct registers_if<false, T, N> {};

struct no_carries {};  // (the scans carry nothing; reduce_by_key: run_carries, spans.cuh)

// reduce_by_key: for each run its first key and its total, at the run's
// index (the heads up to its first item); the input's last item writes the
// number of runs. A tile's keys go out for the runs that start in it, its
// totals for those that start and end in it: both ranges of consecutive
// indices, gathered in shared memory and written coalesced (one run per
// item wrote 1.5 ms at 2^26 item by item, 64 bytes apart across a warp),
// where the keys have slots there (key_heads::exchanged), else item by
// item. A run begun in an earlier tile leaves its pieces in the carries,
// and the spans kernel writes its total; so the tile's prefix is its run
// count alone (integers: the textbook look-back).
//
// The tile publishes its run count as soon as its heads are known (the
// kernel), numbers its runs from its first while it gathers them, and asks
// for the runs before it (runs_before(), block-wide: its look-back) only
// once they are gathered, so the gathering fills the wait for its
// predecessors; runs written item by item need the count at once.
//
// In a tile of about a run per item a thread's consecutive runs sit Items
// slots apart across the warp: 16-way bank conflicts on every gathered
// store, unless the slots skip one in 32 (the exchange's padding). H200,
// 2^26, runs of 1: 0.69-0.73x the time padded; but padding every tile cost
// runs of 4-2^22 1.00-1.04x and a power law 1.06-1.10x, so sparser tiles
// keep plain slots (h200-segmented-rbk-padded-slots.json).
template <class KeysOut, class ValuesOut, class CountOut, class Op>
struct run_totals {
  KeysOut keys_out;
  ValuesOut values_out;
  CountOut runs_out;
  Op op;
  __device__ ValuesOut array() const { return values_out; }
  __device__ run_totals from(offset_t) const { return *this; }  // (keys: items known on the host, from 0)
  // p.thread: the runs before the thread, and (where p.thread.has) the
  // combination of the tile's items before it in their run; p.tile: the
  // same before the tile, whose count runs_before() gives where p.tile's
  // is not yet known (0 then).
  template <bool Full, int Items, class View, class C, class T, class Exchange, class Staged, class Carry,
            class RunsBefore>
  __device__ void operator()(const View& heads, const thread_starts& h, const prefixes<headed<C, T>>& p, T (&x)[Items],
                             const thread_place& at, Exchange& exchange, Staged& staged, const Carry& carry,
                             const RunsBefore& runs_before) const {
    constexpr bool gathered = View::template gathers_keys<Staged>;
    const int started = static_cast<int>(p.aggregate.heads);  // runs starting in the tile
    // The run begun before the tile, where it ends here: its piece to the
    // carries (where there are), else its total from the tile's prefix.
    const bool spans = carry.pieces.first != nullptr;
    // A tile whose runs fit its slots leaves them there for the second
    // launch, which numbers them: it does not wait for its predecessors.
    const bool stash = gathered && spans && started <= carry.slots;
    __shared__ bool first_is_head, last_ends;  // the tile's first and last items'
    registers_if<gathered, typename View::key_type, Items> keys;
    if constexpr (gathered) {
      heads.template thread_keys<Full>(keys.x, staged);  // before their slots take the gathered ones
      if (threadIdx.x == 0) first_is_head = h.starts & 1;
      if (at.count > 0 && at.i0 + at.count == at.base + at.valid) last_ends = h.last_ends;
      __syncthreads();  // every warp is done with its exchange slots
    }
    offset_t first_run = 0;  // the runs before the tile
    if constexpr (!gathered) first_run = runs_before();
    offset_t input_runs = -1;  // where the thread holds the input's last item: the runs up to it, from the tile's
    auto write = [&](auto padding) {
      auto slot = [](offset_t s) { return decltype(padding)::value ? Exchange::padded(int(s)) : int(s); };
      offset_t runs = static_cast<offset_t>(p.thread.value.heads - p.tile.value.heads);  // from the tile's first
      T acc = p.thread.value.value;
      bool has = p.thread.has;
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        if (!Full && k >= at.count) break;
        if ((h.starts >> k) & 1) {
          if constexpr (gathered) staged.exchange[slot(runs)] = keys.x[k];
          else keys_out[first_run + runs] = heads.key(at.i0 + k);
          ++runs;
          acc = x[k];
        } else {
          acc = has ? static_cast<T>(op(acc, x[k])) : x[k];
        }
        has = true;
        const bool ends = k + 1 < at.count ? (h.starts >> (k + 1)) & 1 : h.last_ends;
        if (ends) {
          // (Slot s of the totals: the tile's run s - 1.)
          if (spans && runs == 0) carry.pieces.first[at.tile] = acc;
          else if constexpr (gathered) exchange.exchange[slot(runs)] = acc;
          else values_out[first_run + runs - 1] = acc;
          if (at.i0 + k == heads.n - 1) input_runs = runs;
        }
      }
      if constexpr (gathered) {
        __syncthreads();
        // Slot 0: the run begun before the tile; the last slot: the tile's last run, if it ends here.
        // (Both read from shared memory after the look-back: nothing more held through it.)
        const auto last_slot = [&] { return last_ends ? started : started - 1; };
        if (stash) {  // (the tile's run s - 1 in its slot s - 1)
          const offset_t slots = at.tile * carry.slots;
          const int hi = last_slot();
          for (int s = threadIdx.x; s < started; s += blockDim.x) carry.keys[slots + s] = staged.exchange[slot(s)];
          for (int s = 1 + threadIdx.x; s <= hi; s += blockDim.x) {
            carry.totals[slots + s - 1] = exchange.exchange[slot(s)];
          }
          if (threadIdx.x == 0) carry.stashed[at.tile] = max_of(hi, 0);
          return;
        }
        first_run = runs_before();
        for (int s = threadIdx.x; s < started; s += blockDim.x) keys_out[first_run + s] = staged.exchange[slot(s)];
        const int lo = spans || first_is_head ? 1 : 0, hi = last_slot();
        for (int s = lo + threadIdx.x; s <= hi; s += blockDim.x) {
          values_out[first_run - 1 + s] = exchange.exchange[slot(s)];
        }
      }
    };
    if (gathered && 2 * started > at.valid) write(std::true_type{});
    else write(std::false_type{});
    if (input_runs >= 0) {
      if (stash) *carry.last_runs = input_runs;
      else *runs_out = first_run + input_runs;
    }
    // The tile's carries: its runs before it, the piece of its last run;
    // the run begun before it, if it ends here (the thread with the tile's
    // last item knows, where no run starts in the tile); and that run's
    // piece here where it goes on past the tile.
    if (spans) {
      const bool holds_last = at.count > 0 && at.i0 + at.count == at.base + at.valid;
      if (threadIdx.x == 0) {
        if (!stash) carry.stashed[at.tile] = -1;
        carry.pieces.last[at.tile] = p.aggregate.value;
        if (started > 0) carry.pieces.closes[at.tile] = !(h.starts & 1);
      }
      if (started == 0 && holds_last) {
        carry.pieces.closes[at.tile] = h.last_ends;
        if (!h.last_ends) carry.pieces.first[at.tile] = p.aggregate.value;
      }
    }
  }
};

// A block's shared memory (kernel_shared: static where it fits, else the
// launch's dynamic shared memory).
template <class Tuning, class Heads, class C, class T>
struct kernel_storage {
  static constexpr int threads = Tuning::block_threads, items = Tuning::items_per_thread;
  tile_scan_storage<threads, items, T, tile_io::warp_transpose> exchange;
  block_scan_storage<threads / kWarpThreads, headed<C, T>> scan;
  uninitialized_array<maybe<headed<C, T>>, 1> prefix;
  uninitialized_array<maybe<C>, 1> count_prefix;
  uninitialized_array<unsigned long long, 1> counted;  // reduce_by_key: warps counted << 32 | heads
  typename Heads::template storage<threads, items> staged;
};

// The tile block b scans: with the counts chased, block 0 chases them and
// tile t is block t + 1 (or, reversed for the progress test, the reverse).
template <class Tuning, bool Chased>
__device__ __forceinline__ offset_t tile_of_block() {
  if constexpr (!Chased) return decoupled_lookback::tile_of_block<Tuning>();
  else return Tuning::reversed_tiles ? offset_t(gridDim.x) - 1 - blockIdx.x : offset_t(blockIdx.x) - 1;
}

// Tile tile_of_block() of the n items: the heads of each thread's items,
// its fold, the block scan, the tile's prefix, the outputs. Status: the
// look-back's words, of headed pairs (the scans, by Rule) or of run counts
// (reduce_by_key, by the textbook rule; Carry: its carries).
template <class Tuning, class Rule, class Heads, class ValueIt, class Extent, class Outputs, class C, class T, class Op,
          class Status, class Carry>
__global__ void __launch_bounds__(Tuning::block_threads, Tuning::min_blocks_per_sm)
    kernel(Heads heads, ValueIt values_from, Extent extent, Outputs outputs_from, Status status, Carry carry, Op op) {
  using pair = headed<C, T>;
  constexpr int threads = Tuning::block_threads, items = Tuning::items_per_thread;
  static_assert(items <= 32, "a thread's segment starts are a 32-bit mask");
  constexpr offset_t tile_size = segmented_tile_items<Tuning>;
  constexpr int warp_items = kWarpThreads * items;
  auto& shared = kernel_shared<kernel_storage<Tuning, Heads, C, T>>();
  auto& exchange = shared.exchange;
  auto& scan = shared.scan;
  auto& prefix = shared.prefix;
  auto& count_prefix = shared.count_prefix;
  auto& staged = shared.staged;

  if constexpr (!std::is_same_v<Carry, no_carries>) {
    if (carry.pieces.first != nullptr) let_dependents_launch();  // reduce_by_key's spans launch follows
  }
  // The items (from `extent`): a block past them, where a bound sized the
  // grid, has nothing to do (no tile looks forward).
  const item_range range = heads.resolve(extent);
  const offset_t n = range.n;
  const ValueIt values = values_from + range.first;
  const Outputs outputs = outputs_from.from(range.first);
  // reduce_by_key: the tile's prefix is its run count alone (the textbook
  // look-back), which needs the keys only.
  constexpr bool counts_runs = std::is_same_v<Status, tile_status<C>> && !std::is_same_v<C, bool>;
  constexpr bool chased = counts_runs && Tuning::chased_counts;
  if constexpr (chased) {
    if (blockIdx.x == 0) {
      chase_run_counts<Tuning::chase_windows, threads>(run_count_words<C>::at(status, carry.tiles),
                                                       (n + tile_size - 1) / tile_size, Tuning::chase_spin_ns);
      return;
    }
  }
  const offset_t tile = tile_of_block<Tuning, chased>();
  const offset_t base = tile * tile_size;
  if (base >= n) return;
  const int valid = static_cast<int>(min_of(n - base, tile_size));
  const int p0 = static_cast<int>(threadIdx.x) * items;
  const offset_t i0 = base + p0;
  const offset_t warp_first = base + offset_t(warp_id()) * warp_items;
  // Item i as a pair: what a silent predecessor's recomputation reads, and
  // the arrays the L2 prefetch asks for.
  const index_input<headed_items<Heads, ValueIt, C, T>> pairs{{heads, values}, 0};
  prefetch_tile<Tuning, tile_size>(pairs, n, tile);
  prefetch_segments<Tuning, tile_size, value_t<decltype(pairs)>>(heads, n, tile);
  const bool in_place = decoupled_lookback::may_overlap(values, outputs);
  if constexpr (counts_runs) {
    if (threadIdx.x == 0) shared.counted[0] = 0;
    __syncthreads();
  }

  // Whole tiles (all but the last) drop every bound check.
  auto scan_tile = [&](auto whole) {
    constexpr bool full = decltype(whole)::value;
    const int count = full ? items : clamp_to(valid - p0, 0, items);
    const int warp_valid = full ? warp_items : clamp_to(valid - warp_id() * warp_items, 0, warp_items);
    // Where the tuning says, a whole tile of an aligned array goes to the
    // exchange by asynchronous copies, in flight while the heads are found.
    bool vectors = Tuning::copies_values && start_exchange_copies_if<full, T>(values, warp_first, exchange);
    const auto view = heads.stage(base, valid, staged);  // block-wide
    const thread_starts h = view.template starts<full, items>(i0, count, warp_first, warp_valid, staged);
    if constexpr (counts_runs) {
      // The run count goes out as soon as the heads are known, before the
      // values arrive: the tiles after it wait for it in their look-back.
      // The last warp to count publishes (no barrier: a shared atomic).
      const unsigned warp_heads = __reduce_add_sync(kFullMask, __popc(h.starts));
      if (lane_id() == 0) {
        const unsigned long long was = atomicAdd(&shared.counted[0], (1ull << 32) | warp_heads);
        if ((was >> 32) == threads / kWarpThreads - 1) {
          const C heads_in_tile = static_cast<C>((was & 0xffffffffu) + warp_heads);
          status.publish(tile, tile == 0 ? tile_prefix : tile_aggregate, heads_in_tile);
          run_count_words<C>::at(status, carry.tiles).counts.publish(tile, tile_aggregate, heads_in_tile);
        }
      }
    }
    if (vectors) finish_exchange_copies();
    else vectors = fill_exchange<full, items>(values, warp_first, warp_valid,
                                              full ? T{} : static_cast<T>(values[base]), exchange);
    T x[items];
    read_blocked(vectors, exchange, x);
    T acc = x[0];
#pragma unroll
    for (int k = 1; k < items; ++k) {
      if (!full && k >= count) break;
      acc = (h.starts >> k) & 1 ? x[k] : static_cast<T>(op(acc, x[k]));
    }
    const block_scan_result<pair> scanned = block_scan(pair{heads_in<C>(h.starts), acc}, headed_op<Op>{op},
                                                       full ? threads : (valid + items - 1) / items, scan);
    // The values wait in the exchange through the look-back, not in registers.
    const auto first = [&] { return pairs[base]; };
    const prefixes<pair> p = [&] {
      if constexpr (std::is_same_v<C, bool>) {
        const decoupled_lookback::silent_tile<threads, items, pair, decltype(pairs), Status, headed_op<Op>> recompute{
            pairs, status, headed_op<Op>{op}, in_place};
        const maybe<pair> before = prefix_for_warps<Tuning, Rule>(status, tile, scanned.aggregate, h.starts,
                                                                  scanned.exclusive, first, headed_op<Op>{op},
                                                                  recompute, prefix[0]);
        return prefixes<pair>{before, threadIdx.x > 0 ? then(before, scanned.exclusive, headed_op<Op>{op}) : before,
                              scanned.aggregate};
      } else if constexpr (std::is_same_v<Status, tile_status<pair>>) {
        // reduce_by_key in one launch (few tiles): counted pairs through the
        // reproducible look-back, the value of the run begun before the tile
        // with them.
        const decoupled_lookback::silent_tile<threads, items, pair, decltype(pairs), Status, headed_op<Op>> recompute{
            pairs, status, headed_op<Op>{op}, in_place};
        const maybe<pair> before = decoupled_lookback::block_prefix<Tuning, Rule>(
            status, tile, scanned.aggregate, first, maybe<pair>{pair{}, false}, headed_op<Op>{op}, recompute, prefix[0]);
        const maybe<pair> thread = threadIdx.x > 0 ? then(before, scanned.exclusive, headed_op<Op>{op}) : before;
        const pair none{C(0), T{}};  // (tile 0: no runs before it)
        return prefixes<pair>{{before.has ? before.value : none, true}, {thread.has ? thread.value : none, thread.has},
                              scanned.aggregate};
      } else {
        // The tile's run count went out with its heads; the runs before it
        // are looked back for when the outputs ask (runs_before), and its
        // values come from the tile alone (run_totals): counted from the
        // tile's first.
        const bool after_first = threadIdx.x > 0;
        const pair thread{after_first ? scanned.exclusive.heads : C(0), scanned.exclusive.value};
        return prefixes<pair>{{pair{C(0), scanned.aggregate.value}, true}, {thread, after_first},
                              scanned.aggregate};
      }
    }();
    // Block-wide: the runs begun before the tile (reduce_by_key).
    const auto runs_before = [&]() -> offset_t {
      if constexpr (counts_runs) {
        using counts_in = index_input<head_counts<Heads, C>>;
        const decoupled_lookback::silent_tile<threads, items, C, counts_in, Status, ::cuda::std::plus<C>> recompute{
            counts_in{{heads}, 0}, status, {}, in_place};
        if (threadIdx.x < kWarpThreads) {
          // A tile that begins a run at most of its items takes longer, and
          // so do its neighbours: its first poll waits longer, in proportion.
          decoupled_lookback::pace_first_poll<Tuning>(
              tile, static_cast<unsigned>(Tuning::busy_tile_poll_delay_ns * std::uint64_t(scanned.aggregate.heads) /
                                          std::uint64_t(tile_size)));
          const maybe<C> runs = decoupled_lookback::nearest_prefix::prefix_after_publishing<Tuning>(
              status, tile, scanned.aggregate.heads, maybe<C>{C(0), false}, ::cuda::std::plus<C>{}, recompute);
          if (in_place) __threadfence();  // the tile's publications before its outputs
          if (threadIdx.x == 0) count_prefix[0] = runs;
        }
        __syncthreads();
        return count_prefix[0].has ? static_cast<offset_t>(count_prefix[0].value) : offset_t(0);
      } else {
        return static_cast<offset_t>(p.tile.value.heads);
      }
    };
    read_blocked(vectors, exchange, x);
    __syncwarp();  // every lane has its items before the outputs reuse the slots
    outputs.template operator()<full, items>(view, h, p, x,
                                             thread_place{base, valid, i0, count, warp_first, warp_valid, tile},
                                             exchange, staged, carry, runs_before);
  };
  if (valid == tile_size) scan_tile(std::true_type{});
  else scan_tile(std::false_type{});
}

// reduce_by_key's one launch, of fewer than spans_min_tiles blocks: the
// same tiles, at launch bounds for few_tiles_blocks_per_sm blocks an SM
// (more registers, no spills).
template <class Tuning>
struct few_tiles : Tuning {
  static constexpr int min_blocks_per_sm = Tuning::few_tiles_blocks_per_sm;
};

// One scan of the items `values`, segmented by `heads`, into `outputs` (a
// policy above), with the tile shape of Tuning; C counts heads (bool:
// whether there is one). `extent` says where the items lie, at most
// max_n > 0 of them (segmentations.cuh).
template <class C, class T, class Tuning, class Heads, class ValueIt, class Extent, class Outputs, class Op>
void run_tuned(Heads heads, ValueIt values, Extent extent, offset_t max_n, Outputs outputs, Op op,
               cudaStream_t stream) {
  using pair = headed<C, T>;
  using rule = decoupled_lookback::group_prefix;
  const offset_t tiles = (max_n + segmented_tile_items<Tuning> - 1) / segmented_tile_items<Tuning>;
  if (tiles > 0x7fffffffll) throw std::invalid_argument("cascade segmented scan: the input needs more than 2^31 - 1 tiles");
  const stream_place at = place_of(stream);
  constexpr std::size_t shared = kernel_shared_bytes<kernel_storage<Tuning, Heads, C, T>>;
  if constexpr (std::is_same_v<C, bool>) {
    const launch_status<pair> status(rule::status_words(tiles), at);
    launch_shared(at, kernel<Tuning, rule, Heads, ValueIt, Extent, Outputs, C, T, Op, tile_status<pair>, no_carries>,
                  static_cast<unsigned>(tiles), Tuning::block_threads, shared, "cascade segmented scan kernel", heads,
                  values, extent, outputs, status.words(), no_carries{}, op);
  } else {
    // reduce_by_key: from Tuning::spans_min_tiles tiles, a second launch
    // joins the runs that span tiles and places the runs that tiles left
    // in their slots (spans.cuh); fewer tiles take one launch. The carries
    // sit beside the status words, in the stream's workspace.
    using K = typename Heads::key_type;
    using carry_t = run_carries<K, T>;
    // (64-bit counts mean more than 2^32 items, never so few tiles: no
    // one-launch kernel for them.)
    static_assert(segmented_tile_items<Tuning> * Tuning::spans_min_tiles <= (offset_t(1) << 32));
    if constexpr (sizeof(C) < 8) {
      if (tiles < Tuning::spans_min_tiles) {
        const launch_status<pair> status(rule::status_words(tiles), at);
        launch_shared(at,
                      kernel<few_tiles<Tuning>, rule, Heads, ValueIt, Extent, Outputs, C, T, Op, tile_status<pair>, carry_t>,
                      static_cast<unsigned>(tiles), Tuning::block_threads, shared,
                      "cascade reduce_by_key kernel (one launch)", heads, values, extent, outputs, status.words(),
                      carry_t{}, op);
        return;
      }
    }
    // Slots where the keys go through shared memory (the runs gathered there).
    using staged_t = typename Heads::template storage<Tuning::block_threads, Tuning::items_per_thread>;
    const int slots = Heads::template gathers_keys<staged_t>
                          ? static_cast<int>(segmented_tile_items<Tuning> / Tuning::stash_run_items)
                          : 0;
    temporary_layout layout;
    const std::size_t first_at = layout.add<T>(tiles), last_at = layout.add<T>(tiles);
    const std::size_t closes_at = layout.add<bool>(tiles), stashed_at = layout.add<int>(tiles);
    const std::size_t keys_at = layout.add<K>(tiles * slots), totals_at = layout.add<T>(tiles * slots);
    const std::size_t last_runs_at = layout.add<offset_t>(1);
    const launch_status<C> status(run_count_words<C>::words(tiles), at, status_reuse::fresh_epoch, layout.bytes());
    const auto carried = [&](std::size_t offset) { return static_cast<char*>(status.scratch()) + offset; };
    const carry_t carry{{reinterpret_cast<T*>(carried(first_at)), reinterpret_cast<T*>(carried(last_at)),
                         reinterpret_cast<bool*>(carried(closes_at))},
                        tiles,
                        reinterpret_cast<int*>(carried(stashed_at)),
                        reinterpret_cast<K*>(carried(keys_at)),
                        reinterpret_cast<T*>(carried(totals_at)),
                        slots,
                        reinterpret_cast<offset_t*>(carried(last_runs_at))};
    launch_shared(at, kernel<Tuning, rule, Heads, ValueIt, Extent, Outputs, C, T, Op, tile_status<C>, carry_t>,
                  static_cast<unsigned>(tiles) + (Tuning::chased_counts ? 1 : 0), Tuning::block_threads, shared,
                  "cascade reduce_by_key kernel", heads, values, extent, outputs, status.words(), carry, op);
    launch_stashed_runs<counted_masked_scan_tuning<T>::span_block_threads>(
        at, run_count_words<C>::at(status.words(), tiles), carry, outputs.keys_out, outputs.values_out,
        outputs.runs_out, op);
  }
}

template <class C, class T, class Heads>
using tuning_for = std::conditional_t<!std::is_same_v<C, bool>, counted_masked_scan_tuning<T>,
                                      std::conditional_t<numbered_heads_v<Heads>, numbered_masked_scan_tuning<T>,
                                                         masked_scan_tuning<T>>>;

template <class C, class T, class Heads, class ValueIt, class Extent, class Outputs, class Op>
void run(Heads heads, ValueIt values, Extent extent, offset_t max_n, Outputs outputs, Op op, cudaStream_t stream) {
  run_tuned<C, T, tuning_for<C, T, Heads>>(heads, values, extent, max_n, outputs, op, stream);
}
// The n > 0 items known on the host (the keyed forms): the scans by key of
// 4- and 8-byte values whose keys go through shared memory take the wide
// tiles from wide_keyed_scan_tuning::min_items items on.
template <class C, class T, class Heads, class ValueIt, class Outputs, class Op>
void run(Heads heads, ValueIt values, offset_t n, Outputs outputs, Op op, cudaStream_t stream) {
  if constexpr (std::is_same_v<C, bool> && (sizeof(T) == 4 || sizeof(T) == 8)) {
    using wide = wide_keyed_scan_tuning<T>;
    using keys_t = typename Heads::template storage<wide::block_threads, wide::items_per_thread>;
    if constexpr (Heads::template gathers_keys<keys_t>) {
      if (n >= wide::min_items) return run_tuned<C, T, wide>(heads, values, items_known{n}, n, outputs, op, stream);
    }
  }
  run<C, T>(heads, values, items_known{n}, n, outputs, op, stream);
}

}  // namespace cascade::detail::masked_scan
