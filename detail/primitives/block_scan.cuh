#pragma once
// Order-preserving block scan of one value per thread (threads [0, valid)).
// Warps scan their lanes; every thread then folds the totals of the warps
// before it, in order (at most 31 steps, no second barrier). The result
// gives each thread its inclusive prefix, the one before it (none for
// thread 0) and the block's aggregate.

#include <cascade/detail/util/math.cuh>

#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/primitives/warp_scan.cuh>

namespace cascade::detail {

template <int Warps, class T>
struct block_scan_storage {
  uninitialized_array<T, Warps> warp_totals;
};

template <class T>
struct block_scan_result {
  T inclusive;   // x[0] op ... op x[tid]
  T exclusive;   // x[0] op ... op x[tid-1]; meaningless for thread 0
  T aggregate;   // x[0] op ... op x[valid-1], in every thread
};

template <int Warps, class T, class Op>
__device__ __forceinline__ block_scan_result<T> block_scan(T x, Op op, int valid,
                                                          block_scan_storage<Warps, T>& storage) {
  const int warp = warp_id();
  const int lane = lane_id();
  const int warp_valid = clamp_to(valid - warp * kWarpThreads, 0, kWarpThreads);
  T inclusive = warp_inclusive_scan(x, op, warp_valid);
  if (lane == warp_valid - 1) storage.warp_totals[warp] = inclusive;
  __syncthreads();

  // One in-order fold over the warp totals gives both this warp's prefix and
  // the aggregate; only totals of warps that hold valid threads are read.
  const int warps_valid = min_of((valid + kWarpThreads - 1) / kWarpThreads, Warps);
  T running = storage.warp_totals[0];
  T warp_prefix = running;
  for (int w = 1; w < warps_valid; ++w) {
    if (w == warp) warp_prefix = running;
    running = op(running, storage.warp_totals[w]);
  }
  const T aggregate = running;

  T exclusive = shuffle_up(inclusive, 1);
  if (warp > 0) {
    if (lane == 0) exclusive = warp_prefix;
    else if (lane < warp_valid) exclusive = op(warp_prefix, exclusive);
    if (lane < warp_valid) inclusive = op(warp_prefix, inclusive);
  }
  return {inclusive, exclusive, aggregate};
}

}  // namespace cascade::detail
