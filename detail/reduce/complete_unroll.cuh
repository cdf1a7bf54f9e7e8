#pragma once
// Harris's kernel 6, complete unrolling: kernel 5 with the block size a
// template parameter. Every loop then has a known trip count and unrolls
// completely, and every test on the block size is decided by the compiler:
// the seed's ladder of `if (blockSize >= 512) ...`, here written once (the
// loops of kernels 3 and 5). A switch at launch picks the instance for the
// block size, a power of two from 1 to 1024. The last warp is kernel 5's,
// race-free with __syncwarp() (see unroll_last_warp.cuh). The operator must
// commute, as in kernels 3-5.

#include <cascade/detail/reduce/first_add_during_load.cuh>
#include <cascade/detail/reduce/multi_pass.cuh>
#include <cascade/detail/reduce/unroll_last_warp.cuh>

#include <type_traits>

namespace cascade::detail::complete_unroll {

// f(std::integral_constant<unsigned, T>{}) for T == threads, a power of two
// from Min to 1024 (the seed's switch, one case per instance).
template <unsigned Min, unsigned T = 1024, class F>
auto with_block_size(unsigned threads, F f) {
  if constexpr (T > Min) {
    if (threads < T) return with_block_size<Min, T / 2>(threads, f);
  }
  return f(std::integral_constant<unsigned, T>{});
}

template <unsigned Threads, class P>
__global__ void __launch_bounds__(Threads) kernel(P p) {
  auto* sdata = first_add_during_load::load_pairs(p, Threads);
  const auto total = unroll_last_warp::tree(sdata, Threads, p.op);
  if (threadIdx.x == 0) p.store(total);
}

}  // namespace cascade::detail::complete_unroll

namespace cascade::detail {

template <>
struct reduce_algorithm<strategy::complete_unroll_t> : multi_pass::algorithm<strategy::complete_unroll_t> {
  static constexpr const char* name = "cascade::strategy::complete_unroll";
  static constexpr unsigned min_threads = 1;
  static constexpr int items_per_thread = 2;

  template <class P>
  static multi_pass::kernel_t<P> kernel_for(unsigned threads) {
    return complete_unroll::with_block_size<min_threads>(
        threads, [](auto t) -> multi_pass::kernel_t<P> { return complete_unroll::kernel<decltype(t)::value, P>; });
  }

  template <class AccT, class Op>
  static constexpr bool admits() {
    static_assert(has_identity_v<Op, AccT>,
                  "cascade::strategy::complete_unroll pads partial blocks with the operator's identity: use an "
                  "operator with a known identity or cascade::monoid(op, identity)");
    static_assert(is_commutative_v<Op>,
                  "cascade::strategy::complete_unroll combines element tid with element tid + s, out of order: it "
                  "needs a commutative operator; if yours is, declare it with cascade::commutative(op)");
    return has_identity_v<Op, AccT> && is_commutative_v<Op>;
  }
};

}  // namespace cascade::detail
