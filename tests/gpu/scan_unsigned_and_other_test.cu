// Automatic scans over unsigned integers, floating point and structs.
// (Split from the rest of the matrix so that the pieces compile in parallel.)
#include "scan_suite.cuh"

namespace cascade_test {
INSTANTIATE_TYPED_TEST_SUITE_P(UnsignedAndOther, ScanSuite, other_combos);
}  // namespace cascade_test
