#pragma once
// Order-preserving warp reduction (seed 001's __shfl_down_sync tree).
// Offsets grow 1, 2, 4, ...: after the step with offset o, lane i (i a
// multiple of 2o) holds x[i] op ... op x[i+2o-1], so lane `first` ends with the
// lanes [first, last) combined in lane order. Lanes outside [first, last) are
// never handed to the operator, so a partial warp needs no identity.

#include <cascade/detail/primitives/shuffle.cuh>

namespace cascade::detail {

template <int Lanes, class T, class Op>
__device__ __forceinline__ T warp_reduce_inline(T x, Op op, int first, int last) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < Lanes; offset *= 2) {
    const T other = shuffle_inline<shuffle_kind::down>(x, offset);
    if (lane >= first && lane + offset < last) x = op(x, other);
  }
  return x;
}
template <int Lanes, class T, class Op>
__device__ __noinline__ T warp_reduce_outlined(T x, Op op, int first, int last) {
  return warp_reduce_inline<Lanes>(x, op, first, last);
}

// Lanes (a power of two) bounds the tree's width where fewer lanes can hold
// values: log2(Lanes) steps instead of five. (Wide values: a call, shuffle.cuh.)
template <int Lanes = kWarpThreads, class T, class Op>
__device__ __forceinline__ T warp_reduce(T x, Op op, int first = 0, int last = kWarpThreads) {
  static_assert(Lanes >= 1 && Lanes <= kWarpThreads && (Lanes & (Lanes - 1)) == 0, "Lanes: a power of two up to 32");
  if constexpr (outlined_in_warps<T>) return warp_reduce_outlined<Lanes>(x, op, first, last);
  else return warp_reduce_inline<Lanes>(x, op, first, last);
}

// The same with the result broadcast to every lane.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_all(T x, Op op, int first = 0, int last = kWarpThreads) {
  return shuffle_idx(warp_reduce(x, op, first, last), first);
}

}  // namespace cascade::detail
