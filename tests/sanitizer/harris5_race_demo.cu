// Harris's kernel 5 ("unroll the last warp") exactly as the seed prints it:
// the last six steps on volatile shared memory with no synchronisation,
// correct only if a warp's 32 threads execute in lockstep. Since Volta they
// are scheduled independently, and compute-sanitizer's racecheck reports the
// hazards between them; cascade's unroll_last_warp orders each step with
// __syncwarp() and is clean under the same tool. Not a test: run it under
//   compute-sanitizer --tool racecheck harris5_race_demo
// It reduces 2^16 ints once and checks the sum; without a GPU it says so and
// exits with 0.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

__device__ void warpReduce(volatile int* sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

__global__ void reduce5(int* g_idata, int* g_odata) {
  extern __shared__ int sdata[];
  // perform first level of reduction, reading from global memory, writing to shared memory
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = g_idata[i] + g_idata[i + blockDim.x];
  __syncthreads();
  // do reduction in shared mem
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warpReduce(sdata, tid);
  // write result for this block to global mem
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

static bool ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) std::fprintf(stderr, "harris5_race_demo: %s: %s\n", what, cudaGetErrorString(status));
  return status == cudaSuccess;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("harris5_race_demo: no CUDA device, nothing to show");
    return 0;
  }
  constexpr int n = 1 << 16, threads = 128, blocks = n / (2 * threads);  // the seed's 128 threads
  std::vector<int> in(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) want += in[i] = i % 7 - 3;
  int *d_in = nullptr, *d_out = nullptr;
  if (!ok(cudaMalloc(&d_in, n * sizeof(int)), "cudaMalloc") || !ok(cudaMalloc(&d_out, blocks * sizeof(int)), "cudaMalloc") ||
      !ok(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy")) {
    return 1;
  }
  reduce5<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_out);
  std::vector<int> partials(blocks);
  if (!ok(cudaGetLastError(), "launch") ||
      !ok(cudaMemcpy(partials.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy")) {
    return 1;
  }
  long long got = 0;
  for (int p : partials) got += p;
  std::printf("harris5_race_demo: sum %lld, expected %lld (a right answer does not make the race go away)\n", got, want);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
