// Compile-time benchmark (scripts/compile-time): the Thrust version of cascade.cu.
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include <cstdio>

int main() {
  thrust::device_vector<int> v(1 << 20, 1);
  thrust::device_vector<int> prefix(v.size());
  const int sum = thrust::reduce(thrust::device, v.begin(), v.end(), 0);
  thrust::inclusive_scan(thrust::device, v.begin(), v.end(), prefix.begin());
  const int last = prefix.back();
  std::printf("%d %d\n", sum, last);
  return sum == last ? 0 : 1;
}
