#pragma once
// The automatic reduce: one launch, order-preserving, deterministic.
//
// The input is cut into chunks whose size depends on N only. Each block takes
// chunks (grid-stride), its warps each reduce a contiguous span of the chunk
// row by row (a row: 32 lanes x one 16-byte vector), and the warp partials
// are combined in warp order into the chunk's partial. The last block to
// finish (atomic ticket after a fence) reduces the chunk partials in index
// order and applies init. The grid size only decides which block computes a
// chunk, never how values are combined, so results are bitwise identical
// whatever the grid or the GPU's SM count. No identity is needed: partial
// rows and warps combine only the lanes that hold data.

#include <cascade/detail/reduce/algorithm.cuh>
#include <cascade/detail/primitives/block_reduce.cuh>
#include <cascade/detail/primitives/load.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/tuning/reduce.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/temporary.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <cascade/detail/util/math.cuh>

#include <algorithm>
#include <cstdint>

namespace cascade::detail::single_pass {

// One warp reduces [begin, end) (begin < end) in order; lane 0 holds the result.
template <int V, int Rows, bool Vectorized, class AccT, class It, class Op>
__device__ AccT warp_reduce_span(It in, offset_t begin, offset_t end, Op op) {
  constexpr int row = kWarpThreads * V;
  const int lane = lane_id();
  AccT acc{};
  bool has = false;
  offset_t base = begin;
  // Full rows, `Rows` of them with their loads in flight together.
  for (; base + Rows * row <= end; base += Rows * row) {
    AccT items[Rows][V];
#pragma unroll
    for (int r = 0; r < Rows; ++r) load_items<V, Vectorized>(in, base + r * row + lane * V, items[r]);
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      const AccT x = warp_reduce(fold_items(items[r], op), op);
      if (lane == 0) acc = has ? op(acc, x) : x;
      has = true;
    }
  }
  // The rest, one row at a time; the last row may be partial.
  for (; base < end; base += row) {
    const offset_t index = base + lane * V;
    const int count = static_cast<int>(clamp_to(end - index, offset_t(0), offset_t(V)));
    const int lanes = static_cast<int>(min_of((end - base + V - 1) / V, offset_t(kWarpThreads)));
    AccT items[V];
    load_items_guarded(in, index, count, items);
    AccT x;
    if (count > 0) x = fold_items(items, op, count);
    x = warp_reduce(x, op, 0, lanes);
    if (lane == 0) acc = has ? op(acc, x) : x;
    has = true;
  }
  return acc;
}

template <class Tuning>
struct shape {
  static constexpr int warps = Tuning::block_threads / kWarpThreads;
  static constexpr int row = kWarpThreads * Tuning::vector_items;
  static constexpr offset_t block_step = offset_t(warps) * Tuning::rows_in_flight * row;
};

// The block reduces [begin, end) (begin < end), warp w taking
// [begin + w*warp_span, begin + (w+1)*warp_span); the result is in thread 0.
template <class Tuning, bool Vectorized, class AccT, class It, class Op>
__device__ AccT block_reduce_range(It in, offset_t begin, offset_t end, offset_t warp_span, Op op,
                                   block_reduce_storage<shape<Tuning>::warps, AccT>& storage) {
  const offset_t warp_begin = begin + warp_id() * warp_span;
  const offset_t warp_end = min_of(warp_begin + warp_span, end);
  AccT x{};
  if (warp_begin < warp_end) {
    x = warp_reduce_span<Tuning::vector_items, Tuning::rows_in_flight, Vectorized, AccT>(in, warp_begin,
                                                                                        warp_end, op);
  }
  const int warps_valid = static_cast<int>(
      min_of((end - begin + warp_span - 1) / warp_span, offset_t(shape<Tuning>::warps)));
  return combine_warp_partials(x, op, warps_valid, storage);
}

// A span per warp that covers `length` items in whole rows.
template <class Tuning>
__host__ __device__ constexpr offset_t warp_span_for(offset_t length) {
  constexpr int warps = shape<Tuning>::warps;
  constexpr int row = shape<Tuning>::row;
  return ((length + warps - 1) / warps + row - 1) / row * row;
}

// The finishing pass reads the AccT partials with the same block shape.
template <class Tuning, class AccT>
struct partials_tuning : Tuning {
  static constexpr int vector_items = vector_items_v<AccT>;
};

template <class AccT>
struct params {
  offset_t body_length;  // items after the unaligned head
  offset_t chunk_items;
  offset_t chunks;
  int head;              // items before the first 16-byte boundary, folded last-block-side
  AccT* partials;        // one per chunk (unused with a single chunk)
  unsigned* ticket;      // zero at launch; the last block restores it (unused with a single chunk)
};

template <class Tuning, class It, class AccT, class OutIt, class Op>
__global__ void __launch_bounds__(Tuning::block_threads, Tuning::min_blocks_per_sm)
    kernel(It in, params<AccT> p, OutIt result, AccT init, Op op) {
  constexpr bool vectorized = vectorizable_v<It> && Tuning::vector_items > 1;
  using partial_tuning = partials_tuning<Tuning, AccT>;
  __shared__ block_reduce_storage<shape<Tuning>::warps, AccT> storage;
  __shared__ bool is_last;

  const It body = in + p.head;
  const bool single_chunk = p.chunks <= 1;
  AccT total{};
  for (offset_t chunk = blockIdx.x; chunk < p.chunks; chunk += gridDim.x) {
    const offset_t begin = chunk * p.chunk_items;
    const offset_t end = min_of(begin + p.chunk_items, p.body_length);
    total = block_reduce_range<Tuning, vectorized, AccT>(body, begin, end, p.chunk_items / shape<Tuning>::warps,
                                                          op, storage);
    if (!single_chunk && threadIdx.x == 0) p.partials[chunk] = total;
    __syncthreads();  // storage is reused by the next chunk
  }

  if (!single_chunk) {
    // Publish this block's partials, then take a ticket; the last block in finishes.
    if (threadIdx.x == 0) {
      __threadfence();
      is_last = atomicAdd(p.ticket, 1u) == gridDim.x - 1;
      if (is_last) *p.ticket = 0;  // every block has drawn: ready for the next call
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();  // see every other block's partials
    total = block_reduce_range<partial_tuning, vectorizable_v<AccT*>, AccT>(
        p.partials, 0, p.chunks, warp_span_for<partial_tuning>(p.chunks), op, storage);
  }

  if (threadIdx.x == 0) {
    AccT r = init;
    for (int i = 0; i < p.head; ++i) r = op(r, static_cast<AccT>(in[i]));
    if (p.body_length > 0) r = op(r, total);
    *result = r;
  }
}

// Host side: plan the chunks, size the temporaries, launch once.
// grid_limit > 0 caps the grid (tests use it to show that results do not
// depend on the grid).
template <class Tuning, class It, class OutIt, class AccT, class Op>
void run_tuned(It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream, int grid_limit = 0) {
  using shape_t = shape<Tuning>;

  int head = 0;
  if constexpr (vectorizable_v<It>) {
    const auto misalignment = reinterpret_cast<std::uintptr_t>(in) % 16;
    if (misalignment != 0) head = static_cast<int>(std::min<offset_t>((16 - misalignment) / sizeof(*in), n));
  }
  params<AccT> p{};
  p.head = head;
  p.body_length = n - head;
  const offset_t steps = (p.body_length + shape_t::block_step - 1) / shape_t::block_step;
  p.chunk_items = shape_t::block_step * ((steps + Tuning::max_chunks - 1) / Tuning::max_chunks);
  p.chunks = (p.body_length + p.chunk_items - 1) / p.chunk_items;

  auto* k = kernel<Tuning, It, AccT, OutIt, Op>;
  offset_t grid = std::min<offset_t>(p.chunks, resident_blocks(k, Tuning::block_threads));
  if (grid_limit > 0) grid = std::min<offset_t>(grid, grid_limit);
  grid = std::max<offset_t>(grid, 1);

  if (p.chunks <= 1) {
    k<<<1, Tuning::block_threads, 0, stream>>>(in, p, result, init, op);
  } else if (workspace* w = stream_workspace(stream)) {
    // The stream's own ticket (left at zero by the previous call) and partials.
    grow(w->partials, sizeof(AccT) * p.chunks, current_device(), stream);
    p.ticket = w->counters + reduce_done_ticket;
    p.partials = static_cast<AccT*>(w->partials.ptr);
    k<<<static_cast<unsigned>(grid), Tuning::block_threads, 0, stream>>>(in, p, result, init, op);
  } else {
    // Being captured into a graph: per-call temporaries, the ticket cleared by a memset node.
    temporary_layout layout;
    const std::size_t ticket_at = layout.add<unsigned>(1);
    const std::size_t partials_at = layout.add<AccT>(p.chunks);
    temporary_buffer temp(layout.bytes(), stream);
    p.ticket = temp.at<unsigned>(ticket_at);
    p.partials = temp.at<AccT>(partials_at);
    check(cudaMemsetAsync(p.ticket, 0, sizeof(unsigned), stream), "cudaMemsetAsync");
    k<<<static_cast<unsigned>(grid), Tuning::block_threads, 0, stream>>>(in, p, result, init, op);
  }
  check_launch("cascade single-pass reduce kernel");
}

template <class It, class OutIt, class AccT, class Op>
void run(It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream, int grid_limit = 0) {
  run_tuned<single_pass_reduce_tuning<value_t<It>>>(in, n, result, init, op, stream, grid_limit);
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
