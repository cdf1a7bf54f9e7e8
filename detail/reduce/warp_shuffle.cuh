#pragma once
// Seed 001's warp-shuffle reduction: each thread holds one element, each warp
// reduces its 32 in registers with __shfl_down_sync (no shared memory, no
// barrier), the warps' values meet in shared memory, and the first warp
// reduces those the same way. The seed shuffles with offsets 16, 8, ..., 1,
// which pairs lane i with lane i + 16: out of order. warp_reduce() uses
// offsets 1, 2, ..., 16, which combine neighbours left to right, so the
// operator need not commute.

#include <cascade/detail/primitives/block_reduce.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/reduce/multi_pass.cuh>

namespace cascade::detail::warp_shuffle {

template <class P>
__global__ void __launch_bounds__(1024) kernel(P p) {
  __shared__ block_reduce_storage<32, typename P::acc_type> storage;  // one value per warp
  auto x = p.load(p.block() * blockDim.x + threadIdx.x);
  x = warp_reduce(x, p.op);                                      // lane 0: its warp's 32 elements
  x = combine_warp_partials(x, p.op, blockDim.x / 32, storage);  // thread 0: the warps' values
  if (threadIdx.x == 0) p.store(x);
}

}  // namespace cascade::detail::warp_shuffle

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::warp_shuffle_t> : multi_pass::algorithm<strategy::warp_shuffle_t> {
  static constexpr const char* name = "cascade::strategy::warp_shuffle";
  static constexpr int shared_per_thread = 0;  // the warps' values only, in static shared memory

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned) {
    return warp_shuffle::kernel<P>;
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::warp_shuffle pads partial blocks with the operator's identity: use an "
                  "operator with a known identity or cascade::monoid(op, identity)");
    return has_identity_v<Op, AccT>;
  }
};

}  // namespace cascade::detail
