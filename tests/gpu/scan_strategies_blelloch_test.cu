// blelloch and blelloch_conflict_free over the strategy matrix: inclusive,
// with init, exclusive and in place, at every boundary. (Split from the other
// strategies so that the pieces compile in parallel.)
#include "scan_strategies.cuh"
#include "scan_suite.cuh"

namespace cascade_test {
INSTANTIATE_TYPED_TEST_SUITE_P(Blelloch, ScanSuite, strategy_matrix<s::blelloch_t>);
INSTANTIATE_TYPED_TEST_SUITE_P(BlellochConflictFree, ScanSuite, strategy_matrix<s::blelloch_conflict_free_t>);
}  // namespace cascade_test
