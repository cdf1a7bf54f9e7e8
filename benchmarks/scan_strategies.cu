// The named scan strategies (cascade.<strategy>), inclusive_scan over the
// default sweep, beside the automatic path and CUB (scan.cu); with --tuning
// also every strategy at every block size, cascade.<strategy>.b<threads>,
// the sweep that sets the defaults in detail/tuning/scan_strategies.cuh
// (see docs/scan.md). Seed 003's CPU-vs-GPU experiment is in
// scan_strategies_cpu_vs_gpu.cu.

#include "harness.cuh"
#include "runners.cuh"

#include <string>

namespace bench {

void register_cpu_vs_gpu(const options& opt);  // scan_strategies_cpu_vs_gpu.cu

namespace {

template <class S>
auto strategy_at(const char* name, S tag, unsigned threads) {
  return impl(std::string("cascade.") + name + ".b" + std::to_string(threads),
              cascade_runner{cascade::cuda.with(tag.block_size(threads))});
}

template <class S>
void register_block_sizes(const options& opt, const char* name, S tag) {
  register_algorithm<inclusive_scan_t>(opt, strategy_at(name, tag, 64), strategy_at(name, tag, 128),
                                       strategy_at(name, tag, 256), strategy_at(name, tag, 512),
                                       strategy_at(name, tag, 1024));
}

}  // namespace

void register_scan_strategies(const options& opt) {
  namespace s = cascade::strategy;
  register_algorithm<inclusive_scan_t>(
      opt,
      impl("cascade.hillis_steele", cascade_runner{cascade::cuda.with(s::hillis_steele)}),
      impl("cascade.blelloch", cascade_runner{cascade::cuda.with(s::blelloch)}),
      impl("cascade.blelloch_conflict_free", cascade_runner{cascade::cuda.with(s::blelloch_conflict_free)}),
      impl("cascade.reduce_then_scan", cascade_runner{cascade::cuda.with(s::reduce_then_scan)}));
  if (opt.tuning) {
    register_block_sizes(opt, "hillis_steele", s::hillis_steele);
    register_block_sizes(opt, "blelloch", s::blelloch);
    register_block_sizes(opt, "blelloch_conflict_free", s::blelloch_conflict_free);
    register_block_sizes(opt, "reduce_then_scan", s::reduce_then_scan);
  }
  register_cpu_vs_gpu(opt);
}

}  // namespace bench
