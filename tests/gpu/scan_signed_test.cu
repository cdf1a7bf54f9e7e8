// Automatic scans (inclusive, with init, exclusive, in place) over signed integers, vs CUB.
// (Split from the rest of the matrix so that the pieces compile in parallel.)
#include "scan_suite.cuh"

namespace cascade_test {
INSTANTIATE_TYPED_TEST_SUITE_P(Signed, ScanSuite, signed_combos);
}  // namespace cascade_test
