#pragma once
// The measured limits the tables compare against, as runners (harness.cuh):
//
//   read_limit   reads the input once and nothing else: the best a reduce can do
//   copy_limit   cudaMemcpyAsync device to device: reads and writes n values,
//                the traffic of a scan

#include "harness.cuh"

#include <cub/block/block_reduce.cuh>

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

}  // namespace bench
