#pragma once
// Reduce-then-scan, the classic three phases:
//   1. every warp reduces its own contiguous span of the input;
//   2. one block scans the span totals (init first);
//   3. every warp scans its span again, from the total of everything before it.
// The input is read twice and the output written once (3N traffic, against
// 2N for the single-pass look-back), in three launches whatever n.
//
// There are as many spans as warps the device holds at once (one grid of
// resident blocks), so phases 1 and 3 are a single wave; the spans, hence
// the order of floating-point roundings, depend on the device (never on the
// run). A warp walks its span in rows of 32 consecutive items: loaded
// several rows at a time (their loads in flight together), each row scanned
// with shuffles (warp_inclusive_scan) after the carry of everything before it
// is folded into its first item. Phase 1 is the same walk without stores.
// Lanes past the end never reach the operator, so no identity is needed; the
// earlier partial is always on the left.

#include <cascade/detail/scan/algorithm.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/primitives/warp_scan.cuh>
#include <cascade/detail/tuning/scan_strategies.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/math.cuh>
#include <cascade/detail/util/temporary.cuh>

namespace cascade::detail::reduce_then_scan {

// One warp walks [begin, end) from `carry`, storing the inclusive or exclusive
// results if Store; returns the carry after the span.
template <int Rows, bool Store, class AccT, class InIt, class OutIt, class Op>
__device__ maybe<AccT> scan_span(InIt in, OutIt out, offset_t begin, offset_t end, maybe<AccT> carry,
                                 bool exclusive, Op op) {
  const int lane = lane_id();
  for (offset_t base = begin; base < end; base += Rows * kWarpThreads) {
    AccT rows[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      const offset_t i = base + r * kWarpThreads + lane;
      if (i < end) rows[r] = static_cast<AccT>(in[i]);
    }
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      const offset_t first = base + r * kWarpThreads;
      if (first >= end) break;
      const int valid = static_cast<int>(min_of<offset_t>(kWarpThreads, end - first));
      AccT x = rows[r];
      if (lane == 0 && carry.has) x = static_cast<AccT>(op(carry.value, x));
      x = warp_inclusive_scan(x, op, valid);
      if constexpr (Store) {
        // Exclusive: each lane takes its left neighbour's result, lane 0 the carry.
        AccT y = x;
        if (exclusive) {
          y = shuffle_up(x, 1);  // by every lane: a shuffle needs the whole warp
          if (lane == 0) y = carry.value;
        }
        if (lane < valid) out[first + lane] = y;
      }
      carry = {shuffle_idx(x, valid - 1), true};
    }
  }
  return carry;
}

// Phases 1 (Store = false: span totals) and 3 (Store: the scan). Warp w of
// the grid owns items [w * span, (w + 1) * span).
template <int Rows, bool Store, class AccT, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(1024)
    span_pass(InIt in, OutIt out, offset_t n, offset_t span, AccT* totals, scan_mode<AccT> mode, Op op) {
  const offset_t w = offset_t(blockIdx.x) * (blockDim.x / kWarpThreads) + warp_id();
  const offset_t begin = w * span;
  if (begin >= n) return;
  const offset_t end = min_of(begin + span, n);
  if constexpr (!Store) {
    const maybe<AccT> total = scan_span<Rows, false>(in, out, begin, end, maybe<AccT>{}, false, op);
    if (lane_id() == 0) totals[w] = total.value;
  } else {
    // Phase 2 left init and every span before w combined in totals[w - 1].
    const maybe<AccT> carry = w == 0 ? maybe<AccT>{mode.init, mode.has_init} : maybe<AccT>{totals[w - 1], true};
    scan_span<Rows, true>(in, out, begin, end, carry, mode.exclusive, op);
  }
}

// Phase 2, and whole inputs of up to single_block_items: one block runs the
// three phases itself, a span per warp, the warps' totals combined in order
// through shared memory.
template <int Rows, class AccT, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(1024) single_block(InIt in, OutIt out, offset_t n, scan_mode<AccT> mode, Op op) {
  __shared__ uninitialized_array<AccT, 1024 / kWarpThreads> warp_totals;
  const int warp = warp_id();
  const offset_t span = ceil_div<offset_t>(ceil_div<offset_t>(n, blockDim.x / kWarpThreads), kWarpThreads) * kWarpThreads;
  const offset_t begin = min_of(warp * span, n);
  const offset_t end = min_of(begin + span, n);
  if (begin < end) {
    const maybe<AccT> total = scan_span<Rows, false>(in, out, begin, end, maybe<AccT>{}, false, op);
    if (lane_id() == 0) warp_totals[warp] = total.value;
  }
  __syncthreads();
  if (begin < end) {
    maybe<AccT> carry{mode.init, mode.has_init};
    for (int w = 0; w < warp; ++w) carry = then(carry, warp_totals[w], op);
    scan_span<Rows, true>(in, out, begin, end, carry, mode.exclusive, op);
  }
}

template <class InIt, class OutIt, class AccT, class Op>
void run(unsigned threads, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  using tuning = reduce_then_scan_tuning<AccT>;
  constexpr int rows = tuning::rows_in_flight;
  if (n <= tuning::single_block_items) {
    single_block<rows, AccT><<<1, tuning::single_block_threads, 0, stream>>>(in, out, n, mode, op);
    check_launch("cascade reduce_then_scan kernel (single block)");
    return;
  }
  // One span per resident warp, in whole batches of rows.
  auto* scan_pass = span_pass<rows, true, AccT, InIt, OutIt, Op>;
  const offset_t warps_per_block = threads / kWarpThreads;
  const offset_t resident_warps = offset_t(resident_blocks(scan_pass, static_cast<int>(threads), current_device())) * warps_per_block;
  constexpr offset_t batch = offset_t(rows) * kWarpThreads;
  const offset_t span = ceil_div(ceil_div(n, resident_warps), batch) * batch;
  const offset_t spans = ceil_div(n, span);
  const auto grid = static_cast<unsigned>(ceil_div(spans, warps_per_block));

  temporary_buffer temp(spans * sizeof(AccT), stream);
  AccT* totals = temp.at<AccT>(0);
  span_pass<rows, false, AccT><<<grid, threads, 0, stream>>>(in, totals, n, span, totals, mode, op);
  check_launch("cascade reduce_then_scan kernel (phase 1: span totals)");
  const scan_mode<AccT> totals_mode{mode.init, mode.has_init, false};
  single_block<rows, AccT><<<1, tuning::single_block_threads, 0, stream>>>(totals, totals, spans, totals_mode, op);
  check_launch("cascade reduce_then_scan kernel (phase 2: scan of the span totals)");
  scan_pass<<<grid, threads, 0, stream>>>(in, out, n, span, totals, mode, op);
  check_launch("cascade reduce_then_scan kernel (phase 3: span scans)");
}

}  // namespace cascade::detail::reduce_then_scan

namespace cascade::detail {

template <>
struct scan_algorithm<strategy::reduce_then_scan_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::reduce_then_scan_t tag, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    reduce_then_scan::run(scan_block_threads_for(tag, "reduce_then_scan", false), in, n, out, mode, op, stream);
  }
};

}  // namespace cascade::detail
