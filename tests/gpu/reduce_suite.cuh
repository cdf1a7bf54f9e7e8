#pragma once
// Typed test pattern over (type, operator, strategy) triples: every size in
// boundary_sizes() against the reference. Each test file instantiates it for
// its own list of triples, so the matrix compiles in parallel pieces.

#include "suites.cuh"

namespace cascade_test {

template <class Combo>
class ReduceSuite : public gpu_test {};
TYPED_TEST_SUITE_P(ReduceSuite);

TYPED_TEST_P(ReduceSuite, MatchesReferenceAtEveryBoundary) {
  using T = typename TypeParam::value_type;
  using Op = typename TypeParam::op_type;
  using S = typename TypeParam::strategy;
  std::uint64_t seed = 1;
  for (std::int64_t n : boundary_sizes(tile_of<S, T>::reduce())) {
    check_reduce<T, Op>(cascade::cuda.with(S{}), n, seed++);
    if (this->HasFailure()) return;
  }
}
REGISTER_TYPED_TEST_SUITE_P(ReduceSuite, MatchesReferenceAtEveryBoundary);

}  // namespace cascade_test
