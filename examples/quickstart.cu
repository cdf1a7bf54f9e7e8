// cascade in ten lines: a maximum and a prefix sum on the GPU, the same on
// the host policies. Without a GPU it runs the host part and says so.
#include <cascade/cascade.cuh>

#include <thrust/device_vector.h>
#include <thrust/sequence.h>

#include <cstdio>
#include <vector>

int main() {
  std::vector<int> host(1 << 20);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>((i * 7919) % 100003);

  const int host_max = cascade::reduce(cascade::par, host.begin(), host.end(), 0, cuda::maximum<>{});
  std::vector<long long> host_prefix(host.size());
  cascade::inclusive_scan(cascade::par, host.begin(), host.end(), host_prefix.begin(), cuda::std::plus<>{}, 0ll);
  std::printf("host:  max %d, sum %lld\n", host_max, host_prefix.back());

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: ran the host policies only\n");
    return 0;
  }

  thrust::device_vector<int> v(host.begin(), host.end());
  const int gpu_max = cascade::reduce(cascade::device, v.begin(), v.end(), 0, cuda::maximum<>{});
  thrust::device_vector<long long> prefix(v.size());
  cascade::inclusive_scan(cascade::device, v.begin(), v.end(), prefix.begin(), cuda::std::plus<>{}, 0ll);
  const long long gpu_sum = prefix.back();
  std::printf("GPU:   max %d, sum %lld\n", gpu_max, gpu_sum);
  return (gpu_max == host_max && gpu_sum == host_prefix.back()) ? 0 : 1;
}
