#pragma once
// Tuning of the look-back scans (the automatic scan and the named
// decoupled_lookback share the engine; see scan/decoupled_lookback.cuh), as
// plain data per accumulator size. Each number names the measurement that
// chose it; see docs/performance.md. The tile shapes are the same on every
// architecture: a tile's shape is its combination tree, which the automatic
// scan's bits depend on. What differs by architecture is how tiles move:
// bulk copies on sm_90, the threads' own 16-byte copies before.

#include <cascade/detail/primitives/tile_scan.cuh>

namespace cascade::detail {

template <class AccT>
struct lookback_scan_tuning {
  // Tile shape and the blocks per SM that __launch_bounds__ must allow
  // (which caps registers at 65536 / (threads x blocks)). H100, --tuning,
  // inclusive sum at 2^28 against CUB (h100-sxm-80gb-tuning-lookback.json):
  // int32 128 x 24 with 8 blocks (64 registers, 108 bytes spilled) 0.992x,
  // 64 x 32 with 14 0.978x (but 0.70x/0.81x at 2^16/2^20 against 0.63x/0.77x),
  // 128 x 32 with 6 1.013x, 128 x 16 with 8 1.065x, 256 x 12 with 4 1.177x;
  // double 128 x 24 with 5 blocks (96 registers) 0.938x, 128 x 16 with 6
  // 0.968x, 128 x 24 with 6 (spilling 388 bytes) 1.041x. Earlier, 2 blocks of
  // 256 x 16 per SM (102 registers) took 1.43x (int32). Wider values: 64
  // bytes per thread and a tile within 32 KB of shared memory (the static
  // limit is 48 KB).
  static constexpr int items_per_thread =
      sizeof(AccT) <= 8 ? 24 : sizeof(AccT) >= 64 ? 1 : int(64 / sizeof(AccT));
  static constexpr int block_threads = [] {
    if (sizeof(AccT) <= 8) return 128;
    int threads = 256;
    while (threads > 32 && threads * items_per_thread * sizeof(AccT) > 32768) threads /= 2;
    return threads;
  }();
  static constexpr int min_blocks_per_sm = sizeof(AccT) <= 4 ? 8 : sizeof(AccT) <= 8 ? 5 : 1;
  // The blocks per SM for the same shape in registers where a shape meant
  // for shared tiles meets misaligned arrays or other iterators (0: as
  // min_blocks_per_sm).
  static constexpr int register_tile_blocks_per_sm = 0;
  // Inputs up to this many tiles are scanned by one block carrying the
  // prefix from tile to tile: one launch, no tile status.
  static constexpr int single_block_tiles = 1;
  // Look-back pacing: a wait before the first poll, and the back-off between
  // polls while a predecessor's status is not yet published.
  // H100, inclusive sum at 2^24..2^28 (--tuning): 1200/500 ns gave 1.17x CUB's
  // time for int32 and 1.55x for double, against 1.51x/2.15x with no delay
  // (256 x 16 tiles, 2 blocks per SM). Re-checked on the 128 x 16 tiles at
  // 2^28, int32 (h100-sxm-80gb-tuning-lookback-pacing.json): 1200/500 1.068x,
  // 800/400 1.130x, 1600/600 1.068x, 1200/250 1.074x, 1200/1000 1.069x; on
  // 128 x 24 tiles (-tuning-lookback.json) 1600/600 0.991x and 800/400 1.037x
  // against 0.992x (int32), 0.933x and 0.956x against 0.938x (double).
  // H200, the 256-thread shared tiles, 2^24..2^28, against CUB in one run
  // (h200-scan-group-batch.json, call 2): 800/250 1-2% slower for every
  // type, 1600/500 the same as 1200/500 within 1%.
  static constexpr unsigned first_poll_delay_ns = 1200;
  static constexpr unsigned spin_nanoseconds = 500;
  // Grids below this many tiles poll at once and without back-off: few tiles
  // make little polling traffic, and every wait is latency (CUB: 500).
  static constexpr unsigned paced_grid = 500;
  // Windows of 32 predecessors polled together per look-back round (the
  // textbook rule; the reproducible rule polls by groups of 32 tiles). More
  // rounds are rarer (the nearest prefix is ~3.6 windows back at 2^28) but
  // the extra polls cost more: int32 128 x 16 at 2^28, 1 window 1.065x CUB,
  // 2 windows 1.105x, 4 1.188x, 8 1.384x.
  static constexpr int lookback_windows = 1;
  // The reproducible rule (reproducible_lookback.cuh): the groups of 32
  // tiles whose totals and prefixes a tile polls in its first round trip, and
  // the groups whose totals it computes from their aggregates per round trip
  // when they are not published yet. H100, float inclusive sum at 2^28,
  // against the textbook rule in the same run: window 32 / 16 / 8 / 4 1.84x
  // / 1.40x / 1.37x / 1.36x while every tile published what it computed;
  // with two tiles a group publishing, window 8 / 4 1.09x / 1.07x (one run
  // each). Batch 4 / 8 1.09x / 1.28x (8 needs more registers than the 64
  // that 8 blocks per SM allow).
  // Later, with the group words apart, on the shared tiles (--tuning,
  // tune.groups.w<window>.b<batch>, inclusive sum, time over the textbook
  // rule in the same run, 2^24 / 2^26 / 2^28): H200 float, window 8 1.07 /
  // 1.08 / 1.07, 4 1.04 / 1.06 / 1.03, 2 1.01 / 1.03 / 1.01, 1 1.01 / 1.02 /
  // 1.00; double 1.10 / 1.12 / 1.12, 1.08 / 1.08 / 1.08, 1.05 / 1.05 / 1.05,
  // 1.05 / 1.04 / 1.04. H100 float, window 8 1.04 / 1.02 / 1.02, 1 1.01 /
  // 1.00 / 1.00; double 1.05 / 1.05 / 1.04, 1.02 / 1.03 / 1.03. The fewer
  // group words each tile reads, the less they slow every tile's loads; the
  // prefix is nearly always out one group back (h200-tuning-group-window*.json,
  // h100-sxm-80gb-tuning-group-window.json).
  // Values past 16 bytes complete one group per round trip: four windows of
  // a 1 KB value unrolled took ptxas an hour and 13 GB. So do the others
  // since the status words carry a tag per 8-byte piece: the batch's
  // windows then took registers the shared-tile double kernel did not have
  // (64 a thread), and it spilled (48 bytes with 4 groups a round trip, 24
  // with 2, none with 1). H200, inclusive sum, time against CUB's at 2^24 /
  // 2^26 / 2^28, two runs of three rounds (h200-scan-group-batch.json):
  // double with 4 0.86-0.88 / 0.87-0.88 / 0.875-0.877, with 2 0.85-0.87 /
  // 0.86 / 0.86, with 1 0.83-0.87 / 0.85-0.86 / 0.854-0.855 (the textbook
  // rule's time 1.05 / 1.05 / 1.05 -> 1.04 / 1.03 / 1.02); int32, float and
  // int64 the same within 1%. A total is rarely missing: the group before
  // has nearly always published its own.
  static constexpr int group_window = 1;
  static constexpr int group_batch = 1;
  // Grids below this many tiles (one wave: 132 SMs hold 528 of the widest
  // tiles; at most 512, 16 groups) find their prefixes under the
  // reproducible rule with the whole block, from the aggregates alone
  // (group_prefix::block_exclusive_prefix). H200, float and double
  // inclusive and exclusive sums, time over the textbook rule's in the same
  // process (medians of three rounds, h200-scan-whole-block.json, call4):
  // 2^16..2^20 float 0.98-1.04, double 0.98-1.01 (the first warp alone
  // 0.99-1.14 / 1.03-1.12); 2^21 1.00-1.04 (1.04-1.08); 2^22 1.03-1.05
  // (float 1.08-1.10). The first warp alone, polling every earlier group's
  // aggregates in batches of 4 / 8 / 16 groups (call1): 1.00-1.08 / up to
  // 1.21 / up to 1.71 (registers). The whole block's fold by shuffles
  // (spills) and its polls backing off 100 or 300 ns (call2): no better,
  // up to 1.10 at 2^22..2^23.
  static constexpr unsigned whole_block_grid = 500;
  // Integral accumulators (any association gives the same bits) take the
  // textbook rule, except on the portable path (no bulk copies) from this
  // many items (0: never), where the reproducible rule measured faster (see
  // the wide shape below; exact_prefix in reproducible_lookback.cuh).
  static constexpr long long portable_group_rule_items = 0;
  // Polls of a silent predecessor before the warp reduces its tile itself
  // (the progress guarantee; see decoupled_lookback.cuh). A running
  // predecessor publishes within a few microseconds of starting; about 30 us
  // of polls keeps recomputation to tiles whose block is not running.
  static constexpr int polls_before_fallback = 60;
  // How tiles reach the blocked arrangement (see tile_io): the warp
  // transposition (16-byte vectors where aligned) beat direct 16-byte
  // vectors, 0.992x against 1.405x (int32, 128 x 24, 2^28).
  static constexpr tile_io io = tile_io::warp_transpose;
  // How far ahead a block asks L2 for inputs when it starts (0: not at all):
  // the tile this many bytes on, so that the next wave's loads are in flight
  // while this one looks back. H100, inclusive sum at 2^24..2^28 against CUB,
  // 128 x 24 tiles, by tiles ahead: int32 (12 KB tiles) none 0.95-0.99x,
  // 66 0.90-0.92x, 132 0.87-0.90x, 264 0.88-0.89x, 330 0.88-0.89x, 528
  // 0.89-0.90x, 1056 1.06-1.20x; double (24 KB tiles) none 0.91-0.94x, 66
  // 0.87-0.90x, 132 0.88-0.90x, 264 0.89-0.92x, 396 1.00-1.07x. About 4 MB
  // suits both; much further, the lines leave L2 before their block reads them.
  static constexpr long long prefetch_bytes = 4 << 20;
  // Tests only: block b scans the last tile but b, so that the hardware's
  // in-order start runs successors before their predecessors.
  static constexpr bool reversed_tiles = false;
  // Tiles held in registers through the look-back (see the shared tuning below).
  static constexpr bool shared_tiles = false;
};

// Blocks per SM of the shared tuning's shape when its tiles are loaded by
// the threads (through the warp exchange, tile_scan.cuh), which caps the
// registers at 65536 / (128 x blocks). H100, 2^26 items, the tile waiting
// in the exchange slots: a float scan over a transform iterator 219 / 258 /
// 356 us at 4 / 6 / 8 blocks (6 and 8 spill).
template <class AccT>
inline constexpr int register_tile_blocks = 4;

// Items per thread of the shared tuning's shape: 160 bytes of 4- and 8-byte
// values (below).
template <class AccT>
inline constexpr int shared_tile_items = sizeof(AccT) == 4 || sizeof(AccT) == 8 ? int(160 / sizeof(AccT)) : 1;

// 4- and 8-byte values between 16-byte aligned arrays of them: tiles that
// stay in shared memory through the look-back, moved by bulk copies on sm_90
// and by the threads' 16-byte copies before (shared_tile.cuh). With no registers holding items across the
// look-back, 8 tiles of 20 KB (160 bytes per thread) fit on an SM. H100,
// inclusive sum against CUB in one run: int32 at 2^26 / 2^28 (float alike),
// register tiles 128 x 24 with 8 blocks 0.872 / 0.881; shared 128 x 24 with
// 8 / 10 / 12 / 16 blocks 0.839 / 0.850, 0.834 / 0.843, 0.885 / 0.900, 0.993
// / 1.019; shared 128 x 40 with 8 0.818 / 0.831, with 10 0.869 / 0.916;
// bulk loads into register tiles (128 x 24, 8 blocks) 0.852 / 0.861. At
// 2^23 / 2^25 (next run): int32 128 x 40 with 8 0.768 / 0.815, with 9 0.778
// / 0.829, 128 x 56 with 7 0.795 / 0.833; int64 register tiles 0.881 /
// 0.911, shared 128 x 20 with 8 0.840 / 0.901, 128 x 12 with 10 0.877 /
// 0.913, with 8 0.887 / 0.920 (double alike).
template <class AccT>
struct lookback_scan_shared_tuning : lookback_scan_tuning<AccT> {
  static constexpr int items_per_thread = shared_tile_items<AccT>;
  static constexpr int min_blocks_per_sm = 8;
  static constexpr bool shared_tiles = sizeof(AccT) == 4 || sizeof(AccT) == 8;
  // From the first size above the small tuning's, shared tiles were faster
  // at every size measured (against CUB, register -> shared tiles): int32
  // 2^17 0.525 -> 0.475, 2^19 0.606 -> 0.549, 2^21 0.731 -> 0.578, 2^22
  // 0.812 -> 0.631, 2^24 0.894 -> 0.798, 2^26 0.876 -> 0.826, 2^27 0.882 ->
  // 0.831; int64 2^17 0.578 -> 0.547, 2^19 0.656 -> 0.597, 2^21 0.718 -> 0.598.
  static constexpr long long min_items = 1 << 17;
  // The same 160 bytes per thread loaded by the threads (misaligned arrays,
  // other iterators, which take this shape too so that their bits are the
  // aligned arrays'), with the blocks per SM of register_tile_blocks below.
  static constexpr int register_tile_blocks_per_sm = register_tile_blocks<AccT>;
};

// From 2^21 items the shared tiles take 256 threads (the same 160 bytes a
// thread, 4 blocks per SM): half as many tiles, so half the look-backs and,
// under the reproducible rule, half the group words polled per item. H200,
// inclusive sum, time against the 128-thread shape in the same call (three
// rounds, h200-scan-tuning-shapes.json), 2^21..2^28, sm_90 / compute_80
// builds: int32 0.95-0.99 / 0.97-1.01, float 0.92-1.01 / 0.92-1.01, int64
// 0.98-1.01 / 0.96-1.00, double 0.95-1.01 / 0.92-0.97 (the reproducible
// rule's cost over the textbook's for double 1.01-1.03 from 2^24, against
// 1.04-1.05 at 128); at 2^18 1.06-1.17x for int32, float and int64, so
// smaller inputs keep 128 threads. Against the 128-thread shape in the same
// runs, 2^21..2^28: 256 threads at 5 blocks per SM (48 registers, spilling) 0.97-1.34x,
// 256 x 96 bytes at 6 / 8 blocks 0.92-1.29x / 1.07-1.81x, 128 x 224 bytes at
// 7 blocks 0.88-1.06x (float on sm_90 3% faster, compute_80 2-4% slower);
// L2 asked 2 or 8 MB ahead rather than 4 within 0.04 either way, 16 MB ahead
// up to 1.30x; the first poll after 800 ns with 250 ns spins 0.96-1.04x,
// after 1600 ns 0.96-1.02x. The whole automatic scan against the binary
// before it, three rounds (h200-scan-wide-tiles.json): from 2^24, time
// against CUB's 0.93-1.02x on sm_90 (double 0.93-0.97x), 0.91-1.01x as
// compute_80. Not measured: an A100 (164 KB of shared memory an SM) holds
// 3 of these blocks (42 KB each) where it holds 7 of the 128-thread ones.
template <class AccT>
struct lookback_scan_wide_tuning : lookback_scan_shared_tuning<AccT> {
  static constexpr int block_threads = 256;
  static constexpr int min_blocks_per_sm = 4;
  // Register tiles of this shape (misaligned arrays, other iterators) keep
  // the 128-thread shape's threads and registers per SM.
  static constexpr int register_tile_blocks_per_sm = register_tile_blocks<AccT> / 2;
  static constexpr long long min_items = 1 << 21;
  // 4-byte integers on the portable path take the reproducible rule from
  // 2^24 items. H200, int32 inclusive / exclusive sum, the strategy
  // reproducible_lookback's time over the textbook rule's in the same call
  // (three rounds, h200-scan-rules.json), compute_80 build: 2^21 1.04 /
  // 1.05, 2^22 1.09 / 1.06, 2^23 0.99 / 0.99, 2^24 0.99 / 1.00, 2^25 0.95 /
  // 0.96, 2^26 0.97 / 0.95, 2^27 0.93 / 0.95, 2^28 0.94 / 0.94 (82-83% of
  // the copy limit -> 88-89%); the sm_90 build 0.99-1.01 from 2^24 (it keeps
  // the textbook rule); int64 1.03-1.06 on both.
  static constexpr long long portable_group_rule_items = sizeof(AccT) == 4 ? 1 << 24 : 0;
};

// Inputs of up to `max_items` values of at most 8 bytes take 128 x 8 tiles:
// where the time is a launch and a few tiles, a third of the work per
// thread and three times the blocks finish sooner. H100, inclusive sum
// against CUB in one run, 128 x 24 -> 128 x 8: int32 2^10 0.63 -> 0.51,
// 2^12 0.65 -> 0.62, 2^14 0.64 -> 0.61, 2^16 0.66 -> 0.64; double 2^10
// 0.67 -> 0.51, 2^12 0.75 -> 0.62, 2^14 0.75 -> 0.65, 2^16 0.70 -> 0.65.
// H200, int64 and double at 2^12..2^17, five rounds (--tuning, tune.small,
// h200-scan-tuning-small.json): 128 x 4, 128 x 16, 64 x 8 (10 blocks) and
// 256 x 4 (4 blocks) were none better than 128 x 8 beyond the runs' spread
// (time against CUB 0.48-0.71 for all; 128 x 8 0.50-0.60 to 2^16).
template <class AccT>
struct lookback_scan_small_tuning : lookback_scan_tuning<AccT> {
  static constexpr int items_per_thread = 8;
  static constexpr long long max_items = sizeof(AccT) <= 8 ? (1 << 16) : 0;
};

}  // namespace cascade::detail
