// A/B of segmented_reduce and segmented_inclusive_scan by offsets (floats,
// 2^26 and 2^16 items, ten shapes) between builds of the library: not built
// by CMake; kept for one commit with its results,
// benchmarks/results/h200-segmented-block-search.json. Build each variant
// (a copy of the library's detail/ tree, block_search.patch applied or not)
// first on the include path:
//   nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr \
//     -I <variant> -I include -I <build>/cascade-include [-DNARROW_COUNT] -o ab_<name> ab.cu
// and run `ab_<name> <name>`, the variants alternating: one line per case,
// "<variant> <case> <median us of 9 calls> <hash of the output>"
// (NARROW_COUNT, with the patch's counter added by hand: also how many tiles
// took the block-wide search).
#include <cascade/cascade.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
std::vector<std::int64_t> shape_offsets(const std::string& shape, std::int64_t n) {
  std::vector<std::int64_t> offsets{0};
  std::mt19937_64 rng(42);
  while (offsets.back() < n) {
    std::int64_t len;
    if (shape == "powerlaw") len = std::int64_t(std::pow(1.0 - std::uniform_real_distribution<double>(0, 1)(rng), -1.0 / 1.1));
    else len = std::stoll(shape.substr(3));
    offsets.push_back(std::min(n, offsets.back() + len));
  }
  return offsets;
}
template <class T>
unsigned long long hash_of(const T* d, std::int64_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  unsigned long long x = 1469598103934665603ull;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(h.data());
  for (std::size_t i = 0; i < n * sizeof(T); i += 8) { unsigned long long w; std::memcpy(&w, b + i, 8); x = (x ^ w) * 1099511628211ull; }
  return x;
}
int main(int argc, char** argv) {
  const std::int64_t n = std::int64_t(1) << 26;
  const char* tag = argc > 1 ? argv[1] : "?";
  float *vals, *vout; double *dv, *dout; std::int64_t* off; int* keys;
  CK(cudaMalloc(&vals, n * 4)); CK(cudaMalloc(&vout, n * 4)); CK(cudaMalloc(&off, (n + 2) * 8)); CK(cudaMalloc(&keys, n * 4));
  CK(cudaMalloc(&dv, n * 8)); CK(cudaMalloc(&dout, n * 8));
  {
    std::mt19937 rng(7); std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> h(n); for (auto& x : h) x = u(rng);
    CK(cudaMemcpy(vals, h.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<double> hd(n); for (std::int64_t i = 0; i < n; ++i) hd[i] = double(h[i]) * 1.000001;
    CK(cudaMemcpy(dv, hd.data(), n * 8, cudaMemcpyHostToDevice));
  }
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto measure = [&](const std::string& name, auto call, auto hash) {
    std::vector<float> ms;
    for (int r = 0; r < 11; ++r) {
      CK(cudaEventRecord(e0)); call(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
      float m; CK(cudaEventElapsedTime(&m, e0, e1)); if (r >= 2) ms.push_back(m * 1000);
    }
    std::sort(ms.begin(), ms.end());
#ifdef NARROW_COUNT
    unsigned long long narrowed = 0;
    CK(cudaMemcpyFromSymbol(&narrowed, cascade::detail::g_narrowed, sizeof narrowed));
    CK(cudaMemset(off, 0, 0));
    unsigned long long zero = 0;
    CK(cudaMemcpyToSymbol(cascade::detail::g_narrowed, &zero, sizeof zero));
    printf("narrowed %s %llu tiles over 11 calls\n", name.c_str(), narrowed);
#endif
    printf("%s %s %.2f %016llx\n", tag, name.c_str(), ms[ms.size() / 2], hash());
    fflush(stdout);
  };
  for (std::int64_t m : {n, std::int64_t(1) << 16}) {
    // Arrays of m items (the offsets forms size their grids by the values' allocation).
    float *v = nullptr, *out = nullptr;
    CK(cudaMalloc(&v, m * 4)); CK(cudaMalloc(&out, m * 4));
    CK(cudaMemcpy(v, vals, m * 4, cudaMemcpyDeviceToDevice));
    for (std::string shape : {"len1", "len4", "len16", "len64", "len256", "len4096", "len65536", "len4194304", "powerlaw", "halfempty"}) {
      std::vector<std::int64_t> ho;
      if (shape == "halfempty") { ho.push_back(0); while (ho.back() < m) { ho.push_back(ho.back()); ho.push_back(std::min(m, ho.back() + 32)); } }
      else ho = shape_offsets(shape, m);
      const std::int64_t S = std::int64_t(ho.size()) - 1;
      CK(cudaMemcpy(off, ho.data(), ho.size() * 8, cudaMemcpyHostToDevice));
      const std::string tag2 = "/" + shape + "/" + std::to_string(m);
      measure("reduce" + tag2, [&] { cascade::segmented_reduce(cascade::device, v, off, off + S + 1, out, 0.0f, cuda::std::plus<>{}); },
              [&] { return hash_of(out, S); });
      measure("scan" + tag2, [&] { cascade::segmented_inclusive_scan(cascade::device, v, off, off + S + 1, out); },
              [&] { return hash_of(out, m); });
    }
    CK(cudaFree(v)); CK(cudaFree(out));
  }
  return 0;
}
