#pragma once
// Harris's kernel 4, first add during load: kernel 3 with half the blocks.
// Each thread loads two elements a block apart and combines them on the way
// into shared memory, so no thread is idle at the first step and each block
// reduces 2 x blockDim elements. Element i meets element i + blockDim, out of
// order: the operator must commute.

#include <cascade/detail/reduce/multi_pass.cuh>
#include <cascade/detail/reduce/sequential_addressing.cuh>

namespace cascade::detail::first_add_during_load {

// The load of kernels 4-7: sdata[tid] = x[i] op x[i + threads].
template <class P>
__device__ __forceinline__ typename P::acc_type* load_pairs(const P& p, unsigned threads) {
  auto* sdata = dynamic_shared<typename P::acc_type>();
  const unsigned tid = threadIdx.x;
  const offset_t i = p.block() * (2 * offset_t(threads)) + tid;
  sdata[tid] = p.op(p.load(i), p.load(i + threads));
  __syncthreads();
  return sdata;
}

template <class P>
__global__ void __launch_bounds__(1024) kernel(P p) {
  auto* sdata = load_pairs(p, blockDim.x);
  sequential_addressing::halve(sdata, blockDim.x, 0, p.op);
  if (threadIdx.x == 0) p.store(sdata[0]);
}

}  // namespace cascade::detail::first_add_during_load

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::first_add_during_load_t> : multi_pass::algorithm<strategy::first_add_during_load_t> {
  static constexpr const char* name = "cascade::strategy::first_add_during_load";
  static constexpr int items_per_thread = 2;

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned) {
    return first_add_during_load::kernel<P>;
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::first_add_during_load pads partial blocks with the operator's identity: use "
                  "an operator with a known identity or cascade::monoid(op, identity)");
    static_assert(is_commutative_v<Op>,
                  "cascade::strategy::first_add_during_load combines elements a block apart while loading, out of "
                  "order: it needs a commutative operator; if yours is, declare it with cascade::commutative(op)");
    return has_identity_v<Op, AccT> && is_commutative_v<Op>;
  }
};

}  // namespace cascade::detail
