// hillis_steele and reduce_then_scan (neither needs an identity) over the
// strategy matrix: inclusive, with init, exclusive and in place, at every
// boundary. (Split from the Blelloch strategies so that the pieces compile in
// parallel.)
#include "scan_strategies.cuh"
#include "scan_suite.cuh"

namespace cascade_test {
INSTANTIATE_TYPED_TEST_SUITE_P(HillisSteele, ScanSuite, strategy_matrix<s::hillis_steele_t>);
INSTANTIATE_TYPED_TEST_SUITE_P(ReduceThenScan, ScanSuite, strategy_matrix<s::reduce_then_scan_t>);
}  // namespace cascade_test
