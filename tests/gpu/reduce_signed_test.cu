// Automatic reduce over signed integers and five operators, vs CUB.
// (Split from the rest of the matrix so that the pieces compile in parallel.)
#include "reduce_suite.cuh"

namespace cascade_test {
INSTANTIATE_TYPED_TEST_SUITE_P(Signed, ReduceSuite, signed_combos);
}  // namespace cascade_test
