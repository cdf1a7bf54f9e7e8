// The named scan strategies (cascade.<strategy>), registered beside the
// automatic path and CUB by register_scan_strategies().

#include "harness.cuh"

namespace bench {

void register_scan_strategies(const options&) {}

}  // namespace bench
