#pragma once
// Tuning of the segmented reductions' engine (segmented/tile_totals.cuh), as
// plain data per accumulator size. The tile shape is the combination tree
// inside a tile, so it depends on the accumulator only (never on the GPU):
// results are the same bits on every architecture.

#include <cascade/detail/segmented/pairs.cuh>
#include <cascade/detail/tuning/scan.cuh>

namespace cascade::detail {

// Threads a block of the segmented engines takes for `items` values of T
// each: 256, fewer for wide values, so that the tile stays within 16 KB and
// the block's shared memory within the 48 KB static limit (a 188-byte value:
// 64 threads; 1 KB: 32).
template <class T>
constexpr int segmented_tile_threads(int items) {
  int threads = 256;
  while (threads > 32 && threads * items * sizeof(T) > 16384) threads /= 2;
  return threads;
}

// The items of one tile of a segmented engine's tuning.
template <class Tuning>
inline constexpr offset_t segmented_tile_items = offset_t(Tuning::block_threads) * Tuning::items_per_thread;

// The offsets forms over an array (segmented_reduce and the segmented scans)
// size their grid by the array's allocation, their blocks reading the item
// count (so segmented_reduce needs no read-back at all, and the scans' work
// is queued before theirs), up to this many tiles: a block past the
// items does next to nothing, and costs about 0.65 ns (H200, 256 threads:
// grids of 4096 / 16384 / 32768 / 65536 such blocks 4.3 / 11.6 / 21.5 /
// 41.3 us a launch), so an allocation far larger than the items costs at
// most about the 8-10 us that the read-back costs. H200, three rounds
// against 80ac90f: segmented_reduce (h200-segmented-bounded-grid.json) at
// 2^26, floats / int32 in segments of 4096 / 65536 / 2^22 0.93 / 0.94x,
// 0.92 / 0.89x, 0.92 / 0.93x the time, other shapes 0.95-1.00x; 2^16
// 0.67-0.92x. With the segmented scans so too (h200-segmented-sweep-runs.json):
// segmented_reduce 0.91-0.95x at 4096-2^22, 0.96-1.00x elsewhere, 2^16
// 0.73-0.86x; segmented scans 0.95-1.01x at 2^26, 0.70-0.82x at 2^16.
inline constexpr offset_t bounded_grid_max_tiles = 16384;

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
  // - fixed sizes that divide a thread's items (1, 2, 4, ...) folded inside
  //   the threads, each warp writing its segments' totals, no block scan and
  //   no segment walk: H100, 2^26 floats, segments of 1 / 4 / 16, 355 / 144 /
  //   102 -> 186 / 118 / 102 us (CUB 237 / 116 / 100, the copy limit of the
  //   bytes moved 183 / 120 / 100).
  // - fixed sizes of 2-32 threads' items (32-512 floats) completed by a warp
  //   scan, each segment's last thread writing its total, no block scan and
  //   no segment walk: H200, 2^26 floats / int32, segments of 64 / 256,
  //   0.74 / 0.70x, 0.72 / 0.73x the time (98-100 -> 71-73 us; CUB 123-132
  //   / 87-89), other sizes 0.98-1.03x (h200-segmented-fixed-warp-segments.json).
  // - fixed segments of one 16-byte vector (4 floats) summed from the vectors
  //   as loaded, no exchange: H200, 2^26 floats / int32, 0.87 / 0.89x the
  //   time (95 -> 83 us, CUB 88), segments of 1 and 16 1.04x / 1.02-1.03x,
  //   others 0.98-1.01x; sizes 1, 2, 4 so (written strided) took segments
  //   of 1 2.1x (h200-segmented-fixed-vector-segments.json).
  // - fixed segments of 2 or 4 such vectors (8 or 16 floats) folded left to
  //   right along the lanes that loaded them: H200, 2^26 floats / int32,
  //   segments of 16 0.94 / 0.93x the time (85 -> 79 us, CUB 72), the other
  //   sizes 0.98-1.01x (h200-segmented-fixed-lane-segments.json); with the
  //   lanes a segment spans known at compile time, segments of 16 0.92-0.94x
  //   that again (80 -> 74 us; h200-segmented-fixed-lanes-unrolled.json).
  // - fixed sizes that divide a thread's items (1-16 floats) in a kernel of
  //   their own (fixed_inside_threads, 8 blocks per SM: below), each thread
  //   reading its own items as 16-byte vectors and folding its segments, in
  //   place of the two above and of the exchange loads for sizes 1 and 2:
  //   H200, 2^26 floats / int32, six rounds, segments of 1 0.86 / 0.91x the
  //   time (169 -> 145 us, CUB 217), of 4 1.01 / 1.00x, of 16 1.01 / 1.01x,
  //   other sizes (their kernels unchanged) 0.98-1.01x; at 2^16 within the
  //   launch-latency band (h200-segmented-fixed-inside-threads.json).
  static constexpr int items_per_thread = sizeof(T) >= 64 ? 1 : int(64 / sizeof(T));
  static constexpr int block_threads = segmented_tile_threads<T>(items_per_thread);
  static constexpr int min_blocks_per_sm = 6;
  // Fixed sizes that are multiples of the tile (every tile inside one
  // segment: no block scan, no walk compiled in): 8 blocks per SM (32
  // registers, no spill), as CUB's fixed-size overload runs (Nsight Compute,
  // H200, 2^26 floats in segments of 4096: 32 registers, 94% achieved
  // occupancy, DRAM at 90% of peak). H200, 2^26, three rounds against the
  // same kernel at 6 blocks (h200-segmented-tile-joins.json, variants
  // block-join-8-blocks-call1 against block-join-6-blocks-call1): segments
  // of 4096 float / int32 0.96 / 0.99x the time, of 65536 and 2^22
  // 0.99-1.00x; at 2^16 0.98-1.03x.
  static constexpr int one_segment_min_blocks_per_sm = 8;
  // Fixed sizes of more than one round of pieces to join (a block's threads'
  // worth of tiles) are joined by a launch of their own (tile_totals.cuh,
  // joins_kernel), whose warps reduce a segment's rounds side by side, where
  // the tiles kernel's last tile of the segment reduces them one after the
  // other. H200, float / int32, the joins apart from 2 tiles a segment
  // against none, three rounds against two (h200-segmented-joins-apart.json):
  // at 2^26, one segment of 16384 tiles 109-111 -> 71-73 us (CUB 70-72),
  // segments of 4096 tiles 75-78 -> 69-70, of 1024 69-72 -> 68-70; of 2-256
  // tiles level (within 1 us); at 2^16 (segments of 2 and 16 tiles, grids
  // too small for a dependent launch) 6.3-7.6 -> 7.6-9.8 us, a launch more.
  // Sizes that are not multiples of the tile, so too, from the same bound
  // (three rounds each against 9cfee71, h200-segmented-joins-apart-any-size.json):
  // segments of 5 * 10^7 (12208 tiles) 94-98 -> 72-75 us, of 10^7 71-74 ->
  // 70-71; the sizes below the bound and the multiples of the tile level.
  static constexpr offset_t joins_apart_min_tiles = block_threads + 1;
  // By offsets only the tiles kernel learns which segments span that many
  // tiles: on grids of this many tiles or more, every call launches the
  // joins (joins_by_window: a block per window of 256 tiles, each finding
  // the one such segment that can end in it, or none), a dependent launch
  // from 4097 tiles (launch.cuh). H200, float / int32, three rounds each
  // against the joins in the tiles kernel:
  // - from 257 tiles (h200-segmented-joins-by-window-every-grid.json): one
  //   segment of 2^26 115-118 -> 79 us, of 2^24 33 -> 29; but the other
  //   shapes at 2^21..2^24 (512-4096 tiles, a plain launch more) 1.03-1.58x
  //   the time;
  // - from 8192 tiles (h200-segmented-joins-by-window.json): one segment of
  //   2^26 / 2^25 0.67-0.69x / 0.70-0.76x the time (113-117 -> 76-79 us,
  //   58-62 -> 42-45), segments of 2^24 0.85-0.95x; at 2^25..2^26 segments
  //   of 4096-65536 0.98-1.08x, of 16, half empty or a power law 1.00-1.05x
  //   (the launch's tail, 1-4 us); 2^22..2^24 level. Its blocks at 8 or 16
  //   warps instead of 32 (h200-segmented-joins-by-window-warps.json) did
  //   not shorten that tail: the other shapes 0.98-1.10x / 0.95-1.08x the
  //   time against 0.95-1.07x, one segment 0.73-0.87x / 0.69-0.82x against
  //   0.66-0.77x.
  static constexpr offset_t listed_joins_min_tiles = 8192;
  // Fixed sizes that divide a thread's items (every segment inside one
  // thread: each thread reads its own items as 16-byte vectors and folds its
  // segments, no block scan, no shuffle compiled in): 8 blocks per SM, as
  // CUB's fixed-size kernel runs (Nsight Compute, H200, 2^26 floats in
  // segments of 16, CUB's against the lane-vector fold this replaced, at 6
  // blocks: 6.9 against 41.8 M warp instructions, DRAM at 87% against 77% of
  // peak, 68 against 77 us under the profiler's clocks). Not measured at 6.
  // Its loads, 64 bytes apart across a warp, keep L1 92% busy (segments of
  // 16: 76 us at 78% of DRAM's peak; CUB 69 us, L1 69%), but the tile read
  // coalesced into the exchange by asynchronous copies instead took fixed
  // sizes of 1 / 4 / 16 1.09 / 1.11-1.16 / 1.16-1.18x the time at 2^26
  // (float, int32; H200, three rounds, h200-segmented-fixed-exchange-loads.json).
  static constexpr int inside_threads_min_blocks_per_sm = 8;
  // Where a tile searches for its segments (CSR offsets), its items stay in
  // registers through the search; at 6 blocks (40 registers) some of them
  // were spilled as they arrived, which waited for their loads. 5 blocks (48
  // registers, no spill), against 6 in the same runs, H100, 2^26: offsets in
  // segments of 4096 / 65536 / 2^22, int32 159 / 153 / 152 -> 127 / 115 /
  // 115 us, float 128 / 127 / 128 -> 124 / 115 / 114; segments of 1-64 and
  // power law within 2% either way (4 blocks: 6-17% slower there). Fixed
  // sizes search nothing and keep 6 (at 5: 0-4% slower).
  static constexpr int searching_min_blocks_per_sm = 5;
  // Where a whole tile of an aligned array reaches shared memory by
  // asynchronous copies through the search (segmented/tile_totals.cuh), no
  // register holds it: 6 blocks as for fixed sizes, 40 registers and no
  // spill. H200, 2^26, three rounds against the register loads at 5 blocks
  // (h200-segmented-copies-prefetch.json): offsets float / int32 in
  // segments of 16 / 64 / 256 0.93 / 0.90 / 0.95x, 0.98 / 0.95 / 0.95x, of
  // 4096 0.94 / 0.96x, of 65536 and 2^22 0.94-0.98x, power law 0.93 / 0.94x,
  // of 1 1.00x. At 8 blocks (32 registers, spilling) segments of 4096 and
  // longer took 1.22-1.30x. (Before 97c0c45's one-segment tiles the same
  // copies took 0.98-1.15x: h200-segmented-async-copies.json.) 8 blocks
  // again at e29005d (H200, 2^26, h200-segmented-reduce-blocks8.json):
  // floats 0.94-0.97x in segments of 16-65536, with a power law and half
  // empty (1.00 at 1 and 4), doubles 0.89-0.98x but 1.07x at 65536, int32
  // 0.98-1.01x but 1.17-1.18x at 4096-65536; segments of one item
  // 1.04-1.12x at 2^16..2^22 for every type. No bound wins for all three.
  // Again after 9eab1dd (H200, 2^26): int32 at 8 blocks spilled the 16
  // items each thread read before its fold was chosen (Nsight Compute, in
  // segments of 4096: 1.2 M local-memory instructions, 85 us against
  // float's 74 and none; L1 holds little beside 8 blocks' shared memory),
  // 1.22-1.26x the time of 6 blocks in segments of 4096-65536. With each
  // fold reading its own items (tile_totals.cuh), 8 blocks against 6, the
  // bits the same (A/B program, two rounds, h200-segmented-reduce-blocks8-reads.json;
  // the sweep's harness, three rounds alternating, -blocks8-ab-sweep.json):
  // float in segments of 16 / 64 / 256 0.91 / 0.89 / 0.95x the time, half
  // empty 0.90, power law 0.97, 4096-65536 0.97-0.99, but of 1 and 4
  // 1.02-1.03x and 16 segments of 2^22 1.04x; int32 0.94-0.96x at 16, 64
  // and half empty, 0.95-1.03x at 256-2^22 and power law, 1.03-1.06x at 1
  // and 4; at 2^16 level but segments of one item 1.07-1.18x (+1-2 us);
  // doubles 0.91-0.94x at 16, 4096, power law and half empty but
  // 1.04-1.07x at 1 and 65536. So 4-byte values take 8 (210 KB of shared
  // memory: an A100's 164 KB holds 6, where the bound costs registers for
  // nothing; not measured), wider ones 6.
  static constexpr int copying_min_blocks_per_sm = sizeof(T) <= 4 ? 8 : 6;
  // Segment begins (CSR offsets) each thread reads at once while staging
  // them, beside its items in registers: 24 took 120 registers (spilling at
  // the launch bounds); offsets in segments of 4096 / 64, 6 blocks: 4 in
  // flight 141 / 180 us, 8 in flight (4 blocks) 145 / 199.
  static constexpr int begins_in_flight = 4;
  // Where a search's first round misses (lengths that vary), whether it
  // starts over from all segments (tile_segments.cuh, warp_segment_of): not
  // here. H200, 2^26, three rounds each, four calls against the search that
  // goes on from the side of the guess it missed on
  // (h200-segmented-search-brackets.json): with a power law 0.87-0.91x the
  // time, but ptxas spilled the float offsets kernel more (64 bytes a thread
  // against 48 at its 32 registers), and floats in segments of 4096 to
  // 2^22 took 1.01-1.05x; the miss's reset placed elsewhere spilled other
  // kernels (56-64 against 48-56 bytes) and took floats in segments of 16 to
  // 2^22 and half empty 1.00-1.06x. (A perfect first guess, a bound, took
  // the power law to 0.73-0.75x.)
  static constexpr bool search_over_after_miss = false;
  // The tile's loads are issued before its segments are found and stay in
  // flight through the search (primitives/tile_scan.cuh, load_exchange):
  // H100, 2^26 floats, offsets in segments of 1 / 64 / 256 / 4096, half
  // empty, power law: 604 / 188 / 160 / 142 / 214 / 310 -> 584 / 175 / 153 /
  // 143 / 188 / 297 us (the same for the scans' engine, masked_scan.cuh, was
  // mixed: scans by key 1-4% faster, reduce_by_key at runs of 1 and 16 and
  // segmented scans at 16 and 64 3-8% slower; not taken).
  // A tile whose begins all lie among its first search's 32 probes stages
  // them from there (segmented/tile_segments.cuh), one round trip fewer:
  // H100, 2^26 floats, offsets in segments of 1 / 4096 / 65536 / 2^22, 594 /
  // 143-146 / 141-148 / 143-148 -> 518 / 127-130 / 124-130 / 128-132 us.
  // No L2 prefetch of the tile a wave ahead (primitives/prefetch.cuh). On
  // the H100, with the tile's loads in registers at 5 blocks per SM, asking
  // for the values 4 MB ahead took offsets in segments of 4096 / 65536 /
  // 2^22 from 138 / 118 / 113 to 132 / 110 / 108 us (fixed sizes gained
  // nothing). Since the tiles arrive by asynchronous copies at 6 blocks per
  // SM, the prefetch only adds L2 traffic: H200, 2^26, two rounds against
  // 626a79e (h200-segmented-no-prefetch.json), offsets float / int32 in
  // segments of 4096 / 65536 / 2^22 0.89 / 0.92x, 0.88 / 0.90x, 0.90 /
  // 0.91x the time, other shapes 0.97-1.03x; at 2^16 0.87-1.00x. (The scans'
  // engine keeps its prefetch: without, scans by key 0.96-0.99x where tiles
  // hold run starts but 1.00-1.05x elsewhere, reduce_by_key 0.99-1.06x,
  // segmented scans 0.98-1.15x.)
  static constexpr long long prefetch_bytes = 0;
};

// Tuning of the keyed and segmented scans' engine (segmented/masked_scan.cuh):
// the look-back's pacing as the flat scan's, a tile of plain values.
template <class T>
struct masked_scan_tuning : lookback_scan_tuning<headed<bool, T>> {
  // reduce_by_key (counted_masked_scan_tuning): whether block 0 chases the
  // tiles' run counts (spans.cuh, chase_run_counts), the windows of 32
  // counts it polls a round trip (at most 32: a lane of its first warp per
  // window), and its pause after a poll that finds the next count missing.
  static constexpr bool chased_counts = false;
  static constexpr int chase_windows = 32;
  static constexpr unsigned chase_spin_ns = 200;
  // 64 bytes of values per thread (16 4-byte values; 32 at most: a
  // thread's starts are a 32-bit mask), at most 16 KB a tile, at launch
  // bounds for 4 blocks of 256 per SM (64 registers), completing one group
  // total per look-back round trip. H200, 2^26 floats keyed by int32, time
  // / CUB's scan by key (inclusive) and reduce by key, segments of 16 / 2^22:
  // - 128 x 16, 6 blocks (80 registers), 4 groups a round trip: 1.01 / 1.35,
  //   1.12 / 1.14; the same at 8 blocks 1.01 / 1.46, 1.01 / 1.02; 128 x 24 at
  //   6 blocks 1.00 / 1.32, 1.14 / 1.08; 128 x 8 at 8 blocks 1.35 / 2.26;
  // - one group a round trip: 128 x 16 at 8 blocks (64 registers) 0.92 /
  //   1.16, 0.96 / 0.97; 128 x 24 at 8 blocks 0.95 / 1.17, 0.97 / 0.92;
  //   256 x 16 at 4 blocks 0.93 / 1.02, 0.83 / 0.84 (4 groups: 0.97 / 1.16,
  //   0.89 / 0.89).
  // Later (H200, 2^26, three rounds; h200-segmented-masked-blocks-5-6.json),
  // 256 x 16 at 5 / 6 blocks (48 / 40 registers) against 4: scans by key
  // 1.02-1.11x / 1.05-1.24x the time, segmented scans 0.95-1.11x /
  // 0.91-1.09x. Tiles of 256 x 20 (the flat scan's 5120 items, fewer
  // tiles and groups to chain): scans by key 1.12-1.35x, reduce_by_key
  // 2.0-7.6x (its gathering spilled), segmented scans 0.92-0.96x where no
  // tile holds a start but 1.18-1.20x in segments of 4096
  // (h200-segmented-masked-tiles-256x20.json). Later again, with 20 KB of
  // slots for the keys (theirs went to the threads' own loads): scans by key
  // 0.96-1.02x at runs of 65536, 2^22 and the power law, 1.08-1.11x at
  // 4096, int32 in short runs 1.04-1.06x (h200-segmented-keyed-wide-tiles.json;
  // the segmented scans took 256 x 20: numbered_masked_scan_tuning).
  // Later still, tiles of 256 x 32 at 3 blocks per SM (85 registers; 32 KB
  // of key slots, dynamic shared memory), two rounds on a machine of two
  // H200s (h200-segmented-keyed-8192-tiles.json): float 0.97-0.99x the
  // time where tiles hold run starts, 0.89-0.92x in runs of 65536, 2^22 and
  // a power law (CUB's time 0.77-0.87x there), int32 0.94-1.05x; but at
  // 2^16 (8 tiles instead of 16) 1.10-1.41x, 0.54-0.68x CUB's time: they
  // take that shape from 2^24 items on (wide_keyed_scan_tuning).
  // One shape at every n: at 2^16 (16 tiles) the scans by key took 7.2-7.5
  // us, against 8.7-9.4 with 128 x 8 tiles and 9.0-10.0 with 128 x 4 (CUB
  // 12-16 us).
  static constexpr int items_per_thread = sizeof(T) >= 64 ? 1 : sizeof(T) <= 4 ? 16 : int(64 / sizeof(T));
  static constexpr int block_threads = segmented_tile_threads<T>(items_per_thread);
  static constexpr int min_blocks_per_sm = 4;
  // One group's words polled a round trip (group_window 1, inherited), its
  // total completed from its aggregates where not yet published. Two or four
  // a round trip (group_window = group_batch = 2 / 4) against one, H200,
  // 2^26 floats, two rounds (h200-segmented-masked-group-window.json): scans
  // by key 1.03-1.09x / 1.06-1.21x the time, segmented scans 1.00-1.04x /
  // 1.05-1.30x, worst where no tile holds a start (16 runs of 2^22).
  static constexpr int group_batch = 1;
  // Whether a whole tile of an aligned array of values reaches the exchange
  // by asynchronous copies started before the heads are found (their loads
  // in flight meanwhile, in no registers), rather than by the threads' loads
  // after. H200, 2^26, two rounds (h200-segmented-copied-values.json): the
  // scans by key 0.98-1.03x the time (1.02-1.03x at 16 runs of 2^22), so
  // not here; reduce_by_key 0.96-0.99x, segmented scans 0.96-0.99x (2^22
  // 1.00-1.01x), so there (three rounds more, h200-segmented-bounded-grid.json:
  // 0.95-0.98x and 0.94-0.99x). The keys copied too: reduce_by_key
  // 1.03-1.08x; at 5 or 6 blocks per SM (48 / 40 registers) 1.03-1.24x.
  static constexpr bool copies_values = false;
  // Segment begins (CSR offsets) each thread reads at once while staging.
  static constexpr int begins_in_flight = 4;
  // The offsets a tile a wave ahead will search and stage, asked of L2 where
  // there are this many (tile_segments.cuh, prefetch_segments): none here.
  static constexpr offset_t begins_prefetch_min = 1, begins_prefetch_max = 0;
};

// The scans by key of 4- and 8-byte values over many items: tiles of 256 x
// 32 4-byte values (8192 items) or 256 x 16 8-byte ones (4096) at 3 blocks
// per SM (80 registers), their keys (of up to 4 bytes) in slots beside the
// values' (dynamic shared memory, about 66 / 50 KB a block): half the tiles,
// so half the look-backs, and fewer spills (ptxas: floats 36 bytes a thread
// against 90 in masked_scan_tuning's kernel, int32 12 against 0; doubles
// 24-120 against 424-428, int64 none against 120). Below min_items,
// masked_scan_tuning's tiles, whose twice as many blocks fill the GPU
// sooner. The shape is chosen by n on the host: results stay a function of
// the keys, the values and n.
// H200, n = 2^16..2^26, against masked_scan_tuning's tiles (two rounds
// with the wide tiles at every n, then three with them from 2^24;
// h200-segmented-keyed-wide-by-n.json), float / int32:
// - 2^26: runs of 1-4096 and half empty 0.96-0.98x / 1.01-1.02x the time,
//   65536 0.89-0.90x / 0.97x, 2^22 0.88x / 0.93-0.94x, a power law 0.91x /
//   0.98x (CUB's time 0.73x, 0.79x, 0.87x, 0.79x / 0.73-0.74x, 0.80-0.81x,
//   0.88-0.89x, 0.78-0.79x);
// - 2^24: 0.99-1.04x / 1.04-1.07x, 0.92x / 0.98-1.01x, 0.89x / 0.94x,
//   0.95x / 1.00x;
// - 2^22: 1.01-1.07x / 1.05-1.14x in short runs, and below, single calls of
//   7-12 us, 0.88-1.25x: there the smaller tiles stay.
// Tiles of 256 x 24 at 4 blocks per SM took 1.00-1.48x the time (int32 in
// 16 runs of 2^22 at 2^26, 0.97x). 8-byte values, two rounds with the wide
// tiles at every n (same file, variants call3-*), double / int64: 2^26
// 0.81-0.91x / 0.82-0.93x the time (CUB's time 0.85-1.16x / 0.82-1.13x,
// from 0.98-1.41x / 0.89-1.36x), 2^24 0.81-0.93x / 0.84-0.97x, 2^22
// 0.87-1.02x / 0.88-1.08x; at 4 blocks per SM (64 registers, 172-582 bytes
// of spills) 0.84-0.94x / 0.82-1.05x at 2^26.
template <class T>
struct wide_keyed_scan_tuning : masked_scan_tuning<T> {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the wide keyed tiles hold 4- or 8-byte values");
  static constexpr int items_per_thread = sizeof(T) == 4 ? 32 : 16;
  static constexpr int block_threads = 256;
  static constexpr int min_blocks_per_sm = 3;
  static constexpr offset_t min_items = offset_t(1) << 24;
};

// The segmented scans' (numbered segments, CSR offsets): a tile reaches its
// look-back later (after the search and staging of its segments), and a
// shorter first wait suits it. H200, 2^26, three rounds, first poll after
// 400 ns against 1200: segmented_inclusive_scan float / int32 in segments of
// 1 0.97 / 0.97, 16 0.96 / 0.92, 64 0.94 / 0.90, 4096 0.95 / 0.96, 65536
// 1.01 / 1.01, 2^22 1.00 / 1.03, power law 0.97 / 0.97; the scans by key at
// 400 ns took 0.98-1.07x, reduce_by_key 0.99-1.03x, so they keep 1200 (no
// wait at all: the segmented scans alike, the keyed forms 1.00-1.08x; the
// keyed forms at 2000 ns within 1% of 1200, at 3000 1.09-1.18x:
// h200-segmented-keyed-pacing.json).
//
// The offsets of the tile a wave ahead (where its values are prefetched) are
// asked of L2 too, where a tile spans 64-2048 of them: its search and staging
// waited longer for them than for its values. H200, 2^26, three rounds,
// against none: segmented_inclusive_scan float / int32 in segments of 4 / 16
// / 64 0.96 / 0.94 / 0.93x, 0.99 / 0.94 / 0.95x, half empty 0.93x, power law
// 0.93x; but prefetching every tile's took 1.02-1.03x at segments of 1 (4096
// offsets a tile) and of 65536 and 2^22 (33, shared with its neighbours and
// in L2 already); segmented_reduce gained nothing measurable (its values
// arrive by asynchronous copies).
//
// Tiles of 256 x 32 4-byte values (8192 items) and 256 x 16 8-byte ones
// (4096): fewer tiles, so fewer searches, stagings and look-backs for the
// same items, and more bytes a block while its first warps wait for the
// prefix (the values wait in the exchange, not in registers). A block of 8192
// 4-byte items takes about 51 KB of shared memory (the exchange and the staged
// begins, 6.2 bytes an item), past the 48 KB a kernel may declare, so it is
// the launch's dynamic shared memory (masked_scan.cuh, kernel_storage); 4
// blocks per SM use 205 of the H200's 228 KB (an A100's 164 KB holds 3: not
// measured). The kernels' spills do not grow (ptxas: 22-172 bytes a thread
// against 38-212 at 256 x 20). H200, 2^26, three calls of two rounds against
// 256 x 20 / 256 x 12 (h200-segmented-scan-8192-tiles.json):
// - 4-byte values: segments of 4096 0.85-0.88x the time (tiles of 8192 each
//   begin a segment again: 0.89-0.93x CUB's time), 65536 0.88-0.92x (CUB
//   1.04-1.09x -> 0.94-0.99x), 2^22 0.87-0.90x, 1000 / 5000 / 50000
//   0.93-0.98x / 0.91-0.97x / 0.90-0.93x, a power law 0.92-0.95x, 4 million
//   empty segments first 0.84-0.89x, segments of 1-256 and half empty
//   0.94-1.03x; n = 2^16 (8 tiles, not 13) 0.8-1.3x, single calls of 10-15
//   us, segments of one item up to 1.33x (a tile stages 8192 segments). 256
//   x 28 (static shared memory) took 0.99-1.15x 256 x 20's time at 2^26
//   (2^22 0.96-0.98x).
// - 8-byte values: 0.77-0.96x at every shape of 2^26 (2^22 0.79-0.83x,
//   65536 0.82-0.85x, 4096 0.77-0.81x, a power law 0.84-0.88x).
// - Folding and writing each item from the exchange slots, one 16-byte vector
//   at a time, instead of the thread's items in registers: the segmented
//   scans 0.95-1.05x (as measured beside the register form, tiles of 8192),
//   the scans by key 1.09-1.20x (ptxas spilled their kernels more): not taken.
// Before: tiles of 256 x 20 (5120) rather than 16
// (h200-segmented-scan-wide-tiles.json): segments of 1-256 items
// 0.88-1.03x the time, half empty 0.95-1.03x, of 1000 / 5000 / 50000
// 0.92-0.96x / 0.91-0.94x / 0.89-0.93x, 65536 0.92-0.96x, 2^22 0.89-0.93x, a power law 0.92-0.95x, but segments of
// exactly 4096 1.08-1.14x (every tile of 4096 began a segment); 256 x 24
// and 28 gained less or spilled; 8-byte values in tiles of 256 x 12
// rather than 8: 0.87-1.02x (256 x 10: 0.90-1.04x).
template <class T>
struct numbered_masked_scan_tuning : masked_scan_tuning<T> {
  static constexpr int items_per_thread =
      sizeof(T) == 4 ? 32 : sizeof(T) == 8 ? 16 : masked_scan_tuning<T>::items_per_thread;
  static constexpr int block_threads = sizeof(T) == 4 || sizeof(T) == 8 ? 256 : masked_scan_tuning<T>::block_threads;
  static constexpr bool copies_values = true;
  // Where the search's first round misses, it starts over from all segments
  // (tile_segments.cuh, warp_segment_of). H200, 2^26, float / int32, three
  // rounds each, three calls against the search that goes on from the side
  // of the guess it missed on (h200-segmented-search-brackets.json): with a
  // power law 0.87-0.90x the time, with 4 million empty segments first
  // 0.94-0.95x, other shapes 0.98-1.03x (the kernels' registers and spills
  // unchanged).
  static constexpr bool search_over_after_miss = true;
  static constexpr unsigned first_poll_delay_ns = 400;
  static constexpr offset_t begins_prefetch_min = 64, begins_prefetch_max = 2048;
};

// reduce_by_key's: its tiles look back for their run counts only (the
// textbook rule), with every warp waiting for the count, at 5 blocks per SM
// rather than 4 (48 registers). H200, 2^26, three rounds, against 4 blocks
// (h200-segmented-rbk-count-lookback.json): float / int32 0.91-0.96x the
// time at every shape but runs of 1 (1.02-1.05x). (When its counted pairs went through the reproducible look-back,
// 5 blocks against 4 took 0.93-0.95x too: h200-segmented-rbk-blocks.json.
// Five blocks of 34 KB of shared memory fit sm_90's 228 KB; an A100's 164
// KB holds four, where the bound costs registers for nothing: not measured.)
// Tiles of 128 threads x 16 at 10 blocks per SM (the same 48 registers),
// gathering first: H200, 2^26, two rounds, 0.92-1.05x 9586e59's time
// against 0.89-0.98x for 256 threads (h200-segmented-rbk-128-threads.json):
// the count's wait does not shrink with the tile, so it weighs more.
template <class T>
struct counted_masked_scan_tuning : masked_scan_tuning<T> {
  static constexpr bool copies_values = true;
  // (The scans by key's wide tiles, 256 x 32 4-byte items at 3 blocks, at
  // 76fa318: 2^26 1.00-1.14x the time, 84-128 bytes of spills a thread;
  // h200-segmented-rbk-early-publication.json, call6.)
  static constexpr int min_blocks_per_sm = 5;
  // From this many tiles on, the run count's look-back and a second launch
  // for the runs that span tiles; below, one launch, the counted pairs
  // through the reproducible look-back (which polls 8 groups a round trip).
  // H200, float / int32, runs of 16 / 4096 / power law, two rounds, time of
  // the two launches against the one (h200-segmented-rbk-count-lookback-hybrid.json):
  // 2^18 items (64 tiles) 0.97-1.25x, 2^20 (256) 0.89-1.00x, 2^22 (1024)
  // 0.85-1.04x, 2^24 0.84-0.96x; at 2^26 0.86-0.94x 862761f's one launch (runs of 1 1.05x), at
  // 2^16 the one launch (the second costs about 2.5 us).
  static constexpr offset_t spans_min_tiles = 256;
  // Blocks an SM the one launch's bounds are for (its grid is below
  // spans_min_tiles blocks, so 5 an SM bought nothing): 2, so that ptxas
  // spills none (72 registers, against 48 and 196-222 bytes a thread).
  // H200, three rounds, reduce_by_key_into against the bounds for 5
  // (h200-segmented-rbk-few-tiles.json): float / int32 at 2^16 0.80-1.01x /
  // 0.94-0.97x the time (CUB's time 0.60-0.76x -> 0.51-0.71x, 0.60-0.72x ->
  // 0.57-0.70x), 2^17 0.78-0.84x / 0.95-0.98x, 2^18..2^19 0.86-0.99x /
  // 0.85-0.99x.
  static constexpr int few_tiles_blocks_per_sm = 2;
  // A tile of runs of this many items or longer (on average) leaves them
  // in its slots for the second launch instead of waiting for the count of
  // runs begun before it (spans.cuh): slots for a 16th of the tile's items
  // (256 runs) cost a 16th of the keys' and values' bytes in temporary
  // memory. H200, 2^26, float and int32, three rounds
  // (h200-segmented-rbk-stash-tuning.json): 16 took reduce_by_key_into to
  // 0.90-0.96x 4f51892's time at runs of 64-2^22 and half empty, runs of
  // 16 0.99-1.02x, 1 and 4 1.01-1.06x, the power law 1.04-1.07x; 32 (128
  // slots) 1.01-1.10x 16's time at every shape.
  static constexpr int stash_run_items = 16;
  // reduce_by_key's second launch (spans.cuh): a block per 32 tiles. 256
  // threads: H200, 2^26 floats, runs of 1, the second launch 6.0 us under
  // the profiler, 8.1 us at 1024 threads (a warp per tile, but one block
  // per SM; h200-segmented-rbk-second-launch-profile.json). 512 threads at
  // 76fa318, every shape at 2^26: 1.02-1.09x the time
  // (h200-segmented-rbk-early-publication.json).
  static constexpr int span_block_threads = 256;
  // From spans_min_tiles tiles on, block 0 chases the tiles' run counts
  // (spans.cuh, chase_run_counts), 32 windows a round trip. H200, 2^26
  // floats, reduce_by_key_into over its time without, four rounds of a
  // probe program, both builds in one call, CUB in the same process, on the
  // status words of 1ce42cc (h200-segmented-rbk-chased-counts-again.json):
  // the power law 0.94-0.96x, runs of 16-2^22 0.95-0.98x, runs of 1 and 4
  // 0.98-1.00x (their tiles' wait is the look-back's round trip, not the
  // chain); at 46e34ea, float / int32, two rounds, the same within 0.02.
  // Chasers that published with one warp (4 windows polled by it, or 16 by
  // the block) were slower than tiles start: 1.24-1.29x at runs of 16-2^22,
  // where the kernel ended with them. Looking at the predecessor's
  // word early, before the block scan, to skip the look-back: 1.10-1.16x
  // (ptxas spilled 20-50 bytes more a thread).
  static constexpr bool chased_counts = true;
  // A tile gathers its runs before it looks back for the count
  // (masked_scan.cuh, run_totals), then waits this long before its first
  // poll, and this much more times the share of its items that begin runs
  // (tiles of runs of 1 take longer, and so do their predecessors). H200,
  // 2^26, float / int32, three rounds, against 9586e59 (the look-back before
  // the gathering, first poll after 1200 ns + 1200 x the share;
  // h200-segmented-rbk-gather-first.json): gathering first with 400 + 600 x
  // the share 0.88-0.90x the time at runs of 1, 0.91-0.94x at runs of 4 and
  // the power law, 0.94-0.98x elsewhere; with 1200 + 1200 0.92-0.99x, with
  // no wait 0.90-1.01x. (Before, with the look-back first: first poll after
  // 0 / 400 / 2400 ns 1.09-1.11x / 1.04-1.08x / 1.03-1.14x of 1200, 100 ns
  // between polls 0.99-1.01x, h200-segmented-rbk-count-pacing.json; 1200 x
  // the share 0.95x at runs of 1, h200-segmented-rbk-busy-tile-delay.json.)
  // Since each tile publishes its run count with its heads, before its
  // values arrive (masked_scan.cuh; 0.96-1.01x the time at 2^26), the wait
  // does not depend on it: first poll after 0 or 200 + 300 x the share
  // 0.97-1.01x this setting's time. Two windows of 32 predecessors a round
  // trip (lookback_windows) 1.02-1.07x, four 1.13-1.43x (ptxas spills 52-108
  // and 1.2-1.5 KB a thread against 56-68), both against one
  // (h200-segmented-rbk-early-publication.json).
  static constexpr unsigned first_poll_delay_ns = 400;
  static constexpr unsigned busy_tile_poll_delay_ns = 600;
  static constexpr int group_window = 8;
};

}  // namespace cascade::detail
