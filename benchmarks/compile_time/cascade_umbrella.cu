// Compile-time benchmark (scripts/compile-time): cascade.cu through the
// umbrella header, which parses every algorithm (keyed, segmented, the std
// family) for the same two calls.
#include <cascade/cascade.cuh>

#include <thrust/device_vector.h>

#include <cstdio>

int main() {
  thrust::device_vector<int> v(1 << 20, 1);
  thrust::device_vector<int> prefix(v.size());
  const int sum = cascade::reduce(cascade::device, v.begin(), v.end(), 0);
  cascade::inclusive_scan(cascade::device, v.begin(), v.end(), prefix.begin());
  const int last = prefix.back();
  std::printf("%d %d\n", sum, last);
  return sum == last ? 0 : 1;
}
