#pragma once
// Tuning of the automatic (single-pass) reduce, as plain data per value size.
// Each number names the measurement that chose it; see docs/performance.md.

#include <cascade/detail/primitives/load.cuh>

namespace cascade::detail {

template <class InputT>
struct single_pass_reduce_tuning {
  // 256 threads: 8 warps, each reducing a contiguous span of the chunk.
  static constexpr int block_threads = 256;
  // Blocks per SM the register allocation must allow (__launch_bounds__).
  static constexpr int min_blocks_per_sm = 1;
  // Items per lane per row: one 16-byte vector of the input type.
  static constexpr int vector_items = vector_items_v<InputT>;
  // Rows whose loads a warp keeps in flight before reducing them: four
  // 16-byte loads per lane cover the H100's memory latency at full occupancy.
  static constexpr int rows_in_flight = 4;
  // The most chunk partials the finishing block reduces. Fixed, so that the
  // combination tree depends on N only, never on the grid or the SM count.
  // H100, --tuning at 2^24..2^28: 8192 chunks gave 0.975x CUB's time (int32,
  // geometric mean; worst 1.013x) and 1.001x (double); 2048 gave 0.998x with
  // a worst case of 1.042x at 2^28 int32 (2048 chunks over 1056 resident
  // blocks leave the last round half empty).
  static constexpr long long max_chunks = 8192;
};

}  // namespace cascade::detail
