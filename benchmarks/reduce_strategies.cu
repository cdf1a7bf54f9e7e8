// The named reduce strategies (cascade.<strategy>), registered beside the
// automatic path and CUB by register_reduce_strategies().

#include "harness.cuh"

namespace bench {

void register_reduce_strategies(const options&) {}

}  // namespace bench
