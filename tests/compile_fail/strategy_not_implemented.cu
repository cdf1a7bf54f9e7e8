// Must not compile: a scan strategy tag without kernels, as every tag is
// declared in the API before its kernels exist (every real one has them now).
#include <cascade/cascade.cuh>

struct unimplemented_scan_t : cascade::strategy::tag<unimplemented_scan_t, cascade::strategy::family::scan> {};

void scan_with_unimplemented_strategy(const int* p, int* out) {
  cascade::inclusive_scan(cascade::cuda.with(unimplemented_scan_t{}), p, p + 1, out);
}
