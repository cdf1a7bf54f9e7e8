// Compile-time benchmark (scripts/compile-time): the CUB version of cascade.cu
// (CUB's two-phase calls: query the temporary storage, allocate, run).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/device_vector.h>

#include <cuda/std/functional>

#include <cstddef>
#include <cstdio>

int main() {
  thrust::device_vector<int> v(1 << 20, 1);
  thrust::device_vector<int> prefix(v.size());
  thrust::device_vector<int> sum_out(1);
  const int* in = thrust::raw_pointer_cast(v.data());
  const int n = static_cast<int>(v.size());

  std::size_t reduce_bytes = 0, scan_bytes = 0;
  cub::DeviceReduce::Reduce(nullptr, reduce_bytes, in, sum_out.data().get(), n, cuda::std::plus<>{}, 0);
  cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, in, prefix.data().get(), n);
  thrust::device_vector<unsigned char> temp(reduce_bytes > scan_bytes ? reduce_bytes : scan_bytes);
  std::size_t bytes = temp.size();
  cub::DeviceReduce::Reduce(temp.data().get(), bytes, in, sum_out.data().get(), n, cuda::std::plus<>{}, 0);
  bytes = temp.size();
  cub::DeviceScan::InclusiveSum(temp.data().get(), bytes, in, prefix.data().get(), n);
  const int sum = sum_out[0];
  const int last = prefix.back();
  std::printf("%d %d\n", sum, last);
  return sum == last ? 0 : 1;
}
