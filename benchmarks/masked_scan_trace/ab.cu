// A/B of look-back variants of the masked scan and the flat reproducible scan
// (not built by CMake; kept for one commit with its results,
// benchmarks/results/h200-segmented-masked-lookback-trace.json).
// Each variant is a copy of the library's detail/ tree, edited, put first on
// the include path:
//   nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr \
//     -I <variant> -I include -I <build>/cascade-include -o ab_<name> ab.cu
// and run as `ab_<name> <name>`, the variants alternating, three rounds: one
// line per case, "<variant> <case> <median us of 9 calls> <hash of the output>".
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
  float *v, *out; double *dv, *dout; std::int64_t* off; int* keys;
  CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&off, (n + 2) * 8)); CK(cudaMalloc(&keys, n * 4));
  CK(cudaMalloc(&dv, n * 8)); CK(cudaMalloc(&dout, n * 8));
  {
    std::mt19937 rng(7); std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> h(n); for (auto& x : h) x = u(rng);
    CK(cudaMemcpy(v, h.data(), n * 4, cudaMemcpyHostToDevice));
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
    printf("%s %s %.2f %016llx\n", tag, name.c_str(), ms[ms.size() / 2], hash());
    fflush(stdout);
  };
  for (std::string form : {"seg", "key"}) {
    for (std::string shape : {"len16", "len4096", "len65536", "len4194304", "powerlaw"}) {
      const auto ho = shape_offsets(shape, n);
      const std::int64_t S = std::int64_t(ho.size()) - 1;
      CK(cudaMemcpy(off, ho.data(), ho.size() * 8, cudaMemcpyHostToDevice));
      if (form == "key") {
        std::vector<int> hk(n);
        for (std::int64_t s = 0; s < S; ++s) for (std::int64_t i = ho[s]; i < ho[s + 1]; ++i) hk[i] = int(s);
        CK(cudaMemcpy(keys, hk.data(), n * 4, cudaMemcpyHostToDevice));
      }
      measure(form + "/" + shape, [&] {
        if (form == "seg") cascade::segmented_inclusive_scan(cascade::device, v, off, off + S + 1, out);
        else cascade::inclusive_scan_by_key(cascade::device, keys, keys + n, v, out);
      }, [&] { return hash_of(out, n); });
    }
  }
  for (int lg : {16, 18, 20, 22, 24, 26}) {
    const std::int64_t m = std::int64_t(1) << lg;
    measure("flat_float/" + std::to_string(lg), [&] { cascade::inclusive_scan(cascade::device, v, v + m, out); },
            [&] { return hash_of(out, m); });
    measure("flat_double/" + std::to_string(lg), [&] { cascade::inclusive_scan(cascade::device, dv, dv + m, dout); },
            [&] { return hash_of(dout, m); });
  }
  return 0;
}
