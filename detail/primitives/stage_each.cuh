#pragma once
// Staging a tile's shared data in shared memory with many loads in flight
// (a segmented tile's segment begins, segmented/tile_segments.cuh).

namespace cascade::detail {

// Block-wide: store(p, load(p)) for p in [0, count), with up to Batch loads
// of each thread in flight before their stores. A plain loop waits for each
// load before the next (the store in between may alias it, for all the
// compiler knows): a tile's staging then took a memory latency per item of
// each thread (keyed scans, H100: 1.27 -> 1.00 ms at 2^26 with 8 in flight).
template <int Batch, class Load, class Store>
__device__ __forceinline__ void stage_each(int count, Load load, Store store) {
  for (int p0 = threadIdx.x; p0 < count; p0 += Batch * blockDim.x) {
    decltype(load(0)) v[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const int p = p0 + b * int(blockDim.x);
      if (p < count) v[b] = load(p);
    }
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const int p = p0 + b * int(blockDim.x);
      if (p < count) store(p, v[b]);
    }
  }
}

}  // namespace cascade::detail
