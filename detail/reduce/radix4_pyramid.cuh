#pragma once
// Seed 000's pyramid with four partials per step: thread i < s combines
// data[i] with data[s + i], data[2s + i] and data[3s + i], s quartering from
// blockDim / 4. Half the steps of the radix-2 tree of kernel 3 (log4 instead
// of log2 barriers), each doing three operations instead of one. A block
// size that is not a power of four (32, 128, 512) starts with one radix-2
// step. Each thread loads one element, as in kernel 3, so that the two
// differ only in the tree. data[i] meets data[s + i]: out of order, the
// operator must commute.

#include <cascade/detail/reduce/multi_pass.cuh>

namespace cascade::detail::radix4_pyramid {

// The pyramid over data[0, threads) (threads a power of two); the result is
// in data[0]. The block-tree benchmark reuses it.
template <class AccT, class Op>
__device__ __forceinline__ void pyramid(AccT* data, unsigned threads, Op op) {
  const unsigned tid = threadIdx.x;
  unsigned live = threads;
  if (live & 0xaaaaaaaau) {  // an odd power of two: one radix-2 step first
    live /= 2;
    if (tid < live) data[tid] = op(data[tid], data[live + tid]);
    __syncthreads();
  }
  for (unsigned s = live / 4; s > 0; s /= 4) {
    if (tid < s) data[tid] = op(data[tid], op(op(data[s + tid], data[2 * s + tid]), data[3 * s + tid]));
    __syncthreads();
  }
}

template <class P>
__global__ void __launch_bounds__(1024) kernel(P p) {
  auto* data = p.load_one_per_thread();
  pyramid(data, blockDim.x, p.op);
  if (threadIdx.x == 0) p.store(data[0]);
}

}  // namespace cascade::detail::radix4_pyramid

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::radix4_pyramid_t> : multi_pass::algorithm<strategy::radix4_pyramid_t> {
  static constexpr const char* name = "cascade::strategy::radix4_pyramid";

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned) {
    return radix4_pyramid::kernel<P>;
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::radix4_pyramid pads partial blocks with the operator's identity: use an "
                  "operator with a known identity or cascade::monoid(op, identity)");
    static_assert(is_commutative_v<Op>,
                  "cascade::strategy::radix4_pyramid combines data[i] with data[s + i], data[2s + i] and "
                  "data[3s + i], out of order: it needs a commutative operator; if yours is, declare it with "
                  "cascade::commutative(op)");
    return has_identity_v<Op, AccT> && is_commutative_v<Op>;
  }
};

}  // namespace cascade::detail
