// The host side of the seeds' reduce strategies, without a GPU: which block
// sizes a tag may ask for (and the error that names the strategy when it
// asks for another), and the plan of the levels: every level covers its
// items, shrinks to one block, and fits the partial buffer it writes.

#include "../gpu/reduce_strategies.cuh"

#include <stdexcept>

namespace cascade_test {
namespace {

using cascade::detail::offset_t;
namespace multi_pass = cascade::detail::multi_pass;

TEST(ReduceStrategyPlan, BlockSizes) {
  for_each_strategy<all_strategies>([&](auto strategy) {
    using S = decltype(strategy);
    using A = strategy_algorithm<S>;
    SCOPED_TRACE(strategy_name<S>());
    EXPECT_EQ(multi_pass::block_threads<A>(strategy), cascade::detail::reduce_block_threads<S>);
    for (unsigned threads = 1; threads <= 1024; threads *= 2) {
      if (threads >= A::min_threads) EXPECT_EQ(multi_pass::block_threads<A>(strategy.block_size(threads)), threads);
    }
    EXPECT_EQ(A::min_threads, (std::is_same_v<S, s::complete_unroll_t> ? 1u : 32u));
    for (unsigned threads : {3u, 31u, 33u, 100u, 1000u, 2048u, 4096u, 1u << 31}) {
      try {
        multi_pass::block_threads<A>(strategy.block_size(threads));
        ADD_FAILURE() << threads << ": no exception";
      } catch (const std::invalid_argument& e) {
        const std::string want = "cascade::strategy::" + strategy_name<S>() + ": block size " +
                                 std::to_string(threads) + " is not a power of two from " +
                                 std::to_string(A::min_threads) + " to 1024";
        EXPECT_EQ(e.what(), want);
      }
    }
  });
}

// The levels run() launches for n items.
template <class A>
std::vector<offset_t> levels(offset_t n, unsigned threads) {
  std::vector<offset_t> blocks;
  for (offset_t m = n; blocks.empty() || m > 1;) {
    blocks.push_back(multi_pass::blocks_for<A>(m, threads));
    m = blocks.back();
  }
  return blocks;
}

TEST(ReduceStrategyPlan, LevelsCoverShrinkAndFit) {
  for_each_strategy<all_strategies>([&](auto strategy) {
    using S = decltype(strategy);
    using A = strategy_algorithm<S>;
    for (unsigned threads = A::min_threads; threads <= 1024; threads *= 2) {
      const offset_t tile = offset_t(threads) * A::items_per_thread;
      for (offset_t n : {offset_t(1), offset_t(2), tile - 1, tile, tile + 1, offset_t(1) << 20, (offset_t(1) << 31) + 4099,
                         (offset_t(1) << 40) + 3}) {
        if (n < 1) continue;
        SCOPED_TRACE(strategy_name<S>() + ", " + std::to_string(threads) + " threads, n = " + std::to_string(n));
        const std::vector<offset_t> blocks = levels<A>(n, threads);
        ASSERT_EQ(blocks.back(), 1);
        EXPECT_LE(blocks.size(), 64u);
        offset_t m = n;
        for (std::size_t k = 0; k < blocks.size(); ++k) {
          EXPECT_GE(blocks[k], 1);
          if (m > 1) EXPECT_LT(blocks[k], m);  // progress
          if (A::grid_threads > 0) {
            EXPECT_LE(blocks[k] * threads, std::max<offset_t>(A::grid_threads, threads));  // grid-stride: one launch
          } else {
            EXPECT_GE(blocks[k] * tile, m);      // every item has a block
            EXPECT_LT((blocks[k] - 1) * tile, m);  // and every block an item
          }
          // Level k writes the buffer of level k - 2, which must be as large.
          if (k >= 2) EXPECT_LE(blocks[k], blocks[k - 2]);
          m = blocks[k];
        }
      }
    }
  });
}

TEST(ReduceStrategyPlan, TilesOfTheTests) {
  EXPECT_EQ((tile_of<s::sequential_addressing_t, int>::reduce()), 256);
  EXPECT_EQ((tile_of<s::first_add_during_load_t, int>::reduce()), 256);          // 2 x 128 threads
  EXPECT_EQ((tile_of<s::multiple_elements_per_thread_t, int>::reduce()), 1024);  // 2 x 512 threads
  EXPECT_EQ(strategy_name<s::radix4_pyramid_t>(), "radix4_pyramid");
}

}  // namespace
}  // namespace cascade_test
