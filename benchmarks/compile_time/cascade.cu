// Compile-time benchmark (scripts/compile-time): one int reduce and one
// inclusive scan on thrust::device_vector, as a new user writes them, with
// the two algorithms' headers (as cub.cu includes CUB's two).
#include <cascade/reduce.cuh>
#include <cascade/scan.cuh>

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
