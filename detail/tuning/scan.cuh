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
  static constexpr unsigned first_poll_delay_ns = 0;
  static constexpr unsigned spin_nanoseconds = 32;
  // How tiles reach the blocked arrangement (see tile_io).
  static constexpr tile_io io = tile_io::direct;
};

}  // namespace cascade::detail
