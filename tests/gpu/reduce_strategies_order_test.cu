// Order and operators: the strategies that keep the order of the operands
// with a non-commutative operator (affine-map composition), the ones that
// need a commutative operator with a struct operator declared commutative,
// fancy iterators beyond 2^31, and streams. (Split from the rest of the
// matrix so that the pieces compile in parallel.)
#include "reduce_strategies.cuh"
#include "reduce_suite.cuh"

#include <thrust/iterator/counting_iterator.h>

namespace cascade_test {

using ordered_matrix = cross_t<order_preserving, combo<affine, compose_with_identity>>;
using commutative_matrix = cross_t<commutative_only, combo<triple, commutative_triple_sum>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Ordered, ReduceSuite, ordered_matrix, combo_name);
INSTANTIATE_TYPED_TEST_SUITE_P(Commutative, ReduceSuite, commutative_matrix, combo_name);

namespace {

class ReduceStrategies : public gpu_test {};

// A counting iterator past 2^31 (no memory): 64-bit offsets through a fancy
// iterator, with a first level of many blocks and one of few.
TEST_F(ReduceStrategies, CountingIteratorBeyondTwoToThe31) {
  const std::int64_t m = (std::int64_t(3) << 30) + 3;  // odd; m (m - 1) / 2 fits in int64, m (m - 1) does not
  const thrust::counting_iterator<std::int64_t> count(0);
  using some = std::tuple<s::interleaved_strided_t, s::warp_shuffle_t, s::multiple_elements_per_thread_t>;
  for_each_strategy<some>([&](auto strategy) {
    EXPECT_EQ(cascade::reduce(cascade::cuda.with(strategy), count, count + m, std::int64_t{0}), m * ((m - 1) / 2))
        << strategy_name<decltype(strategy)>();
  });
}

TEST_F(ReduceStrategies, NonDefaultStream) {
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for_each_strategy<order_preserving>([&](auto strategy) {
    SCOPED_TRACE(strategy_name<decltype(strategy)>());
    for (std::int64_t n : {1ll, 4097ll, (1ll << 22) + 5}) {
      check_reduce<affine, compose_with_identity>(cascade::cuda.on(stream).with(strategy), n, 11);
    }
  });
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace cascade_test
