// The named scan strategies beyond the type/operator matrix: block sizes a
// tag can ask for (small ones make the tree of tile totals deep) and ones it
// cannot, eight streams at once, an output type narrower than the
// accumulator, fancy input iterators, and sizes beyond 2^31.
#include "scan_strategies.cuh"

#include <thrust/equal.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/tabulate.h>

#include <stdexcept>

namespace cascade_test {
namespace {

class ScanStrategies : public gpu_test {};

// Every strategy at the smallest block, a non-power of two where it may, and
// the largest; sizes up to 2^20 + 1 (at 32 threads: three levels of totals).
TEST_F(ScanStrategies, EveryBlockSizeMatchesReference) {
  for_each_scan_strategy([&](auto strategy) {
    using S = decltype(strategy);
    const bool tree = std::is_same_v<compose_for<S>, compose_with_identity>;  // Blelloch: powers of two
    for (unsigned threads : tree ? std::vector<unsigned>{32, 64, 1024} : std::vector<unsigned>{32, 96, 1024}) {
      SCOPED_TRACE(std::string(name_of(strategy)) + ".block_size(" + std::to_string(threads) + ")");
      const auto policy = cascade::cuda.with(strategy.block_size(threads));
      std::uint64_t seed = 1;
      for (std::int64_t n : boundary_sizes(tree ? 2 * threads : threads)) {
        if (n > (1 << 20) + 1) continue;
        check_scans<std::int32_t, plus>(policy, n, seed++);
        check_scans<affine, compose_for<S>>(policy, n, seed++);
        if (HasFailure()) return;
      }
    }
  });
}

TEST_F(ScanStrategies, InvalidBlockSizeThrowsNamingTheStrategy) {
  const auto in = to_device(random_input<int, plus>(1000, 3));
  thrust::device_vector<int> out(in.size());
  poison(out);
  for_each_scan_strategy([&](auto strategy) {
    const bool tree = std::is_same_v<compose_for<decltype(strategy)>, compose_with_identity>;
    std::vector<unsigned> invalid = {1, 16, 33, 1025, 2048};
    if (tree) invalid.insert(invalid.end(), {96, 384});
    for (unsigned threads : invalid) {
      const std::string expected =
          std::string("cascade::strategy::") + name_of(strategy) + ": block size " + std::to_string(threads) + " ";
      try {
        cascade::inclusive_scan(cascade::cuda.with(strategy.block_size(threads)), in.begin(), in.end(), out.begin());
        ADD_FAILURE() << expected << ": no exception";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      }
    }
  });
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  for (int v : to_host(out)) ASSERT_EQ(v, poison_value<int>());
}

template <class S>
void scan_on(cudaStream_t stream, S strategy, const thrust::device_vector<affine>& in, thrust::device_vector<affine>& out) {
  cascade::inclusive_scan(cascade::cuda.on(stream).with(strategy), in.begin(), in.end(), out.begin(), compose_for<S>{});
}

// Two streams per strategy, all eight in flight together.
TEST_F(ScanStrategies, EightConcurrentStreams) {
  constexpr int kStreams = 8;
  std::vector<cudaStream_t> streams(kStreams);
  std::vector<thrust::device_vector<affine>> in, out;
  for (int i = 0; i < kStreams; ++i) {
    CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    in.push_back(to_device(random_input<affine, compose>((1 << 22) + 17 * i, 200 + i)));
    out.emplace_back(in.back().size());
    poison(out.back());
  }
  for (int i = 0; i < kStreams; ++i) {
    switch (i % 4) {
      case 0: scan_on(streams[i], s::hillis_steele, in[i], out[i]); break;
      case 1: scan_on(streams[i], s::blelloch, in[i], out[i]); break;
      case 2: scan_on(streams[i], s::blelloch_conflict_free, in[i], out[i]); break;
      default: scan_on(streams[i], s::reduce_then_scan, in[i], out[i]); break;
    }
  }
  for (int i = 0; i < kStreams; ++i) {
    CASCADE_TEST_CUDA(cudaStreamSynchronize(streams[i]));
    EXPECT_EQ(to_host(out[i]), host_scan(to_host(in[i]), scan_kind::inclusive, affine{}, compose{})) << "stream " << i;
    CASCADE_TEST_CUDA(cudaStreamDestroy(streams[i]));
  }
}

// int32 accumulator (init's type), int16 output: a strategy that kept its
// partial results in the output would round them before combining tiles.
// Sizes of several tiles up to 2^20 + 1 (several levels of totals).
TEST_F(ScanStrategies, NarrowerOutputConvertsOnlyTheResults) {
  for (std::int64_t n : boundary_sizes(tile_of<s::blelloch_t, int>::scan())) {
    if (n < 500 || n > (1 << 20) + 1) continue;
    std::vector<std::int32_t> h(n);
    std::mt19937_64 rng(n);
    // Rising with noise from 30000, past int16's range from item ~400 on: every
    // tile has maxima of its own, which a rounded partial would lose.
    for (std::int64_t i = 0; i < n; ++i) h[i] = 30000 + static_cast<std::int32_t>((7 * i + rng() % 7) % 35536);
    const auto d = to_device(h);
    std::vector<std::int16_t> inclusive(n), exclusive(n);
    std::int32_t running = 7;
    for (std::int64_t i = 0; i < n; ++i) {
      exclusive[i] = static_cast<std::int16_t>(running);
      running = std::max(running, h[i]);
      inclusive[i] = static_cast<std::int16_t>(running);
    }
    for_each_scan_strategy([&](auto strategy) {
      SCOPED_TRACE(std::string(name_of(strategy)) + ", n = " + std::to_string(n));
      thrust::device_vector<std::int16_t> out(n);
      poison(out);
      cascade::inclusive_scan(cascade::cuda.with(strategy), d.begin(), d.end(), out.begin(), maximum{}, std::int32_t{7});
      EXPECT_EQ(to_host(out), inclusive);
      poison(out);
      cascade::exclusive_scan(cascade::cuda.with(strategy), d.begin(), d.end(), out.begin(), std::int32_t{7}, maximum{});
      EXPECT_EQ(to_host(out), exclusive);
    });
  }
}

TEST_F(ScanStrategies, CountingIteratorInput) {
  const std::int64_t n = (1 << 20) + 3;
  thrust::counting_iterator<std::int64_t> count(0);
  const thrust::device_vector<std::int64_t> materialised(count, count + n);
  const std::vector<std::int64_t> want = cub_scan(materialised, scan_kind::exclusive, std::int64_t{5}, plus{});
  for_each_scan_strategy([&](auto strategy) {
    SCOPED_TRACE(name_of(strategy));
    thrust::device_vector<std::int64_t> out(n);
    poison(out);
    cascade::exclusive_scan(cascade::cuda.with(strategy), count, count + n, out.begin(), std::int64_t{5});
    EXPECT_EQ(to_host(out), want);
  });
}

// Cheap device-side pseudo-random bytes for the multi-gigabyte input.
struct byte_of_index {
  __host__ __device__ std::int8_t operator()(std::int64_t i) const {
    const std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
    return static_cast<std::int8_t>((x ^ (x >> 29)) >> 56);
  }
};

// 64-bit offsets: 2^31 + 4099 int8 items, scanned in place, against CUB.
TEST_F(ScanStrategies, BeyondTwoToThe31Elements) {
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  thrust::device_vector<std::int8_t> data(n), want(n);
  thrust::tabulate(data.begin(), data.end(), byte_of_index{});
  std::size_t bytes = 0;
  CASCADE_TEST_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, data.data().get(), want.data().get(), n));
  {
    thrust::device_vector<char> temp(bytes);
    CASCADE_TEST_CUDA(cub::DeviceScan::InclusiveSum(temp.data().get(), bytes, data.data().get(), want.data().get(), n));
  }
  for_each_scan_strategy([&](auto strategy) {
    SCOPED_TRACE(name_of(strategy));
    thrust::tabulate(data.begin(), data.end(), byte_of_index{});
    cascade::inclusive_scan(cascade::cuda.with(strategy), data.begin(), data.end(), data.begin());
    EXPECT_TRUE(thrust::equal(data.begin(), data.end(), want.begin()));
  });
}

}  // namespace
}  // namespace cascade_test
