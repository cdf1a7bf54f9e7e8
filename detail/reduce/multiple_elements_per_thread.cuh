#pragma once
// Harris's kernel 7, multiple elements per thread (algorithm cascading): the
// final kernel of the seed. Kernel 6, but a limited grid: each thread first
// combines pairs a grid apart, as many as the input has, then the block runs
// kernel 6's tree. By Brent's theorem O(n / log n) threads, each doing
// O(log n) sequential work, keep the cost O(n); in practice more work per
// thread hides latency better and leaves fewer blocks for the next level.
// The grid holds at most grid_stride_reduce_threads threads (see
// tuning/reduce_strategies.cuh), so the first level leaves at most
// 2^18 / threads partials (1024 at 256 threads) for one or two more levels.
// Each thread's elements are a grid apart, out of order: the operator must
// commute.

#include <cascade/detail/reduce/complete_unroll.cuh>
#include <cascade/detail/reduce/multi_pass.cuh>
#include <cascade/detail/reduce/unroll_last_warp.cuh>

namespace cascade::detail::multiple_elements_per_thread {

template <unsigned Threads, class P>
__global__ void __launch_bounds__(Threads) kernel(P p) {
  using AccT = typename P::acc_type;
  const unsigned tid = threadIdx.x;
  // The stride is the whole grid, so a warp's loads stay coalesced. The
  // running value lives in a register; the seed's sdata[tid] += ... would
  // go through shared memory at every step.
  const offset_t grid_size = 2 * offset_t(Threads) * gridDim.x;
  AccT sum = p.identity();
  for (offset_t i = p.block() * (2 * offset_t(Threads)) + tid; i < p.n; i += grid_size) {
    sum = p.op(sum, p.op(p.load(i), p.load(i + Threads)));
  }
  AccT* sdata = dynamic_shared<AccT>();
  sdata[tid] = sum;
  __syncthreads();
  const AccT total = unroll_last_warp::tree(sdata, Threads, p.op);
  if (tid == 0) p.store(total);
}

}  // namespace cascade::detail::multiple_elements_per_thread

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::multiple_elements_per_thread_t>
    : multi_pass::algorithm<strategy::multiple_elements_per_thread_t> {
  static constexpr const char* name = "cascade::strategy::multiple_elements_per_thread";
  static constexpr int items_per_thread = 2;
  static constexpr offset_t grid_threads = grid_stride_reduce_threads;

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned threads) {
    return complete_unroll::with_block_size<min_threads>(threads, [](auto t) -> multi_pass::kernel_t<P> {
      return multiple_elements_per_thread::kernel<decltype(t)::value, P>;
    });
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::multiple_elements_per_thread pads partial blocks with the operator's "
                  "identity: use an operator with a known identity or cascade::monoid(op, identity)");
    static_assert(is_commutative_v<Op>,
                  "cascade::strategy::multiple_elements_per_thread has each thread combine elements a grid apart, "
                  "out of order: it needs a commutative operator; if yours is, declare it with "
                  "cascade::commutative(op)");
    return has_identity_v<Op, AccT> && is_commutative_v<Op>;
  }
};

}  // namespace cascade::detail
