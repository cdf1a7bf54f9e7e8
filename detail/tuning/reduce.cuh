#pragma once
// Tuning of the automatic (single-pass) reduce, as plain data per value size.
// Each number names the measurement that chose it; see docs/performance.md.

#include <cascade/detail/primitives/load.cuh>
#include <cascade/detail/util/element_order.cuh>

namespace cascade::detail {

template <class InputT>
struct single_pass_reduce_tuning {
  // 256 threads: 8 warps, each reducing a contiguous span of the chunk.
  static constexpr int block_threads = 256;
  // Blocks per SM the register allocation must allow (__launch_bounds__).
  // Unbounded, int64 took 76 registers (3 blocks per SM), the others 62-64
  // (4). H100 against CUB in one run, asking for 1 / 4 / 6 / 8 blocks: int64
  // 2^20 0.71 / 0.66 / 0.69 / 0.81, 2^22 0.79 / 0.74 / 0.76 / 0.83, 2^24
  // 0.94 / 0.91 / 0.99 / 1.13; int32 2^24 0.88 / 0.89 / 0.96 / 1.05, 2^28
  // 1.00 / 1.00 / 1.07 / 1.12; double and float alike: more blocks are
  // slower, 4 is where every type already was but int64.
  static constexpr int min_blocks_per_sm = 4;
  // Items per lane per row: one 16-byte vector of the input type.
  static constexpr int vector_items = vector_items_v<InputT>;
  // Rows whose loads a warp keeps in flight before reducing them: four
  // 16-byte loads per lane cover the H100's memory latency at full occupancy.
  static constexpr int rows_in_flight = 4;
  // The most chunk partials the finishing block reduces. The chunk count is
  // a function of N (below), never of the grid or the SM count, and so is
  // the combination tree.
  // H100, --tuning at 2^24..2^28: 8192 chunks gave 0.975x CUB's time (int32,
  // geometric mean; worst 1.013x) and 1.001x (double); 2048 gave 0.998x with
  // a worst case of 1.042x at 2^28 int32 (2048 chunks over 1056 resident
  // blocks leave the last round half empty).
  static constexpr long long max_chunks = 8192;
  // Below that, chunks of at least min_chunk_bytes, but no fewer than
  // min_chunks while the input has that many block steps: the finishing
  // block's work grows with the chunks, and at 2^22..2^25 it is not hidden.
  // H100 against CUB in one run (one-pass finish), this rule against 8192
  // chunks of one block step: int32 2^22 0.84 / 0.88, 2^23 0.84 / 0.87, 2^24
  // 0.92 / 0.91, 2^25 0.94 / 1.00, 2^26 0.99 / 1.00; float 2^23 0.81 / 0.88,
  // 2^25 0.96 / 1.06, 2^26 0.98 / 1.02; double 2^24 0.96 / 1.03, 2^25 0.97 /
  // 1.02; 2^28 and below 2^21 equal. 32 KB chunks: int32 2^24 0.98, float
  // 2^23 0.92, double 2^25 1.02; 128 KB, or 256 / 1024 chunks at least:
  // within 0.03 of this rule either way.
  // H200 (transform_reduce_into against CUB at 2^22, h200-family-rows-chunks.json):
  // 8 rows in flight 0.60-0.66 and at least 1024 chunks 0.64-0.71, against
  // 0.55-0.63 with 4 rows and at least 512.
  static constexpr long long min_chunk_bytes = 64 << 10;
  static constexpr long long min_chunks = 512;
};

// Inputs of up to 64 KB (one block step of this shape) take one block of
// 1024 threads and no status: below that the chunk kernel's publication and
// the finishing block's wait cost more than one SM's loads. H100 against CUB
// in one run, 2^13 / 2^14 items: int32 chunk kernel 0.73 / 0.69, 512 x 4 rows
// 0.55 / 0.66 (chunk kernel at 2^14), 1024 x 4 0.57 / 0.60, 1024 x 8 0.61 /
// 0.70; double 2^12 / 2^13: 0.76 / 0.72, 0.59 / 0.67, 0.61 / 0.61, 0.66 / 0.68.
// One block of 1024 x 8 at 2^15 (int32) took 0.82 against 0.70. Up to one
// chunk of the shape above, its own 256 threads remain faster at 3 of 4
// points (int32 and float at 2^10 and 2^12: 1.04, 1.13, 1.00, 1.10 with 1024
// threads; 0.96, 1.14, 0.99, 1.03 with 256, in the next run).
// A thread of 1024 holds its items in 64 registers: at most 4 rows (the
// 8-byte minmax states' 8 rows are for their 256-thread blocks).
template <class InputT>
struct single_pass_reduce_small_tuning : single_pass_reduce_tuning<InputT> {
  static constexpr int block_threads = 1024;
  static constexpr int rows_in_flight =
      single_pass_reduce_tuning<InputT>::rows_in_flight < 4 ? single_pass_reduce_tuning<InputT>::rows_in_flight : 4;
};

// Computed iterators (counting, constant, transforms of them): each lane
// folds its own run of consecutive items (nothing to coalesce), so the costs
// per chunk (block reduction, publication, one partial for the finishing
// block) are what remains; bigger and fewer chunks pay them less often.
// H100, counting_iterator sums at 2^16..2^28, against CUB in the same run:
// 16 rows / 8192 chunks 0.69-1.99 (an earlier fold, one index conversion
// per item; the chunk costs dominate from 2^24);
// 32 / 1024: 0.56-0.96; 32 / 512: 0.48-0.88; 64 / 512: 0.49-0.82;
// 64 / 256: 0.47-0.79 (int32 0.58-0.79, int64 0.47-0.77, float 0.59-0.79,
// double 0.71-0.79).
template <class InputT>
struct computed_reduce_tuning : single_pass_reduce_tuning<InputT> {
  static constexpr int min_blocks_per_sm = 1;
  static constexpr int rows_in_flight = 64;
  static constexpr long long max_chunks = 256;
  static constexpr long long min_chunk_bytes = 0;  // always up to max_chunks: nothing is read
};

// min_element / max_element reduce candidates (value, 32-bit position) with
// the plain reduce's shape, measured against the others: H200, against CUB's
// ArgMin in one run (stream-ordered, int32 / double, 2^22..2^28), over
// 16-byte runs (h200-element-tuning-lean.json, at the chunk counts below):
// 4 blocks per SM and 4 rows in flight 0.70-0.99 / 0.87-1.05; 2 x 8
// 0.71-0.99 / 0.92-1.09; 4 x 2 0.67-1.01 / 0.86-1.08; 6 x 2, 6 x 4 and 8 x 2
// 0.59-1.12 / 0.85-1.26. (With 64-bit positions and a rank,
// h200-element-tuning-runs.json, the same order.)
//
// Their chunk count: the finishing block reads every chunk's candidate, 2048
// (4-byte values) or 1024 (8-byte) per pass of the parked finish. H200,
// against CUB's ArgMin in one run (stream-ordered,
// h200-element-tuning-lean.json, 512 / 2048 / 8192 chunks at most): int32
// 2^24 0.86 / 0.81 / 0.81, 2^26 0.94 / 0.92 / 0.95, 2^28 1.06 / 0.99 / 1.00;
// double 2^24 0.97 / 0.93 / 0.94, 2^26 1.12 / 0.97 / 1.12, 2^28 1.06 / 1.05 /
// 1.02.
// Below that, the plain reduce's rule (at least 512 chunks while there are
// block steps for them) stays: at least 256 / 128 / 64 instead moved the
// small sizes within the spread and not one way (H100, stream-ordered
// against CUB's ArgMin / ArgMinMax, h100-sxm-80gb-element-tuning-tagged.json,
// 512 / 256 / 128 / 64: double min 2^20 0.77 / 0.74 / 0.71 / 0.72, minmax
// 0.67 / 0.65 / 0.58 / 0.59; int32 minmax 2^20 0.56 / 0.57 / 0.65 / 0.75,
// 2^22 0.56 / 0.52 / 0.53 / 0.52; elsewhere within 0.02).
//
// And at least 256 chunks (not 512) while there are block steps for them:
// each chunk's tree costs more for candidates than for sums, and at 512 the
// reduce took 2-2.5 us longer at some sizes. H200, stream-ordered, pinned to
// one CPU, medians of three runs (h200-element-tuning-fewest-chunks.json,
// 512 / 256 / 128 / 64 chunks at least): min_element double 2^20 10.3 / 7.8
// / 7.9 / 8.0 us, 2^21 11.1 / 11.0 / 10.9 / 10.8; int32 2^21 8.4 / 6.9 / 6.9
// / 7.0; minmax_element double 2^21 15.0 / 12.0 / 12.1 / 11.8, int32 2^22
// 10.2 / 9.5 / 9.7 / 9.5; 64 took 1-4 us longer at 2^19..2^20; 2^16..2^18
// and 2^22 (8-byte) within 0.2 us.
//
// 8-byte values take up to 3072 chunks: at 2048 a chunk of 2^28 items is 1
// MB, and min_element reached 93% of the read limit (CUB's ArgMin 96%).
// H200, against CUB's ArgMin / ArgMax with the index copied home, in the
// same runs, medians of three (h200-element-run-chunks.json), 2048 / 3072
// chunks at most, double and int64: 2^24 0.79-0.81 / 0.79-0.80, 2^26
// 0.90-0.92 / 0.90-0.92, 2^27 0.96-0.97 / 0.95-0.96, 2^28 1.02 / 0.98 (98%
// of the read limit). 2^25 pays for it: 0.84-0.86 / 0.89-0.91, its 2731
// chunks leaving the sixth round of resident blocks a sixth full. (4096 at
// most, in a probe of the same calls: 2^26 0.94-0.95, 2^28 0.98.)
template <class T>
struct single_pass_reduce_tuning<run_of<T>> : single_pass_reduce_tuning<T> {
  static constexpr int vector_items = 1;  // a run is one 16-byte load
  static constexpr long long max_chunks = sizeof(T) == 8 ? 3072 : 2048;
  static constexpr long long min_chunks = 256;
};

// minmax_element: the accumulator is a 20- or 40-byte state (the min and max
// candidates and flags) made from each pair as it is loaded. H200, against
// CUB's ArgMinMax in one run (stream-ordered, int32 / double, 2^22..2^28,
// h200-element-tuning-lean.json, at the chunk counts below): 4 blocks per SM
// and 4 rows in flight 0.78-1.00 / 0.82-1.16; 2 x 8 0.83-0.98 / 0.77-1.04;
// 4 x 2 0.81-1.04 / 0.83-1.17; 6-8 blocks 0.76-1.16 / 1.36-2.13. For 8-byte
// values 2 x 8 against 4 x 4: 0.78 / 0.82 at 2^22, 0.85 / 0.95 at 2^24, 1.04
// / 1.16 at 2^26, 1.02 / 1.08 at 2^28 (int32 at 2 x 8: from 0.06 slower to
// 0.02 faster than 4 x 4). So the plain reduce's shape for 4-byte values, 2
// blocks of 8 rows for 8-byte ones, with vectors of pairs.
//
// The chunk count decides the rest: the states travel through the split
// status words (tag, then the value from L2), and the parked finish reads
// only 768 (20 bytes) or 256 (40 bytes) a pass. H200, against CUB's
// ArgMinMax in one run (stream-ordered, h200-element-tuning-lean.json, 512 /
// 2048 / 8192 chunks at most): int32 2^24 0.85 / 0.77 / 0.76, 2^26 0.95 /
// 0.94 / 1.16, 2^28 1.04 / 0.99 / 1.13; double 2^24 0.94 / 1.35 / 1.36, 2^26
// 1.16 / 1.13 / 1.97, 2^28 1.09 / 1.11 / 1.31.
template <class T>
struct minmax_reduce_tuning : single_pass_reduce_tuning<T> {
  static constexpr int min_blocks_per_sm = sizeof(T) <= 4 ? 4 : 2;
  static constexpr int rows_in_flight = sizeof(T) <= 4 ? 4 : 8;
  static constexpr long long max_chunks = sizeof(T) <= 4 ? 2048 : 512;
  static constexpr long long min_chunks = 256;  // as min_element's (above)
};

// Read as pairs (pair_of<T>: 16-byte vectors of two pairs for 4-byte items).
template <class T>
struct single_pass_reduce_tuning<pair_of<T>> : minmax_reduce_tuning<T> {
  static constexpr int vector_items = vector_items_v<pair_of<T>>;
};
// Read item by item (an input whose pairs are not aligned, or an iterator).
template <class T, class Index>
struct single_pass_reduce_tuning<minmax_state<T, Index>> : minmax_reduce_tuning<T> {
  static constexpr int vector_items = 1;
};

}  // namespace cascade::detail
