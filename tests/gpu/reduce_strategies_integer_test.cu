// The seeds' reduce strategies on 32- and 8-bit integers against CUB, the
// block sizes a tag can ask for (the seed's 128 among them) and the ones it
// cannot, and sizes beyond 2^31. (Split from the rest of the matrix so that
// the pieces compile in parallel.)
#include "reduce_strategies.cuh"
#include "reduce_suite.cuh"

#include <thrust/tabulate.h>

#include <stdexcept>

namespace cascade_test {

using integer_matrix =
    cross_t<all_strategies, combo<std::int32_t, plus>, combo<std::int32_t, maximum>, combo<std::int8_t, plus>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Strategies, ReduceSuite, integer_matrix, combo_name);

namespace {

class ReduceStrategies : public gpu_test {};

// Every strategy at the seed's 128 threads and at the ends of the range;
// complete_unroll at every size it has, from 1 thread.
TEST_F(ReduceStrategies, EveryBlockSizeMatchesCub) {
  for_each_strategy<all_strategies>([&](auto strategy) {
    using S = decltype(strategy);
    const bool from_one = strategy_algorithm<S>::min_threads == 1;
    const std::vector<unsigned> sizes =
        from_one ? std::vector<unsigned>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024} : std::vector<unsigned>{32, 128, 1024};
    for (unsigned threads : sizes) {
      SCOPED_TRACE(strategy_name<S>() + ".block_size(" + std::to_string(threads) + ")");
      std::uint64_t seed = threads;
      for (std::int64_t n : boundary_sizes(std::int64_t(threads) * strategy_algorithm<S>::items_per_thread)) {
        check_reduce<std::int32_t, plus>(cascade::cuda.with(strategy.block_size(threads)), n, seed++);
        if (HasFailure()) return;
      }
    }
  });
}

TEST_F(ReduceStrategies, InvalidBlockSizeIsInvalidArgumentAndWritesNothing) {
  const auto d = to_device(random_input<int, plus>(1000, 3));
  thrust::device_vector<int> out(1);
  poison(out);
  for_each_strategy<all_strategies>([&](auto strategy) {
    using S = decltype(strategy);
    std::vector<unsigned> invalid = {3, 100, 2048, 1u << 31};
    if (strategy_algorithm<S>::min_threads > 1) invalid.insert(invalid.end(), {1, 16});
    for (unsigned threads : invalid) {
      const auto policy = cascade::cuda.with(strategy.block_size(threads));
      for (int call = 0; call < 2; ++call) {
        try {
          if (call == 0) cascade::reduce(policy, d.begin(), d.end(), 0);
          else cascade::reduce_into(policy, d.begin(), d.end(), out.begin(), 0, plus{});
          ADD_FAILURE() << strategy_name<S>() << ".block_size(" << threads << "): no exception";
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("cascade::strategy::" + strategy_name<S>()), std::string::npos)
              << e.what();
          EXPECT_NE(std::string(e.what()).find("block size " + std::to_string(threads)), std::string::npos)
              << e.what();
        }
      }
    }
  });
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(to_host(out)[0], poison_value<int>());
}

// Bytes that vary without a period a block could line up with (Fibonacci
// hashing of the index), generated on the device for the multi-gigabyte inputs.
struct index_bytes {
  __device__ std::int8_t operator()(std::int64_t i) const { return std::int8_t((std::uint64_t(i) * 0x9e3779b97f4a7c15ull) >> 56); }
};

// 64-bit offsets: 2^31 + 4099 bytes, every strategy, against CUB.
TEST_F(ReduceStrategies, BeyondTwoToThe31Elements) {
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  thrust::device_vector<std::int8_t> data(n);
  thrust::tabulate(data.begin(), data.end(), index_bytes{});
  const std::int8_t want = cub_reduce(data, std::int8_t{3}, plus{});
  for_each_strategy<all_strategies>([&](auto strategy) {
    EXPECT_EQ(cascade::reduce(cascade::cuda.with(strategy), data.begin(), data.end(), std::int8_t{3}, plus{}), want)
        << strategy_name<decltype(strategy)>();
  });
}

// One-thread blocks over 2^32 + 5 items: a level of more than 2^31 - 1
// blocks, which takes two launches.
TEST_F(ReduceStrategies, LevelWiderThanOneGridTakesSeveralLaunches) {
  const std::int64_t n = (std::int64_t(1) << 32) + 5;
  thrust::device_vector<std::int8_t> data(n);
  thrust::tabulate(data.begin(), data.end(), index_bytes{});
  const auto policy = cascade::cuda.with(s::complete_unroll.block_size(1));
  EXPECT_EQ(cascade::reduce(policy, data.begin(), data.end(), std::int8_t{3}, plus{}),
            cub_reduce(data, std::int8_t{3}, plus{}));
}

}  // namespace
}  // namespace cascade_test
