#pragma once
// Warp inclusive scan, Kogge-Stone over __shfl_up_sync: log2(32) steps, the
// earlier partial always on the left of the operator. Lanes >= `valid` are
// never handed to the operator.

#include <cascade/detail/primitives/shuffle.cuh>

namespace cascade::detail {

template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan_inline(T x, Op op, int valid) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < kWarpThreads; offset *= 2) {
    const T earlier = shuffle_inline<shuffle_kind::up>(x, offset);
    if (lane >= offset && lane < valid) x = op(earlier, x);
  }
  return x;
}
template <class T, class Op>
__device__ __noinline__ T warp_inclusive_scan_outlined(T x, Op op, int valid) {
  return warp_inclusive_scan_inline(x, op, valid);
}

// (Wide values: a call, shuffle.cuh.)
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op, int valid = kWarpThreads) {
  if constexpr (outlined_in_warps<T>) return warp_inclusive_scan_outlined(x, op, valid);
  else return warp_inclusive_scan_inline(x, op, valid);
}

}  // namespace cascade::detail
