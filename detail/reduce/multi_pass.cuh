#pragma once
// The host side of the seeds' reduce strategies (Harris's kernels 1-7, seed
// 001's warp shuffle, seed 000's radix-4 pyramid): Harris's "kernel
// decomposition". One launch reduces each tile of the input to one value per
// block; the same kernel then runs over those partials, and again, until a
// single block is left, which writes op(init, total) to the result. The end
// of a launch is the global barrier between levels. Tiles are contiguous and
// partials are stored in block order, so a block tree that keeps order gives
// a reduce that keeps order. Blocks pad the tail with the operator's
// identity, as the seeds pad with 0.
//
// A strategy's file has its kernel and specialises reduce_algorithm<Tag> as a
// multi_pass::algorithm<Tag> with its launch shape (below); the rest is here:
// block size checks, the plan of the levels, one temporary allocation, the
// launches. Stream-ordered: nothing waits for the device.

#include <cascade/functional.cuh>
#include <cascade/detail/primitives/dynamic_shared.cuh>
#include <cascade/detail/reduce/algorithm.cuh>
#include <cascade/detail/tuning/reduce_strategies.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/math.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace cascade::detail::multi_pass {

// op with its result converted to the accumulator: std::reduce accumulates in T.
template <class AccT, class Op>
struct accumulate {
  Op op;
  __host__ __device__ AccT operator()(const AccT& a, const AccT& b) const { return static_cast<AccT>(op(a, b)); }
};

// What one launch sees: the items of its level (the input, or the partials
// of the level before) and where its blocks' values go.
template <class It, class AccT, class Op, class OutIt>
struct pass {
  using acc_type = AccT;
  It in;
  offset_t n;               // items in this level
  offset_t first_block;     // the block number of blockIdx.x == 0 (see launch())
  AccT* partials;           // block b's value goes to partials[b], unless
  bool last;                // this level is one block: then op(init, value)
  OutIt result;             // goes to *result
  AccT init;
  accumulate<AccT, Op> op;

  __device__ offset_t block() const { return first_block + blockIdx.x; }
  __device__ AccT identity() const { return identity_of<AccT>(op.op); }

  // Item i of this level; past the end, the identity (the seeds pad with 0).
  __device__ AccT load(offset_t i) const { return i < n ? static_cast<AccT>(in[i]) : identity(); }

  // Kernels 1-3 and the pyramid: one item per thread into shared memory.
  __device__ AccT* load_one_per_thread() const {
    AccT* sdata = dynamic_shared<AccT>();
    sdata[threadIdx.x] = load(block() * blockDim.x + threadIdx.x);
    __syncthreads();
    return sdata;
  }

  // By one thread, with the block's value.
  __device__ void store(const AccT& value) const {
    if (last) *result = op(init, value);
    else partials[block()] = value;
  }
};

template <class P>
using kernel_t = void (*)(P);

// The launch shape a strategy may change (by declaring its own), and the entry
// point its reduce_algorithm<Tag> inherits. The strategy adds:
//   static constexpr const char* name;              "cascade::strategy::<name>", for errors
//   template <class P> static kernel_t<P> kernel_for(unsigned threads);
//   template <class AccT, class Op> static constexpr bool admits();
//       its requirements on the operator, as static_asserts that name it
template <class Tag>
struct algorithm {
  static constexpr unsigned min_threads = 32;     // block sizes: powers of two from this to 1024
  static constexpr int items_per_thread = 1;      // a block's tile: threads x items_per_thread
  static constexpr offset_t grid_threads = 0;     // > 0: grid-stride, at most this many threads
  static constexpr int shared_per_thread = 1;     // accumulators of dynamic shared memory per thread

  template <class It, class OutIt, class AccT, class Op>
  static void run(Tag tag, It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream);
};

inline constexpr bool is_power_of_two(unsigned x) { return x != 0 && (x & (x - 1)) == 0; }

// The block size of a call: the tag's, or the strategy's default.
template <class Algorithm, class Tag>
unsigned block_threads(const Tag& tag) {
  static_assert(reduce_block_threads<Tag> != 0, "cascade: a reduce strategy without a default block size");
  const unsigned threads = tag.block_threads != 0 ? tag.block_threads : reduce_block_threads<Tag>;
  if (!is_power_of_two(threads) || threads < Algorithm::min_threads || threads > 1024) {
    throw std::invalid_argument(std::string(Algorithm::name) + ": block size " + std::to_string(threads) +
                                " is not a power of two from " + std::to_string(Algorithm::min_threads) +
                                " to 1024");
  }
  return threads;
}

// The blocks of a level of m >= 1 items: one per tile, or for a grid-stride
// kernel at most grid_threads / threads. Fewer than m when m > 1 (a tile
// holds two items or more), so the levels shrink to one block.
template <class Algorithm>
offset_t blocks_for(offset_t m, unsigned threads) {
  const offset_t tiles = ceil_div(m, offset_t(threads) * Algorithm::items_per_thread);
  if constexpr (Algorithm::grid_threads > 0) {
    return min_of(tiles, max_of(Algorithm::grid_threads / threads, offset_t(1)));
  } else {
    return tiles;
  }
}

template <class Algorithm, class P>
void launch(P p, offset_t blocks, unsigned threads, cudaStream_t stream) {
  const kernel_t<P> kernel = Algorithm::template kernel_for<P>(threads);
  const std::size_t smem = std::size_t(Algorithm::shared_per_thread) * threads * sizeof(typename P::acc_type);
  allow_dynamic_shared(kernel, smem);  // large accumulators
  // gridDim.x stops at 2^31 - 1: a wider level (tiny blocks, n beyond 2^31)
  // takes several launches. (Grid-stride kernels never need more than one.)
  constexpr offset_t max_grid = 0x7fffffff;
  for (p.first_block = 0; p.first_block < blocks; p.first_block += max_grid) {
    const auto grid = static_cast<unsigned>(min_of(blocks - p.first_block, max_grid));
    kernel<<<grid, threads, smem, stream>>>(p);
    check_launch(Algorithm::name);
  }
}

// Level 0 reads the input, level k > 0 the partials of level k - 1. The
// partials alternate between two buffers: a level cannot write where it
// reads (block b's value would land in the tile of block b / tile, which may
// not have read it yet). Each level is smaller than the one before, so the
// first buffer holds level 0, 2, 4, ... and the second level 1, 3, 5, ...
template <class Algorithm, class It, class OutIt, class AccT, class Op>
void run(unsigned threads, It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream) {
  const offset_t blocks0 = blocks_for<Algorithm>(n, threads);
  const offset_t blocks1 = blocks0 > 1 ? blocks_for<Algorithm>(blocks0, threads) : 1;
  temporary_layout layout;
  const std::size_t at0 = layout.add<AccT>(blocks0 > 1 ? blocks0 : 0);
  const std::size_t at1 = layout.add<AccT>(blocks1 > 1 ? blocks1 : 0);
  temporary_buffer temp(layout.bytes(), stream);
  AccT* const partials[2] = {temp.at<AccT>(at0), temp.at<AccT>(at1)};

  launch<Algorithm>(pass<It, AccT, Op, OutIt>{in, n, 0, partials[0], blocks0 == 1, result, init, {op}}, blocks0,
                    threads, stream);
  offset_t m = blocks0;
  for (int level = 1; m > 1; ++level) {
    const offset_t blocks = blocks_for<Algorithm>(m, threads);
    const pass<const AccT*, AccT, Op, OutIt> p{partials[(level + 1) % 2], m, 0, partials[level % 2], blocks == 1,
                                               result, init, {op}};
    launch<Algorithm>(p, blocks, threads, stream);
    m = blocks;
  }
}

template <class Tag>
template <class It, class OutIt, class AccT, class Op>
void algorithm<Tag>::run(Tag tag, It in, offset_t n, OutIt result, AccT init, Op op, cudaStream_t stream) {
  using self = reduce_algorithm<Tag>;
  // A failed requirement stops here, with the strategy's own message.
  if constexpr (self::template admits<AccT, Op>()) {
    multi_pass::run<self>(block_threads<self>(tag), in, n, result, init, op, stream);
  }
}

}  // namespace cascade::detail::multi_pass
