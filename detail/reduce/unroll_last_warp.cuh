#pragma once
// Harris's kernel 5, unroll the last warp: kernel 4, but once only 32 threads
// are active (s <= 32) one warp does the rest, so the last six steps need no
// __syncthreads() and no loop, and warps other than the first skip them.
//
// As printed, the seed's last six steps run on volatile shared memory with no
// synchronisation at all, counting on the 32 threads of a warp to execute in
// lockstep: the read of sdata[tid + s] by one thread before the write of
// sdata[tid + s] by another. Since Volta, a warp's threads are scheduled
// independently and may interleave, so that is a data race (racecheck
// reports it). Here each step reads into a register, and __syncwarp() orders
// every read of a step before its writes, and the writes before the next
// step's reads: still one warp, no block barrier, the same six steps.
// Element tid meets tid + s, out of order: the operator must commute.

#include <cascade/detail/reduce/first_add_during_load.cuh>
#include <cascade/detail/reduce/multi_pass.cuh>
#include <cascade/detail/reduce/sequential_addressing.cuh>

namespace cascade::detail::unroll_last_warp {

// The lanes of the first warp of a block (all 32 unless the block is smaller).
__host__ __device__ constexpr unsigned first_warp_mask(unsigned threads) {
  return threads >= 32 ? 0xffffffffu : (1u << threads) - 1;
}

// The last six steps (s = 32, 16, ..., 1), by the first warp, on the values
// sdata holds: 64, or the block size if smaller. The result is in lane 0.
template <class AccT, class Op>
__device__ __forceinline__ AccT last_warp(AccT* sdata, unsigned threads, Op op) {
  const unsigned tid = threadIdx.x;
  const unsigned live = min_of(threads, 64u);
  const unsigned mask = first_warp_mask(threads);
  AccT v = sdata[tid];
#pragma unroll
  for (unsigned s = 32; s > 0; s >>= 1) {
    // With 64 values every lane reads in bounds and needs no test (the seed:
    // "we don't need if (tid < s)"); smaller blocks skip what is past them.
    if (live == 64 || tid + s < live) v = op(v, sdata[tid + s]);
    __syncwarp(mask);
    sdata[tid] = v;
    __syncwarp(mask);
  }
  return v;
}

// Kernel 3's loop down to 64 values, then the unrolled last warp; the
// block's value ends in thread 0. Kernels 6 and 7 reuse it.
template <class AccT, class Op>
__device__ __forceinline__ AccT tree(AccT* sdata, unsigned threads, Op op) {
  sequential_addressing::halve(sdata, threads, 32, op);
  AccT v{};
  if (threadIdx.x < 32) v = last_warp(sdata, threads, op);
  return v;
}

template <class P>
__global__ void __launch_bounds__(1024) kernel(P p) {
  __builtin_assume(blockDim.x >= 32);  // checked at launch: the first warp is whole
  auto* sdata = first_add_during_load::load_pairs(p, blockDim.x);
  const auto total = tree(sdata, blockDim.x, p.op);
  if (threadIdx.x == 0) p.store(total);
}

}  // namespace cascade::detail::unroll_last_warp

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::unroll_last_warp_t> : multi_pass::algorithm<strategy::unroll_last_warp_t> {
  static constexpr const char* name = "cascade::strategy::unroll_last_warp";
  static constexpr int items_per_thread = 2;

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned) {
    return unroll_last_warp::kernel<P>;
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::unroll_last_warp pads partial blocks with the operator's identity: use an "
                  "operator with a known identity or cascade::monoid(op, identity)");
    static_assert(is_commutative_v<Op>,
                  "cascade::strategy::unroll_last_warp combines element tid with element tid + s, out of order: it "
                  "needs a commutative operator; if yours is, declare it with cascade::commutative(op)");
    return has_identity_v<Op, AccT> && is_commutative_v<Op>;
  }
};

}  // namespace cascade::detail
