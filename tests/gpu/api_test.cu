// The GPU API beyond the type/operator matrix: overloads, iterators, streams,
// misaligned pointers, determinism, half precision, sizes beyond 2^31, and
// every error path (with the output left untouched and temporaries released).

#include "progress_tuning.cuh"
#include "suites.cuh"

#include <cascade/detail/reduce/single_pass.cuh>
#include <cascade/detail/scan/decoupled_lookback.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <thrust/copy.h>
#include <thrust/equal.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/tabulate.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace cascade_test {
namespace {

class Api : public gpu_test {};

struct square_mod {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return (i * i) % 1000003; }
};
// Cheap device-side pseudo-random bytes for the multi-gigabyte inputs.
struct hash_byte {
  __host__ __device__ std::int8_t operator()(std::int64_t i) const {
    std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return static_cast<std::int8_t>(x * 0xbf58476d1ce4e5b9ull >> 56);
  }
};

TEST_F(Api, ReduceOverloadsUsePlusAndValueInit) {
  const std::vector<int> h = random_input<int, plus>(100003, 7);
  const auto d = to_device(h);
  const long long want = std::accumulate(h.begin(), h.end(), 0ll);
  EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end()), static_cast<int>(want));
  EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), 5ll), want + 5);  // accumulator: init's type
  EXPECT_EQ(cascade::reduce(cascade::cuda, d.data().get(), d.data().get() + d.size(), 0ll), want);
  EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), 0, cascade::monoid(cuda::std::plus<>{}, 0)),
            static_cast<int>(want));
  EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), 0, cascade::commutative(cuda::std::plus<>{})),
            static_cast<int>(want));
}

TEST_F(Api, ScanOverloadsUsePlus) {
  const std::vector<int> h = random_input<int, plus>(70001, 8);
  const auto d = to_device(h);
  thrust::device_vector<int> out(h.size());
  std::vector<int> want(h.size());
  poison(out);
  cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin());
  std::inclusive_scan(h.begin(), h.end(), want.begin());
  EXPECT_EQ(to_host(out), want);
  poison(out);
  cascade::exclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin(), 3);
  std::exclusive_scan(h.begin(), h.end(), want.begin(), 3);
  EXPECT_EQ(to_host(out), want);
}

// reduce_into's short forms, as reduce has them: plus, then also init = V{}.
TEST_F(Api, ReduceIntoShortForms) {
  const std::vector<int> h = random_input<int, plus>(100003, 17);
  const auto d = to_device(h);
  thrust::device_vector<int> out(1);
  poison(out);
  cascade::reduce_into(cascade::device, d.begin(), d.end(), out.begin());
  EXPECT_EQ(to_host(out)[0], cub_reduce(d, 0, plus{}));
  poison(out);
  cascade::reduce_into(cascade::device, d.begin(), d.end(), out.begin(), 7);
  EXPECT_EQ(to_host(out)[0], cub_reduce(d, 7, plus{}));
  // The accumulator is init's type; raw pointers on a stream.
  thrust::device_vector<long long> wide(1);
  poison(wide);
  cascade::reduce_into(cascade::device.on(cudaStreamPerThread), d.data().get(), d.data().get() + d.size(),
                       wide.data().get(), 5ll);
  CASCADE_TEST_CUDA(cudaStreamSynchronize(cudaStreamPerThread));
  EXPECT_EQ(to_host(wide)[0], std::accumulate(h.begin(), h.end(), 5ll));
  poison(out);
  cascade::reduce_into(cascade::device, d.begin(), d.begin(), out.begin());  // empty: V{}
  EXPECT_EQ(to_host(out)[0], 0);
}

// The names: cascade::device is the GPU policy, cascade::cuda the same one;
// after `using namespace cascade;` a bare `device` is not ambiguous.
int sum_with_bare_names(const thrust::device_vector<int>& d) {
  using namespace cascade;
  return reduce(device, d.begin(), d.end(), 0);
}
TEST_F(Api, DeviceIsTheGpuPolicyAndCudaItsOtherName) {
  static_assert(std::is_same_v<decltype(cascade::device), decltype(cascade::cuda)>);
  const std::vector<int> h = random_input<int, plus>(70001, 18);
  const auto d = to_device(h);
  const int want = cub_reduce(d, 0, plus{});
  EXPECT_EQ(sum_with_bare_names(d), want);
  EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), 0), want);
}

// The std:: functors run on the GPU as their cuda::std:: twins (no
// --expt-relaxed-constexpr needed in a user's build), with their identities
// known to the strategies that pad.
TEST_F(Api, StdFunctorsOnTheGpu) {
  const std::vector<int> h = random_input<int, plus>(70001, 19);
  const auto d = to_device(h);
  EXPECT_EQ(cascade::reduce(cascade::device, d.begin(), d.end(), 3, std::plus<int>{}), cub_reduce(d, 3, plus{}));
  EXPECT_EQ(cascade::reduce(cascade::device, d.begin(), d.end(), 3, std::bit_xor<>{}), cub_reduce(d, 3, bit_xor{}));
  EXPECT_EQ(cascade::reduce(cascade::device.with(cascade::strategy::interleaved_divergent), d.begin(), d.end(), 3,
                            std::plus<int>{}),
            cub_reduce(d, 3, plus{}));
  const std::vector<int> small = random_input<int, multiplies>(70001, 20);
  const auto ds = to_device(small);
  EXPECT_EQ(cascade::reduce(cascade::device, ds.begin(), ds.end(), 1, cascade::monoid(std::multiplies<int>{}, 1)),
            cub_reduce(ds, 1, multiplies{}));
  thrust::device_vector<int> out(h.size());
  poison(out);
  cascade::inclusive_scan(cascade::device, d.begin(), d.end(), out.begin(), std::plus<int>{});
  EXPECT_EQ(to_host(out), cub_scan(d, scan_kind::inclusive, 0, plus{}));
  poison(out);
  cascade::exclusive_scan(cascade::device, d.begin(), d.end(), out.begin(), 5, std::bit_xor<int>{});
  EXPECT_EQ(to_host(out), cub_scan(d, scan_kind::exclusive, 5, bit_xor{}));
}

TEST_F(Api, CountingAndTransformIterators) {
  const std::int64_t n = (1 << 24) + 3;
  thrust::counting_iterator<std::int64_t> count(0);
  EXPECT_EQ(cascade::reduce(cascade::cuda, count, count + n, std::int64_t{0}), n * (n - 1) / 2);

  auto squares = thrust::make_transform_iterator(count, square_mod{});
  thrust::device_vector<std::int64_t> materialised(squares, squares + n);
  EXPECT_EQ(cascade::reduce(cascade::cuda, squares, squares + n, std::int64_t{0}),
            cub_reduce(materialised, std::int64_t{0}, plus{}));

  thrust::device_vector<std::int64_t> out(n);
  poison(out);
  cascade::inclusive_scan(cascade::cuda, squares, squares + n, out.begin());
  EXPECT_EQ(to_host(out), cub_scan(materialised, scan_kind::inclusive, std::int64_t{0}, plus{}));
}

// Fancy iterators compare by their members as launch arguments
// (util/launch_members.cuh): a repeated reduce over the same one launches its
// graph unchanged, and one that starts elsewhere, reads another array or
// holds another value must still get its own answer, on one stream.
struct small_square {
  __host__ __device__ std::int64_t operator()(std::int64_t v) const { return (v % 1000) * (v % 1000); }
};
TEST_F(Api, RepeatedFancyIteratorsTakeEachCallsIterator) {
  const std::int64_t n = (1 << 20) + 7;  // many chunks: the chunk kernel's graph
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto policy = cascade::cuda.on(stream);
  const std::vector<std::int64_t> h0 = random_input<std::int64_t, plus>(n, 61), h1 = random_input<std::int64_t, plus>(n, 62);
  const auto d0 = to_device(h0), d1 = to_device(h1);
  for (std::int64_t start : {0ll, 0ll, 5ll, 5ll, 1000003ll, 0ll}) {
    thrust::counting_iterator<std::int64_t> count(start);
    ASSERT_EQ(cascade::reduce(policy, count, count + n, std::int64_t{0}), n * start + n * (n - 1) / 2)
        << "start " << start;
  }
  for (int call = 0; call < 6; ++call) {
    const auto& d = call % 3 == 1 ? d1 : d0;
    const auto& h = call % 3 == 1 ? h1 : h0;
    auto squares = thrust::make_transform_iterator(d.begin(), small_square{});
    std::int64_t want = 0;
    for (std::int64_t v : h) want += small_square{}(v);
    ASSERT_EQ(cascade::reduce(policy, squares, squares + n, std::int64_t{0}), want) << "call " << call;
  }
#if defined(_CCCL_SUPPRESS_DEPRECATED_PUSH)
  _CCCL_SUPPRESS_DEPRECATED_PUSH  // thrust::constant_iterator is deprecated in CCCL 3.6, still accepted
#endif
  for (std::int64_t value : {3ll, 3ll, 4ll, 3ll}) {
    thrust::constant_iterator<std::int64_t> same(value);
    ASSERT_EQ(cascade::reduce(policy, same, same + n, std::int64_t{0}), value * n) << "value " << value;
  }
#if defined(_CCCL_SUPPRESS_DEPRECATED_POP)
  _CCCL_SUPPRESS_DEPRECATED_POP
#endif
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(Api, NonDefaultStreams) {
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (std::int64_t n : {1ll, 4097ll, (1ll << 22) + 5}) {
    check_reduce<int, plus>(cascade::cuda.on(stream), n, 11);
    check_reduce<affine, compose>(cascade::cuda.on(stream), n, 12);
    check_scans<int, plus>(cascade::cuda.on(stream), n, 13);
    check_scans<affine, compose>(cascade::cuda.on(stream).with(cascade::strategy::decoupled_lookback), n, 14);
  }
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(Api, EightConcurrentLookbackScans) {
  constexpr int kStreams = 8;
  const std::int64_t n = (1 << 22) + 17;
  std::vector<cudaStream_t> streams(kStreams);
  std::vector<thrust::device_vector<affine>> in, out;
  for (int s = 0; s < kStreams; ++s) {
    CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    in.push_back(to_device(random_input<affine, compose>(n, 100 + s)));
    out.emplace_back(n);
    poison(out.back());
  }
  for (int s = 0; s < kStreams; ++s) {
    cascade::inclusive_scan(cascade::cuda.on(streams[s]).with(cascade::strategy::decoupled_lookback), in[s].begin(),
                            in[s].end(), out[s].begin(), compose{});
  }
  for (int s = 0; s < kStreams; ++s) {
    CASCADE_TEST_CUDA(cudaStreamSynchronize(streams[s]));
    EXPECT_EQ(to_host(out[s]), host_scan(to_host(in[s]), scan_kind::inclusive, affine{}, compose{})) << "stream " << s;
    CASCADE_TEST_CUDA(cudaStreamDestroy(streams[s]));
  }
}

// Offsets of 1..15 bytes from 16-byte alignment take a scalar head and still vectorise the body.
template <class T>
void check_misaligned() {
  const std::int64_t n = 100000;
  const std::vector<T> h = random_input<T, plus>(n + 16, 21);
  const auto d = to_device(h);
  for (int offset = 1; offset * sizeof(T) < 16; ++offset) {
    SCOPED_TRACE("offset " + std::to_string(offset * sizeof(T)) + " bytes");
    const T* first = d.data().get() + offset;
    const thrust::device_vector<T> sub(d.begin() + offset, d.begin() + offset + n);
    EXPECT_EQ(cascade::reduce(cascade::cuda, first, first + n, T{1}), cub_reduce(sub, T{1}, plus{}));
    thrust::device_vector<T> out(n);
    poison(out);
    cascade::inclusive_scan(cascade::cuda, first, first + n, out.begin());
    const std::vector<T> want = cub_scan(sub, scan_kind::inclusive, T{}, plus{});
    EXPECT_EQ(to_host(out), want);
    // And an aligned input scanned into a misaligned output.
    thrust::device_vector<T> shifted(n + 16);
    poison(shifted);
    cascade::inclusive_scan(cascade::cuda, sub.begin(), sub.end(), shifted.data().get() + offset);
    EXPECT_EQ(to_host(thrust::device_vector<T>(shifted.begin() + offset, shifted.begin() + offset + n)), want);
  }
}
TEST_F(Api, MisalignedPointers) {
  check_misaligned<std::int8_t>();
  check_misaligned<std::int16_t>();
  check_misaligned<std::int32_t>();
  check_misaligned<std::int64_t>();
}

// The combination tree depends on N only: any grid gives the same bits.
template <class T>
void check_grid_independence(std::int64_t n) {
  const auto d = to_device(random_input<T, plus>(n, 31));
  thrust::device_vector<T> result(1);
  std::vector<T> bits;
  for (int grid : {0, 1, 2, 7, 64, 1000}) {
    poison(result);
    cascade::detail::single_pass::run(d.data().get(), n, result.data().get(), T{0}, plus{}, nullptr, grid);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    bits.push_back(result[0]);
  }
  for (std::size_t i = 1; i < bits.size(); ++i) {
    EXPECT_EQ(std::memcmp(&bits[i], &bits[0], sizeof(T)), 0) << "grid variant " << i;
  }
  // And run to run through the public API.
  const T first = cascade::reduce(cascade::cuda, d.begin(), d.end(), T{0});
  for (int run = 0; run < 5; ++run) {
    const T again = cascade::reduce(cascade::cuda, d.begin(), d.end(), T{0});
    EXPECT_EQ(std::memcmp(&first, &again, sizeof(T)), 0);
  }
}
TEST_F(Api, ReduceIsBitwiseReproducibleAcrossGrids) {
  check_grid_independence<float>((1 << 24) + 77);
  check_grid_independence<double>((1 << 22) + 5);
}

// Computed iterators (counting and its transforms) take per-lane runs instead
// of coalesced rows: still in index order, still one tree per N.
struct affine_from_index {
  __host__ __device__ affine operator()(std::int64_t i) const {
    const auto x = static_cast<std::uint32_t>(i) * 2654435761u;
    return {(x | 1u) ^ (x >> 15), x >> 7};
  }
};
struct float_from_index {
  __host__ __device__ float operator()(std::int64_t i) const {
    const auto x = static_cast<std::uint32_t>(i) * 2654435761u;
    return float(x >> 8) * 0x1p-24f - 0.5f;
  }
};
TEST_F(Api, ComputedIteratorsKeepOrderAndBits) {
  const thrust::counting_iterator<std::int64_t> count(0);
  const auto maps = thrust::make_transform_iterator(count, affine_from_index{});
  for (std::int64_t n : {1ll, 1000ll, 65537ll, (1ll << 22) + 13, (1ll << 24) + 5}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<affine> h(n);
    for (std::int64_t i = 0; i < n; ++i) h[i] = affine_from_index{}(i);
    const affine init{3, 5};
    EXPECT_EQ(cascade::reduce(cascade::cuda, maps, maps + n, init, compose{}), host_fold(h, init, compose{}));
  }

  const std::int64_t n = (1ll << 24) + 77;
  const auto values = thrust::make_transform_iterator(count, float_from_index{});
  std::vector<float> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = float_from_index{}(i);
  const auto [want, scale] = fold_f64(h, 0.f, plus{});
  thrust::device_vector<float> result(1);
  std::vector<float> bits;
  for (int grid : {0, 1, 2, 7, 64, 1000}) {
    poison(result);
    cascade::detail::single_pass::run(values, n, result.data().get(), 0.f, plus{}, nullptr, grid);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    bits.push_back(result[0]);
    EXPECT_TRUE(close(bits.back(), want, scale, reduce_depth<plus>(n))) << "grid " << grid;
  }
  for (std::size_t i = 1; i < bits.size(); ++i) {
    EXPECT_EQ(std::memcmp(&bits[i], &bits[0], sizeof(float)), 0) << "grid variant " << i;
  }
}

TEST_F(Api, HalfAndBfloat16) {
  // Small integers: every partial sum is exact in the format, so the result is too.
  std::vector<__half> h(1500);
  std::vector<__nv_bfloat16> b(200);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = __float2half(float(1 + i % 2));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16(float(1 + i % 2));
  const auto dh = to_device(h);
  const auto db = to_device(b);
  EXPECT_EQ(__half2float(cascade::reduce(cascade::cuda, dh.begin(), dh.end(), __float2half(0.f))), 2250.f);
  EXPECT_EQ(__bfloat162float(cascade::reduce(cascade::cuda, db.begin(), db.end(), __float2bfloat16(0.f))), 300.f);
  thrust::device_vector<__half> out(h.size());
  cascade::inclusive_scan(cascade::cuda, dh.begin(), dh.end(), out.begin());
  EXPECT_EQ(__half2float(to_host(out).back()), 2250.f);
}

// ------------------------------------------------------------- errors -------
template <class F>
void expect_invalid_argument(F f, const std::string& mentions) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
  }
}

std::size_t pool_bytes_in_use() {
  std::uint64_t used = 0;
  cudaMemPoolGetAttribute(cascade::detail::temporary_pool(cascade::detail::current_device()),
                          cudaMemPoolAttrUsedMemCurrent, &used);
  return used;
}

TEST_F(Api, ReversedRangeIsInvalidArgumentAndWritesNothing) {
  const auto d = to_device(random_input<int, plus>(1000, 41));
  thrust::device_vector<int> out(1000);
  poison(out);
  const int* p = d.data().get();
  expect_invalid_argument([&] { cascade::reduce(cascade::cuda, p + 10, p, 0); }, "last precedes first");
  expect_invalid_argument([&] { cascade::reduce_into(cascade::cuda, p + 10, p, out.begin(), 0, plus{}); },
                          "last precedes first");
  expect_invalid_argument([&] { cascade::inclusive_scan(cascade::cuda, p + 10, p, out.begin()); }, "last precedes first");
  expect_invalid_argument([&] { cascade::exclusive_scan(cascade::cuda, p + 10, p, out.begin(), 0); },
                          "last precedes first");
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  for (int v : to_host(out)) ASSERT_EQ(v, poison_value<int>());
}

struct doubled {
  __host__ __device__ int operator()(int x) const { return 2 * x; }
};

// Whether the current device reads pageable host memory (HMM, or address
// translation services on Grace Hopper).
bool device_reads_pageable_memory() {
  int device = 0, pageable = 0;
  CASCADE_TEST_CUDA(cudaGetDevice(&device));
  CASCADE_TEST_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  return pageable != 0;
}

TEST_F(Api, HostMemoryIsAClearError) {
  if (device_reads_pageable_memory()) GTEST_SKIP() << "this device reads pageable host memory (HMM or ATS)";
  std::vector<int> host(1000, 1);
  thrust::device_vector<int> out(1000);
  poison(out);
  expect_invalid_argument([&] { cascade::reduce(cascade::cuda, host.data(), host.data() + host.size(), 0); },
                          "host memory");
  expect_invalid_argument([&] { cascade::inclusive_scan(cascade::cuda, host.data(), host.data() + 1000, out.begin()); },
                          "host memory");
  const auto d = to_device(host);
  int result_on_host = 0;
  expect_invalid_argument([&] { cascade::reduce_into(cascade::cuda, d.begin(), d.end(), &result_on_host, 0, plus{}); },
                          "host memory");
  expect_invalid_argument([&] { cascade::exclusive_scan(cascade::cuda, d.begin(), d.end(), host.data(), 0); },
                          "host memory");
  int* null = nullptr;
  expect_invalid_argument([&] { cascade::inclusive_scan(cascade::cuda, null, null + 5, out.begin()); }, "null");
  // Host memory under a transform iterator (the check looks through it).
  const auto twice = thrust::make_transform_iterator(host.data(), doubled{});
  expect_invalid_argument([&] { cascade::reduce(cascade::cuda, twice, twice + 1000, 0); }, "host memory");
  expect_invalid_argument([&] { cascade::inclusive_scan(cascade::cuda, twice, twice + 1000, out.begin()); },
                          "host memory");
  for (int v : to_host(out)) ASSERT_EQ(v, poison_value<int>());
  EXPECT_EQ(host, std::vector<int>(1000, 1));
  // Device memory under one passes it.
  const auto d_twice = thrust::make_transform_iterator(d.begin(), doubled{});
  EXPECT_EQ(cascade::reduce(cascade::cuda, d_twice, d_twice + 1000, 0), 2000);
}

// Where the device reads pageable host memory itself, such memory is an
// input and an output like any other (as it is to Thrust and CUB).
TEST_F(Api, PageableMemoryWhereTheDeviceReadsIt) {
  if (!device_reads_pageable_memory()) {
    GTEST_SKIP() << "this device does not read pageable host memory (no HMM or ATS): Api.HostMemoryIsAClearError";
  }
  const std::size_t n = (1 << 20) + 3;
  const std::vector<int> h = random_input<int, plus>(n, 84);
  std::vector<int> want_scan(n), out(n, poison_value<int>());
  std::inclusive_scan(h.begin(), h.end(), want_scan.begin());
  EXPECT_EQ(cascade::reduce(cascade::cuda, h.data(), h.data() + n, 5), std::accumulate(h.begin(), h.end(), 5));
  cascade::inclusive_scan(cascade::cuda, h.data(), h.data() + n, out.data());
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(out, want_scan);
  const auto twice = thrust::make_transform_iterator(h.data(), doubled{});
  EXPECT_EQ(cascade::reduce(cascade::cuda, twice, twice + n, 0), 2 * std::accumulate(h.begin(), h.end(), 0));
}

// Memory the device can reach without being device memory passes the
// pointer check (the driver's one-attribute query, util/iterator.cuh) and
// gives the same results: page-locked host memory in and out, and managed
// memory.
TEST_F(Api, PinnedAndManagedMemoryAreAccepted) {
  const std::size_t n = (1 << 18) + 3;
  const std::vector<int> h = random_input<int, plus>(n, 83);
  const int want_sum = std::accumulate(h.begin(), h.end(), 5);
  std::vector<int> want_scan(n);
  std::inclusive_scan(h.begin(), h.end(), want_scan.begin());

  int* pinned_in = nullptr;
  int* pinned_out = nullptr;
  int* managed = nullptr;
  CASCADE_TEST_CUDA(cudaMallocHost(&pinned_in, n * sizeof(int)));
  CASCADE_TEST_CUDA(cudaMallocHost(&pinned_out, n * sizeof(int)));
  CASCADE_TEST_CUDA(cudaMallocManaged(&managed, n * sizeof(int)));
  std::copy(h.begin(), h.end(), pinned_in);
  std::copy(h.begin(), h.end(), managed);
  std::fill(pinned_out, pinned_out + n, poison_value<int>());

  EXPECT_EQ(cascade::reduce(cascade::cuda, pinned_in, pinned_in + n, 5), want_sum);
  EXPECT_EQ(cascade::reduce(cascade::cuda, managed, managed + n, 5), want_sum);
  cascade::inclusive_scan(cascade::cuda, pinned_in, pinned_in + n, pinned_out);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(std::equal(want_scan.begin(), want_scan.end(), pinned_out));

  CASCADE_TEST_CUDA(cudaFreeHost(pinned_in));
  CASCADE_TEST_CUDA(cudaFreeHost(pinned_out));
  CASCADE_TEST_CUDA(cudaFree(managed));
}

// A 256-byte value: its look-back status needs ~0.5 KB per 256-element tile.
struct wide {
  std::int64_t v[32];
};
struct wide_from_index {
  __host__ __device__ wide operator()(std::int64_t i) const {
    wide w{};
    w.v[0] = i;
    return w;
  }
};
struct wide_plus {
  __host__ __device__ wide operator()(const wide& a, const wide& b) const {
    wide r = a;
    r.v[0] += b.v[0];
    return r;
  }
};

TEST_F(Api, CudaFailureIsCudaErrorAndLeavesNothingBehind) {
  // 2^37 wide elements need ~277 GB of tile status: more than any GPU holds.
  auto values = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), wide_from_index{});
  const std::int64_t huge = std::int64_t(1) << 37;
  const std::size_t before = pool_bytes_in_use();
  try {
    cascade::inclusive_scan(cascade::cuda, values, values + huge, thrust::make_discard_iterator(), wide_plus{});
    ADD_FAILURE() << "no exception";
  } catch (const cascade::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("cudaMallocFromPoolAsync"), std::string::npos) << e.what();
  }
  // The context is still usable, and repeated calls leave no memory behind
  // (beyond the stream's persistent workspace, which does not grow).
  const auto d = to_device(random_input<int, plus>(1 << 22, 51));
  thrust::device_vector<int> out(1 << 22);
  auto calls = [&] {
    cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin());
    cascade::reduce(cascade::cuda, d.begin(), d.end(), 0);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  };
  calls();
  const std::size_t steady = pool_bytes_in_use();
  for (int i = 0; i < 5; ++i) calls();
  EXPECT_EQ(pool_bytes_in_use(), steady);
  EXPECT_LE(steady, before + (std::size_t(4) << 20));
}

// Values of 13 to 48 bytes publish their tile and chunk totals in 2 to 4
// tagged words (primitives/tile_status.cuh): an affine map (composed, so
// order matters) with K more lanes (summed), of 16, 20, 24 and 40 bytes.
template <class U, int K>
struct affine_lanes {
  U a, b, more[K];
  __host__ __device__ friend bool operator==(const affine_lanes& x, const affine_lanes& y) {
    bool same = x.a == y.a && x.b == y.b;
    for (int k = 0; k < K; ++k) same = same && x.more[k] == y.more[k];
    return same;
  }
  friend std::ostream& operator<<(std::ostream& os, const affine_lanes& x) { return os << "{" << x.a << "," << x.b << ",...}"; }
};
struct compose_lanes {
  template <class U, int K>
  __host__ __device__ affine_lanes<U, K> operator()(const affine_lanes<U, K>& f, const affine_lanes<U, K>& g) const {
    affine_lanes<U, K> r{U(g.a * f.a), U(g.a * f.b + g.b), {}};
    for (int k = 0; k < K; ++k) r.more[k] = U(f.more[k] + g.more[k]);
    return r;
  }
};

template <class T>
void check_tagged_words(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> h(n);
  for (T& x : h) {
    x.a = static_cast<decltype(x.a)>(rng() | 1);  // odd: the products never collapse to 0
    x.b = static_cast<decltype(x.b)>(rng());
    for (auto& m : x.more) m = static_cast<decltype(x.a)>(rng());
  }
  const auto d = to_device(h);
  thrust::device_vector<T> out(n), total(1);
  const T init = h[n / 2];
  poison(out);
  cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin(), compose_lanes{});
  EXPECT_EQ(to_host(out), host_scan(h, scan_kind::inclusive, T{}, compose_lanes{})) << sizeof(T) << " bytes, n " << n;
  poison(out);
  cascade::exclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin(), init, compose_lanes{});
  EXPECT_EQ(to_host(out), host_scan(h, scan_kind::exclusive, init, compose_lanes{})) << sizeof(T) << " bytes, n " << n;
  poison(total);
  cascade::reduce_into(cascade::cuda, d.begin(), d.end(), total.begin(), init, compose_lanes{});
  EXPECT_EQ(to_host(total)[0], host_fold(h, init, compose_lanes{})) << sizeof(T) << " bytes, n " << n;
}

TEST_F(Api, ValuesOfThirteenToFortyEightBytesTravelInTaggedWords) {
  static_assert(sizeof(affine_lanes<std::uint32_t, 2>) == 16 && sizeof(affine_lanes<std::uint32_t, 3>) == 20 &&
                sizeof(affine_lanes<std::uint64_t, 1>) == 24 && sizeof(affine_lanes<std::uint64_t, 3>) == 40);
  for (std::int64_t n : {std::int64_t(1000), std::int64_t(1 << 20) + 7, std::int64_t(1 << 22) + 5}) {
    check_tagged_words<affine_lanes<std::uint32_t, 2>>(n, 81);
    check_tagged_words<affine_lanes<std::uint32_t, 3>>(n, 82);
    check_tagged_words<affine_lanes<std::uint64_t, 1>>(n, 83);
    check_tagged_words<affine_lanes<std::uint64_t, 3>>(n, 84);
  }
}

// Captured into a graph, the single-launch algorithms take per-call
// temporaries cleared by a memset node, so every replay is right.
TEST_F(Api, GraphCaptureAndReplay) {
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::int64_t n = (1 << 22) + 3;
  const std::vector<affine> h = random_input<affine, compose>(n, 61);
  const auto d = to_device(h);
  thrust::device_vector<affine> out(n), total(1);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CASCADE_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cascade::inclusive_scan(cascade::cuda.on(stream), d.begin(), d.end(), out.begin(), compose{});
  cascade::reduce_into(cascade::cuda.on(stream), d.begin(), d.end(), total.begin(), affine{1, 0}, compose{});
  CASCADE_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  CASCADE_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const auto want = host_scan(h, scan_kind::inclusive, affine{}, compose{});
  for (int replay = 0; replay < 3; ++replay) {
    poison(out);
    poison(total);
    CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(to_host(out), want) << "replay " << replay;
    EXPECT_EQ(to_host(total)[0], host_fold(h, affine{1, 0}, compose{})) << "replay " << replay;
  }
  CASCADE_TEST_CUDA(cudaGraphExecDestroy(exec));
  CASCADE_TEST_CUDA(cudaGraphDestroy(graph));
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

// Many launches on one stream reuse its counters and status words without
// clearing them: results stay right call after call.
TEST_F(Api, BackToBackCallsReuseTheStreamWorkspace) {
  const std::vector<affine> h = random_input<affine, compose>((1 << 20) + 9, 71);
  const auto d = to_device(h);
  const auto want = host_scan(h, scan_kind::inclusive, affine{}, compose{});
  thrust::device_vector<affine> out(h.size());
  for (int call = 0; call < 20; ++call) {
    poison(out);
    cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin(), compose{});
    const affine r = cascade::reduce(cascade::cuda, d.begin(), d.end(), affine{1, 0}, compose{});
    ASSERT_EQ(r, want.back()) << "call " << call;
    ASSERT_EQ(to_host(out), want) << "call " << call;
  }
}

// A stream launches a (kernel, grid, block) it has launched before through a
// graph with the new call's arguments (util/launch.cuh): calls of one shape
// with other inputs, outputs, init and streams must each get their own result.
TEST_F(Api, RepeatedShapesTakeEachCallsArguments) {
  cudaStream_t streams[2];
  for (auto& s : streams) CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (std::int64_t n : {1000ll, 5000ll, 70001ll, 300007ll}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    for (int call = 0; call < 6; ++call) {
      const cudaStream_t stream = streams[call % 2];
      const std::vector<affine> h = random_input<affine, compose>(n, 500 + call);
      const auto d = to_device(h);
      thrust::device_vector<affine> out(n), total(1);
      poison(out);
      poison(total);
      const affine init{static_cast<std::uint32_t>(2 * call + 1), static_cast<std::uint32_t>(call)};
      const auto policy = cascade::cuda.on(stream);
      if (call % 3 == 2) {
        cascade::exclusive_scan(policy, d.begin(), d.end(), out.begin(), init, compose{});
      } else {
        cascade::inclusive_scan(policy, d.begin(), d.end(), out.begin(), compose{}, init);
      }
      cascade::reduce_into(policy, d.begin(), d.end(), total.begin(), init, compose{});
      const affine r = cascade::reduce(policy, d.begin(), d.end(), init, compose{});
      CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
      const auto kind = call % 3 == 2 ? scan_kind::exclusive : scan_kind::inclusive_init;
      ASSERT_EQ(to_host(out), host_scan(h, kind, init, compose{})) << "call " << call;
      ASSERT_EQ(to_host(total)[0], host_fold(h, init, compose{})) << "call " << call;
      ASSERT_EQ(r, host_fold(h, init, compose{})) << "call " << call;
    }
  }
  for (auto& s : streams) CASCADE_TEST_CUDA(cudaStreamDestroy(s));
}

// A reduce repeated with identical arguments launches its graph without
// updating them (util/launch.cuh), which works because the finishing block
// clears the chunk partials it reads (util/workspace.cuh). Data changed in
// place, another init, and sizes with other chunk counts (1025, 256, 192) on
// the same stream must each still get their own result.
template <class T, class Op>
void identical_calls_and_changing_chunk_counts(T init, T other_init, Op op, std::uint64_t seed) {
  const std::int64_t most = (std::int64_t(1) << 24) + 5;
  std::vector<T> h = random_input<T, Op>(most, seed);
  thrust::device_vector<T> d = to_device(h);
  thrust::device_vector<T> total(1);
  for (std::int64_t n : {most, (std::int64_t(1) << 20) + 3, std::int64_t(3) << 18, most, std::int64_t(1) << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> prefix(h.begin(), h.begin() + n);
    for (int call = 0; call < 3; ++call) {
      poison(total);
      cascade::reduce_into(cascade::cuda, d.begin(), d.begin() + n, total.begin(), init, op);
      ASSERT_EQ(to_host(total)[0], host_fold(prefix, init, op)) << "identical call " << call;
    }
    poison(total);
    cascade::reduce_into(cascade::cuda, d.begin(), d.begin() + n, total.begin(), other_init, op);
    ASSERT_EQ(to_host(total)[0], host_fold(prefix, other_init, op)) << "other init";
    // New values under the same pointer: the same arguments again.
    h = random_input<T, Op>(most, ++seed);
    thrust::copy(h.begin(), h.end(), d.begin());
    poison(total);
    cascade::reduce_into(cascade::cuda, d.begin(), d.begin() + n, total.begin(), other_init, op);
    ASSERT_EQ(to_host(total)[0], host_fold(std::vector<T>(h.begin(), h.begin() + n), other_init, op))
        << "data changed in place";
  }
}

TEST_F(Api, IdenticalCallsAndChangingChunkCounts) {
  identical_calls_and_changing_chunk_counts<int>(0, 7, plus{}, 81);
  identical_calls_and_changing_chunk_counts(affine{1, 0}, affine{3, 5}, compose{}, 91);
}

// ------------------------------------------- look-back progress ----------
// Small tiles (progress_tuning.cuh: 64 threads x 2 items in registers, or
// x 8 in shared memory), so that far more blocks than can be resident are
// launched, and a short wait before a silent predecessor's tile is recomputed.

// Out of place and in place: in place, a recomputed predecessor's inputs
// must still be inputs (decoupled_lookback.cuh says why they are). In place
// also through a transform iterator over the output, whose base the engine
// compares (as it compares a segmented scan's values with its output). Both
// prefix rules, the textbook's and the reproducible one (the automatic scan
// of non-integral values), and for integers the automatic scan's, either of
// the two by architecture and grid (the progress tunings take its
// reproducible branch on the portable path, the textbook's on sm_90).
struct same_value {
  template <class T>
  __host__ __device__ T operator()(const T& x) const { return x; }
};
enum class placement { out_of_place, in_place, in_place_through_iterator };

template <class Tuning, class Rule, class T, class Op>
void check_lookback_rule(const std::vector<T>& h, const thrust::device_vector<T>& d, Op op) {
  const std::size_t n = h.size();
  thrust::device_vector<T> out(n);
  for (const placement where : {placement::out_of_place, placement::in_place, placement::in_place_through_iterator}) {
    for (const bool exclusive : {false, true}) {
      if (where == placement::out_of_place) {
        poison(out);
      } else {
        thrust::copy(d.begin(), d.end(), out.begin());
      }
      const T init = h[n / 2];
      const cascade::detail::scan_mode<T> mode{init, exclusive, exclusive};
      const T* in = where == placement::out_of_place ? d.data().get() : out.data().get();
      if (where == placement::in_place_through_iterator) {
        cascade::detail::decoupled_lookback::run_tuned<Tuning, Rule>(thrust::make_transform_iterator(in, same_value{}),
                                                                     static_cast<std::int64_t>(n), out.data().get(),
                                                                     mode, op, nullptr);
      } else {
        cascade::detail::decoupled_lookback::run_tuned<Tuning, Rule>(in, static_cast<std::int64_t>(n),
                                                                     out.data().get(), mode, op, nullptr);
      }
      CASCADE_TEST_CUDA(cudaDeviceSynchronize());
      const auto want = host_scan(h, exclusive ? scan_kind::exclusive : scan_kind::inclusive, init, op);
      ASSERT_EQ(to_host(out), want) << (exclusive ? "exclusive" : "inclusive") << ", placement "
                                    << static_cast<int>(where);
    }
  }
}

template <class Tuning, class T, class Op>
void check_lookback_scan(std::size_t n, Op op, std::uint64_t seed) {
  namespace lookback = cascade::detail::decoupled_lookback;
  const std::vector<T> h = random_input<T, Op>(n, seed);
  const auto d = to_device(h);
  {
    SCOPED_TRACE("textbook rule");
    check_lookback_rule<Tuning, lookback::nearest_prefix>(h, d, op);
  }
  {
    SCOPED_TRACE("reproducible rule");
    check_lookback_rule<Tuning, lookback::group_prefix>(h, d, op);
  }
  if constexpr (std::is_integral_v<T>) {
    SCOPED_TRACE("the automatic scan's rule of integers");
    check_lookback_rule<Tuning, lookback::exact_prefix>(h, d, op);
  }
}

// Block b scans the last tile but b: the blocks the hardware starts first
// wait for predecessors that cannot start until they finish. The scan still
// completes, and right, for each status layout (4-, 8- and 12-byte values).
TEST_F(Api, LookbackProgressDoesNotDependOnBlockOrder) {
  int sms = 0;
  CASCADE_TEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::size_t tiles = std::size_t(sms) * 32 * 3;  // 32: the most blocks an SM holds
  const std::size_t n = tiles * 128 - 37;
  check_lookback_scan<small_tiles<int, true, 4>, int>(n, plus{}, 81);
  check_lookback_scan<small_tiles<affine, true, 4>, affine>(n, compose{}, 82);
  check_lookback_scan<small_tiles<triple, true, 4>, triple>(n, triple_plus{}, 83);
  check_lookback_scan<small_shared_tiles<int, true, 4>, int>(n, plus{}, 87);
  check_lookback_scan<small_shared_tiles<affine16, true, 4>, affine16>(n, compose16{}, 88);
  // Grids of fewer than 500 tiles, where the reproducible rule finds the
  // prefixes with the whole block (every warp waits for some predecessors).
  check_lookback_scan<small_tiles<affine, true, 4>, affine>(450 * 128 - 37, compose{}, 92);
  check_lookback_scan<small_shared_tiles<affine16, true, 4>, affine16>(450 * 512 - 37, compose16{}, 93);
}

// A predecessor's aggregate recomputed by the waiting warp equals the one it
// publishes: with a single poll, most look-backs recompute most of a window.
TEST_F(Api, LookbackRecomputedAggregatesAreExact) {
  check_lookback_scan<small_tiles<int, false, 1>, int>(2'000'003, plus{}, 84);
  check_lookback_scan<small_tiles<affine, false, 1>, affine>(1'000'003, compose{}, 85);
  check_lookback_scan<small_tiles<triple, false, 1>, triple>(300'007, triple_plus{}, 86);
  check_lookback_scan<small_shared_tiles<int, false, 1>, int>(2'000'003, plus{}, 89);
  check_lookback_scan<small_shared_tiles<affine16, false, 1>, affine16>(1'000'003, compose16{}, 90);
  // The whole block's rule (grids of fewer than 500 tiles), every warp recomputing.
  check_lookback_scan<small_tiles<affine, false, 1>, affine>(300 * 128 + 5, compose{}, 94);
  check_lookback_scan<small_shared_tiles<affine16, false, 1>, affine16>(300 * 512 + 5, compose16{}, 95);
}

// Tiles kept in shared memory (4- and 8-byte values, 16-byte aligned arrays, N from
// the shape's threshold on): last tiles of every length the bulk
// copies split differently (whole 16-byte units, then 1..3 values, or none),
// in and out of place; and misaligned arrays, which take register tiles.
template <class T, class Op, template <class> class Shape = cascade::detail::lookback_scan_shared_tuning>
void check_shared_tiles(std::uint64_t seed) {
  using tuning = Shape<T>;
  const std::int64_t tile = std::int64_t(tuning::block_threads) * tuning::items_per_thread;
  const std::int64_t whole = (tuning::min_items + tile - 1) / tile * tile;
  for (std::int64_t n : {whole, whole + 1, whole + 3, whole + 4, whole + 5, whole + tile - 1, 7 * whole + 2}) {
    check_scans<T, Op>(cascade::cuda, n, seed++);
    if (::testing::Test::HasFailure()) return;
  }
  SCOPED_TRACE("misaligned");
  const std::int64_t n = whole + 5;
  const std::vector<T> h = random_input<T, Op>(n + 1, seed);
  const auto d = to_device(h);
  thrust::device_vector<T> out(n + 1);
  poison(out);
  cascade::inclusive_scan(cascade::cuda, d.begin() + 1, d.end(), out.begin() + 1, Op{});
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  const auto got = to_host(out);
  expect_scan_equal(std::vector<T>(h.begin() + 1, h.end()), std::vector<T>(got.begin() + 1, got.end()),
                    thrust::device_vector<T>(d.begin() + 1, d.end()), scan_kind::inclusive, T{}, Op{});
}
TEST_F(Api, SharedMemoryTilesAtEveryTailLength) {
  check_shared_tiles<int, plus>(91);
  check_shared_tiles<float, maximum>(101);
  check_shared_tiles<affine16, compose16>(111);
  check_shared_tiles<std::int64_t, plus>(121);
  check_shared_tiles<double, plus>(131);
  check_shared_tiles<affine, compose>(141);
}
// The 256-thread shape, from 2^21 items: first the shape itself at a few
// tiles, both rules, every placement (sizes the sanitizers can run), then
// through the public calls where CASCADE_TEST_MAX_SIZE allows.
TEST_F(Api, WideSharedMemoryTilesAtEveryTailLength) {
  using cascade::detail::lookback_scan_wide_tuning;
  check_lookback_scan<lookback_scan_wide_tuning<int>, int>(3 * 256 * 40 + 5, plus{}, 191);
  check_lookback_scan<lookback_scan_wide_tuning<std::int64_t>, std::int64_t>(4 * 256 * 20 - 1, plus{}, 192);
  if (max_test_size() < lookback_scan_wide_tuning<int>::min_items) return;
  check_shared_tiles<int, plus, lookback_scan_wide_tuning>(151);
  check_shared_tiles<float, maximum, lookback_scan_wide_tuning>(161);
  check_shared_tiles<std::int64_t, plus, lookback_scan_wide_tuning>(171);
  check_shared_tiles<double, plus, lookback_scan_wide_tuning>(181);
}

// ------------------------------------------------------ beyond 2^31 ---------
TEST_F(Api, BeyondTwoToThe31Elements) {
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  thrust::counting_iterator<std::int64_t> count(0);
  const std::int64_t m = (std::int64_t(3) << 30) + 3;  // m^2/2 fits in int64
  EXPECT_EQ(cascade::reduce(cascade::cuda, count, count + m, std::int64_t{0}), m * ((m - 1) / 2));  // m odd

  thrust::device_vector<std::int8_t> data(n);
  thrust::tabulate(data.begin(), data.end(), hash_byte{});
  EXPECT_EQ(cascade::reduce(cascade::cuda, data.begin(), data.end(), std::int8_t{3}),
            cub_reduce(data, std::int8_t{3}, plus{}));
  EXPECT_EQ(cascade::reduce(cascade::cuda, data.begin(), data.end(), std::int8_t{-128}, maximum{}),
            cub_reduce(data, std::int8_t{-128}, maximum{}));

  // CUB first (out of place), then cascade in place; compared on the device.
  thrust::device_vector<std::int8_t> want(n);
  std::size_t bytes = 0;
  CASCADE_TEST_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, data.data().get(), want.data().get(), n));
  {
    thrust::device_vector<char> temp(bytes);
    CASCADE_TEST_CUDA(cub::DeviceScan::InclusiveSum(temp.data().get(), bytes, data.data().get(), want.data().get(), n));
  }
  cascade::inclusive_scan(cascade::cuda, data.begin(), data.end(), data.begin());
  EXPECT_TRUE(thrust::equal(data.begin(), data.end(), want.begin()));
}

}  // namespace
}  // namespace cascade_test
