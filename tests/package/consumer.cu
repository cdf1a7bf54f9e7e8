// Uses the installed cascade: host policies always, the GPU when present.
#include <cascade/cascade.cuh>

#include <cstdio>
#include <vector>

int main() {
  std::vector<int> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = i;
  const int host_sum = cascade::reduce(cascade::par, v.begin(), v.end(), 0);
  if (host_sum != 999 * 1000 / 2) return 1;

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer: host policies OK; no CUDA device, GPU part skipped\n");
    return 0;
  }
  int* d = nullptr;
  if (cudaMalloc(&d, v.size() * sizeof(int)) != cudaSuccess) return 1;
  cudaMemcpy(d, v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice);
  const int gpu_sum = cascade::reduce(cascade::cuda, d, d + v.size(), 0);
  cudaFree(d);
  std::printf("consumer: host %d, GPU %d\n", host_sum, gpu_sum);
  return gpu_sum == host_sum ? 0 : 1;
}
