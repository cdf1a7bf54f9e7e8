#pragma once
// Tuning of the automatic (decoupled look-back) scan, as plain data per
// accumulator size. Each number names the measurement that chose it; see
// docs/performance.md.

namespace cascade::detail {

template <class AccT>
struct lookback_scan_tuning {
  static constexpr int block_threads = 256;
  // 64 bytes of items per thread (16 x 4-byte, 8 x 8-byte), at least one.
  static constexpr int items_per_thread = sizeof(AccT) >= 64 ? 1 : (64 / sizeof(AccT) > 16 ? 16 : int(64 / sizeof(AccT)));
  // Inputs up to this many tiles are scanned by one block carrying the
  // prefix from tile to tile: one launch, no tile status to clear.
  static constexpr int single_block_tiles = 1;
  // Back-off while a predecessor's status is not yet published.
  static constexpr unsigned spin_nanoseconds = 32;
};

}  // namespace cascade::detail
