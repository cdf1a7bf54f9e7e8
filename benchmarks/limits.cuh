#pragma once
// The measured limits the tables compare against, as runners (harness.cuh):
//
//   read_limit   reads the input once and nothing else: the best a reduce can do
//   copy_limit   cudaMemcpyAsync device to device: reads and writes n values,
//                the traffic of a scan
//   tile_copy_limit  the automatic scan's shared tiles of 2^21 items and more
//                (shape, bulk copies, registers) with nothing between their
//                copy in and out: the most the scan's structure can move

#include "harness.cuh"

#include <cascade/detail/primitives/shared_tile.cuh>
#include <cascade/detail/tuning/scan.cuh>

#include <cub/block/block_reduce.cuh>

#include <stdexcept>

namespace bench {

inline constexpr int kReadThreads = 256;

// Each thread sums 16-byte vectors grid-stride, four loads in flight at a
// time to cover memory latency; the sums feed one value per block, so the
// compiler must keep every load. Bytes past the last whole vector (only for
// odd sizes) are read by one thread. (A template only so that the header
// can be included by several translation units.)
template <int Threads>
__global__ void __launch_bounds__(Threads)
    read_kernel(const uint4* __restrict__ in, std::int64_t vectors, const unsigned char* __restrict__ tail,
                int tail_bytes, unsigned* __restrict__ block_sums) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) acc += v[k].x + v[k].y + v[k].z + v[k].w;
  }
  for (; i < vectors; i += stride) {
    const uint4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int b = 0; b < tail_bytes; ++b) acc += tail[b];
  }
  using block_reduce = cub::BlockReduce<unsigned, Threads>;
  __shared__ typename block_reduce::TempStorage storage;
  const unsigned sum = block_reduce(storage).Sum(acc);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

// A grid that fills the device once; more blocks would only queue.
inline int read_kernel_resident_blocks() {
  static const int blocks = [] {
    int device = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel<kReadThreads>, kReadThreads, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return std::max(1, sms * per_sm);
  }();
  return blocks;
}

struct read_limit_runner {
  static constexpr memory where = memory::device;

  template <class T>
  auto bind(reduce_t, io<T> io) const {
    const std::int64_t bytes = io.n * std::int64_t(sizeof(T));
    const std::int64_t vectors = bytes / 16;
    const auto* tail = reinterpret_cast<const unsigned char*>(io.in) + vectors * 16;
    const int tail_bytes = static_cast<int>(bytes - vectors * 16);
    const int grid = static_cast<int>(std::clamp<std::int64_t>((vectors + kReadThreads - 1) / kReadThreads, 1,
                                                               read_kernel_resident_blocks()));
    return [sums = device_alloc(grid * sizeof(unsigned)), in = reinterpret_cast<const uint4*>(io.in), vectors, tail,
            tail_bytes, grid, stream = io.stream] {
      read_kernel<kReadThreads><<<grid, kReadThreads, 0, stream>>>(in, vectors, tail, tail_bytes, static_cast<unsigned*>(sums.get()));
      check_launch("read_kernel");
    };
  }
};

struct copy_limit_runner {
  static constexpr memory where = memory::device;

  template <class Algorithm, class T>
  auto bind(Algorithm, io<T> io) const {
    static_assert(Algorithm::passes == 2, "copy_limit is the limit of algorithms that write n values");
    return [io] {
      check(cudaMemcpyAsync(io.out, io.in, io.n * sizeof(T), cudaMemcpyDeviceToDevice, io.stream), "cudaMemcpyAsync");
    };
  }
};

// A tile of the scan's shape in, through the threads' registers, and out:
// the scan's data path without the scan and the look-back.
template <class Tuning, class T>
__global__ void __launch_bounds__(Tuning::block_threads, Tuning::min_blocks_per_sm)
    tile_copy_kernel(const T* in, T* out, std::int64_t n) {
  using tile_t = cascade::detail::shared_tile<Tuning::block_threads, Tuning::items_per_thread, T>;
  __shared__ tile_t tile;
  const std::int64_t base = std::int64_t(blockIdx.x) * tile_t::tile_items;
  const int count = static_cast<int>(std::min<std::int64_t>(n - base, tile_t::tile_items));
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (if (threadIdx.x == 0) tile.start_load(in + base, count);),
                    (tile.copy_in(in + base, count);))
  tile.load_rest(in + base, count);
  __syncthreads();
  tile.wait_loaded();
  T x[Tuning::items_per_thread];
  tile.read(x);
  tile.write(x);
  tile.store_warp_segment(out + base, count);
}

struct tile_copy_limit_runner {
  static constexpr memory where = memory::device;

  template <class Algorithm, class T>
  auto bind(Algorithm, io<T> io) const {
    static_assert(Algorithm::passes == 2, "tile_copy_limit is the limit of algorithms that write n values");
    using tuning = cascade::detail::lookback_scan_wide_tuning<T>;
    if constexpr (!cascade::detail::shared_tile_fits<T, tuning::items_per_thread>) {
      throw std::runtime_error("tile_copy_limit: the scan takes no shared tiles for this type");
      return [] {};
    } else {
      constexpr std::int64_t tile = std::int64_t(tuning::block_threads) * tuning::items_per_thread;
      const auto grid = static_cast<unsigned>((io.n + tile - 1) / tile);
      return [io, grid] {
        tile_copy_kernel<tuning><<<grid, tuning::block_threads, 0, io.stream>>>(io.in, io.out, io.n);
        check_launch("tile_copy_kernel");
      };
    }
  }
};

}  // namespace bench
