// Seed 000's question in isolation: how many partials should a block-level
// tree add per step, on data already in shared memory?
//
//   block_tree/radix2/int32/<threads>   kernel 3's loop (sequential_addressing::halve)
//   block_tree/radix4/int32/<threads>   the pyramid of radix4_pyramid (a radix-2 step first
//                                       where threads is not a power of four)
//   block_tree/radix8/int32/<threads>   eight per step (a radix-2 or radix-4 step first
//                                       where threads is not a power of eight)
//
// for threads = 64 ... 1024. Each block loads one value per thread once, then
// runs kRounds rounds: seed shared memory from the register (x + round, so no
// round can be skipped or hoisted), run the tree, add data[0] to a running
// value; one value per block is written at the end. One wave of blocks fills
// the GPU. Counters: ns/round (one tree in every resident block) and
// Gitems/s (items reduced per second in shared memory, over all blocks).

#include "harness.cuh"

#include <cascade/detail/primitives/dynamic_shared.cuh>
#include <cascade/detail/reduce/radix4_pyramid.cuh>
#include <cascade/detail/reduce/sequential_addressing.cuh>

#include <cuda/std/functional>

#include <string>

namespace bench {
namespace {

constexpr int kRounds = 1024;

struct radix2_tree {
  static constexpr const char* name = "radix2";
  __device__ void operator()(int* data, unsigned threads) const {
    cascade::detail::sequential_addressing::halve(data, threads, 0, ::cuda::std::plus<>{});
  }
};

struct radix4_tree {
  static constexpr const char* name = "radix4";
  __device__ void operator()(int* data, unsigned threads) const {
    cascade::detail::radix4_pyramid::pyramid(data, threads, ::cuda::std::plus<>{});
  }
};

// One step of radix R at stride s: thread i < s adds data[s i], ... data[(R-1) s + i] to data[i].
template <unsigned R>
__device__ __forceinline__ void radix_step(int* data, unsigned s) {
  const unsigned tid = threadIdx.x;
  if (tid < s) {
    int v = data[tid];
#pragma unroll
    for (unsigned k = 1; k < R; ++k) v += data[k * s + tid];
    data[tid] = v;
  }
  __syncthreads();
}

struct radix8_tree {
  static constexpr const char* name = "radix8";
  __device__ void operator()(int* data, unsigned threads) const {
    unsigned live = threads;
    const int extra = (31 - __clz(threads)) % 3;  // threads = 8^k x 2^extra
    if (extra == 1) radix_step<2>(data, live /= 2);
    if (extra == 2) radix_step<4>(data, live /= 4);
    for (unsigned s = live / 8; s > 0; s /= 8) radix_step<8>(data, s);
  }
};

template <class Tree>
__global__ void __launch_bounds__(1024) block_tree_kernel(const int* in, int* out, Tree tree) {
  int* data = cascade::detail::dynamic_shared<int>();
  const unsigned tid = threadIdx.x;
  const int x = in[blockIdx.x * blockDim.x + tid];
  int total = 0;
  for (int round = 0; round < kRounds; ++round) {
    data[tid] = x + round;
    __syncthreads();
    tree(data, blockDim.x);
    if (tid == 0) total += data[0];
    __syncthreads();  // data[0] is read before the next round writes it
  }
  if (tid == 0) out[blockIdx.x] = total;
}

template <class Tree>
void measure_tree(benchmark::State& state, unsigned threads) {
  try {
    int device = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    const std::size_t smem = threads * sizeof(int);
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, block_tree_kernel<Tree>, int(threads), smem),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    const int blocks = sms * (per_sm > 0 ? per_sm : 1);
    const int* in = device_input<int>(std::int64_t(blocks) * threads);
    auto* out = static_cast<int*>(device_scratch(blocks * sizeof(int)));
    auto call = [&] {
      block_tree_kernel<<<blocks, threads, smem, stream()>>>(in, out, Tree{});
      check_launch("block_tree_kernel");
    };
    call();  // warm-up
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
    double seconds = 0;
    for (auto _ : state) {
      const double t = time_on_device(call);
      state.SetIterationTime(t);
      seconds += t;
    }
    const double rounds = double(kRounds) * double(state.iterations());
    state.counters["ns/round"] = seconds / rounds * 1e9;
    state.counters["Gitems/s"] = double(blocks) * threads * rounds / seconds * 1e-9;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

template <class Tree>
void register_tree(const options& opt) {
  for (unsigned threads = 64; threads <= 1024; threads *= 2) {
    const std::string name = std::string("block_tree/") + Tree::name + "/int32/" + std::to_string(threads);
    benchmark::RegisterBenchmark(name.c_str(), [threads](benchmark::State& state) { measure_tree<Tree>(state, threads); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(1)
        ->Repetitions(opt.repetitions)
        ->ReportAggregatesOnly(true);
  }
}

}  // namespace

void register_block_trees(const options& opt) {
  register_tree<radix2_tree>(opt);
  register_tree<radix4_tree>(opt);
  register_tree<radix8_tree>(opt);
}

}  // namespace bench
