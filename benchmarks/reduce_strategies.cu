// The seeds' reduce strategies (cascade.<strategy>), registered beside the
// automatic path and CUB by register_reduce_strategies():
//
//   reduce/cascade.<strategy>/<type>/<n>            default block size; every size of
//                                                   the sweep, int32 and float
//   reduce/cascade.<strategy>.b<threads>/int32/<n>  block sizes 64 to 1024 at n = 2^22
//                                                   and 2^28: the best block size per
//                                                   strategy, and (b128) the seed's table
//
// The strategies are compiled for int32 and float only (each is one to
// eleven kernels per type); --types picks among those two. The block tree
// alone, seed 000's question, is in reduce_strategies_block_tree.cu.

#include "harness.cuh"
#include "runners.cuh"

#include <cascade/detail/reduce/strategies.cuh>

#include <string>
#include <tuple>

namespace bench {
namespace {

namespace s = cascade::strategy;

using strategies = std::tuple<s::interleaved_divergent_t, s::interleaved_strided_t, s::sequential_addressing_t,
                              s::first_add_during_load_t, s::unroll_last_warp_t, s::complete_unroll_t,
                              s::multiple_elements_per_thread_t, s::warp_shuffle_t, s::radix4_pyramid_t>;

// "cascade.<strategy>", from the strategy's own name.
template <class Tag>
std::string impl_name(Tag) {
  const std::string name = cascade::detail::reduce_algorithm<Tag>::name;
  return "cascade." + name.substr(name.rfind(':') + 1);
}

template <class Tag>
auto strategy_impl(Tag tag, unsigned threads = 0) {
  const std::string suffix = threads == 0 ? "" : ".b" + std::to_string(threads);
  return impl(impl_name(tag) + suffix, cascade_runner{cascade::cuda.with(tag.block_size(threads))});
}

// Every strategy at its default block size, for one type, every size.
template <class T>
void register_defaults(const options& opt, const char* type_name) {
  if (!opt.wants_type(type_name)) return;
  for (int log2 = opt.min_log2; log2 <= opt.max_log2; log2 += opt.log2_step) {
    std::apply([&](auto... tag) { (add_case<reduce_t, T>(opt, type_name, log2, strategy_impl(tag)), ...); },
               strategies{});
  }
}

// Every strategy at every block size from 64 to 1024, int32 at 2^22 (fits
// in L2: launch and in-block costs) and 2^28 (1 GiB: bandwidth).
void register_block_sizes(const options& opt) {
  if (!opt.wants_type("int32")) return;
  for (int log2 : {22, 28}) {
    if (log2 < opt.min_log2 || log2 > opt.max_log2) continue;
    std::apply(
        [&](auto... tag) {
          for (unsigned threads = 64; threads <= 1024; threads *= 2) {
            (add_case<reduce_t, std::int32_t>(opt, "int32", log2, strategy_impl(tag, threads)), ...);
          }
        },
        strategies{});
  }
}

}  // namespace

void register_block_trees(const options& opt);  // reduce_strategies_block_tree.cu

void register_reduce_strategies(const options& opt) {
  register_defaults<std::int32_t>(opt, "int32");
  register_defaults<float>(opt, "float");
  register_block_sizes(opt);
  register_block_trees(opt);
}

}  // namespace bench
