#pragma once
// Hillis & Steele (1986): seed 003's "naive" scan, GPU Gems 3 ch. 39.2.1.
// One item per thread, the tile is the block. In step d (offset 2^d) every
// item i >= 2^d combines the item 2^d places before it, so after log2(tile)
// steps item i holds x[0] op ... op x[i]: O(tile log tile) work against the
// sequential O(tile). Each step reads one half of the shared buffer and
// writes the other (double buffering): an item must not change while a later
// one still reads it in the same step. Tiles are joined by block_sums.cuh.
//
// No identity is needed: valid items only ever read items to their left, so
// the unused threads of a partial tile stay out of it, and the exclusive scan
// is the inclusive one shifted by one place on the way out.

#include <cascade/detail/scan/algorithm.cuh>
#include <cascade/detail/primitives/dynamic_shared.cuh>
#include <cascade/detail/scan/block_sums.cuh>
#include <cascade/detail/tuning/scan_strategies.cuh>

namespace cascade::detail::hillis_steele {

using block_sums::tile_job;

template <class AccT, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(1024) scan_tiles(InIt in, OutIt out, offset_t n, tile_job<AccT> job, Op op) {
  AccT* buffer = dynamic_shared<AccT>();  // two halves of blockDim.x items
  const int tid = threadIdx.x;
  const offset_t base = offset_t(blockIdx.x) * blockDim.x;
  const int valid = static_cast<int>(min_of<offset_t>(blockDim.x, n - base));

  int from = 0;  // the half that holds the latest step
  if (tid < valid) buffer[tid] = static_cast<AccT>(in[base + tid]);
  __syncthreads();
  for (int offset = 1; offset < valid; offset *= 2) {
    const AccT* src = buffer + from * blockDim.x;
    AccT* dst = buffer + (1 - from) * blockDim.x;
    if (tid < valid) dst[tid] = tid >= offset ? static_cast<AccT>(op(src[tid - offset], src[tid])) : src[tid];
    from = 1 - from;
    __syncthreads();
  }
  const AccT* scanned = buffer + from * blockDim.x;

  maybe<AccT> seed = job.seed;
  seed.has = seed.has && blockIdx.x == 0;
  if (tid < valid) {
    if (!job.exclusive) out[base + tid] = then(seed, scanned[tid], op).value;
    else if (tid > 0) out[base + tid] = then(seed, scanned[tid - 1], op).value;
    else if (seed.has) out[base] = seed.value;
  }
  if (job.sums != nullptr && tid == 0) job.sums[blockIdx.x] = then(seed, scanned[valid - 1], op).value;
}

template <class AccT, class Op>
struct launcher {
  const char* name;
  unsigned block_threads;
  offset_t tile_items;

  template <class InIt, class OutIt>
  void launch(InIt in, OutIt out, offset_t n, tile_job<AccT> job, Op op, offset_t tiles, cudaStream_t stream) const {
    block_sums::launch_tiles(scan_tiles<AccT, InIt, OutIt, Op>, tiles, block_threads,
                             2 * std::size_t(block_threads) * sizeof(AccT), stream, name, in, out, n, job, op);
  }
};

}  // namespace cascade::detail::hillis_steele

namespace cascade::detail {

template <>
struct scan_algorithm<strategy::hillis_steele_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::hillis_steele_t tag, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    const unsigned threads = scan_block_threads_for(tag, "hillis_steele", false);
    const hillis_steele::launcher<AccT, Op> tiles{"cascade::strategy::hillis_steele", threads, threads};
    block_sums::scan(tiles, in, n, out, mode, op, stream);
  }
};

}  // namespace cascade::detail
