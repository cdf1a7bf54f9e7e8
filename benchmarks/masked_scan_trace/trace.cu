// Per-tile timestamps (%globaltimer) of the masked scan: 2^26 floats,
// segmented_inclusive_scan by offsets and inclusive_scan_by_key, five shapes
// (not built by CMake; kept for one commit with its results,
// benchmarks/results/h200-segmented-masked-lookback-trace.json). Apply
// trace.patch to a copy of the library (it adds detail/util/trace.cuh and
// its hooks), put the copy first on the include path, build as ab.cu, and
// run `trace <dir>`: <dir>/<form>-<shape>.bin holds 16 words a tile (0 start,
// 1 segments staged, 2 values read, 3 block scan done, 4 aggregate
// published, 5 prefix known to the block, 6 to its second warp, 7 end, 9 SM,
// 10 own group's aggregates in, 11 earlier groups folded).
#include <cascade/cascade.cuh>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
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
int main(int argc, char** argv) {
  const std::int64_t n = std::int64_t(1) << 26;
  const char* dir = argc > 1 ? argv[1] : ".";
  float *v, *out; std::int64_t* off; int* keys;
  CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&off, (n + 2) * 8)); CK(cudaMalloc(&keys, n * 4));
  CK(cudaMemset(v, 0, n * 4));
  const std::int64_t tiles = n / 4096;
  unsigned long long* trace; CK(cudaMalloc(&trace, tiles * 16 * 8));
  std::vector<unsigned long long> ht(tiles * 16);
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
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
      auto call = [&] {
        if (form == "seg") cascade::segmented_inclusive_scan(cascade::device, v, off, off + S + 1, out);
        else cascade::inclusive_scan_by_key(cascade::device, keys, keys + n, v, out);
      };
      float ms[8];
      for (int r = 0; r < 8; ++r) {
        const bool traced = r == 7;
        unsigned long long* p = traced ? trace : nullptr;
        if (traced) CK(cudaMemset(trace, 0, tiles * 16 * 8));
        CK(cudaMemcpyToSymbol(cascade::detail::g_trace, &p, sizeof p));
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e0)); call(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        CK(cudaEventElapsedTime(&ms[r], e0, e1));
      }
      CK(cudaMemcpy(ht.data(), trace, tiles * 16 * 8, cudaMemcpyDeviceToHost));
      std::string f = std::string(dir) + "/" + form + "-" + shape + ".bin";
      FILE* fp = fopen(f.c_str(), "wb"); fwrite(ht.data(), 8, ht.size(), fp); fclose(fp);
      printf("%s %s us:", form.c_str(), shape.c_str());
      for (float m : ms) printf(" %.1f", m * 1000);
      printf("\n");
    }
  }
  return 0;
}
