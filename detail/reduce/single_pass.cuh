#pragma once
// The automatic reduce: one launch, order-preserving, deterministic.
//
// The input is cut into chunks whose size depends on N only. Each block takes
// chunks (grid-stride), its warps each reduce a contiguous span of the chunk
// row by row (a row: 32 lanes x one 16-byte vector), and the warp partials
// are combined in warp order into the chunk's partial, which the block
// publishes in a tagged status word (value and tag in one store: no fence, no
// counter). The grid's last block, once its own chunks are done, reads the
// partials as they become valid, clearing each word for the next launch (so
// no launch needs a fresh epoch or a memset), reduces them in chunk order and
// applies init. The grid size only decides which block
// computes a chunk, never how values are combined, so results are bitwise
// identical whatever the grid or the GPU's SM count. No identity is needed:
// partial rows and warps combine only the lanes that hold data.
//
// The last block waits only for blocks started before it or beside it: it
// holds one slot of one SM, so the others can always run.

#include <cascade/functional.cuh>
#include <cascade/detail/reduce/algorithm.cuh>
#include <cascade/detail/primitives/block_reduce.cuh>
#include <cascade/detail/primitives/load.cuh>
#include <cascade/detail/primitives/tile_status.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/tuning/reduce.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/launch.cuh>
#include <cascade/detail/util/temporary.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <cascade/detail/util/math.cuh>

#include <cstdint>
#include <type_traits>

namespace cascade::detail::single_pass {

// `batches` (>= 1) batches of Rows whole rows from `begin` (a row: 32 lanes
// x V items), the loads of a batch in flight together. For a commutative
// operator each lane folds its share of every row and the warp reduces once
// after (as CUB does): another fixed tree, a function of the span only, so
// floating-point results stay bitwise reproducible; the result is each
// lane's fold. Otherwise one warp reduction per row keeps the order and lane
// 0 holds the total. The first batch seeds the total: no identity needed.
// H100, double sums, the lane fold against a reduction per row (event-timed,
// 32 MB): 13.38 against 13.92 us.
template <int V, int Rows, bool Vectorized, class AccT, class It, class Op>
__device__ __forceinline__ AccT fold_full_batches(It in, offset_t begin, offset_t batches, Op op) {
  constexpr int row = kWarpThreads * V;
  constexpr bool reorder = is_commutative_v<Op>;
  const It lane_in = in + begin + lane_id() * V;
  const bool lead = reorder || lane_id() == 0;  // the lanes whose total counts
  // A lane's items, and its rows' totals, come in order: the operator's
  // in-order form folds them.
  const auto in_order_op = in_order<Op>::form(op);
  auto fold_row = [&](const AccT(&items)[V]) {
    const AccT x = fold_items(items, in_order_op);
    return reorder ? x : warp_reduce(x, op);
  };
  AccT items[Rows][V];
#pragma unroll
  for (int r = 0; r < Rows; ++r) load_items<V, Vectorized>(lane_in, offset_t(r) * row, items[r]);
  AccT acc = fold_row(items[0]);
#pragma unroll
  for (int r = 1; r < Rows; ++r) {
    const AccT x = fold_row(items[r]);
    if (lead) acc = in_order_op(acc, x);
  }
  // One batch per trip: unrolled further, float sums took 64 registers and
  // spilled (2^28 at 1.075x CUB's time against 0.996).
#pragma unroll 1
  for (offset_t b = 1; b < batches; ++b) {
#pragma unroll
    for (int r = 0; r < Rows; ++r) load_items<V, Vectorized>(lane_in, (b * Rows + r) * row, items[r]);
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      const AccT x = fold_row(items[r]);
      if (lead) acc = in_order_op(acc, x);
    }
  }
  return acc;
}

// The rows of [begin, end) after a warp's whole batches, one at a time (the
// last may be partial): each reduced across the warp and added to lane 0's
// total, which `has` says whether it holds yet.
template <int V, class AccT, class It, class Op>
__device__ AccT warp_reduce_rest(It in, offset_t begin, offset_t end, AccT acc, bool has, Op op) {
  constexpr int row = kWarpThreads * V;
  const int lane = lane_id();
  for (offset_t base = begin; base < end; base += row) {
    const offset_t index = base + lane * V;
    const int count = static_cast<int>(clamp_to(end - index, offset_t(0), offset_t(V)));
    const int lanes = static_cast<int>(min_of((end - base + V - 1) / V, offset_t(kWarpThreads)));
    AccT items[V];
    load_items_guarded(in, index, count, items);
    AccT x;
    if (count > 0) x = fold_items(items, in_order<Op>::form(op), count);
    x = warp_reduce(x, op, 0, lanes);
    if (lane == 0) acc = has ? op(acc, x) : x;
    has = true;
  }
  return acc;
}

// p[0] op ... op p[count-1], in order (count >= 1), reading 8 items ahead of
// each 8 combinations from an iterator advanced once per 8 (constant offsets
// after): what a computed iterator costs per item is its own arithmetic. The
// count is 64-bit: a lane's run passes 2^31 items once N passes 2^47.
template <class AccT, class It, class Op>
__device__ __forceinline__ AccT fold_run(It p, offset_t count, Op op) {
  constexpr int unroll = 8;
  AccT acc = static_cast<AccT>(p[0]);
  offset_t k = 1;
  for (; k + unroll <= count; k += unroll) {
    const It q = p + k;  // then constant offsets (a counting iterator adds them without converting k)
    AccT items[unroll];
#pragma unroll
    for (int j = 0; j < unroll; ++j) items[j] = static_cast<AccT>(q[j]);
#pragma unroll
    for (int j = 0; j < unroll; ++j) acc = op(acc, items[j]);
  }
  for (; k < count; ++k) acc = op(acc, static_cast<AccT>(p[k]));
  return acc;
}

// For computed iterators (counting, constant: no memory traffic) lane l
// folds the run [begin + l*run, begin + (l+1)*run) alone and the warp reduces
// once, in lane order: one warp reduction per span instead of one per row,
// which is what bounds a reduce with nothing to load. Requires begin < end.
template <class AccT, class It, class Op>
__device__ AccT warp_reduce_runs(It in, offset_t begin, offset_t end, offset_t run, Op op) {
  const offset_t first = begin + lane_id() * run;
  AccT acc{};
  if (first < end) acc = fold_run<AccT>(in + first, min_of(run, end - first), op);
  const int lanes = static_cast<int>(min_of((end - begin + run - 1) / run, offset_t(kWarpThreads)));
  return warp_reduce(acc, op, 0, lanes);
}

template <class Tuning>
struct shape {
  static constexpr int warps = Tuning::block_threads / kWarpThreads;
  static constexpr int row = kWarpThreads * Tuning::vector_items;
  static constexpr offset_t block_step = offset_t(warps) * Tuning::rows_in_flight * row;
};

// How many of a chunk's warps hold data: all but in a short last chunk.
template <int Warps>
__device__ __forceinline__ int warps_holding(offset_t length, offset_t warp_span) {
  return length >= Warps * warp_span ? Warps : static_cast<int>((length + warp_span - 1) / warp_span);
}

// The block reduces the chunk [begin, end) (begin < end; chunk_items, a whole
// number of block steps, at most), warp w taking [begin + w*warp_span,
// begin + (w+1)*warp_span); the result is in thread 0.
//
// Every chunk but the last is whole: its warps reduce whole batches and
// nothing else (no partial rows, no count of the warps holding data, and
// one copy of the batch loop in the kernel); only the last chunk goes on to
// the rest of its rows. H100, 32 MB, this kernel (with the finish kinds
// below) against the one before, in-kernel %globaltimer stamps (medians of
// 100, four runs in one process): int64, the last chunk published
// 5.28-5.38 us after the first block started against 5.50-5.60, the result
// at 6.02-6.14 against 6.24-6.37, between the events 10.11-10.34 against
// 10.37-10.66 us; double, the result at 6.02-6.14 against 6.27-6.40.
template <class Tuning, bool Vectorized, class AccT, class It, class Op>
__device__ __forceinline__ AccT reduce_chunk(It in, offset_t begin, offset_t end, offset_t chunk_items, Op op,
                                             block_reduce_storage<shape<Tuning>::warps, AccT>& storage) {
  constexpr int warps = shape<Tuning>::warps;
  const offset_t warp_span = chunk_items / warps;
  const offset_t warp_begin = begin + warp_id() * warp_span;
  const offset_t warp_end = clamp_to(end, warp_begin, warp_begin + warp_span);
  AccT x{};
  if constexpr (computed_iterator_v<It>) {
    if (warp_begin < warp_end) x = warp_reduce_runs<AccT>(in, warp_begin, warp_end, warp_span / kWarpThreads, op);
  } else {
    constexpr offset_t batch = offset_t(Tuning::rows_in_flight) * shape<Tuning>::row;
    const offset_t batches = (warp_end - warp_begin) / batch;
    if (batches > 0) {
      x = fold_full_batches<Tuning::vector_items, Tuning::rows_in_flight, Vectorized, AccT>(in, warp_begin,
                                                                                            batches, op);
      if (is_commutative_v<Op>) x = warp_reduce(x, op);
    }
    if (__builtin_expect(end - begin == chunk_items, 1)) return combine_warp_partials(x, op, warps, storage);
    x = warp_reduce_rest<Tuning::vector_items>(in, warp_begin + batches * batch, warp_end, x, batches > 0, op);
  }
  return combine_warp_partials(x, op, warps_holding<warps>(end - begin, warp_span), storage);
}

// The finishing block's reduction of the chunk partials: a fixed tree that
// depends on their count only, in chunk order, each partial's status word
// cleared once read for the next launch (the block is its only reader).
//
// Up to 2 x Threads partials (inputs of up to 32 MB), in runs: thread t polls
// the Run consecutive partials from Run * t, their loads in flight together,
// folds them, and the runs combine in thread order: within one warp up to
// 32 x 4 partials (runs of 4), else across the block (runs of 2). One L2
// round trip and one reduction. The run length is a constant so that no
// thread polls a word twice: runs fitted to the count (1 to 4, polled in
// groups of 4 that repeated the last word) took 0.2 us longer to their
// result. H100, int64, 512 partials, from the last chunk's publication to
// the result: 0.71-0.74 us against 0.93-0.99 (in-kernel %globaltimer
// stamps); event-timed, 32 MB: 10.27-10.30 against 10.40-10.46 us.
// Earlier, against the parked finish below, from the last block's entry
// into the finish to its result, 128 / 512 partials: double 0.64 / 0.90 us
// against 1.06 / 1.28; int32 0.60 / 0.71 against 1.05 / 1.15.
inline constexpr offset_t kOneWarpPartials = kWarpThreads * 4;

template <int Run, int Threads, class AccT, class Op>
__device__ AccT reduce_partials_in_runs(const tile_status<AccT>& partials, offset_t chunks, Op op,
                                        block_reduce_storage<Threads / kWarpThreads, AccT>& storage) {
  const offset_t first = offset_t(threadIdx.x) * Run;
  const int count = static_cast<int>(clamp_to(chunks - first, offset_t(0), offset_t(Run)));
  AccT value[Run];
  // Every pass loads the whole run without branches (a short run reads its
  // last word again), so that the loads go out together: behind a branch
  // each, every load waited for the one before it. The warp passes together
  // until all its lanes have their words: lanes without partials that went
  // ahead and waited at the warp's reduction for the lanes still polling
  // made the finish 3-4 us longer (H200, 64 minmax states: from the last
  // chunk's end to the result 3.8-4.0 us, against 0.8-1.1 with 128 or 256;
  // in-kernel %globaltimer stamps).
  for (bool pending = true; __any_sync(kFullMask, pending);) {
    pending = false;
    if (count > 0) {
#pragma unroll
      for (int k = 0; k < Run; ++k) pending |= partials.peek(first + min_of(k, count - 1), value[k]) == tile_invalid;
    }
  }
  AccT acc{};
#pragma unroll
  for (int k = 0; k < Run; ++k) {
    if (k < count) {
      partials.clear(first + k);
      acc = k == 0 ? value[0] : op(acc, value[k]);
    }
  }
  const int threads_valid = static_cast<int>((chunks + Run - 1) / Run);
  if (threads_valid > kWarpThreads) return block_reduce(acc, op, threads_valid, storage);
  if (warp_id() == 0) acc = warp_reduce(acc, op, 0, threads_valid);  // a uniform branch: no barrier
  return acc;
}

// More partials (up to 8192), parked: the block polls a batch of up to 2048
// at a time (each thread up to 8 words, coalesced, their loads in flight
// together), parks the values in shared memory, then each thread folds a run
// of consecutive values, the block combines the runs in thread order, and
// the batches combine in order. The batches of chunks read in earlier rounds
// are folded while the last ones are still being read; runs of up to 32
// polled in groups took 4-5 us longer at 8192 partials (the last round's
// partials all fell to the last threads, whose groups waited in turn). A
// wait pass and then a read pass took two L2 round trips per batch (H100,
// 8192 chunks, against CUB in one run: int32 2^22 0.88 against 0.92, 2^23
// 0.87 against 0.95, 2^24 0.91 against 0.97).
template <int Threads, class AccT>
struct finish_shape {
  static constexpr int per_thread = clamp_to(int(16384 / (Threads * sizeof(AccT))), 1, 8);  // at most 16 KB
  static constexpr int batch = Threads * per_thread;
  using storage_t = uninitialized_array<AccT, batch>;
};

template <int Threads, class AccT, class Op>
__device__ AccT reduce_partials_parked(const tile_status<AccT>& partials, offset_t chunks, Op op,
                                       block_reduce_storage<Threads / kWarpThreads, AccT>& storage) {
  constexpr int per_thread = finish_shape<Threads, AccT>::per_thread;
  constexpr int batch = finish_shape<Threads, AccT>::batch;
  __shared__ typename finish_shape<Threads, AccT>::storage_t values;
  AccT total{};
  for (offset_t first = 0; first < chunks; first += batch) {
    const int count = static_cast<int>(min_of<offset_t>(batch, chunks - first));
    AccT value[per_thread];
    tile_state state[per_thread];
#pragma unroll
    for (int k = 0; k < per_thread; ++k) state[k] = tile_invalid;
    for (bool pending = true; __any_sync(kFullMask, pending);) {  // the warp together, as above
      pending = false;
#pragma unroll
      for (int k = 0; k < per_thread; ++k) {
        const int i = int(threadIdx.x) + k * Threads;
        if (i < count && state[k] == tile_invalid) {
          state[k] = partials.peek(first + i, value[k]);
          pending |= state[k] == tile_invalid;
        }
      }
    }
#pragma unroll
    for (int k = 0; k < per_thread; ++k) {
      const int i = int(threadIdx.x) + k * Threads;
      if (i < count) {
        partials.clear(first + i);
        values[i] = value[k];
      }
    }
    __syncthreads();
    const int run_first = int(threadIdx.x) * per_thread;
    const int run_count = clamp_to(count - run_first, 0, per_thread);
    AccT x{};
    if (run_count > 0) {
      x = values[run_first];
#pragma unroll
      for (int j = 1; j < per_thread; ++j) {
        if (j < run_count) x = op(x, values[run_first + j]);
      }
    }
    x = block_reduce(x, op, (count + per_thread - 1) / per_thread, storage);
    if (threadIdx.x == 0) total = first == 0 ? x : op(total, x);
    __syncthreads();  // values and storage are reused by the next batch
  }
  return total;
}

// How the finishing block reads the partials. Each kind is a kernel of its
// own, so that a launch carries only the code it runs: the parked finish and
// its 16 KB of shared memory stay out of launches with up to 2 x Threads
// partials. Measured, not explained: a smaller kernel's blocks start closer
// together and its chunks end sooner (H100, int64 32 MB, in-kernel
// %globaltimer stamps, medians of 100: 38 KB of code, the last block started
// 0.19 us after the first; this kernel, 27 KB, 0.16; 24 KB with runs of 2
// alone, 0.13, and its result 0.03 us sooner: not worth a third kernel).
enum class finish { in_runs, parked };

template <int Threads>
constexpr finish finish_for(offset_t chunks) {
  return chunks <= 2 * Threads ? finish::in_runs : finish::parked;
}

// Whether the parked finish's values fit in static shared memory (48 KB)
// beside the block's other storage. Large accumulators (a 188-byte struct
// parks 256 x 188 bytes) instead cap their chunk count at 2 x Threads, so that
// the finish in runs takes every count: chosen at compile time, and the
// count still depends on N and the type only.
template <int Threads, class AccT>
inline constexpr bool parked_finish_fits =
    sizeof(typename finish_shape<Threads, AccT>::storage_t) + sizeof(block_reduce_storage<Threads / kWarpThreads, AccT>) <=
    32 * 1024;

// partials[0] op ... op partials[chunks-1] (chunks >= 1), in thread 0.
template <finish Kind, int Threads, class AccT, class Op>
__device__ AccT reduce_partials(const tile_status<AccT>& partials, offset_t chunks, Op op,
                                block_reduce_storage<Threads / kWarpThreads, AccT>& storage) {
  if constexpr (Kind == finish::parked) {
    return reduce_partials_parked<Threads>(partials, chunks, op, storage);
  } else {
    if (chunks <= kOneWarpPartials) return reduce_partials_in_runs<4, Threads>(partials, chunks, op, storage);
    return reduce_partials_in_runs<2, Threads>(partials, chunks, op, storage);
  }
}

// No padding, so that repeated calls compare equal bytewise (util/launch.cuh).
template <class AccT>
struct params {
  offset_t body_length;  // items after the unaligned head
  offset_t chunk_items;
  offset_t chunks;
  offset_t head;               // items before the first 16-byte boundary, folded by the finishing block
  tile_status<AccT> partials;  // one word per chunk, cleared by the finishing block
};
static_assert(std::has_unique_object_representations_v<params<int>>);

// Two chunks or more (one goes to single_block_kernel below), with
// finish_for(chunks) as Finish.
template <class Tuning, finish Finish, class It, class AccT, class OutIt, class Op>
__global__ void __launch_bounds__(Tuning::block_threads, Tuning::min_blocks_per_sm)
    kernel(It in, params<AccT> p, OutIt result, AccT init, Op op) {
  constexpr bool vectorized = vectorizable_v<It> && Tuning::vector_items > 1;
  __shared__ block_reduce_storage<shape<Tuning>::warps, AccT> storage;

  const It body = in + p.head;
  for (offset_t chunk = blockIdx.x; chunk < p.chunks; chunk += gridDim.x) {
    const offset_t begin = chunk * p.chunk_items;
    const offset_t end = min_of(begin + p.chunk_items, p.body_length);
    const AccT partial = reduce_chunk<Tuning, vectorized, AccT>(body, begin, end, p.chunk_items, op, storage);
    if (threadIdx.x == 0) p.partials.publish(chunk, tile_aggregate, partial);
    __syncthreads();  // storage is reused by the next chunk
  }

  if (blockIdx.x != gridDim.x - 1) return;
  const AccT total = reduce_partials<Finish, Tuning::block_threads>(p.partials, p.chunks, op, storage);
  if (threadIdx.x == 0) {
    AccT r = init;
    for (offset_t i = 0; i < p.head; ++i) r = op(r, static_cast<AccT>(in[i]));
    *result = op(r, total);
  }
}

// Inputs of at most one chunk: one block, each thread folding its own run of
// consecutive items (16-byte vectors where it has a whole run), then the
// block in thread order. A third of the instructions of the chunk kernel,
// which is what a single launch of a few microseconds is made of (H100,
// int32 at 2^12: 1687 warp instructions, 3.7-4.3 us, against 490 and
// 3.1-3.5 us for CUB's single-tile kernel).
template <class Tuning, class It, class AccT, class OutIt, class Op>
__global__ void __launch_bounds__(Tuning::block_threads)
    single_block_kernel(It in, int head, offset_t body_length, OutIt result, AccT init, Op op) {
  constexpr int items = Tuning::rows_in_flight * Tuning::vector_items;
  static_assert(shape<Tuning>::block_step == offset_t(Tuning::block_threads) * items, "one chunk, one run per thread");
  __shared__ block_reduce_storage<shape<Tuning>::warps, AccT> storage;

  // Runs of `items`, or, for a computed iterator, the input spread over all
  // threads (nothing to vectorise; the longest run is the critical path).
  const offset_t run = computed_iterator_v<It>
                           ? max_of<offset_t>(1, (body_length + Tuning::block_threads - 1) / Tuning::block_threads)
                           : offset_t(items);
  const It body = in + head;
  const offset_t first = offset_t(threadIdx.x) * run;
  const int count = static_cast<int>(clamp_to(body_length - first, offset_t(0), run));
  AccT total{};
  if constexpr (computed_iterator_v<It>) {
    if (count > 0) total = fold_run<AccT>(body + first, count, op);
  } else {
    AccT x[items];
    load_blocked(body, first, count, count == items, x);
    if (count > 0) total = fold_items(x, in_order<Op>::form(op), count);
  }
  const int threads_valid = static_cast<int>((body_length + run - 1) / run);
  if (body_length > 0) total = block_reduce(total, op, threads_valid, storage);

  if (threadIdx.x == 0) {
    AccT r = init;
    for (int i = 0; i < head; ++i) r = op(r, static_cast<AccT>(in[i]));
    if (body_length > 0) r = op(r, total);
    *result = r;
  }
}

// Inputs of at most one block step (after the head): one block, no status.
template <class Tuning, class It, class OutIt, class AccT, class Op>
void run_single_block(It in, offset_t n, OutIt result, AccT init, Op op, const stream_place& at) {
  const int head = aligned_head(in, n);
  launch(at, single_block_kernel<Tuning, It, AccT, OutIt, Op>, 1, Tuning::block_threads,
         "cascade single-pass reduce kernel (single block)", in, head, n - head, result, init, op);
}

// The most chunks an input of `length` items is cut into: a function of the
// length only (never of the grid), so that the combination tree is too.
template <class Tuning, class T>
constexpr offset_t chunk_limit(offset_t length) {
  if constexpr (Tuning::min_chunk_bytes == 0) {
    return Tuning::max_chunks;
  } else {
    constexpr offset_t items = max_of<offset_t>(1, Tuning::min_chunk_bytes / offset_t(sizeof(T)));
    return clamp_to<offset_t>(length / items, Tuning::min_chunks, Tuning::max_chunks);
  }
}

// Host side: plan the chunks, size the temporaries, launch once.
// grid_limit > 0 caps the grid (tests use it to show that results do not
// depend on the grid).
template <class Tuning, class It, class OutIt, class AccT, class Op>
void run_tuned(It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream, int grid_limit = 0) {
  using shape_t = shape<Tuning>;
  params<AccT> p{};
  p.head = aligned_head(in, n);
  p.body_length = n - p.head;
  const offset_t steps = (p.body_length + shape_t::block_step - 1) / shape_t::block_step;
  offset_t most = chunk_limit<Tuning, load_type_t<It>>(p.body_length);
  constexpr bool parked = parked_finish_fits<Tuning::block_threads, AccT>;
  if constexpr (!parked) most = std::min<offset_t>(most, 2 * Tuning::block_threads);
  const stream_place at = place_of(stream);
  // At most one block step (a head may take all of a tiny misaligned input,
  // leaving no body to cut into chunks): one block.
  if (steps <= 1) return run_single_block<Tuning>(in, n, result, init, op, at);
  p.chunk_items = shape_t::block_step * ((steps + most - 1) / most);
  p.chunks = (p.body_length + p.chunk_items - 1) / p.chunk_items;
  if (p.chunks <= 1) return run_single_block<Tuning>(in, n, result, init, op, at);
  // The parked finish is instantiated only where the chunk count can reach
  // it (never for computed iterators, up to 256 chunks): p.chunks <= max_chunks.
  auto* k = kernel<Tuning, finish::in_runs, It, AccT, OutIt, Op>;
  if constexpr (parked && finish_for<Tuning::block_threads>(Tuning::max_chunks) == finish::parked) {
    if (finish_for<Tuning::block_threads>(p.chunks) == finish::parked) {
      k = kernel<Tuning, finish::parked, It, AccT, OutIt, Op>;
    }
  }
  offset_t grid = min_of<offset_t>(p.chunks, resident_blocks(k, Tuning::block_threads, at.where.device));
  if (grid_limit > 0) grid = min_of<offset_t>(grid, grid_limit);
  const launch_status<AccT> partials(p.chunks, at, status_reuse::cleared_by_reader);
  p.partials = partials.words();
  launch(at, k, static_cast<unsigned>(grid), Tuning::block_threads, "cascade single-pass reduce kernel", in, p, result,
         init, op);
}

template <class It, class OutIt, class AccT, class Op>
void run(It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream, int grid_limit = 0) {
  using T = load_type_t<It>;  // tuned by what a lane loads
  if constexpr (computed_iterator_v<It>) {
    run_tuned<computed_reduce_tuning<T>>(in, n, result, init, op, stream, grid_limit);
  } else if (n > shape<single_pass_reduce_tuning<T>>::block_step &&
             n <= shape<single_pass_reduce_small_tuning<T>>::block_step) {
    // Above one chunk and up to 64 KB: one block of 1024 threads (up to one
    // chunk, run_tuned takes its own 256-thread block).
    run_single_block<single_pass_reduce_small_tuning<T>>(in, n, result, init, op, place_of(stream));
  } else {
    run_tuned<single_pass_reduce_tuning<T>>(in, n, result, init, op, stream, grid_limit);
  }
}

}  // namespace cascade::detail::single_pass

namespace cascade::detail {

// The automatic reduce is the single-pass kernel above.
template <>
struct reduce_algorithm<strategy::automatic_t> {
  template <class It, class OutIt, class AccT, class Op>
  static void run(strategy::automatic_t, It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream) {
    single_pass::run(in, n, result, init, op, stream);
  }
};

}  // namespace cascade::detail
