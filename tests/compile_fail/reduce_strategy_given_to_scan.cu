// Must not compile: warp_shuffle is a reduce strategy.
#include <cascade/cascade.cuh>

void scan_with_reduce_strategy(const int* p, int* out) {
  cascade::inclusive_scan(cascade::cuda.with(cascade::strategy::warp_shuffle), p, p + 1, out);
}
