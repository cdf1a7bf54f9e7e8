#pragma once
// Tuning of the segmented reductions' engine (segmented/tile_totals.cuh), as
// plain data per accumulator size. The tile shape is the combination tree
// inside a tile, so it depends on the accumulator only (never on the GPU):
// results are the same bits on every architecture.

namespace cascade::detail {

template <class T>
struct tile_totals_tuning {
  // 256 threads x 64 bytes of items each (16 floats, 8 doubles): a 16 KB
  // tile, read coalesced through shared memory, at launch bounds for 6
  // blocks per SM (40 registers). H200, 2^26 floats, fixed-size segments of
  // 4096 / 64 / 4, in us (CUB's fixed-size overload 68 / 133 / 88):
  // - each thread's own 16-byte loads, 4 blocks: 116 / 119 / 168;
  // - the same at 6 blocks: 111 / 114 / 168 (8 items x 8 blocks: 250 / 248 /
  //   257; 32 items x 128 threads: 123 / 121 / 190);
  // - fixed sizes found without staging, whole tiles without bound checks,
  //   6 blocks: 93 / 106 / 138 (8 blocks 104 / 120 / 143);
  // - coalesced through shared memory, 6 blocks: 81 / 98 / 149 (8 blocks
  //   111 / 121 / 156).
  static constexpr int items_per_thread = sizeof(T) >= 64 ? 1 : int(64 / sizeof(T));
  // Wider values: fewer threads, so that the tile stays within 16 KB and the
  // block's shared memory within the 48 KB static limit (a 188-byte value:
  // 64 threads; 1 KB: 32).
  static constexpr int block_threads = [] {
    int threads = 256;
    while (threads > 32 && threads * items_per_thread * sizeof(T) > 16384) threads /= 2;
    return threads;
  }();
  static constexpr int min_blocks_per_sm = 6;
  // Segment begins (CSR offsets) each thread reads at once while staging
  // them, beside its items in registers: 24 took 120 registers (spilling at
  // the launch bounds); offsets in segments of 4096 / 64, 6 blocks: 4 in
  // flight 141 / 180 us, 8 in flight (4 blocks) 145 / 199.
  static constexpr int begins_in_flight = 4;
  // Where a tile searches for its segments (CSR offsets), the values of the
  // tile this far ahead are asked of L2 (primitives/prefetch.cuh): offsets
  // in segments of 4096 / 65536 / 2^22, 132 / 110 / 108 us against 138 /
  // 118 / 113 without. Fixed sizes search nothing and gain nothing (81 / 77
  // / 78 us without against 84 / 81 / 83 with): none there.
  static constexpr long long prefetch_bytes = 4 << 20;
  // The second launch: one warp per segment that spans tiles.
  static constexpr int span_block_threads = 256;
};

}  // namespace cascade::detail
