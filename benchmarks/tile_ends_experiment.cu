// An experiment, not part of the build: segmented_reduce and
// segmented_inclusive_scan by offsets with each tile's segments found by a
// kernel before the tiles' (detail/segmented/tile_ends.cuh at this commit)
// against the tiles' own search, alternating in one process.
// nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr
//      -I include -I <build>/cascade-include -o tile_ends_experiment benchmarks/tile_ends_experiment.cu
// tile_ends_experiment <log2 n> [prof]
// Prototype A/B: tile ends found by a kernel before the tiles' (on) or by each tile (off).
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
    else if (shape == "halfempty") offsets.push_back(offsets.back()), len = 32;
    else len = std::stoll(shape.substr(3));
    offsets.push_back(std::min(n, offsets.back() + len));
  }
  return offsets;
}

template <class F>
double time_us(F f, cudaStream_t s, int reps) {
  std::vector<float> t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaStreamSynchronize(s));
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a, s)); f(); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? atoi(argv[1]) : 26;
  const std::int64_t n = std::int64_t(1) << log2n;
  cudaStream_t s; CK(cudaStreamCreate(&s));
  float* v; float* out; float* out2; std::int64_t* off; void* copy_a; void* copy_b;
  CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&out, n * 4 + 64)); CK(cudaMalloc(&out2, n * 4 + 64));
  CK(cudaMalloc(&off, (n + 2) * 8)); CK(cudaMalloc(&copy_a, 3 * n * 8)); CK(cudaMalloc(&copy_b, 3 * n * 8));
  std::vector<float> hv(n);
  std::mt19937 rng(7);
  for (auto& x : hv) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  CK(cudaMemcpy(v, hv.data(), n * 4, cudaMemcpyHostToDevice));
  const auto pol = cascade::cuda.on(s);
  const char* shapes[] = {"len1", "len4", "len16", "len64", "len256", "len4096", "len65536", "powerlaw", "halfempty"};
  if (argc > 2) {  // profile: each shape's calls once, tile ends on
    cascade::detail::tile_ends_min_tiles = 256;
    for (const char* sh : {"len16", "len4096", "powerlaw"}) {
      const auto ho = shape_offsets(sh, n);
      const std::int64_t S = std::int64_t(ho.size()) - 1;
      CK(cudaMemcpy(off, ho.data(), ho.size() * 8, cudaMemcpyHostToDevice));
      for (int k = 0; k < 3; ++k) {
        cascade::segmented_reduce(pol, v, off, off + S + 1, out, 0.0f, cuda::std::plus<>{});
        cascade::segmented_inclusive_scan(pol, v, off, off + S + 1, out);
      }
      CK(cudaStreamSynchronize(s));
    }
    return 0;
  }
  printf("shape segs | reduce off on onPDL on/off pdl/off copy%%off copy%%pdl | scan same | bits\n");
  for (const char* sh : shapes) {
    const auto ho = shape_offsets(sh, n);
    const std::int64_t S = std::int64_t(ho.size()) - 1;
    CK(cudaMemcpy(off, ho.data(), ho.size() * 8, cudaMemcpyHostToDevice));
    const double rbytes = n * 4.0 + (S + 1) * 8.0 + S * 4.0, sbytes = n * 8.0 + (S + 1) * 8.0;
    auto red = [&] { cascade::segmented_reduce(pol, v, off, off + S + 1, out, 0.0f, cuda::std::plus<>{}); };
    auto scan = [&] { cascade::segmented_inclusive_scan(pol, v, off, off + S + 1, out); };
    auto copy_r = [&] { CK(cudaMemcpyAsync(copy_b, copy_a, size_t(rbytes / 2), cudaMemcpyDeviceToDevice, s)); };
    auto copy_s = [&] { CK(cudaMemcpyAsync(copy_b, copy_a, size_t(sbytes / 2), cudaMemcpyDeviceToDevice, s)); };
    double r[3] = {1e30, 1e30, 1e30}, c[3] = {1e30, 1e30, 1e30}, cr = 1e30, cs = 1e30;
    bool same = true;
    for (int round = 0; round < 3; ++round) {
      for (int mode = 0; mode < 3; ++mode) {
        cascade::detail::tile_ends_min_tiles = mode ? 256 : (std::int64_t(1) << 60);
        cascade::detail::tile_ends_early = mode == 2;
        r[mode] = std::min(r[mode], time_us(red, s, 15));
        c[mode] = std::min(c[mode], time_us(scan, s, 15));
      }
      cr = std::min(cr, time_us(copy_r, s, 15));
      cs = std::min(cs, time_us(copy_s, s, 15));
    }
    // bits: both modes, reduce and scan
    for (int which = 0; which < 2; ++which) {
      const std::int64_t count = which ? n : S;
      CK(cudaMemset(out, 0xff, count * 4)); CK(cudaMemset(out2, 0xfe, count * 4));
      cascade::detail::tile_ends_min_tiles = std::int64_t(1) << 60;
      if (which) scan(); else red();
      CK(cudaStreamSynchronize(s));
      CK(cudaMemcpy(out2, out, count * 4, cudaMemcpyDeviceToDevice));
      CK(cudaMemset(out, 0xff, count * 4));
      cascade::detail::tile_ends_min_tiles = 256;
      cascade::detail::tile_ends_early = true;
      if (which) scan(); else red();
      CK(cudaStreamSynchronize(s));
      std::vector<float> h1(count), h2(count);
      CK(cudaMemcpy(h1.data(), out, count * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h2.data(), out2, count * 4, cudaMemcpyDeviceToHost));
      if (std::memcmp(h1.data(), h2.data(), count * 4) != 0) same = false;
      // spot check vs host (reduce, a few segments) in double tolerance
      if (!which) {
        for (std::int64_t j = 0; j < S; j += S / 7 + 1) {
          double acc = 0; for (std::int64_t i = ho[j]; i < ho[j + 1]; ++i) acc += hv[i];
          if (std::fabs(acc - h1[j]) > 1e-3 * (1 + std::fabs(acc)) + 1e-2) { same = false; printf("  mismatch seg %lld %g %g\n", (long long)j, acc, h1[j]); }
        }
      }
    }
    printf("%-9s %9lld | %7.1f %7.1f %7.1f %5.3f %5.3f %4.0f%% %4.0f%% | %7.1f %7.1f %7.1f %5.3f %5.3f %4.0f%% %4.0f%% | %s\n", sh, (long long)S, r[0], r[1], r[2], r[1] / r[0], r[2] / r[0],
           100 * cr / r[0], 100 * cr / r[2], c[0], c[1], c[2], c[1] / c[0], c[2] / c[0], 100 * cs / c[0], 100 * cs / c[2], same ? "same" : "DIFFER");
  }
  CK(cudaGetLastError());
  return 0;
}
