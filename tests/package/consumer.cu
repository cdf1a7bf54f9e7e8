// Uses the installed cascade: host policies always, the GPU when present.
#include <cascade/cascade.cuh>

#include <thrust/iterator/constant_iterator.h>

#include <cstdio>
#include <vector>

// A program that still uses an iterator its library has deprecated (CCCL 3.6
// deprecates Thrust's constant_iterator) silences the warning where it names
// it; cascade's kernels, which hold such iterators, must not warn again (this
// file is also built with every warning an error). One call per engine: the
// flat reduce and scan, the keyed scan, the segment totals, the elements.
#if CCCL_VERSION >= 3006000
#pragma nv_diagnostic push
#pragma nv_diag_suppress 1444
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
bool deprecated_iterators_on_the_gpu(int* d, int n) {
  const thrust::constant_iterator<int> three(3);
  bool ok = cascade::reduce(cascade::cuda, three, three + n, 0) == 3 * n;
  cascade::inclusive_scan(cascade::cuda, three, three + n, d);
  ok = ok && cascade::reduce(cascade::cuda, d, d + n, 0) == 3 * (n * (n + 1) / 2);
  ok = ok && cudaMemset(d, 0, n * sizeof(int)) == cudaSuccess;  // (each result checked on fresh memory)
  cascade::inclusive_scan_by_key(cascade::cuda, three, three + n, three, d);
  ok = ok && cascade::reduce(cascade::cuda, d, d + n, 0) == 3 * (n * (n + 1) / 2);
  ok = ok && cudaMemset(d, 0, n * sizeof(int)) == cudaSuccess;
  cascade::segmented_reduce(cascade::cuda, three, three + n, 10, d, 0, cuda::std::plus<>{});
  ok = ok && cascade::reduce(cascade::cuda, d, d + n / 10, 0) == 3 * n;
  ok = ok && cascade::min_element(cascade::cuda, three, three + n) == three;
  return ok;
}
#pragma GCC diagnostic pop
#pragma nv_diagnostic pop
#else
bool deprecated_iterators_on_the_gpu(int*, int) { return true; }
#endif

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
  const bool deprecated_ok = deprecated_iterators_on_the_gpu(d, static_cast<int>(v.size()));
  cudaFree(d);
  std::printf("consumer: host %d, GPU %d, deprecated iterators %s\n", host_sum, gpu_sum, deprecated_ok ? "OK" : "WRONG");
  return gpu_sum == host_sum && deprecated_ok ? 0 : 1;
}
