// Must not compile: thrust::device is Thrust's policy, not cascade's
// (cascade::device is). One message, no follow-on errors.
#include <cascade/cascade.cuh>

#include <thrust/execution_policy.h>

void scan_with_thrust_policy(const int* p, int* out) {
  cascade::inclusive_scan(thrust::device, p, p + 1, out);
}
