// The std family on the GPU: transform_reduce (three forms), the transform
// scans (in place too), min/max/minmax_element (ties, NaN, comparators), on
// cascade::cuda and cuda.on(stream), raw / device_vector / fancy iterators,
// misaligned inputs, empty ranges, errors, and one size beyond 2^31.
// References: CUB over an independent transform iterator for integer
// transform_reduce, a float64 host sum for floating point, host folds for
// non-commutative operators, and the standard library on a host copy for the
// scans and the *_element algorithms (their ties and NaNs are std's).

#include <cuda/std/version>  // CCCL's configuration: _CCCL_SUPPRESS_DEPRECATED_PUSH

// thrust::constant_iterator is deprecated in CCCL 3.6 and still accepted: the
// tests pass it as users' code does. The library's templates that it
// instantiates are inside the region too (the warning points at them).
_CCCL_SUPPRESS_DEPRECATED_PUSH

#include "suites.cuh"

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/tabulate.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <thread>

namespace cascade_test {
namespace {

class Family : public gpu_test {};

struct stream_guard {
  cudaStream_t s = nullptr;
  stream_guard() { CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_guard() { (void)cudaStreamDestroy(s); }
};

// Capped by CASCADE_TEST_MAX_SIZE (common.cuh), for the sanitizers.
const std::vector<std::int64_t> kSizes = capped({1, 2, 3, 31, 33, 1021, 4097, 65537, 100003, (1 << 20) + 1, (1 << 24) + 7});

// x[i] * y[i] read through a counting iterator: the reference's own path.
template <class T>
struct product_at {
  const T* x;
  const T* y;
  __host__ __device__ T operator()(std::int64_t i) const { return x[i] * y[i]; }
};
template <class T>
T cub_inner_product(const T* x, const T* y, std::int64_t n, T init) {
  auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), product_at<T>{x, y});
  thrust::device_vector<T> out(1);
  std::size_t bytes = 0;
  CASCADE_TEST_CUDA(cub::DeviceReduce::Reduce(nullptr, bytes, in, out.data().get(), n, cuda::std::plus<>{}, init));
  thrust::device_vector<char> temp(bytes);
  CASCADE_TEST_CUDA(cub::DeviceReduce::Reduce(temp.data().get(), bytes, in, out.data().get(), n, cuda::std::plus<>{}, init));
  return out[0];
}

template <class T>
void check_inner_product(std::int64_t n, int offset_x, int offset_y, cudaStream_t stream) {
  SCOPED_TRACE("n " + std::to_string(n) + ", offsets " + std::to_string(offset_x) + "/" + std::to_string(offset_y));
  const auto hx = random_input<T, plus>(n + 4, n + 1), hy = random_input<T, plus>(n + 4, n + 2);
  const auto dx = to_device(hx), dy = to_device(hy);
  const T* x = dx.data().get() + offset_x;
  const T* y = dy.data().get() + offset_y;
  const auto policy = cascade::cuda.on(stream);
  const T got = cascade::transform_reduce(policy, x, x + n, y, T{3});
  if constexpr (std::is_integral_v<T>) {
    // Exact on the host (wrapping, as the GPU's integers do), and CUB's.
    using U = std::make_unsigned_t<T>;
    U want = 3;
    for (std::int64_t i = 0; i < n; ++i) want += U(hx[i + offset_x]) * U(hy[i + offset_y]);
    EXPECT_EQ(got, T(want));
    EXPECT_EQ(cub_inner_product(x, y, n, T{3}), T(want)) << "the CUB reference";
    // Again: a wrong answer that comes and goes is a race.
    EXPECT_EQ(cascade::transform_reduce(policy, x, x + n, y, T{3}), T(want)) << "the second call";
  } else {
    double want = 3, scale = 3;
    for (std::int64_t i = 0; i < n; ++i) {
      want += double(hx[i + offset_x]) * double(hy[i + offset_y]);
      scale += std::fabs(double(hx[i + offset_x]) * double(hy[i + offset_y]));
    }
    EXPECT_TRUE(close(got, want, scale, reduce_depth<plus>(n) + 1));
  }
}

template <class T>
void check_inner_products() {
  stream_guard stream;
  for (std::int64_t n : kSizes) {
    check_inner_product<T>(n, 0, 0, nullptr);
    check_inner_product<T>(n, 1, 1, stream.s);  // misaligned together: vectors after a head
    check_inner_product<T>(n, 1, 0, stream.s);  // misaligned apart: item by item
  }
}
TEST_F(Family, InnerProductInt32) { check_inner_products<std::int32_t>(); }
TEST_F(Family, InnerProductInt64) { check_inner_products<std::int64_t>(); }
TEST_F(Family, InnerProductFloat) { check_inner_products<float>(); }
TEST_F(Family, InnerProductDouble) { check_inner_products<double>(); }

struct pair_to_affine {
  __host__ __device__ affine operator()(std::uint32_t a, std::uint32_t b) const { return {a | 1u, b}; }
};
struct to_affine {
  __host__ __device__ affine operator()(std::uint32_t x) const { return {x | 1u, x ^ 0x9e3779b9u}; }
};
struct square {
  __host__ __device__ std::int64_t operator()(std::int64_t x) const { return x * x; }
};
struct difference {
  __host__ __device__ std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a - b; }
};

TEST_F(Family, TransformReduceOperatorsAndNonCommutativeOrder) {
  stream_guard stream;
  for (std::int64_t n : kSizes) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto hu = random_input<std::uint32_t, bit_xor>(n, n + 3), hv = random_input<std::uint32_t, bit_xor>(n, n + 4);
    const auto du = to_device(hu), dv = to_device(hv);
    const affine init{3, 4};
    affine want = init;
    for (std::int64_t i = 0; i < n; ++i) want = compose{}(want, pair_to_affine{}(hu[i], hv[i]));
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda, du.begin(), du.end(), dv.begin(), init, compose{}, pair_to_affine{}),
              want);
    want = init;
    for (std::int64_t i = 0; i < n; ++i) want = compose{}(want, to_affine{}(hu[i]));
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda.on(stream.s), du.begin(), du.end(), init, compose{}, to_affine{}),
              want);

    const auto hx = random_input<std::int64_t, plus>(n, n + 5), hy = random_input<std::int64_t, plus>(n, n + 6);
    const auto dx = to_device(hx), dy = to_device(hy);
    std::int64_t most = std::numeric_limits<std::int64_t>::min(), squares = -4;
    for (std::int64_t i = 0; i < n; ++i) most = std::max(most, hx[i] - hy[i]), squares += hx[i] * hx[i];
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda, dx.begin(), dx.end(), dy.begin(),
                                        std::numeric_limits<std::int64_t>::min(), maximum{}, difference{}),
              most);
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda, dx.data().get(), dx.data().get() + n, std::int64_t{-4}, plus{},
                                        square{}),
              squares);
  }
}

TEST_F(Family, TransformReduceOverFancyIterators) {
  const std::int64_t n = (1 << 22) + 3;
  thrust::counting_iterator<std::int64_t> count(0);
  thrust::constant_iterator<std::int64_t> two(2);
  EXPECT_EQ(cascade::transform_reduce(cascade::cuda, count, count + n, two, std::int64_t{1}), 1 + n * (n - 1));
  auto squares = thrust::make_transform_iterator(count, square{});
  std::int64_t want = 0;
  for (std::int64_t i = 0; i < n; ++i) want += (i * i) * 2;
  EXPECT_EQ(cascade::transform_reduce(cascade::cuda, squares, squares + n, two, std::int64_t{0}), want);
  const auto d = to_device(random_input<std::int64_t, plus>(n, 9));
  const auto h = to_host(d);
  want = 0;
  for (std::int64_t i = 0; i < n; ++i) want += h[i] * i;
  EXPECT_EQ(cascade::transform_reduce(cascade::cuda, d.begin(), d.end(), count, std::int64_t{0}), want);
}

// A 256-byte accumulator: transform_reduce_into with a large value type.
struct spread256 {
  std::int64_t v[32];
};
struct to_spread256 {
  __host__ __device__ spread256 operator()(std::int64_t x) const {
    spread256 s;
    for (int k = 0; k < 32; ++k) s.v[k] = x * (k + 1) - k;
    return s;
  }
};
struct add256 {
  __host__ __device__ spread256 operator()(const spread256& a, const spread256& b) const {
    spread256 r;
    for (int k = 0; k < 32; ++k) r.v[k] = a.v[k] + b.v[k];
    return r;
  }
};

// The stream-ordered forms: each result written in stream order into a
// poisoned output, as transform_reduce returns it and as the host computes it;
// an empty range writes init; a capture replays them; a non-commutative
// operator, fancy iterators, a 256-byte value and several threads. (Their
// errors: below.)
TEST_F(Family, TransformReduceIntoWritesInStreamOrder) {
  stream_guard stream;
  const auto policy = cascade::cuda.on(stream.s);
  for (std::int64_t n : kSizes) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto hx = random_input<std::int64_t, plus>(n + 1, n + 7), hy = random_input<std::int64_t, plus>(n + 1, n + 8);
    const auto dx = to_device(hx), dy = to_device(hy);
    std::int64_t dot = 3, most = std::numeric_limits<std::int64_t>::min(), squares = -4;
    for (std::int64_t i = 0; i < n; ++i) {
      dot += hx[i] * hy[i];
      most = std::max(most, hx[i] - hy[i]);
      squares += hx[i + 1] * hx[i + 1];
    }
    thrust::device_vector<std::int64_t> out(3);
    poison(out);
    const std::int64_t* x = dx.data().get();
    cascade::transform_reduce_into(policy, dx.begin(), dx.begin() + n, dy.begin(), out.begin(), std::int64_t{3});
    cascade::transform_reduce_into(policy, x, x + n, dy.begin(), out.data().get() + 1,
                                   std::numeric_limits<std::int64_t>::min(), maximum{}, difference{});
    cascade::transform_reduce_into(policy, x + 1, x + 1 + n, out.begin() + 2, std::int64_t{-4}, plus{}, square{});
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream.s));
    EXPECT_EQ(to_host(out), (std::vector<std::int64_t>{dot, most, squares}));
    EXPECT_EQ(cascade::transform_reduce(policy, x + 1, x + 1 + n, std::int64_t{-4}, plus{}, square{}), squares);
  }

  thrust::device_vector<float> d(100, 1.0f);
  thrust::device_vector<float> out(1);
  poison(out);
  cascade::transform_reduce_into(cascade::cuda, d.begin(), d.begin(), d.begin(), out.begin(), 17.0f);
  EXPECT_EQ(out[0], 17.0f) << "an empty range writes init";

  // A non-commutative operator (composition of affine maps: order kept), and
  // fancy iterators for both inputs.
  {
    const std::int64_t n = 100003;
    const auto hu = random_input<std::uint32_t, bit_xor>(n, 11);
    const auto du = to_device(hu);
    affine want{3, 4};
    for (std::uint32_t u : hu) want = compose{}(want, to_affine{}(u));
    thrust::device_vector<affine> maps(1);
    poison(maps);
    cascade::transform_reduce_into(policy, du.begin(), du.end(), maps.begin(), affine{3, 4}, compose{}, to_affine{});
    thrust::counting_iterator<std::int64_t> count(0);
    thrust::device_vector<std::int64_t> squares(1);
    poison(squares);
    cascade::transform_reduce_into(policy, count, count + n, count, squares.begin(), std::int64_t{0});
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream.s));
    EXPECT_EQ(affine(maps[0]), want);
    EXPECT_EQ(std::int64_t(squares[0]), (n - 1) * n * (2 * n - 1) / 6);
  }

  // A 256-byte value type, into a poisoned output.
  {
    const std::int64_t n = 100003;
    const auto hx = random_input<std::int64_t, plus>(n, 13);
    const auto dx = to_device(hx);
    spread256 want{};
    for (std::int64_t x : hx) want = add256{}(want, to_spread256{}(x));
    thrust::device_vector<spread256> got(1);
    poison(got);
    cascade::transform_reduce_into(policy, dx.begin(), dx.end(), got.begin(), spread256{}, add256{}, to_spread256{});
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream.s));
    const spread256 g = got[0];
    for (int k = 0; k < 32; ++k) EXPECT_EQ(g.v[k], want.v[k]) << "field " << k;
  }

  // Four host threads sharing the stream, each into its own slot.
  {
    const auto hx = random_input<std::int64_t, plus>(65537, 12);
    const auto dx = to_device(hx);
    std::int64_t dot = 0;
    for (std::int64_t v : hx) dot += v * v;
    thrust::device_vector<std::int64_t> slots(4 * 20);
    poison(slots);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int k = 0; k < 20; ++k) {
          cascade::transform_reduce_into(policy, dx.begin(), dx.end(), dx.begin(), slots.begin() + (t * 20 + k),
                                         std::int64_t{0});
        }
      });
    }
    for (auto& th : threads) th.join();
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream.s));
    EXPECT_EQ(to_host(slots), std::vector<std::int64_t>(4 * 20, dot));
  }

  // Captured, then replayed twice into a poisoned output.
  const auto hx = random_input<float, plus>(100003, 5);
  const auto dx = to_device(hx);
  double want = 0, scale = 0;
  for (float v : hx) want += double(v) * v, scale += double(v) * v;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CASCADE_TEST_CUDA(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal));
  cascade::transform_reduce_into(policy, dx.begin(), dx.end(), dx.begin(), out.begin(), 0.0f);
  CASCADE_TEST_CUDA(cudaStreamEndCapture(stream.s, &graph));
  CASCADE_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    poison(out);
    CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream.s));
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream.s));
    EXPECT_TRUE(close(float(out[0]), want, scale, reduce_depth<plus>(hx.size()) + 1)) << "replay " << replay;
  }
  CASCADE_TEST_CUDA(cudaGraphExecDestroy(exec));
  CASCADE_TEST_CUDA(cudaGraphDestroy(graph));
}

// ---------------------------------------------------------------------------
// Transform scans against std on a host copy, out of place and in place.
// ---------------------------------------------------------------------------
struct twist_map {
  __host__ __device__ affine operator()(const affine& f) const { return affine{f.a | 1u, f.b ^ 7u}; }
};
TEST_F(Family, TransformScansMatchStd) {
  stream_guard stream;
  for (std::int64_t n : kSizes) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto h = random_input<std::int64_t, plus>(n, n + 7);
    const auto d = to_device(h);
    thrust::device_vector<std::int64_t> out(n);
    std::vector<std::int64_t> want(n);

    poison(out);
    EXPECT_EQ(cascade::transform_inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin(), plus{}, square{}),
              out.end());
    std::transform_inclusive_scan(h.begin(), h.end(), want.begin(), std::plus<>{}, square{});
    EXPECT_EQ(to_host(out), want);

    poison(out);
    cascade::transform_inclusive_scan(cascade::cuda.on(stream.s), d.begin(), d.end(), out.begin(), maximum{}, square{},
                                      std::int64_t{500});
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream.s));
    std::transform_inclusive_scan(h.begin(), h.end(), want.begin(), [](auto a, auto b) { return std::max(a, b); },
                                  square{}, std::int64_t{500});
    EXPECT_EQ(to_host(out), want);

    poison(out);
    EXPECT_EQ(cascade::transform_exclusive_scan(cascade::cuda, d.data().get(), d.data().get() + n, out.data().get(),
                                                std::int64_t{9}, plus{}, square{}),
              out.data().get() + n);
    std::transform_exclusive_scan(h.begin(), h.end(), want.begin(), std::int64_t{9}, std::plus<>{}, square{});
    EXPECT_EQ(to_host(out), want);

    // In place, non-commutative.
    const auto hu = random_input<std::uint32_t, bit_xor>(n, n + 8);
    std::vector<affine> maps(n), expected(n);
    for (std::int64_t i = 0; i < n; ++i) maps[i] = affine{hu[i], hu[i] >> 3};
    const twist_map twist{};
    auto inout = to_device(maps);
    cascade::transform_inclusive_scan(cascade::cuda, inout.begin(), inout.end(), inout.begin(), compose{}, twist);
    std::transform_inclusive_scan(maps.begin(), maps.end(), expected.begin(), compose{}, twist);
    EXPECT_EQ(to_host(inout), expected);
    inout = to_device(maps);
    cascade::transform_exclusive_scan(cascade::cuda.on(stream.s), inout.begin(), inout.end(), inout.begin(),
                                      affine{5, 6}, compose{}, twist);
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream.s));
    std::transform_exclusive_scan(maps.begin(), maps.end(), expected.begin(), affine{5, 6}, compose{}, twist);
    EXPECT_EQ(to_host(inout), expected);
  }
}

// ---------------------------------------------------------------------------
// min/max/minmax_element against std on a host copy.
// ---------------------------------------------------------------------------
// A small alphabet (ties everywhere), and NaNs for floating types: per
// million, so that large inputs hold a few and small ones often none.
template <class T>
std::vector<T> tied_input(std::int64_t n, std::uint64_t seed, int nan_per_million) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      if (int(rng() % 1000000) < nan_per_million) {
        x = std::numeric_limits<T>::quiet_NaN();
        continue;
      }
    }
    x = static_cast<T>(int(rng() % 1001) - 500);
  }
  return v;
}

struct abs_less {
  template <class T>
  __host__ __device__ bool operator()(T x, T y) const { return (x < 0 ? -x : x) < (y < 0 ? -y : y); }
};

template <class It, class HostIt, class Policy, class Comp>
void expect_elements_like_std(const Policy& policy, It first, It last, HostIt h, Comp comp) {
  const auto n = last - first;
  EXPECT_EQ(cascade::min_element(policy, first, last, comp) - first, std::min_element(h, h + n, comp) - h) << "min";
  EXPECT_EQ(cascade::max_element(policy, first, last, comp) - first, std::max_element(h, h + n, comp) - h) << "max";
  const auto got = cascade::minmax_element(policy, first, last, comp);
  const auto want = std::minmax_element(h, h + n, comp);
  EXPECT_EQ(got.first - first, want.first - h) << "minmax: min";
  EXPECT_EQ(got.second - first, want.second - h) << "minmax: max";
}

template <class T>
void check_elements(const std::vector<std::int64_t>& sizes = kSizes,
                    std::initializer_list<int> nan_rates = {0, 20, 300000}) {
  stream_guard stream;
  for (std::int64_t n : sizes) {
    for (int nan_per_million : nan_rates) {
      if (!std::is_floating_point_v<T> && nan_per_million > 0) continue;
      SCOPED_TRACE("n " + std::to_string(n) + ", NaN per million " + std::to_string(nan_per_million));
      const auto h = tied_input<T>(n + 3, n + nan_per_million, nan_per_million);
      const auto d = to_device(h);
      expect_elements_like_std(cascade::cuda, d.begin(), d.begin() + n, h.begin(), cuda::std::less<>{});
      // Misaligned raw pointers on a stream: the reduce's head path.
      const T* p = d.data().get() + 3;
      expect_elements_like_std(cascade::cuda.on(stream.s), p, p + n, h.begin() + 3, cuda::std::less<>{});
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>) {
        expect_elements_like_std(cascade::cuda, d.begin(), d.begin() + n, h.begin(), cuda::std::greater<>{});
      }
      if constexpr (std::is_same_v<T, std::int32_t>) {
        expect_elements_like_std(cascade::cuda, d.begin(), d.begin() + n, h.begin(), abs_less{});
      }
    }
  }
}
TEST_F(Family, ElementsInt32) { check_elements<std::int32_t>(); }
TEST_F(Family, ElementsInt64) { check_elements<std::int64_t>(); }
TEST_F(Family, ElementsFloat) { check_elements<float>(); }
TEST_F(Family, ElementsDouble) { check_elements<double>(); }

// 8-byte values in more chunks than the finishing block reads in one pass
// (up to 3072: 2731 at 2^25 + 5, 3072 at 2^26 + 1), aligned and not.
const std::vector<std::int64_t> kManyChunks = capped({(std::int64_t(1) << 25) + 5, (std::int64_t(1) << 26) + 1});
TEST_F(Family, ElementsOfManyChunksInt64) { check_elements<std::int64_t>(kManyChunks, {0}); }
TEST_F(Family, ElementsOfManyChunksDouble) { check_elements<double>(kManyChunks, {0, 20}); }

TEST_F(Family, ElementsDefaultComparatorAndShortNaNPatterns) {
  // -0 and +0 are equivalent under less: the earlier wins the min, the later the max.
  const float alphabet[4] = {0.0f, 1.0f, std::numeric_limits<float>::quiet_NaN(), -0.0f};
  thrust::device_vector<float> d(7);
  for (int n = 1; n <= 7; ++n) {
    int patterns = 1;
    for (int k = 0; k < n; ++k) patterns *= 4;
    for (int p = 0; p < patterns; ++p) {
      std::vector<float> h(n);
      for (int k = 0, q = p; k < n; ++k, q /= 4) h[k] = alphabet[q % 4];
      CASCADE_TEST_CUDA(cudaMemcpy(d.data().get(), h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      SCOPED_TRACE("pattern " + std::to_string(p) + " of length " + std::to_string(n));
      const auto b = d.begin(), e = d.begin() + n;
      EXPECT_EQ(cascade::min_element(cascade::cuda, b, e) - b, std::min_element(h.begin(), h.end()) - h.begin());
      EXPECT_EQ(cascade::max_element(cascade::cuda, b, e) - b, std::max_element(h.begin(), h.end()) - h.begin());
      const auto got = cascade::minmax_element(cascade::cuda, b, e);
      const auto want = std::minmax_element(h.begin(), h.end());
      EXPECT_EQ(got.first - b, want.first - h.begin());
      EXPECT_EQ(got.second - b, want.second - h.begin());
      if (HasFailure()) return;
    }
  }
}

struct wobble {
  __host__ __device__ std::int32_t operator()(std::int64_t i) const {
    return static_cast<std::int32_t>((static_cast<std::uint64_t>(i) * 2654435761u) % 1000003);
  }
};
TEST_F(Family, ElementsOverFancyIterators) {
  const std::int64_t n = (1 << 21) + 5;
  const auto values = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), wobble{});
  std::vector<std::int32_t> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = wobble{}(i);
  expect_elements_like_std(cascade::cuda, values, values + n, h.begin(), cuda::std::less<>{});
  thrust::counting_iterator<std::int64_t> count(0);
  EXPECT_EQ(cascade::min_element(cascade::cuda, count, count + n) - count, 0);
  EXPECT_EQ(cascade::max_element(cascade::cuda, count, count + n) - count, n - 1);
  thrust::constant_iterator<int> same(7);
  const auto mm = cascade::minmax_element(cascade::cuda, same, same + n);
  EXPECT_EQ(mm.first - same, 0);       // the first smallest
  EXPECT_EQ(mm.second - same, n - 1);  // the last largest
  EXPECT_EQ(cascade::max_element(cascade::cuda, same, same + n) - same, 0);  // the first largest
}

TEST_F(Family, EmptyRangesErrorsAndHostMemory) {
  thrust::device_vector<int> d(10, 1);
  thrust::device_vector<int> out(10);
  poison(out);
  const auto before = to_host(out);
  EXPECT_EQ(cascade::min_element(cascade::cuda, d.begin(), d.begin()), d.begin());
  EXPECT_EQ(cascade::max_element(cascade::cuda, d.end(), d.end()), d.end());
  EXPECT_EQ(cascade::minmax_element(cascade::cuda, d.end(), d.end()), std::make_pair(d.end(), d.end()));
  EXPECT_EQ(cascade::transform_reduce(cascade::cuda, d.begin(), d.begin(), d.begin(), 17), 17);
  EXPECT_EQ(cascade::transform_inclusive_scan(cascade::cuda, d.begin(), d.begin(), out.begin(), plus{}, square{}),
            out.begin());
  EXPECT_THROW(cascade::min_element(cascade::cuda, d.end(), d.begin()), std::invalid_argument);
  EXPECT_THROW(cascade::minmax_element(cascade::cuda, d.end(), d.begin()), std::invalid_argument);
  EXPECT_THROW(cascade::transform_reduce(cascade::cuda, d.end(), d.begin(), d.begin(), 0), std::invalid_argument);
  EXPECT_THROW(cascade::transform_exclusive_scan(cascade::cuda, d.end(), d.begin(), out.begin(), 0, plus{}, square{}),
               std::invalid_argument);
  EXPECT_THROW(cascade::transform_reduce_into(cascade::cuda, d.end(), d.begin(), out.begin(), 0, plus{}, square{}),
               std::invalid_argument);
  std::vector<int> host(10, 1);
  EXPECT_THROW(cascade::transform_reduce_into(cascade::cuda, d.begin(), d.end(), d.begin(), host.data(), 0),
               std::invalid_argument);
  EXPECT_THROW(cascade::max_element(cascade::cuda, host.data(), host.data() + 10), std::invalid_argument);
  EXPECT_THROW(cascade::transform_reduce(cascade::cuda, d.data().get(), d.data().get() + 10, host.data(), 0),
               std::invalid_argument);
  EXPECT_THROW(cascade::transform_inclusive_scan(cascade::cuda, host.data(), host.data() + 10, out.begin(), plus{},
                                                 square{}),
               std::invalid_argument);
  EXPECT_EQ(to_host(out), before);
}

// ---------------------------------------------------------------------------
// Beyond 2^31 items: computed inputs, and one two-array read from memory.
// ---------------------------------------------------------------------------
struct planted {
  std::int64_t n;
  std::int64_t min_at;
  __host__ __device__ std::int32_t operator()(std::int64_t i) const {
    if (i == min_at || i == min_at + 5) return -1;  // the smallest, tied
    if (i == 5 || i == n - 3) return 2000000;       // the largest, tied
    return wobble{}(i);
  }
};
struct hash_byte {
  __host__ __device__ std::int8_t operator()(std::int64_t i) const {
    std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return static_cast<std::int8_t>(x * 0xbf58476d1ce4e5b9ull >> 56);
  }
};
struct widen_product {
  __host__ __device__ std::int64_t operator()(std::int8_t a, std::int8_t b) const { return std::int64_t(a) * b; }
};
struct widen_product_at {
  const std::int8_t* x;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return std::int64_t(x[i]) * x[i]; }
};

TEST_F(Family, BeyondTwoToThe31Elements) {
  // Past 2^31 (32-bit positions) and past 2^32 (64-bit positions).
  for (const int log2 : {31, 32}) {
    const std::int64_t n = (std::int64_t(1) << log2) + 4099;
    const std::int64_t min_at = (std::int64_t(1) << log2) + 17;
    const auto items = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), planted{n, min_at});
    EXPECT_EQ(cascade::min_element(cascade::cuda, items, items + n) - items, min_at) << log2;
    EXPECT_EQ(cascade::max_element(cascade::cuda, items, items + n) - items, 5) << log2;
    const auto mm = cascade::minmax_element(cascade::cuda, items, items + n);
    EXPECT_EQ(mm.first - items, min_at) << log2;
    EXPECT_EQ(mm.second - items, n - 3) << log2;
  }

  const std::int64_t n = (std::int64_t(1) << 31) + 4099;

  thrust::counting_iterator<std::int64_t> count(0);
  thrust::constant_iterator<std::int64_t> one(1);
  EXPECT_EQ(cascade::transform_reduce(cascade::cuda, count, count + n, one, std::int64_t{0}), n * ((n - 1) / 2));  // n odd

  thrust::device_vector<std::int8_t> data(n);
  thrust::tabulate(data.begin(), data.end(), hash_byte{});
  const std::int8_t* x = data.data().get();
  auto in = thrust::make_transform_iterator(count, widen_product_at{x});
  thrust::device_vector<std::int64_t> want(1);
  std::size_t bytes = 0;
  CASCADE_TEST_CUDA(cub::DeviceReduce::Reduce(nullptr, bytes, in, want.data().get(), n, plus{}, std::int64_t{7}));
  {
    thrust::device_vector<char> temp(bytes);
    CASCADE_TEST_CUDA(cub::DeviceReduce::Reduce(temp.data().get(), bytes, in, want.data().get(), n, plus{}, std::int64_t{7}));
  }
  EXPECT_EQ(cascade::transform_reduce(cascade::cuda, x, x + n, x, std::int64_t{7}, plus{}, widen_product{}),
            std::int64_t(want[0]));
}

}  // namespace
}  // namespace cascade_test

_CCCL_SUPPRESS_DEPRECATED_POP
