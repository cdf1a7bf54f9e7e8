// The seeds' reduce strategies on 64-bit integers (against CUB) and floating
// point (against a float64 reference). (Split from the rest of the matrix so
// that the pieces compile in parallel.)
#include "reduce_strategies.cuh"
#include "reduce_suite.cuh"

namespace cascade_test {

using wide_matrix = cross_t<all_strategies, combo<std::uint64_t, bit_xor>, combo<std::int64_t, minimum>,
                            combo<float, plus>, combo<double, plus>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Strategies, ReduceSuite, wide_matrix, combo_name);

}  // namespace cascade_test
