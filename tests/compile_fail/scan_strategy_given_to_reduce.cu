// Must not compile: blelloch is a scan strategy.
#include <cascade/cascade.cuh>

int reduce_with_scan_strategy(const int* p) {
  return cascade::reduce(cascade::cuda.with(cascade::strategy::blelloch), p, p + 1, 0);
}
