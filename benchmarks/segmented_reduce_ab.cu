// A/B of segmented_reduce: one program built twice, against two copies of the
// library (nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda
// --expt-relaxed-constexpr -I <library A's include root> -I include ...), the two
// binaries run alternating in one call. Per type, size and shape (by offsets in
// the shapes of benchmarks/segmented.cu; fixedN: the fixed-size form, N items):
// the best of 3 medians of 15 CUDA-event-timed calls and a hash of every output.
// SHAPES=prefix runs the shapes that start with it.
#include <cascade/cascade.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
    else if (shape == "halfempty") offsets.push_back(offsets.back()), len = 32;
    else len = std::stoll(shape.substr(3));
    offsets.push_back(std::min(n, offsets.back() + len));
  }
  return offsets;
}
template <class F>
double time_us(F f, int reps) {
  std::vector<float> t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
unsigned long long hash_bytes(const void* p, size_t n) {
  unsigned long long h = 1469598103934665603ull; const unsigned char* c = (const unsigned char*)p;
  for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}
template <class V>
void run(const char* tname, int log2n) {
  const std::int64_t n = std::int64_t(1) << log2n;
  V *v, *out; std::int64_t* off;
  CK(cudaMalloc(&v, n * sizeof(V))); CK(cudaMalloc(&out, (n + 1) * sizeof(V))); CK(cudaMalloc(&off, (n + 2) * 8));
  std::vector<V> hv(n);
  std::mt19937 rng(7);
  for (auto& x : hv) x = V(std::uniform_int_distribution<int>(-1000, 1000)(rng)) / V(sizeof(V) == 4 && V(0.5) == 0 ? 1 : 7);
  CK(cudaMemcpy(v, hv.data(), n * sizeof(V), cudaMemcpyHostToDevice));
  const char* shapes[] = {"len1", "len4", "len16", "len64", "len256", "len4096", "len65536", "powerlaw", "halfempty", "fixed100", "fixed1", "fixed4", "fixed16"};
  for (const char* sh : shapes) {
    if (getenv("SHAPES") && std::string(sh).rfind(getenv("SHAPES"), 0) != 0) continue;
    const bool fixed = std::string(sh).rfind("fixed", 0) == 0;
    const int size = fixed ? std::stoi(std::string(sh).substr(5)) : 0;
    const auto ho = shape_offsets(fixed ? "len" + std::to_string(size) : std::string(sh), n);
    const std::int64_t S = std::int64_t(ho.size()) - 1;
    CK(cudaMemcpy(off, ho.data(), ho.size() * 8, cudaMemcpyHostToDevice));
    auto red = [&] {
      if (fixed) cascade::segmented_reduce(cascade::device, v, v + n, size, out, V(0), cuda::std::plus<>{});
      else cascade::segmented_reduce(cascade::device, v, off, off + S + 1, out, V(0), cuda::std::plus<>{});
    };
    double t = 1e30;
    for (int r = 0; r < 3; ++r) t = std::min(t, time_us(red, 15));
    CK(cudaMemset(out, 0xff, S * sizeof(V)));
    red(); CK(cudaDeviceSynchronize());
    std::vector<V> h(S);
    CK(cudaMemcpy(h.data(), out, S * sizeof(V), cudaMemcpyDeviceToHost));
    printf("%s %d %-9s %9.1f %016llx\n", tname, log2n, sh, t, hash_bytes(h.data(), S * sizeof(V)));
  }
  CK(cudaFree(v)); CK(cudaFree(out)); CK(cudaFree(off));
}
int main() {
  for (int l : {26, 16}) { run<float>("float", l); run<int>("int32", l); run<double>("double", l); }
  CK(cudaGetLastError());
  return 0;
}
