// 1 KB values through every engine but the segmented scan and reduce_by_key
// (large_values.cuh).
#include "large_values.cuh"

using cascade_test::LargeValues;

TEST_F(LargeValues, Of1KB) { cascade_test::check_large_sizes<256>("1 KB", {1, 3001, 100'003}, 1200); }
TEST_F(LargeValues, Of1KBLongSegmentByOffsets) { cascade_test::check_long_segment_by_offsets<256>(1201); }
