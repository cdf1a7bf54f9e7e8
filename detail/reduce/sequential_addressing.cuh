#pragma once
// Harris's kernel 3, sequential addressing (seed 001's interleaved
// reduction): s halves from blockDim / 2, and thread tid < s combines element
// tid with element tid + s. The active threads are the first s (whole warps
// retire together) and a warp reads 32 consecutive words (no bank
// conflicts). But element tid meets tid + s, not its neighbour: the tree
// reorders the operands, so the operator must commute. Half the threads
// already idle at the first step; kernel 4 takes that on.

#include <cascade/detail/reduce/multi_pass.cuh>

namespace cascade::detail::sequential_addressing {

// The loop of kernel 3, while s > stop; kernels 4-7 reuse it. With `threads`
// known at compile time (kernels 6 and 7) the compiler unrolls it completely.
template <class AccT, class Op>
__device__ __forceinline__ void halve(AccT* sdata, unsigned threads, unsigned stop, Op op) {
  const unsigned tid = threadIdx.x;
  for (unsigned s = threads / 2; s > stop; s >>= 1) {
    if (tid < s) sdata[tid] = op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
}

template <class P>
__global__ void __launch_bounds__(1024) kernel(P p) {
  auto* sdata = p.load_one_per_thread();
  halve(sdata, blockDim.x, 0, p.op);
  if (threadIdx.x == 0) p.store(sdata[0]);
}

}  // namespace cascade::detail::sequential_addressing

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::sequential_addressing_t> : multi_pass::algorithm<strategy::sequential_addressing_t> {
  static constexpr const char* name = "cascade::strategy::sequential_addressing";

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned) {
    return sequential_addressing::kernel<P>;
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::sequential_addressing pads partial blocks with the operator's identity: use "
                  "an operator with a known identity or cascade::monoid(op, identity)");
    static_assert(is_commutative_v<Op>,
                  "cascade::strategy::sequential_addressing combines element tid with element tid + s, out of "
                  "order: it needs a commutative operator; if yours is, declare it with cascade::commutative(op)");
    return has_identity_v<Op, AccT> && is_commutative_v<Op>;
  }
};

}  // namespace cascade::detail
