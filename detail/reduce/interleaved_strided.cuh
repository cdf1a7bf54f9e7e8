#pragma once
// Harris's kernel 2, interleaved addressing with a strided index: kernel 1's
// tree, but thread tid works on element 2 s tid, so the active threads are
// the first ones of the block and whole warps go idle together (no
// divergence, no %). The stride leaves shared-memory bank conflicts in, on
// purpose: at step s, a warp's accesses are 2s words apart, so up to 32 of
// them fall in one bank and are served one after another. Neighbours still
// combine left to right: the operator need not commute.

#include <cascade/detail/reduce/multi_pass.cuh>

namespace cascade::detail::interleaved_strided {

template <class P>
__global__ void __launch_bounds__(1024) kernel(P p) {
  auto* sdata = p.load_one_per_thread();
  const unsigned tid = threadIdx.x;
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] = p.op(sdata[index], sdata[index + s]);
    __syncthreads();
  }
  if (tid == 0) p.store(sdata[0]);
}

}  // namespace cascade::detail::interleaved_strided

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::interleaved_strided_t> : multi_pass::algorithm<strategy::interleaved_strided_t> {
  static constexpr const char* name = "cascade::strategy::interleaved_strided";

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned) {
    return interleaved_strided::kernel<P>;
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::interleaved_strided pads partial blocks with the operator's identity: use an "
                  "operator with a known identity or cascade::monoid(op, identity)");
    return has_identity_v<Op, AccT>;
  }
};

}  // namespace cascade::detail
