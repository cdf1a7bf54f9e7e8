#pragma once
// Order-preserving block reduction: each warp reduces its lanes, then the
// first warp reduces the warp partials. Threads [0, valid) take part; the
// result is in thread 0. Callers that reuse `storage` put a barrier between uses.

#include <cascade/detail/util/math.cuh>

#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>

namespace cascade::detail {

template <int Warps, class T>
struct block_reduce_storage {
  uninitialized_array<T, Warps> warp_partials;
};

// Combines one value per warp (in lane 0 of each of the first `warps_valid`
// warps) in warp order; the result is in thread 0. The tree spans only the
// Warps lanes that can hold a value: 8 warps take 3 steps, not 5.
template <int Warps, class T, class Op>
__device__ __forceinline__ T combine_warp_partials(T x, Op op, int warps_valid,
                                                   block_reduce_storage<Warps, T>& storage) {
  const int warp = warp_id();
  if (lane_id() == 0 && warp < warps_valid) storage.warp_partials[warp] = x;
  __syncthreads();
  if (warp == 0) {
    if (lane_id() < warps_valid) x = storage.warp_partials[lane_id()];
    x = warp_reduce<ceil_pow2(Warps)>(x, op, 0, min_of(warps_valid, Warps));
  }
  return x;
}

template <int Warps, class T, class Op>
__device__ __forceinline__ T block_reduce(T x, Op op, int valid, block_reduce_storage<Warps, T>& storage) {
  const int warp_valid = clamp_to(valid - warp_id() * kWarpThreads, 0, kWarpThreads);
  x = warp_reduce(x, op, 0, warp_valid);
  return combine_warp_partials(x, op, (valid + kWarpThreads - 1) / kWarpThreads, storage);
}

}  // namespace cascade::detail
