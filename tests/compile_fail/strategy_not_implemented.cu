// Must not compile while hillis_steele is declared but has no kernels yet.
#include <cascade/cascade.cuh>

void scan_with_unimplemented_strategy(const int* p, int* out) {
  cascade::inclusive_scan(cascade::cuda.with(cascade::strategy::hillis_steele), p, p + 1, out);
}
