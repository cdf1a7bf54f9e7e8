// inclusive_scan/... and exclusive_scan/...: every implementation of a prefix sum.
// With --types naming affine64, also a 16-byte struct under a non-commutative
// operator (composition of affine maps), cascade against CUB with the same
// operator: inclusive_scan/{cascade,cub}/affine64/<n>.
//
// With CCCL 3.6 or newer, float and double scans also run CUB's run-to-run
// deterministic scan through its environment API, beside CUB's default:
// {inclusive,exclusive}_scan/cub.run_to_run/{float,double}/<n>.
//
// Adding a strategy is one line in the list below, e.g.
//   impl("cascade.blelloch", cascade_runner{cascade::cuda.with(cascade::strategy::blelloch)}),
// Only implemented strategies can be listed: a declared-only one fails to compile.

#include "harness.cuh"
#include "limits.cuh"
#include "runners.cuh"

#if CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 6)
#define CASCADE_BENCH_CUB_DETERMINISM 1
#include <cuda/devices>
#include <cuda/memory_pool>
#include <cuda/std/execution>
#include <cuda/stream_ref>
#endif

namespace bench {

template <class Scan>
void register_scan(const options& opt) {
  register_algorithm<Scan>(
      opt,
      impl("cascade", cascade_runner{cascade::cuda}),
      impl("cascade.decoupled_lookback", cascade_runner{cascade::cuda.with(cascade::strategy::decoupled_lookback)}),
      impl("cascade.reproducible_lookback",
           cascade_runner{cascade::cuda.with(cascade::strategy::reproducible_lookback)}),
      impl("cub", cub_runner{}),
      impl("thrust", thrust_runner{}),
      impl("copy_limit", copy_limit_runner{}),
      impl("tile_copy_limit", tile_copy_limit_runner{}),
      impl("cpu.seq", cascade_runner{cascade::seq}),
      impl("cpu.par", cascade_runner{cascade::par}));
}

// x -> a x + b over uint64 (wrapping); compose(f, g) applies f, then g.
struct affine64 {
  std::uint64_t a, b;
  __host__ __device__ static affine64 from_hash(std::uint64_t h) { return {h | 1, h >> 17}; }
};
struct compose64 {
  __host__ __device__ affine64 operator()(const affine64& f, const affine64& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

struct struct_cascade_runner {
  static constexpr memory where = memory::device;
  auto bind(inclusive_scan_t, io<affine64> io) const {
    return [io] { cascade::inclusive_scan(cascade::cuda.on(io.stream), io.in, io.in + io.n, io.out, compose64{}); };
  }
};
struct struct_cub_runner {
  static constexpr memory where = memory::device;
  auto bind(inclusive_scan_t, io<affine64> io) const {
    std::size_t bytes = 0;
    check(cub::DeviceScan::InclusiveScan(nullptr, bytes, io.in, io.out, compose64{}, io.n, io.stream),
          "cub::DeviceScan::InclusiveScan");
    return [temp = device_alloc(bytes), bytes, io]() mutable {
      check(cub::DeviceScan::InclusiveScan(temp.get(), bytes, io.in, io.out, compose64{}, io.n, io.stream),
            "cub::DeviceScan::InclusiveScan");
    };
  }
};

#ifdef CASCADE_BENCH_CUB_DETERMINISM
// CUB's scan under cuda::execution::determinism::run_to_run (float and
// double sums: a fixed reduction order), through the environment API. That
// API allocates its temporaries from the environment's memory resource on
// every call: a pool of this device's memory that keeps what it has
// allocated, so the allocations do not count.
inline ::cuda::device_memory_pool_ref run_to_run_pool() {
  static ::cuda::device_memory_pool* pool = [] {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    return new ::cuda::device_memory_pool(::cuda::device_ref{device});  // lives for the process
  }();
  return *pool;
}

template <class T>
cudaError_t cub_run_to_run(inclusive_scan_t, io<T> io) {
  const auto env = ::cuda::std::execution::env{
      ::cuda::stream_ref{io.stream}, ::cuda::std::execution::prop{::cuda::mr::get_memory_resource, run_to_run_pool()},
      ::cuda::execution::require(::cuda::execution::determinism::run_to_run)};
  return cub::DeviceScan::InclusiveSum(io.in, io.out, io.n, env);
}
template <class T>
cudaError_t cub_run_to_run(exclusive_scan_t, io<T> io) {
  const auto env = ::cuda::std::execution::env{
      ::cuda::stream_ref{io.stream}, ::cuda::std::execution::prop{::cuda::mr::get_memory_resource, run_to_run_pool()},
      ::cuda::execution::require(::cuda::execution::determinism::run_to_run)};
  return cub::DeviceScan::ExclusiveSum(io.in, io.out, io.n, env);
}

struct cub_run_to_run_runner {
  static constexpr memory where = memory::device;
  template <class Algorithm, class T>
  auto bind(Algorithm, io<T> io) const {
    return [io] { check(cub_run_to_run(Algorithm{}, io), "cub::DeviceScan with determinism::run_to_run"); };
  }
};

template <class Algorithm>
void register_cub_run_to_run(const options& opt) {
  for (int log2 = opt.min_log2; log2 <= opt.max_log2; log2 += opt.log2_step) {
    if (opt.wants_type("float")) add_case<Algorithm, float>(opt, "float", log2, impl("cub.run_to_run", cub_run_to_run_runner{}));
    if (opt.wants_type("double")) add_case<Algorithm, double>(opt, "double", log2, impl("cub.run_to_run", cub_run_to_run_runner{}));
  }
}
#endif

void register_scans(const options& opt) {
  register_scan<inclusive_scan_t>(opt);
  register_scan<exclusive_scan_t>(opt);
#ifdef CASCADE_BENCH_CUB_DETERMINISM
  register_cub_run_to_run<inclusive_scan_t>(opt);
  register_cub_run_to_run<exclusive_scan_t>(opt);
#endif
  if (opt.wants_type("affine64")) {
    for (int log2 = opt.min_log2; log2 <= opt.max_log2; log2 += opt.log2_step) {
      add_case<inclusive_scan_t, affine64>(opt, "affine64", log2, impl("cascade", struct_cascade_runner{}));
      add_case<inclusive_scan_t, affine64>(opt, "affine64", log2, impl("cub", struct_cub_runner{}));
    }
  }
}

}  // namespace bench
