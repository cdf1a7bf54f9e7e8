// inclusive_scan/... and exclusive_scan/...: every implementation of a prefix sum.
//
// Adding a strategy is one line in the list below, e.g.
//   impl("cascade.blelloch", cascade_runner{cascade::cuda.with(cascade::strategy::blelloch)}),
// Only implemented strategies can be listed: a declared-only one fails to compile.

#include "harness.cuh"
#include "limits.cuh"
#include "runners.cuh"

namespace bench {

template <class Scan>
void register_scan(const options& opt) {
  register_algorithm<Scan>(
      opt,
      impl("cascade", cascade_runner{cascade::cuda}),
      impl("cascade.decoupled_lookback", cascade_runner{cascade::cuda.with(cascade::strategy::decoupled_lookback)}),
      impl("cub", cub_runner{}),
      impl("thrust", thrust_runner{}),
      impl("copy_limit", copy_limit_runner{}),
      impl("cpu.seq", cascade_runner{cascade::seq}),
      impl("cpu.par", cascade_runner{cascade::par}));
}

void register_scans(const options& opt) {
  register_scan<inclusive_scan_t>(opt);
  register_scan<exclusive_scan_t>(opt);
}

}  // namespace bench
