#pragma once
// Harris's kernel 1, interleaved addressing with divergent branching (seed
// 001's neighbored reduction): at step s every thread whose index is a
// multiple of 2s combines its element with the one s to its right.
// Neighbours combine left to right, so the operator need not commute.
// Slow, as the seed shows: the active threads are scattered over every warp,
// so each warp runs every step for a few threads, and % is slow.

#include <cascade/detail/reduce/multi_pass.cuh>

namespace cascade::detail::interleaved_divergent {

template <class P>
__global__ void __launch_bounds__(1024) kernel(P p) {
  auto* sdata = p.load_one_per_thread();
  const unsigned tid = threadIdx.x;
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] = p.op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) p.store(sdata[0]);
}

}  // namespace cascade::detail::interleaved_divergent

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::interleaved_divergent_t> : multi_pass::algorithm<strategy::interleaved_divergent_t> {
  static constexpr const char* name = "cascade::strategy::interleaved_divergent";

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned) {
    return interleaved_divergent::kernel<P>;
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::interleaved_divergent pads partial blocks with the operator's identity: use "
                  "an operator with a known identity or cascade::monoid(op, identity)");
    return has_identity_v<Op, AccT>;
  }
};

}  // namespace cascade::detail
