#pragma once
// The GPU check: run a cascade algorithm under a given policy on random
// inputs, with outputs poisoned first, and compare with an independent
// reference: CUB for integers (exact), a float64 host computation for floating
// point (within a stated tolerance), a sequential host fold for user structs
// and non-commutative operators (CUB's reduce may reorder operands).
// Strategy tests reuse these checks with their own policies.

#include "../common.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/device_vector.h>
#include <thrust/fill.h>

#include <cuda_runtime_api.h>

namespace cascade_test {

inline void cuda_ok(cudaError_t status, const char* what) {
  ASSERT_EQ(status, cudaSuccess) << what << ": " << cudaGetErrorString(status);
}
#define CASCADE_TEST_CUDA(call) ::cascade_test::cuda_ok((call), #call)

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& d) {
  std::vector<T> h(d.size());
  if (!h.empty()) CASCADE_TEST_CUDA(cudaMemcpy(h.data(), thrust::raw_pointer_cast(d.data()), d.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
// The copy and the poison are finished before they return: a pageable
// cudaMemcpy may return before its DMA ends, and cudaMemset is asynchronous;
// both are ordered on the legacy stream only, which a non-blocking stream
// does not wait for (Family.InnerProduct* read inputs still being copied).
template <class T>
thrust::device_vector<T> to_device(const std::vector<T>& h) {
  thrust::device_vector<T> d(h.size());
  if (!h.empty()) CASCADE_TEST_CUDA(cudaMemcpy(thrust::raw_pointer_cast(d.data()), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  return d;
}
template <class T>
void poison(thrust::device_vector<T>& d) {
  if (!d.empty()) CASCADE_TEST_CUDA(cudaMemset(thrust::raw_pointer_cast(d.data()), kPoison, d.size() * sizeof(T)));
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
}

// Which reference checks a (type, operator) pair.
template <class T, class Op>
inline constexpr bool cub_reference_v = std::is_integral_v<T> && !std::is_same_v<Op, compose>;

// ----------------------------------------------------------------- CUB ------
template <class T, class Op>
T cub_reduce(const thrust::device_vector<T>& in, T init, Op op) {
  thrust::device_vector<T> out(1);
  std::size_t bytes = 0;
  const auto n = static_cast<std::int64_t>(in.size());
  CASCADE_TEST_CUDA(cub::DeviceReduce::Reduce(nullptr, bytes, in.data().get(), out.data().get(), n, op, init));
  thrust::device_vector<char> temp(bytes);
  CASCADE_TEST_CUDA(cub::DeviceReduce::Reduce(temp.data().get(), bytes, in.data().get(), out.data().get(), n, op, init));
  return out[0];
}

enum class scan_kind { inclusive, inclusive_init, exclusive };

template <class T, class Op>
std::vector<T> cub_scan(const thrust::device_vector<T>& in, scan_kind kind, T init, Op op) {
  thrust::device_vector<T> out(in.size());
  const auto n = static_cast<std::int64_t>(in.size());
  auto run = [&](void* temp, std::size_t& bytes) {
    const T* i = in.data().get();
    T* o = out.data().get();
    switch (kind) {
      case scan_kind::inclusive: return cub::DeviceScan::InclusiveScan(temp, bytes, i, o, op, n);
      case scan_kind::inclusive_init: return cub::DeviceScan::InclusiveScanInit(temp, bytes, i, o, op, init, n);
      default: return cub::DeviceScan::ExclusiveScan(temp, bytes, i, o, op, init, n);
    }
  };
  std::size_t bytes = 0;
  CASCADE_TEST_CUDA(run(nullptr, bytes));
  thrust::device_vector<char> temp(bytes);
  CASCADE_TEST_CUDA(run(temp.data().get(), bytes));
  return to_host(out);
}

// ---------------------------------------------------------------- host ------
// A sequential fold in T (exact for integers and structs).
template <class T, class Op>
T host_fold(const std::vector<T>& in, T init, Op op) {
  for (const T& x : in) init = op(init, x);
  return init;
}
template <class T, class Op>
std::vector<T> host_scan(const std::vector<T>& in, scan_kind kind, T init, Op op) {
  std::vector<T> out(in.size());
  bool has = kind != scan_kind::inclusive;
  T running = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == scan_kind::exclusive) out[i] = running;
    running = has ? static_cast<T>(op(running, in[i])) : in[i];
    has = true;
    if (kind != scan_kind::exclusive) out[i] = running;
  }
  return out;
}
// float64 versions with the magnitude that bounds the rounding error.
template <class T, class Op>
std::pair<double, double> fold_f64(const std::vector<T>& in, T init, Op op) {
  double r = double(init), scale = std::fabs(double(init));
  for (const T& x : in) {
    r = op(r, double(x));
    scale += std::fabs(double(x));
  }
  if constexpr (std::is_same_v<Op, cuda::std::multiplies<>>) scale = std::fabs(r);
  return {r, scale};
}

// ---------------------------------------------------------------- checks ----
template <class T, class Op>
T draw_init(std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  return domain<T, Op>::draw(rng);
}

template <class T, class Op, class Policy>
void check_reduce(const Policy& policy, std::int64_t n, std::uint64_t seed) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
  const std::vector<T> h_in = random_input<T, Op>(n, seed);
  const thrust::device_vector<T> d_in = to_device(h_in);
  const T init = draw_init<T, Op>(seed);
  const Op op{};

  const T got = cascade::reduce(policy, d_in.begin(), d_in.end(), init, op);
  thrust::device_vector<T> d_result(1);
  poison(d_result);
  cascade::reduce_into(policy, d_in.begin(), d_in.end(), d_result.begin(), init, op);
  CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream()));
  const T got_into = d_result[0];

  if constexpr (rounds_v<T, Op>) {
    const auto [want, scale] = fold_f64(h_in, init, op);
    EXPECT_TRUE(close(got, want, scale, reduce_depth<Op>(n)));
    EXPECT_TRUE(close(got_into, want, scale, reduce_depth<Op>(n)));
  } else {
    T want;
    if constexpr (cub_reference_v<T, Op>) want = cub_reduce(d_in, init, op);
    else want = host_fold(h_in, init, op);
    EXPECT_EQ(got, want);
    EXPECT_EQ(got_into, want);
  }
}

template <class T, class Op>
void expect_scan_equal(const std::vector<T>& in, const std::vector<T>& got, const thrust::device_vector<T>& d_in,
                       scan_kind kind, T init, Op op) {
  ASSERT_EQ(got.size(), in.size());
  if constexpr (rounds_v<T, Op>) {
    // Element i within eps * depth * (|init| + sum_{j<=i} |x_j|), or * |want| for products.
    bool has = kind != scan_kind::inclusive;
    double running = double(init), scale = has ? std::fabs(double(init)) : 0.0;
    const double depth = scan_depth<Op>(static_cast<std::int64_t>(in.size()));
    for (std::size_t i = 0; i < in.size(); ++i) {
      const double before = running;
      running = has ? op(running, double(in[i])) : double(in[i]);
      has = true;
      scale += std::fabs(double(in[i]));
      const double want = kind == scan_kind::exclusive ? before : running;
      const double s = std::is_same_v<Op, cuda::std::multiplies<>> ? std::fabs(want) : scale;
      const auto ok = close(got[i], want, s, depth);
      if (!ok) {
        ADD_FAILURE() << "element " << i << ": " << ok.message();
        return;
      }
    }
  } else {
    std::vector<T> want;
    if constexpr (cub_reference_v<T, Op>) want = cub_scan(d_in, kind, init, op);
    else want = host_scan(in, kind, init, op);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!(got[i] == want[i])) {
        ADD_FAILURE() << "element " << i << " of " << in.size() << ": got " << got[i] << ", want " << want[i];
        return;
      }
    }
  }
}

template <class T, class Op, class Policy>
void check_scans(const Policy& policy, std::int64_t n, std::uint64_t seed) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
  const std::vector<T> h_in = random_input<T, Op>(n, seed);
  const thrust::device_vector<T> d_in = to_device(h_in);
  const T init = draw_init<T, Op>(seed);
  const Op op{};
  thrust::device_vector<T> d_out(n);
  auto sync = [&] { CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream())); };

  {
    SCOPED_TRACE("inclusive_scan");
    poison(d_out);
    auto end = cascade::inclusive_scan(policy, d_in.begin(), d_in.end(), d_out.begin(), op);
    sync();
    EXPECT_EQ(end - d_out.begin(), n);
    expect_scan_equal(h_in, to_host(d_out), d_in, scan_kind::inclusive, init, op);
  }
  {
    SCOPED_TRACE("inclusive_scan with init");
    poison(d_out);
    cascade::inclusive_scan(policy, d_in.begin(), d_in.end(), d_out.begin(), op, init);
    sync();
    expect_scan_equal(h_in, to_host(d_out), d_in, scan_kind::inclusive_init, init, op);
  }
  {
    SCOPED_TRACE("exclusive_scan");
    poison(d_out);
    auto end = cascade::exclusive_scan(policy, d_in.begin(), d_in.end(), d_out.begin(), init, op);
    sync();
    EXPECT_EQ(end - d_out.begin(), n);
    expect_scan_equal(h_in, to_host(d_out), d_in, scan_kind::exclusive, init, op);
  }
  {
    SCOPED_TRACE("exclusive_scan in place");
    thrust::device_vector<T> d_inout = d_in;
    cascade::exclusive_scan(policy, d_inout.begin(), d_inout.end(), d_inout.begin(), init, op);
    sync();
    expect_scan_equal(h_in, to_host(d_inout), d_in, scan_kind::exclusive, init, op);
  }
}

// (type, operator, strategy) triples for typed tests.
template <class T, class Op, class Strategy = cascade::strategy::automatic_t>
struct combo {
  using value_type = T;
  using op_type = Op;
  using strategy = Strategy;
};

// ------------------------------------------------------- concurrent load ---
// Another program's work on the same GPU: a kernel that streams over a
// buffer again and again, two blocks per SM, from a stream of its own, so
// that a test's calls share every SM and the memory with it (their blocks
// start late and out of order, their loads and polls are slow).
template <int = 0>
__global__ void stream_over(const float4* in, float4* out, std::int64_t n, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
      const float4 v = in[i];
      out[i] = make_float4(v.x + 1.f, v.y, v.z, v.w);
    }
  }
}
struct gpu_load {
  static constexpr std::int64_t items = std::int64_t(1) << 25;  // 512 MB of float4 each way
  thrust::device_vector<float4> in = thrust::device_vector<float4>(items), out = thrust::device_vector<float4>(items);
  cudaStream_t stream = nullptr;
  gpu_load() { CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~gpu_load() {
    (void)cudaStreamSynchronize(stream);
    (void)cudaStreamDestroy(stream);
  }
  // Launch before the calls it should load.
  void start(int rounds = 4) {
    int sms = 0;
    CASCADE_TEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    stream_over<<<2 * sms, 256, 0, stream>>>(in.data().get(), out.data().get(), items, rounds);
    CASCADE_TEST_CUDA(cudaGetLastError());
  }
};

// A call's status words start as zeros (the first call on a stream, or after
// release_resources) or as words another call left there, of other data; a
// test that repeats one call on one input sees neither (the old bits are the
// new ones). call(input) runs 8 times, alternating between inputs 0 and 1,
// on a fresh workspace every other time.
template <class Call>
void on_fresh_and_stale_words(Call call) {
  for (int c = 0; c < 8; ++c) {
    SCOPED_TRACE("call " + std::to_string(c) + (c % 2 == 0 ? ", fresh workspace" : ", after the other input"));
    if (c % 2 == 0) cascade::release_resources();
    call(c % 2);
  }
}

}  // namespace cascade_test
