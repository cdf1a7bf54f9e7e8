// reduce/<implementation>/<type>/<n>: every implementation of a sum.
//
// Adding a strategy is one line in the list below, e.g.
//   impl("cascade.warp_shuffle", cascade_runner{cascade::cuda.with(cascade::strategy::warp_shuffle)}),
// Only implemented strategies can be listed: a declared-only one fails to compile.

#include "harness.cuh"
#include "limits.cuh"
#include "runners.cuh"

namespace bench {

void register_reduce(const options& opt) {
  register_algorithm<reduce_t>(opt,
                               impl("cascade", cascade_runner{cascade::cuda}),
                               impl("cascade.host", cascade_host_runner{cascade::cuda}),
                               impl("cub", cub_runner{}),
                               impl("thrust", thrust_runner{}),
                               impl("read_limit", read_limit_runner{}),
                               impl("cpu.seq", cascade_runner{cascade::seq}),
                               impl("cpu.par", cascade_runner{cascade::par}));
}

}  // namespace bench
