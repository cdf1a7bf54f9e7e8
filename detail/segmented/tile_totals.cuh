#pragma once
// The segmented reductions' engine (segmented_reduce, by offsets and by a
// fixed size): segment totals from tiles of items cut evenly, whatever the
// segments, one block per tile.
//
// A thread folds its consecutive items left to right, restarting at each
// segment start, and leaves the fold at the end of each of its pieces in
// shared memory. A block scan of the threads' last pieces (headed pairs,
// pairs.cuh) completes the pieces that continue from the threads before, so
// that every segment's total in the tile sits at its last item; the block
// then writes the totals of the tile's segments, coalesced. Each tile
// publishes its piece of its last segment (a status word); the tile where a
// segment that spans tiles ends joins the pieces of the tiles before it, in
// order, in the same launch (fixed sizes of more than 256 tiles: in a
// second launch, joins_kernel, whose warps take the rounds of pieces side
// by side). Nothing is read twice and only such a tile waits, for tiles
// that started before it, so the cost depends on the number of items and
// segments, never on how they are distributed; and the combination tree
// depends on the items and the segmentation only: bitwise identical
// results whatever the grid, the timing or the GPU.
//
// The scans (segmented and keyed) and reduce_by_key, whose outputs depend on
// what precedes every item, run on the masked scan instead (masked_scan.cuh).

#include <cascade/detail/primitives/block_reduce.cuh>
#include <cascade/detail/primitives/block_scan.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/primitives/tile_status.cuh>
#include <cascade/detail/primitives/prefetch.cuh>
#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/segmented/pairs.cuh>
#include <cascade/detail/segmented/segmentations.cuh>
#include <cascade/detail/segmented/tile_segments.cuh>
#include <cascade/detail/tuning/segmented.cuh>
#include <cascade/detail/util/launch.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <type_traits>

namespace cascade::detail::tile_totals {

// The tile's items pass through here on their way in (coalesced loads),
// then it holds the folds at the pieces' ends.
template <class Tuning, class T>
using tile_exchange = tile_scan_storage<Tuning::block_threads, Tuning::items_per_thread, T, tile_io::warp_transpose>;

// Whether a whole tile reaches the exchange by asynchronous copies through
// its segment search: searched segments (CSR offsets) of an array of T.
template <bool Full, class Tuning, class Segments, class ValueIt, class T>
inline constexpr bool copies_tile = Full && Segments::stage_begins && vector_io_v<tile_exchange<Tuning, T>, T, ValueIt>;

// The blocks per SM the tiles kernel is bounded for (the tuning says why).
template <class Tuning, class Segments, class ValueIt, class T>
inline constexpr int tiles_min_blocks = Segments::one_segment_tiles ? Tuning::one_segment_min_blocks_per_sm
                                        : Segments::inside_thread_segments ? Tuning::inside_threads_min_blocks_per_sm
                                        : !Segments::stage_begins ? Tuning::min_blocks_per_sm
                                        : copies_tile<true, Tuning, Segments, ValueIt, T>
                                            ? Tuning::copying_min_blocks_per_sm
                                            : Tuning::searching_min_blocks_per_sm;

// The pieces of a segment that spans tiles, joined in order in the tile
// where it ends (`own()`, its piece there, read after the barrier that
// completes it; `before`: the status words from the tile where it began,
// own_at tiles back), by the block: Threads pieces a round, thread t
// polling piece t of the round until it is published (the tiles started
// before this one), each round reduced in thread order and the rounds
// combined in order. The tree depends on the number of pieces only. Pieces
// that fit one warp (a segment begun a few tiles back: nearly every join
// where segments are short) are joined by warp 0 alone, with the same tree
// and no block barrier (the other warps leave). The result is in thread 0.
// (One warp folding runs of a lane's pieces, 8 loads in flight a lane, as
// the spans kernel does, held registers enough to spill in every form.)
template <int Threads, class T, class Own, class Op>
__device__ __forceinline__ T join_pieces_before(tile_status<T> before, int own_at, Own own, Op op,
                                                block_reduce_storage<Threads / kWarpThreads, T>& reduced) {
  const bool in_warp = own_at < kWarpThreads;
  if (in_warp) {
    if (warp_id() != 0) return T{};
    __syncwarp();
  } else {
    __syncthreads();
  }
  const T mine = own();
  T total{};
  for (int round = 0; round <= own_at; round += Threads) {
    const int q = round + static_cast<int>(threadIdx.x);
    T x{};
    if (q < own_at) {
      while (before.peek(q, x) == tile_invalid) {
      }
    } else if (q == own_at) {
      x = mine;
    }
    const int valid = min_of(own_at + 1 - round, Threads);
    const T reduced_round = in_warp ? warp_reduce(x, op, 0, valid) : block_reduce(x, op, valid, reduced);
    if (threadIdx.x == 0) total = round == 0 ? reduced_round : static_cast<T>(op(total, reduced_round));
    if (!in_warp) __syncthreads();  // (the storage, for the next round)
  }
  return total;
}

// One round of join_pieces_before's tree by one warp, where every piece is
// published already: the `valid` pieces from round_first, combined as
// block_reduce does for Threads threads (each warp's 32 in lane order, then
// the warps' totals in order), so the same bits; the result in lane 0.
template <int Threads, class T, class Piece, class Op>
__device__ __forceinline__ T warp_join_round(Piece piece, offset_t round_first, int valid, Op op) {
  constexpr int groups = Threads / kWarpThreads;  // (block_reduce's warps)
  T x[groups];
#pragma unroll
  for (int g = 0; g < groups; ++g) {  // (every load in flight before the first shuffle)
    const int q = g * kWarpThreads + lane_id();
    if (q < valid) x[g] = piece(round_first + q);
  }
  T partial{};  // lane g: group g's total
#pragma unroll
  for (int g = 0; g < groups; ++g) {
    const T total = shuffle_idx(warp_reduce(x[g], op, 0, clamp_to(valid - g * kWarpThreads, 0, kWarpThreads)), 0);
    if (lane_id() == g) partial = total;
  }
  return warp_reduce<ceil_pow2(groups)>(partial, op, 0, min_of((valid + kWarpThreads - 1) / kWarpThreads, groups));
}

// A segment that spans tiles enough to be joined in a launch of its own
// (joins_kernel), as one block of it finds it: the segment, its first
// and last tiles, and where its last tile left its piece (null: that tile's
// published piece is that piece).
template <class T>
struct join_span {
  offset_t segment, from, to;
  const T* closing;
};

// Fixed sizes (segs.joins_apart): block s joins segment s where it spans two
// tiles or more, known from the size before the tiles are done. Every tile
// where a segment ends leaves its piece in closing[tile], except where sizes
// are multiples of the tile (closing null).
template <offset_t TileItems>
struct joins_by_size {
  static constexpr bool after_tiles = false;
  offset_t size, n;
  template <class T>
  __device__ bool find(const tile_status<T>&, const T* closing, join_span<T>& span) const {
    const offset_t begin = offset_t(blockIdx.x) * size, end = min_of(begin + size, n);
    span = {offset_t(blockIdx.x), begin / TileItems, (end - 1) / TileItems, nullptr};
    if (closing != nullptr) span.closing = closing + span.to;
    return span.to > span.from;  // (a segment inside one tile: its tile wrote it)
  }
};

// A segment joined apart by offsets: its number and the tile it began in,
// left by the tile where it ends (window w of joins_by_window). Its piece
// stays in closing[w]: kept in this struct instead, ptxas spilled 8-12 bytes
// more in the 32-register float tiles kernel, which took 1.00-1.10x the time
// at segments of 4096 items and more (H200, three rounds against this form,
// int32's unchanged kernel 0.95-1.05x; h200-segmented-apart-piece-fold.json).
struct apart_segment {
  offset_t segment, from;
};

// CSR offsets (segs.joins_apart): only the tiles kernel learns the lengths.
// A tile that ends a segment of more than Window tiles marks its status word
// (tile_prefix) and leaves its piece in closing[w] and the segment in
// listed[w], w = tile / Window: such segments' last tiles lie more than Window
// tiles apart, so every window of Window tiles holds at most one. Block w
// looks for it among its window's words, once the tiles are done.
template <offset_t Window>
struct joins_by_window {
  static constexpr bool after_tiles = true;
  offset_t tiles;
  const apart_segment* listed;
  template <class T>
  __device__ bool find(const tile_status<T>& pieces, const T* closing, join_span<T>& span) const {
    __shared__ offset_t marked;
    const offset_t first = offset_t(blockIdx.x) * Window, last = min_of(first + Window, tiles);
    if (threadIdx.x == 0) marked = -1;
    __syncthreads();
    for (offset_t t = first + threadIdx.x; t < last; t += blockDim.x) {
      T x;
      if (pieces.peek(t, x) == tile_prefix) marked = t;
    }
    __syncthreads();
    if (marked < 0) return false;
    span = {listed[blockIdx.x].segment, listed[blockIdx.x].from, marked, closing + blockIdx.x};
    return true;
  }
};

// The joins of segments over many tiles, in a launch of their own (the tiles
// kernel publishes each tile's piece of its last segment as always, and
// leaves such segments unjoined; `Joins` says which block joins which).
// A block joins one segment's pieces with join_pieces_before's tree, the
// same bits; but its warps reduce the rounds side by side, since every piece
// is there, where the tiles kernel's last tile reduces them one after the
// other, a dependent read each (one segment of 2^26 floats: 64 rounds, about
// 40 us after the other tiles are done). Bounded for 32 warps, the most
// run() launches, whatever the value type (wide values spill rather than
// leave a launch without the registers it asks for).
template <int Threads, class Joins, class OutIt, class T, class Op>
__global__ void __launch_bounds__(kWarpThreads * kWarpThreads)
    joins_kernel(Joins joins, OutIt out, T init, Op op, tile_status<T> pieces, const T* closing) {
  __shared__ uninitialized_array<T, kWarpThreads> round_totals;
  join_span<T> span;
  if (!Joins::after_tiles && !joins.find(pieces, closing, span)) return;
  wait_for_prior_grid();  // the pieces (a dependent launch)
  if (Joins::after_tiles && !joins.find(pieces, closing, span)) return;
  const offset_t count = span.to - span.from + 1;
  const auto piece = [&](offset_t q) {
    if (q == count - 1 && span.closing != nullptr) return *span.closing;
    T x;
    pieces.peek(span.from + q, x);  // (published: the tiles kernel has finished)
    return x;
  };
  const int warps = static_cast<int>(blockDim.x) / kWarpThreads;
  T total{};
  for (offset_t batch = 0; batch < count; batch += offset_t(warps) * Threads) {
    const offset_t round_first = batch + offset_t(warp_id()) * Threads;
    if (round_first < count) {
      const int valid = static_cast<int>(min_of<offset_t>(count - round_first, Threads));
      const T round = warp_join_round<Threads, T>(piece, round_first, valid, op);
      if (lane_id() == 0) round_totals[warp_id()] = round;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const int rounds = int(min_of<offset_t>((count - batch + Threads - 1) / Threads, warps));
      for (int r = 0; r < rounds; ++r) {
        total = batch == 0 && r == 0 ? round_totals[0] : static_cast<T>(op(total, round_totals[r]));
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[span.segment] = static_cast<T>(op(init, total));
}

// The first of the empty segments just before segment `first`, which begins
// at item `base` (as segment first - 1 does): begins ascend, so those
// segments are the ones that begin at `base` (warp-collective). The 32
// before are probed at once, and only where they are all empty is the rest
// searched (a leading run of millions of empty segments: a few rounds,
// where a walk one segment at a time took H200 0.5 s for 4 million).
template <class View, class Id = typename View::id_type>
__device__ Id empties_before(const View& view, Id first, offset_t base) {
  const Id probe = first - 1 - Id(lane_id());
  const unsigned empty = __ballot_sync(kFullMask, probe >= 0 && view.begin(probe) == base);
  if (empty != kFullMask) return first - Id(__popc(empty));  // (the empty ones are lanes 0 .. k)
  if (base == 0) return 0;  // every segment before begins at the first item
  return Id(warp_last_begun(view, Id(0), Id(first - kWarpThreads - 1), base - 1) + 1);  // (begin(0) = 0 < base)
}

// out[from, to) = init, by the block (coalesced).
template <int Threads, class OutIt, class Id, class T>
__device__ void fill_segments(OutIt out, Id from, Id to, const T& init) {
  for (Id j = from + Id(threadIdx.x); j < to; j += Threads) out[j] = init;
}

// A thread's fold of its items, left to right, restarting where bit k of
// `starts` is set (item k begins a segment), each piece's fold stored at its
// end (bit k of `piece_ends`) through own_end(k); returns the last piece's.
// The offsets form and the fixed sizes inside threads share it, so both give
// the same bits.
template <bool Full, int Items, class T, class Op, class OwnEnd>
__device__ __forceinline__ T fold_pieces(const T (&x)[Items], int count, unsigned starts, unsigned piece_ends, Op op,
                                         OwnEnd own_end) {
  T acc = x[0];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (!Full && k >= count) break;
    if (k > 0) acc = (starts >> k) & 1 ? x[k] : static_cast<T>(op(acc, x[k]));
    if ((piece_ends >> k) & 1) own_end(k) = acc;
  }
  return acc;
}

// Tile blockIdx.x of the n items (from `extent`: a block past them, where a
// bound sized the grid, does nothing, and where there are no items at all,
// every segment gets init). Each thread marks where segments start
// among its items (a walk over the segment begins, not the items) and folds
// its items; the fold at a piece's last item goes to ends(p) (shared memory,
// by position). After the block scan ends(p) holds, at each segment's last
// item, the segment's total in the tile. The block finally walks the tile's
// segments: the totals of those that began and ended in the tile, init for
// the empty ones; where segments may cross tiles' edges (`pieces` has an
// epoch), it publishes its last segment's piece, and joins the one it ends
// that began in an earlier tile.
template <class Tuning, class Segments, class ValueIt, class Extent, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Tuning::block_threads, tiles_min_blocks<Tuning, Segments, ValueIt, T>)
    tiles_kernel(Segments segs, ValueIt values_from, Extent extent, OutIt out, T init, Op op,
                 tile_status<T> pieces, T* closing, apart_segment* listed) {
  using Id = typename Segments::id_type;
  using run = headed<bool, T>;
  constexpr int threads = Tuning::block_threads, items = Tuning::items_per_thread;
  static_assert(items <= 32, "a thread's segment starts are a 32-bit mask");
  constexpr offset_t tile_size = segmented_tile_items<Tuning>;
  __shared__ segment_begins<Id, tile_size> staged;
  __shared__ block_scan_storage<threads / kWarpThreads, run> scan;
  __shared__ block_reduce_storage<threads / kWarpThreads, T> reduced;
  // ends(p): the fold at item base + p (each warp its own slots).
  using exchange_t = tile_exchange<Tuning, T>;
  __shared__ exchange_t exchange;
  constexpr int warp_items = kWarpThreads * items;
  auto ends = [&](int p) -> T& {
    return exchange.exchange[(p / warp_items) * exchange_t::warp_slots + exchange_t::padded(p % warp_items)];
  };
  // ends(p0 + k) for this thread's items: at a constant offset k where the
  // items divide 32. The fold's stores through ends() computed each address
  // (6.6% of the warp instructions of segmented_reduce by offsets in
  // segments of 16, an issue-bound kernel: Nsight Compute, H200, 2^26
  // floats), and its per-item select of the first piece's fold (3.7%) is a
  // read of that piece's end instead. H200, 2^26, float / int32 / double, the
  // same bits (h200-segmented-own-ends.json): offsets in segments of 1-256,
  // with a power law and half empty 0.85-0.95x the time, fixed sizes of 100
  // 0.82-0.90x, of 1 0.95-1.00x, segments of 4096 and longer 0.98-1.00x.
  static_assert(exchange_t::blocked_is_padded(), "own_end(k) is ends(p0 + k)");
  T* const own_ends = exchange_t::blocked(&exchange.exchange[warp_id() * exchange_t::warp_slots], lane_id());
  auto own_end = [&](int k) -> T& { return own_ends[exchange_t::blocked_offset(lane_id(), k)]; };

  const bool joined = pieces.epoch != 0;
  if (segs.joins_apart) let_dependents_launch();  // (joins_kernel)
  const item_range range = extent.resolve(segs);
  const offset_t n = range.n;
  const ValueIt values = values_from + range.first;
  const offset_t tile = blockIdx.x;
  const offset_t base = tile * tile_size;
  if (base >= n) {
    const offset_t stride = offset_t(gridDim.x) * threads;
    for (offset_t j = offset_t(blockIdx.x) * threads + threadIdx.x; n == 0 && j < offset_t(segs.segments); j += stride) {
      out[j] = init;
    }
    return;
  }
  const int valid = static_cast<int>(min_of(n - base, tile_size));
  const int p0 = static_cast<int>(threadIdx.x) * items;
  const offset_t i0 = base + p0;
  if constexpr (Segments::stage_begins) prefetch_tile<Tuning, tile_size>(values, n, tile);

  // Fixed sizes that divide a thread's items (the kernel compiled for them
  // alone): a thread's segments are its own. It reads its items itself
  // (16-byte vectors where the tile is whole and the array aligned), folds
  // each segment left to right (fold_pieces, the general path's fold: the
  // same bits as the offsets form), leaves the totals at their last items,
  // and each warp writes its segments', coalesced.
  auto fold_inside_threads = [&](auto whole) {
    if constexpr (Segments::inside_thread_segments) {  // (compiled for such segments only)
      constexpr bool full = decltype(whole)::value;
      const int count = full ? items : clamp_to(valid - p0, 0, items);
      const int warp_valid = full ? warp_items : clamp_to(valid - warp_id() * warp_items, 0, warp_items);
      T x[items];
      load_blocked(values, i0, count, full && aligned16(values), x);
      const int size = static_cast<int>(segs.size);
      unsigned starts = 0;
      for (int k = 0; k < items; k += size) starts |= 1u << k;
      if (count > 0) {
        fold_pieces<full>(x, count, starts, (starts >> 1) | (1u << (count - 1)), op, own_end);
      }
      __syncwarp();
      const int warp_at = warp_id() * warp_items;  // (tile positions)
      const Id first_here = segs.segment_of(base + warp_at);
      for (int s = lane_id(); s * size < warp_valid; s += kWarpThreads) {
        out[first_here + Id(s)] = static_cast<T>(op(init, ends(warp_at + min_of((s + 1) * size, warp_valid) - 1)));
      }
    }
  };

  // Whole tiles (all but the last) drop every bound check.
  auto reduce_tile = [&](auto whole) {
    constexpr bool full = decltype(whole)::value;
    const int count = full ? items : clamp_to(valid - p0, 0, items);
    const int warp_valid = full ? warp_items : clamp_to(valid - warp_id() * warp_items, 0, warp_items);
    const offset_t warp_first = base + offset_t(warp_id()) * warp_items;
    // The tile's loads stay in flight while its segments are found (CSR
    // offsets: the searches' and the staging's round trips): in registers,
    // or for a whole tile of an aligned array, by asynchronous copies that
    // hold none (a misaligned one is read before the search instead).
    T x[items];
    bool vectors = false;
    const auto view = [&] {
      if constexpr (copies_tile<full, Tuning, Segments, ValueIt, T>) {
        const bool copying = start_exchange_copies_if<full, T>(values, warp_first, exchange);
        vectors = copying || fill_exchange<full, items>(values, warp_first, warp_valid, T{}, exchange);
        const auto v =
            tile_view<tile_size, Tuning::begins_in_flight, Tuning::search_over_after_miss>(segs, base, valid, staged);
        if (copying) finish_exchange_copies();
        return v;
      } else {
        vectors = load_exchange<full, items, exchange_t>(values, warp_first, warp_valid,
                                                         full ? T{} : static_cast<T>(values[base]), x);
        const auto v =
            tile_view<tile_size, Tuning::begins_in_flight, Tuning::search_over_after_miss>(segs, base, valid, staged);
        store_exchange(vectors, x, exchange);
        return v;
      }
    }();
    // Each branch below reads the thread's items from the exchange as it
    // starts: read before the branches, 16 of them held through the choice
    // spilled at 8 blocks per SM (int32; the tuning's copying_min_blocks_per_sm).
    const auto read_items = [&] {
      read_blocked(vectors, exchange, x);
      __syncwarp();  // the warp's slots are free for ends()
    };
    const Id first = view.first, last = view.last;
    // The tile's total, in thread 0 at least.
    T aggregate{};
    if (Segments::one_segment_tiles || first == last) {
      read_items();
      // Inside one segment (segments of about a tile or longer): no starts,
      // so the tile's total is a block reduction of its items in order, and
      // no block scan of headed pieces. Only thread 0 walks the one segment
      // below, and it is where the total is. H200, 2^26 floats in segments
      // of 4096: 61 -> 35 M warp instructions (offsets), 60 -> 32 M (fixed
      // size); segments of 4096 / 65536 / 2^22 took 0.82 / 0.90 / 0.91x the
      // time by offsets, 0.89 / 0.93 / 0.93x by fixed size
      // (h200-segmented-one-segment-tiles.json).
      T acc = x[0];
#pragma unroll
      for (int k = 1; k < items; ++k) {
        if (full || k < count) acc = static_cast<T>(op(acc, x[k]));
      }
      aggregate = block_reduce(acc, op, full ? threads : (valid + items - 1) / items, reduced);
      if (threadIdx.x == 0) ends(valid - 1) = aggregate;  // after the reduction's barrier: every warp has its items
    } else if (const int lanes = segs.threads_per_segment(items); full && lanes > 0) {
      // Segments of whole threads inside a warp (fixed sizes of 2-32
      // threads' items): each thread folds its items, and the warp scan of
      // the block scan (the same tree as the offsets form's) completes each
      // segment at its last thread, which writes it; no block scan, no walk.
      read_items();
      T acc = x[0];
#pragma unroll
      for (int k = 1; k < items; ++k) acc = static_cast<T>(op(acc, x[k]));
      const int lane = lane_id();
      const run before = shuffle_up(warp_inclusive_scan(run{lane % lanes == 0, acc}, headed_op<Op>{op}), 1);
      if (lane % lanes == lanes - 1) out[segs.segment_of(i0)] = static_cast<T>(op(init, op(before.value, acc)));
      return;
    } else {
      read_items();
      // Bit k: item i0 + k begins a segment. (Found before the items are
      // read, ptxas spilled five items fewer here, but placed the 32-register
      // kernels' spills elsewhere: float in segments of 4096-65536 took
      // 0.95-0.97x the time, int32 1.19-1.26x; H200, 2^26, three rounds,
      // h200-segmented-starts-before-items.json.)
      const unsigned starts = segment_starts<items>(view, segs, i0, count).starts;
      // Each piece's fold at its last item; the first piece's also kept (head).
      const unsigned piece_ends = full || count > 0 ? (starts >> 1) | (1u << (count - 1)) : 0u;
      const int head_end = __ffs(piece_ends) - 1;
      T acc = x[0], head = x[0];
      if (full && starts == 0) {  // inside one segment: a plain fold (long segments)
#pragma unroll
        for (int k = 1; k < items; ++k) acc = static_cast<T>(op(acc, x[k]));
        head = acc;
        own_end(items - 1) = acc;
      } else {
        acc = fold_pieces<full>(x, count, starts, piece_ends, op, own_end);
        if (full || count > 0) head = own_end(head_end);  // (the first piece's end, just written)
      }
      const block_scan_result<run> scanned =
          block_scan(run{starts != 0, acc}, headed_op<Op>{op}, full ? threads : (valid + items - 1) / items, scan);
      if ((full || count > 0) && threadIdx.x > 0 && !(starts & 1)) {
        own_end(head_end) = static_cast<T>(op(scanned.exclusive.value, head));
      }
      __syncthreads();
      aggregate = scanned.aggregate.value;
    }
    // The tile's piece of its last segment (all of it where no segment
    // starts in it), for the tile where that segment ends; every tile
    // publishes, so that no join waits for a piece that never comes,
    // whatever the offsets. (The forms that returned above are fixed sizes
    // that divide the tile: nothing is joined there.)
    if (joined && threadIdx.x == 0) pieces.publish(tile, tile_aggregate, aggregate);

    // The tile's segments, from its first item's to its last item's.
    const offset_t tile_end = base + valid;
    for (Id j = first + Id(threadIdx.x); j <= last; j += threads) {
      const offset_t b = view.begin(j), e = view.begin(j + 1);
      if (e == b) {
        out[j] = init;
      } else if (e <= tile_end && b >= base) {  // (else it goes on past the tile, or is joined below)
        out[j] = static_cast<T>(op(init, ends(int(e - 1 - base))));
      }
    }
    // The first segment, where it began in an earlier tile and ends in this
    // one: its pieces joined in order, the last one this tile's.
    const offset_t first_begin = view.begin(first);
    if (joined && first_begin < base && (first < last || view.begin(first + 1) <= tile_end)) {
      // (Clamped: offsets that do not ascend, which no one checks, give wrong
      // totals but read nothing outside the tile. Thread 0 wrote the total
      // of a tile inside one segment.)
      const auto own = [&] {
        return ends(int(clamp_to(view.begin(first + 1) - 1 - base, offset_t(0), offset_t(valid - 1))));
      };
      // (Its begin from the offsets: the staged ones are clamped to the tile.)
      const offset_t from = max_of(view.global.begin(first), offset_t(0)) / tile_size;
      // joins_kernel joins it (its piece here is all it needs): fixed sizes
      // of many tiles, or by offsets where it spans more than a round of
      // pieces, which the tile's word then says (the same piece, published
      // again as tile_prefix: the joins kernel looks for it once the tiles
      // are done, and a join here reads either the same).
      const bool apart =
          segs.joins_apart && (!Segments::stage_begins || tile - from >= Tuning::joins_apart_min_tiles - 1);
      if (apart) {
        if (Segments::stage_begins && threadIdx.x == 0) {
          const offset_t window = tile / (Tuning::joins_apart_min_tiles - 1);
          closing[window] = own();
          listed[window] = {offset_t(first), from};
          pieces.publish(tile, tile_prefix, aggregate);
        } else if (!Segments::one_segment_tiles && threadIdx.x == 0) {
          closing[tile] = own();
        }
      } else {
        const T total =
            join_pieces_before<threads>(pieces.after(from), static_cast<int>(tile - from), own, op, reduced);
        if (threadIdx.x == 0) out[first] = static_cast<T>(op(init, total));
      }
    }
    // Empty segments just before the tile's first (they begin at its first
    // item too, and no tile before reaches them), and after the last item.
    if (first_begin == base && first > 0 && view.begin(first - 1) == base) {
      fill_segments<threads>(out, empties_before(view, first, base), first, init);
    }
    if (!full || tile_end == n) fill_segments<threads>(out, last + 1, segs.segments, init);
  };
  auto by_tile = [&](auto whole) {
    if constexpr (Segments::inside_thread_segments) fold_inside_threads(whole);
    else reduce_tile(whole);
  };
  if (valid == tile_size) by_tile(std::true_type{});
  else by_tile(std::false_type{});
}

// The totals of the numbered segments `segs` of the items `values` (init op
// total, init for an empty segment) into out[0, segments): `extent` says
// where the items lie, at most max_n > 0 of them.
template <class Segments, class ValueIt, class Extent, class OutIt, class T, class Op>
void run(Segments segs, ValueIt values, Extent extent, offset_t max_n, OutIt out, T init, Op op, cudaStream_t stream) {
  using tuning = tile_totals_tuning<T>;
  const offset_t tiles = (max_n + segmented_tile_items<tuning> - 1) / segmented_tile_items<tuning>;
  if (tiles > 0x7fffffffll) throw std::invalid_argument("cascade segmented reduce: the input needs more than 2^31 - 1 tiles");
  const stream_place at = place_of(stream);
  const auto kernel = tiles_kernel<tuning, Segments, ValueIt, Extent, OutIt, T, Op>;
  constexpr const char* what = "cascade segmented reduce tiles kernel";
  // Where no segment can cross a tile's edge (one tile, or fixed sizes that
  // divide the tile), no pieces are published.
  if (tiles == 1 || !segs.may_cross(segmented_tile_items<tuning>)) {
    launch(at, kernel, static_cast<unsigned>(tiles), tuning::block_threads, what, segs, values, extent, out, init, op,
           tile_status<T>{}, static_cast<T*>(nullptr), static_cast<apart_segment*>(nullptr));
    return;
  }
  // Segments of more than a round of pieces to join are joined by a launch
  // of their own (joins_kernel): fixed sizes (the host knows every segment's
  // length) from tuning::joins_apart_min_tiles tiles a segment; by offsets,
  // on grids of tuning::listed_joins_min_tiles tiles or more, each such
  // segment that a tile finds it ends. The tiles where they end leave their
  // pieces beside the status words (by tile, but for multiples of the tile,
  // whose published pieces are those; by window for offsets, with the
  // segment).
  constexpr offset_t tile_items = segmented_tile_items<tuning>;
  constexpr offset_t window = tuning::joins_apart_min_tiles - 1;
  const offset_t windows = (tiles + window - 1) / window;
  if constexpr (Segments::stage_begins) segs.joins_apart = tiles >= tuning::listed_joins_min_tiles;
  else segs.joins_apart = segs.size / tile_items >= tuning::joins_apart_min_tiles;
  const std::size_t listed_at = (windows * sizeof(T) + 15) / 16 * 16;
  const std::size_t scratch = !segs.joins_apart             ? 0
                              : Segments::stage_begins      ? listed_at + windows * sizeof(apart_segment)
                              : Segments::one_segment_tiles ? 0
                                                            : tiles * sizeof(T);
  const launch_status<T> pieces(tiles, at, status_reuse::fresh_epoch, scratch);
  T* const closing = static_cast<T*>(pieces.scratch());
  apart_segment* const listed =
      Segments::stage_begins && segs.joins_apart
          ? reinterpret_cast<apart_segment*>(static_cast<char*>(pieces.scratch()) + listed_at)
          : nullptr;
  launch(at, kernel, static_cast<unsigned>(tiles), tuning::block_threads, what, segs, values, extent, out, init, op,
         pieces.words(), closing, listed);
  if (!segs.joins_apart) return;
  // A warp a round of pieces, up to 32.
  const auto join = [&](auto joins, offset_t grid, offset_t most_tiles) {
    const offset_t rounds = (most_tiles + tuning::block_threads - 1) / tuning::block_threads;
    const unsigned warps = static_cast<unsigned>(min_of<offset_t>(rounds, kWarpThreads));
    launch_after_prior(at, static_cast<unsigned>(tiles),
                       joins_kernel<tuning::block_threads, decltype(joins), OutIt, T, Op>,
                       static_cast<unsigned>(grid), warps * kWarpThreads, "cascade segmented reduce joins kernel",
                       joins, out, init, op, pieces.words(), static_cast<const T*>(closing));
  };
  if constexpr (Segments::stage_begins) {
    join(joins_by_window<window>{tiles, listed}, windows, tiles);
  } else {  // (a segment spans at most size / tile_items + 2 tiles)
    join(joins_by_size<tile_items>{segs.size, segs.n}, offset_t(segs.segments), segs.size / tile_items + 2);
  }
}

}  // namespace cascade::detail::tile_totals
