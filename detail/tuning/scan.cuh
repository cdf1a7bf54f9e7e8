#pragma once
// Tuning of the automatic (decoupled look-back) scan, as plain data per
// accumulator size. Each number names the measurement that chose it; see
// docs/performance.md.

#include <cascade/detail/primitives/tile_scan.cuh>

namespace cascade::detail {

template <class AccT>
struct lookback_scan_tuning {
  // 64 bytes of items per thread (16 x 4-byte, 8 x 8-byte), at least one.
  static constexpr int items_per_thread = sizeof(AccT) >= 64 ? 1 : (64 / sizeof(AccT) > 16 ? 16 : int(64 / sizeof(AccT)));
  // 256 threads, fewer for wide values so that a tile stays within 32 KB of
  // shared memory (the static limit is 48 KB).
  static constexpr int block_threads = [] {
    int threads = 256;
    while (threads > 32 && threads * items_per_thread * sizeof(AccT) > 32768) threads /= 2;
    return threads;
  }();
  // Blocks per SM the register allocation must allow (__launch_bounds__).
  static constexpr int min_blocks_per_sm = 1;
  // Inputs up to this many tiles are scanned by one block carrying the
  // prefix from tile to tile: one launch, no tile status.
  static constexpr int single_block_tiles = 1;
  // Look-back pacing: a wait before the first poll, and the back-off between
  // polls while a predecessor's status is not yet published.
  // H100, inclusive sum at 2^24..2^28 (--tuning): 1200/500 ns gave 1.17x CUB's
  // time for int32 and 1.55x for double, against 1.51x/2.15x with no delay.
  static constexpr unsigned first_poll_delay_ns = 1200;
  static constexpr unsigned spin_nanoseconds = 500;
  // How tiles reach the blocked arrangement (see tile_io). Same sweep: the
  // warp transposition beat direct 16-byte vectors (1.42x vs 1.51x, int32).
  static constexpr tile_io io = tile_io::warp_transpose;
  // Resident blocks that loop over tiles, rather than one block per tile:
  // slower in every variant measured (see decoupled_lookback.cuh).
  static constexpr bool persistent_grid = false;
};

}  // namespace cascade::detail
