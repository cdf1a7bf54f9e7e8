// 188-byte values through every engine (large_values.cuh).
#include "large_values.cuh"

using cascade_test::LargeValues;

TEST_F(LargeValues, Of188Bytes) { cascade_test::check_large_sizes<47>("188 bytes", {1, 4099, 300'007}, 1100); }
TEST_F(LargeValues, Of188BytesLongSegmentByOffsets) { cascade_test::check_long_segment_by_offsets<47>(1101); }
