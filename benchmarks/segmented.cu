// segmented_reduce, segmented_reduce_fixed, reduce_by_key,
// inclusive_scan_by_key, exclusive_scan_by_key, segmented_inclusive_scan:
// <algorithm>/<impl>/<type>/<n>/<shape>, impl in cascade, cascade.into
// (reduce_by_key_into: stream-ordered, as CUB's ReduceByKey; cascade's
// reduce_by_key waits for its stream and reads the count), cub, thrust (where
// Thrust has the algorithm), copy_limit (a device-to-device copy of the
// bytes the algorithm must move). Sums of float and int32 at 2^16 and 2^26,
// 64-bit offsets; shapes lenL (every segment L long; len67108864: one
// segment of 2^26; 1000, 5000 and 50000 line up with no tile), powerlaw
// (Pareto alpha = 1.1), halfempty (every other segment empty, the others
// 32) and, for the offsets forms, leadempty
// (n / 16 empty segments, as a matrix's empty rows, before segments of 64).
// The counter `bytes` is what the algorithm must read and write.

#include "harness.cuh"

#include <cascade/cascade.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#if CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 6)
#include <cub/device/device_segmented_scan.cuh>
#define CASCADE_BENCH_CCCL_3_6 1
#endif

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace bench {
namespace {

using plus = ::cuda::std::plus<>;

std::vector<std::int64_t> shape_offsets(const std::string& shape, std::int64_t n) {
  std::vector<std::int64_t> offsets{0};
  std::mt19937_64 rng(42);
  if (shape == "leadempty") offsets.assign(n / 16 + 1, 0);
  while (offsets.back() < n) {
    std::int64_t len;
    if (shape == "powerlaw") len = std::int64_t(std::pow(1.0 - std::uniform_real_distribution<double>(0, 1)(rng), -1.0 / 1.1));
    else if (shape == "halfempty") offsets.push_back(offsets.back()), len = 32;
    else if (shape == "leadempty") len = 64;
    else len = std::stoll(shape.substr(3));
    offsets.push_back(std::min(n, offsets.back() + len));
  }
  return offsets;
}

template <class T>
struct segmented_data {
  std::int64_t n, segments;
  device_buffer values, out, offsets, keys, keys_out, runs;
  T* v() const { return static_cast<T*>(values.get()); }
  T* o() const { return static_cast<T*>(out.get()); }
  const std::int64_t* off() const { return static_cast<const std::int64_t*>(offsets.get()); }
  const std::int32_t* k() const { return static_cast<const std::int32_t*>(keys.get()); }
  std::int32_t* ko() const { return static_cast<std::int32_t*>(keys_out.get()); }
  std::int64_t* r() const { return static_cast<std::int64_t*>(runs.get()); }
};

// The inputs of one (type, n, shape), built once and shared by every
// algorithm and implementation of that shape (they are registered next to
// each other); the previous shape's buffers are freed first. Values are the
// harness's device-generated input of (type, n); keys and offsets follow
// the shape.
template <class T>
std::shared_ptr<segmented_data<T>> make_data(std::int64_t n, const std::string& shape) {
  static std::string cached_shape;
  static std::int64_t cached_n = -1;
  static std::shared_ptr<segmented_data<T>> cached;
  if (cached && cached_n == n && cached_shape == shape) return cached;
  cached.reset();
  auto d = std::make_shared<segmented_data<T>>();
  const auto offsets = shape_offsets(shape, n);
  d->n = n;
  d->segments = std::int64_t(offsets.size()) - 1;
  std::vector<std::int32_t> keys(n);
  for (std::int64_t j = 0; j < d->segments; ++j) {
    std::fill(keys.begin() + offsets[j], keys.begin() + offsets[j + 1], std::int32_t(j));
  }
  d->values = device_alloc(n * sizeof(T));
  d->out = device_alloc(std::max<std::int64_t>(n, d->segments) * sizeof(T));
  d->offsets = device_alloc(offsets.size() * 8);
  d->keys = device_alloc(n * 4);
  d->keys_out = device_alloc(n * 4);
  d->runs = device_alloc(8);
  check(cudaMemcpy(d->values.get(), device_input<T>(n), n * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy");
  check(cudaMemcpy(d->offsets.get(), offsets.data(), offsets.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(d->keys.get(), keys.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  cached = d;
  cached_n = n;
  cached_shape = shape;
  return d;
}

// CUB's two-phase calls: temporaries sized and allocated once, outside the timed call.
template <class F>
std::function<void()> cub_call(F f) {
  std::size_t bytes = 0;
  check(f(nullptr, bytes), "cub (sizing)");
  auto temp = std::make_shared<device_buffer>(device_alloc(bytes + 1));
  return [f, temp, bytes]() mutable { check(f(temp->get(), bytes), "cub"); };
}

template <class T>
std::function<void()> make_call(const std::string& algorithm, const std::string& impl,
                                const std::shared_ptr<segmented_data<T>>& d, double bytes, std::int64_t fixed) {
  cudaStream_t s = stream();
  const auto pol = cascade::cuda.on(s);
  const std::int64_t n = d->n, S = d->segments;
  if (impl == "copy_limit") {
    auto buf = std::make_shared<device_buffer>(device_alloc(std::size_t(bytes / 2) + 16));
    auto buf2 = std::make_shared<device_buffer>(device_alloc(std::size_t(bytes / 2) + 16));
    return [buf, buf2, bytes, s] {
      check(cudaMemcpyAsync(buf2->get(), buf->get(), std::size_t(bytes / 2), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    };
  }
  if (algorithm == "segmented_reduce") {
    if (impl == "cascade") return [=] { cascade::segmented_reduce(pol, d->v(), d->off(), d->off() + S + 1, d->o(), T{}, plus{}); };
    return cub_call([=](void* t, std::size_t& b) {
      return cub::DeviceSegmentedReduce::Sum(t, b, d->v(), d->o(), S, d->off(), d->off() + 1, s);
    });
  }
  if (algorithm == "segmented_reduce_fixed") {
    if (impl == "cascade") return [=] { cascade::segmented_reduce(pol, d->v(), d->v() + n, fixed, d->o(), T{}, plus{}); };
#ifdef CASCADE_BENCH_CCCL_3_6
    return cub_call([=](void* t, std::size_t& b) {
      return cub::DeviceSegmentedReduce::Sum(t, b, d->v(), d->o(), n / fixed, int(fixed), s);
    });
#endif
  }
  if (algorithm == "reduce_by_key") {
    if (impl == "cascade") return [=] { cascade::reduce_by_key(pol, d->k(), d->k() + n, d->v(), d->ko(), d->o()); };
    // The stream-ordered form, the count left in device memory as CUB leaves it.
    if (impl == "cascade.into") {
      return [=] {
        cascade::reduce_by_key_into(pol, d->k(), d->k() + n, d->v(), d->ko(), d->o(), d->r(), ::cuda::std::equal_to<>{},
                                    plus{});
      };
    }
    if (impl == "thrust") return [=] { thrust::reduce_by_key(thrust::cuda::par.on(s), d->k(), d->k() + n, d->v(), d->ko(), d->o()); };
    return cub_call([=](void* t, std::size_t& b) {
      return cub::DeviceReduce::ReduceByKey(t, b, d->k(), d->ko(), d->v(), d->o(), d->r(), plus{}, n, s);
    });
  }
  if (algorithm == "inclusive_scan_by_key") {
    if (impl == "cascade") return [=] { cascade::inclusive_scan_by_key(pol, d->k(), d->k() + n, d->v(), d->o()); };
    if (impl == "thrust") return [=] { thrust::inclusive_scan_by_key(thrust::cuda::par.on(s), d->k(), d->k() + n, d->v(), d->o()); };
    return cub_call([=](void* t, std::size_t& b) { return cub::DeviceScan::InclusiveSumByKey(t, b, d->k(), d->v(), d->o(), n, ::cuda::std::equal_to<>{}, s); });
  }
  if (algorithm == "exclusive_scan_by_key") {
    if (impl == "cascade") return [=] { cascade::exclusive_scan_by_key(pol, d->k(), d->k() + n, d->v(), d->o()); };
    if (impl == "thrust") return [=] { thrust::exclusive_scan_by_key(thrust::cuda::par.on(s), d->k(), d->k() + n, d->v(), d->o()); };
    return cub_call([=](void* t, std::size_t& b) { return cub::DeviceScan::ExclusiveSumByKey(t, b, d->k(), d->v(), d->o(), n, ::cuda::std::equal_to<>{}, s); });
  }
  if (algorithm == "segmented_inclusive_scan") {
    if (impl == "cascade") return [=] { cascade::segmented_inclusive_scan(pol, d->v(), d->off(), d->off() + S + 1, d->o()); };
#ifdef CASCADE_BENCH_CCCL_3_6
    return cub_call([=](void* t, std::size_t& b) {
      return cub::DeviceSegmentedScan::InclusiveSegmentedSum(t, b, d->v(), d->o(), d->off(), d->off() + 1, S, s);
    });
#endif
  }
  return {};
}

// Bytes each algorithm must move: values read, keys or offsets read, outputs written.
double moved_bytes(const std::string& algorithm, std::int64_t n, std::int64_t segments, std::size_t value_bytes) {
  const double v = double(n) * value_bytes, s = double(segments);
  if (algorithm == "segmented_reduce") return v + 8 * (s + 1) + value_bytes * s;
  if (algorithm == "segmented_reduce_fixed") return v + value_bytes * s;
  if (algorithm == "reduce_by_key") return v + 4.0 * n + (4.0 + value_bytes) * s;
  if (algorithm == "segmented_inclusive_scan") return 2 * v + 8 * (s + 1);
  return 2 * v + 4.0 * n;  // scans by key
}

// CUB's one-block-per-segment entry points take 5-80 ms a run at 2^26 with
// short segments: three runs give their median within the sweep's budget.
bool slow_case(const std::string& algorithm, const std::string& impl, std::int64_t n, const std::string& shape) {
  if (impl != "cub" || n < (std::int64_t(1) << 24)) return false;
  if (algorithm != "segmented_reduce" && algorithm != "segmented_inclusive_scan") return false;
  return shape == "len1" || shape == "len4" || shape == "len16" || shape == "powerlaw" || shape == "halfempty" ||
         shape == "len4194304" || shape == "len67108864" || shape == "leadempty";
}

template <class T>
void register_type(const options& opt, const char* type_name) {
  const char* algorithms[] = {"segmented_reduce", "segmented_reduce_fixed", "reduce_by_key", "inclusive_scan_by_key",
                              "exclusive_scan_by_key", "segmented_inclusive_scan"};
  const char* shapes[] = {"len1", "len4", "len16", "len64", "len256", "len1000", "len4096", "len5000",
                          "len50000", "len65536", "len4194304", "len67108864", "powerlaw", "halfempty",
                          "leadempty"};
  for (int log2 : {16, 26}) {
    const std::int64_t n = std::int64_t(1) << log2;
    for (const char* shape : shapes) {
      const std::string sh = shape;
      if (sh.rfind("len", 0) == 0 && std::stoll(sh.substr(3)) > n) continue;
      for (const char* algorithm : algorithms) {
        const std::string alg = algorithm;
        if (alg == "segmented_reduce_fixed" && sh.rfind("len", 0) != 0) continue;
        // (The keys of leadempty are those of len64: empty segments hold no key.)
        if (sh == "leadempty" && alg != "segmented_reduce" && alg != "segmented_inclusive_scan") continue;
        for (const char* impl : {"cascade", "cascade.into", "cub", "thrust", "copy_limit"}) {
          const std::string im = impl;
          if (im == "cascade.into" && alg != "reduce_by_key") continue;
          if (im == "thrust" && alg.find("by_key") == std::string::npos) continue;
          const std::string name = alg + "/" + im + "/" + type_name + "/" + std::to_string(n) + "/" + sh;
          // Google Benchmark runs each repetition through this function
          // again: the call (and its temporaries) is built at the first and
          // kept until the next case starts.
          benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
            static std::string built_for;
            static std::function<void()> call;
            static double bytes = 0;
            try {
              if (built_for != name) {
                call = nullptr;
                built_for.clear();
                const auto d = make_data<T>(n, sh);
                const std::int64_t fixed = sh.rfind("len", 0) == 0 ? std::stoll(sh.substr(3)) : 0;
                bytes = moved_bytes(alg, n, d->segments, sizeof(T));
                call = make_call<T>(alg, im, d, bytes, fixed);
                if (!call) {
                  state.SkipWithError("not available with this CCCL");
                  return;
                }
                call();  // warm-up
                check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
                built_for = name;
              }
              double seconds = 0;
              for (auto _ : state) {
                const double t = time_on_device(call);
                state.SetIterationTime(t);
                seconds += t;
              }
              state.counters["bytes"] = bytes;
              state.counters["GB/s"] = bytes * double(state.iterations()) / seconds * 1e-9;
            } catch (const std::exception& e) {
              call = nullptr;
              built_for.clear();
              state.SkipWithError(e.what());
            }
          })
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond)
              ->Iterations(1)  // one run per repetition: the median is over single runs
              ->Repetitions(slow_case(alg, im, n, sh) ? 3 : std::min(opt.repetitions, 15))
              ->ReportAggregatesOnly(true);
        }
      }
    }
  }
}

}  // namespace

void register_segmented(const options& opt) {
  register_type<float>(opt, "float");
  register_type<std::int32_t>(opt, "int32");
}

}  // namespace bench
