// The std family on the host policies (cascade::seq, cascade::par) against the
// standard library: transform_reduce (three forms), the transform scans (in
// place too), min/max/minmax_element with ties and NaN, empty ranges, and the
// range check. The selecting operators are also folded in random tree shapes
// here, which is what the GPU does: std's answer whatever the tree.

#include "../common.cuh"

#include <cascade/detail/dispatch/element.cuh>
#include <cascade/detail/util/element_order.cuh>
#include <cascade/detail/util/indexed_transform.cuh>
#include <cascade/detail/util/launch.cuh>

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace cascade_test {
namespace {

template <class Policy>
class HostFamily : public ::testing::Test {};
using policies = ::testing::Types<cascade::sequenced_policy, cascade::parallel_policy>;
TYPED_TEST_SUITE(HostFamily, policies);

const std::vector<std::int64_t> kSizes = {0, 1, 2, 3, 31, 1000, 32767, 32768, 100003, 1 << 20};

struct square {
  __host__ __device__ std::int64_t operator()(std::int64_t x) const { return x * x; }
};
// x -> the map y -> x*y + 1: a transform into the non-commutative composition.
struct to_affine {
  __host__ __device__ affine operator()(std::uint32_t x) const { return {x | 1u, x ^ 0x9e3779b9u}; }
};
struct pair_to_affine {
  __host__ __device__ affine operator()(std::uint32_t a, std::uint32_t b) const { return {a | 1u, b}; }
};

TYPED_TEST(HostFamily, TransformReduceMatchesStd) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    const auto x = random_input<std::int64_t, cuda::std::plus<>>(n, n + 1);
    const auto y = random_input<std::int64_t, cuda::std::plus<>>(n, n + 2);
    EXPECT_EQ(cascade::transform_reduce(policy, x.begin(), x.end(), y.begin(), std::int64_t{3}),
              std::transform_reduce(x.begin(), x.end(), y.begin(), std::int64_t{3}))
        << n;
    EXPECT_EQ(cascade::transform_reduce(policy, x.begin(), x.end(), y.begin(), std::int64_t{0}, cuda::maximum<>{},
                                        std::minus<>{}),
              std::transform_reduce(x.begin(), x.end(), y.begin(), std::int64_t{0},
                                    [](auto a, auto b) { return std::max(a, b); }, std::minus<>{}))
        << n;
    EXPECT_EQ(cascade::transform_reduce(policy, x.begin(), x.end(), std::int64_t{-4}, std::plus<>{}, square{}),
              std::transform_reduce(x.begin(), x.end(), std::int64_t{-4}, std::plus<>{}, square{}))
        << n;
    std::int64_t into[3] = {-1, -1, -1};
    cascade::transform_reduce_into(policy, x.begin(), x.end(), y.begin(), into, std::int64_t{3});
    cascade::transform_reduce_into(policy, x.begin(), x.end(), y.begin(), into + 1, std::int64_t{0}, cuda::maximum<>{},
                                   std::minus<>{});
    cascade::transform_reduce_into(policy, x.begin(), x.end(), into + 2, std::int64_t{-4}, std::plus<>{}, square{});
    EXPECT_EQ(into[0], std::transform_reduce(x.begin(), x.end(), y.begin(), std::int64_t{3})) << n;
    EXPECT_EQ(into[1], std::transform_reduce(x.begin(), x.end(), y.begin(), std::int64_t{0},
                                             [](auto a, auto b) { return std::max(a, b); }, std::minus<>{}))
        << n;
    EXPECT_EQ(into[2], std::transform_reduce(x.begin(), x.end(), std::int64_t{-4}, std::plus<>{}, square{})) << n;
  }
}

TYPED_TEST(HostFamily, TransformReduceKeepsOrderOfNonCommutativeOp) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    const auto x = random_input<std::uint32_t, cuda::std::bit_xor<>>(n, n + 3);
    const auto y = random_input<std::uint32_t, cuda::std::bit_xor<>>(n, n + 4);
    const affine init{3, 4};
    affine want = init;
    for (std::int64_t i = 0; i < n; ++i) want = compose{}(want, to_affine{}(x[i]));
    EXPECT_EQ(cascade::transform_reduce(policy, x.begin(), x.end(), init, compose{}, to_affine{}), want) << n;
    want = init;
    for (std::int64_t i = 0; i < n; ++i) want = compose{}(want, pair_to_affine{}(x[i], y[i]));
    EXPECT_EQ(cascade::transform_reduce(policy, x.begin(), x.end(), y.begin(), init, compose{}, pair_to_affine{}), want)
        << n;
  }
}

TYPED_TEST(HostFamily, TransformScansMatchStdInPlaceToo) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    const auto v = random_input<std::int64_t, cuda::std::plus<>>(n, n + 5);
    std::vector<std::int64_t> got(n, poison_value<std::int64_t>()), want(n);

    EXPECT_EQ(cascade::transform_inclusive_scan(policy, v.begin(), v.end(), got.begin(), std::plus<>{}, square{}),
              got.end());
    std::transform_inclusive_scan(v.begin(), v.end(), want.begin(), std::plus<>{}, square{});
    EXPECT_EQ(got, want) << n;

    std::fill(got.begin(), got.end(), poison_value<std::int64_t>());
    cascade::transform_inclusive_scan(policy, v.begin(), v.end(), got.begin(), cuda::maximum<>{}, square{},
                                      std::int64_t{500});
    std::transform_inclusive_scan(v.begin(), v.end(), want.begin(), [](auto a, auto b) { return std::max(a, b); },
                                  square{}, std::int64_t{500});
    EXPECT_EQ(got, want) << n;

    std::fill(got.begin(), got.end(), poison_value<std::int64_t>());
    EXPECT_EQ(cascade::transform_exclusive_scan(policy, v.begin(), v.end(), got.begin(), std::int64_t{9}, std::plus<>{},
                                                square{}),
              got.end());
    std::transform_exclusive_scan(v.begin(), v.end(), want.begin(), std::int64_t{9}, std::plus<>{}, square{});
    EXPECT_EQ(got, want) << n;

    // In place, with a non-commutative operator.
    const auto u = random_input<std::uint32_t, cuda::std::bit_xor<>>(n, n + 6);
    std::vector<affine> inout(n), expected(n);
    std::transform(u.begin(), u.end(), inout.begin(), [](std::uint32_t x) { return affine{x, x}; });
    const auto as_maps = inout;
    auto twist = [](const affine& f) { return affine{f.a | 1u, f.b ^ 7u}; };
    cascade::transform_inclusive_scan(policy, inout.begin(), inout.end(), inout.begin(), compose{}, twist);
    std::transform_inclusive_scan(as_maps.begin(), as_maps.end(), expected.begin(), compose{}, twist);
    EXPECT_EQ(inout, expected) << n;
    inout = as_maps;
    cascade::transform_exclusive_scan(policy, inout.begin(), inout.end(), inout.begin(), affine{5, 6}, compose{}, twist);
    std::transform_exclusive_scan(as_maps.begin(), as_maps.end(), expected.begin(), affine{5, 6}, compose{}, twist);
    EXPECT_EQ(inout, expected) << n;
  }
}

// Values from a small alphabet (many ties), with NaNs for floating types.
template <class T>
std::vector<T> tied_input(std::int64_t n, std::uint64_t seed, int nan_percent) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      if (int(rng() % 100) < nan_percent) {
        x = std::numeric_limits<T>::quiet_NaN();
        continue;
      }
    }
    x = static_cast<T>(int(rng() % 7) - 3);
  }
  return v;
}

// |x| < |y|: a strict weak order with ties between x and -x.
struct abs_less {
  template <class T>
  __host__ __device__ bool operator()(T x, T y) const { return (x < 0 ? -x : x) < (y < 0 ? -y : y); }
};

template <class Policy, class T, class Comp>
void expect_elements_like_std(const Policy& policy, const std::vector<T>& v, Comp comp, const std::string& what) {
  const auto b = v.begin(), e = v.end();
  EXPECT_EQ(cascade::min_element(policy, b, e, comp) - b, std::min_element(b, e, comp) - b) << what;
  EXPECT_EQ(cascade::max_element(policy, b, e, comp) - b, std::max_element(b, e, comp) - b) << what;
  const auto got = cascade::minmax_element(policy, b, e, comp);
  const auto want = std::minmax_element(b, e, comp);
  EXPECT_EQ(got.first - b, want.first - b) << what << " (minmax: min)";
  EXPECT_EQ(got.second - b, want.second - b) << what << " (minmax: max)";
}

TYPED_TEST(HostFamily, ElementsMatchStdWithTiesAndNaN) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    for (int nan_percent : {0, 1, 30}) {
      const auto f = tied_input<float>(n, 7 * n + nan_percent, nan_percent);
      const auto d = tied_input<double>(n, 11 * n + nan_percent, nan_percent);
      const std::string at = "n=" + std::to_string(n) + " NaN%=" + std::to_string(nan_percent);
      expect_elements_like_std(policy, f, cuda::std::less<>{}, at + " float less");
      expect_elements_like_std(policy, f, std::greater<float>{}, at + " float greater");
      expect_elements_like_std(policy, d, std::less<>{}, at + " double less");
      if (nan_percent == 0) expect_elements_like_std(policy, d, abs_less{}, at + " double |x|");
    }
    const auto i = tied_input<int>(n, n + 13, 0);
    expect_elements_like_std(policy, i, cuda::std::less<>{}, "int n=" + std::to_string(n));
    expect_elements_like_std(policy, i, abs_less{}, "int |x| n=" + std::to_string(n));
    EXPECT_EQ(cascade::min_element(policy, i.begin(), i.end()) - i.begin(), std::min_element(i.begin(), i.end()) - i.begin());
    EXPECT_EQ(cascade::max_element(policy, i.begin(), i.end()) - i.begin(), std::max_element(i.begin(), i.end()) - i.begin());
    const auto mm = cascade::minmax_element(policy, i.begin(), i.end());
    const auto want = std::minmax_element(i.begin(), i.end());
    EXPECT_EQ(std::make_pair(mm.first - i.begin(), mm.second - i.begin()),
              std::make_pair(want.first - i.begin(), want.second - i.begin()));
  }
}

// Every float array of length 0..9 over {0, 1, NaN}: each NaN placement.
TYPED_TEST(HostFamily, ElementsMatchStdOnEveryShortNaNPattern) {
  const TypeParam policy{};
  const float alphabet[3] = {0.0f, 1.0f, std::numeric_limits<float>::quiet_NaN()};
  for (int n = 0; n <= 9; ++n) {
    int patterns = 1;
    for (int k = 0; k < n; ++k) patterns *= 3;
    for (int p = 0; p < patterns; ++p) {
      std::vector<float> v(n);
      for (int k = 0, q = p; k < n; ++k, q /= 3) v[k] = alphabet[q % 3];
      expect_elements_like_std(policy, v, cuda::std::less<>{}, "pattern " + std::to_string(p) + " of n=" + std::to_string(n));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// The operators in random tree shapes (the GPU's trees are fixed but of any
// shape): the result is std's loop's, so any tree gives it.
template <class S, class Op>
S fold_random_tree(const std::vector<S>& items, std::size_t b, std::size_t e, Op op, std::mt19937_64& rng) {
  if (e - b == 1) return items[b];
  const std::size_t mid = b + 1 + rng() % (e - b - 1);
  return op(fold_random_tree(items, b, mid, op, rng), fold_random_tree(items, mid, e, op, rng));
}

TEST(ElementOperators, AnyTreeGivesStdsAnswer) {
  using namespace cascade::detail;
  using comp_t = cuda::std::less<>;
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::int64_t n = 2 + std::int64_t(rng() % 40);
    const auto v = tied_input<double>(n, rng(), int(rng() % 50));
    std::vector<candidate<double>> c(n);
    for (std::int64_t i = 0; i < n; ++i) c[i] = to_candidate<comp_t, double>{}(i, v[i]);
    // The answer is read through position_of (a NaN at position 0 is placed
    // there); the reduce's init, none, may join on either side.
    const position_of<comp_t, const double*> position{v.data()};
    candidate<double> none{};
    none.index = candidate<double>::none;
    auto with_none = [&](auto op, candidate<double> x) { return rng() % 2 ? op(none, x) : rng() % 2 ? op(x, none) : x; };
    const auto lo = with_none(select_first<comp_t, false>{}, fold_random_tree(c, 0, c.size(), select_first<comp_t, false>{}, rng));
    const auto hi = with_none(select_first<comp_t, true>{}, fold_random_tree(c, 0, c.size(), select_first<comp_t, true>{}, rng));
    const std::int64_t want_lo = std::min_element(v.begin(), v.end()) - v.begin();
    const std::int64_t want_hi = std::max_element(v.begin(), v.end()) - v.begin();
    ASSERT_EQ(position(lo), want_lo) << "trial " << trial;
    ASSERT_EQ(position(hi), want_hi) << "trial " << trial;

    const to_minmax_pair<comp_t, const double*> pair{v.data(), {}};
    std::vector<minmax_state<double>> s(n / 2);
    for (std::size_t k = 0; k < s.size(); ++k) s[k] = pair(k);
    auto state = fold_random_tree(s, 0, s.size(), combine_minmax<comp_t>{}, rng);
    if (rng() % 2) state = combine_minmax<comp_t>{}(empty_minmax<double>(), state);  // the reduce's init
    const auto got = resolve_minmax<comp_t, const double*>{v.data(), n, {}}(state);
    const auto want = std::minmax_element(v.begin(), v.end());
    ASSERT_EQ(got.min, want.first - v.begin()) << "trial " << trial;
    ASSERT_EQ(got.max, want.second - v.begin()) << "trial " << trial;

    // The GPU folds each lane's share first: any order of the candidates and
    // any tree. The selections give std's answer; the unordered minmax gives
    // it unless it flags a NaN max candidate (then the ordered one runs).
    std::shuffle(c.begin(), c.end(), rng);
    ASSERT_EQ(position(fold_random_tree(c, 0, c.size(), select_first<comp_t, false>{}, rng)), want_lo) << "trial " << trial;
    ASSERT_EQ(position(fold_random_tree(c, 0, c.size(), select_first<comp_t, true>{}, rng)), want_hi) << "trial " << trial;
    std::shuffle(s.begin(), s.end(), rng);
    auto unordered = fold_random_tree(s, 0, s.size(), combine_minmax<comp_t, true>{}, rng);
    if (rng() % 2) unordered = combine_minmax<comp_t, true>{}(unordered, empty_minmax<double>());
    const auto fast = resolve_minmax<comp_t, const double*>{v.data(), n, {}}(unordered);
    bool nan_max = false;
    for (std::int64_t k = 0; k + 1 < n; k += 2) nan_max |= std::isnan(v[k + 1]);  // a pair's max: x[2k+1] unless x[2k+1] < x[2k]
    ASSERT_EQ(bool(fast.nan_max), nan_max) << "trial " << trial;

    // min_element / max_element over 16-byte runs (two doubles each), the
    // items after the last whole run placed at the end.
    const std::int64_t runs = n / 2;
    const auto* as_runs = reinterpret_cast<const run_of<double>*>(v.data());  // vector storage: 16-byte aligned
    std::vector<candidate<double, std::uint32_t>> lo_runs(runs), hi_runs(runs);  // the GPU's 32-bit positions
    for (std::int64_t k = 0; k < runs; ++k) {
      lo_runs[k] = from_run<comp_t, false, double, std::uint32_t>{}(k, as_runs[k]);
      hi_runs[k] = from_run<comp_t, true, double, std::uint32_t>{}(k, as_runs[k]);
    }
    std::shuffle(lo_runs.begin(), lo_runs.end(), rng);
    std::shuffle(hi_runs.begin(), hi_runs.end(), rng);
    const place_tail<comp_t, false, const double*> lo_tail{v.data(), 2 * runs, n, {}};
    const place_tail<comp_t, true, const double*> hi_tail{v.data(), 2 * runs, n, {}};
    ASSERT_EQ(lo_tail(fold_random_tree(lo_runs, 0, runs, select_first<comp_t, false>{}, rng)), want_lo)
        << "trial " << trial;
    ASSERT_EQ(hi_tail(fold_random_tree(hi_runs, 0, runs, select_first<comp_t, true>{}, rng)), want_hi)
        << "trial " << trial;
    ASSERT_EQ(fast.min, want.first - v.begin()) << "trial " << trial;
    if (!nan_max) ASSERT_EQ(fast.max, want.second - v.begin()) << "trial " << trial;
  }
}

// transform_reduce's items as a launch argument: compared by their members
// (position and inputs), so that a repeated call skips its graph update and a
// changed one does not (util/launch.cuh).
TEST(LaunchArguments, TransformedItemsCompareByTheirMembers) {
  using namespace cascade::detail;
  using product = cuda::std::multiplies<>;
  using items_t = indexed_transform<ignore_position<product>, true, const std::int64_t*, const std::int64_t*>;
  struct bytes_t {
    std::vector<unsigned char> bytes;
    bool comparable;
  };
  auto bytes_of = [](const items_t& items) {
    argument_buffer<sizeof(items_t)> b;
    b.append(items);
    return bytes_t{std::vector<unsigned char>(b.data, b.data + b.size), b.comparable};
  };
  const std::int64_t x[4] = {}, y[4] = {};
  const auto a = bytes_of(items_t({product{}}, 0, x, y));
  ASSERT_TRUE(a.comparable);
  EXPECT_EQ(a.bytes.size(), 3 * sizeof(std::int64_t));  // the position and two pointers; the functor has none
  EXPECT_EQ(bytes_of(items_t({product{}}, 0, x, y)).bytes, a.bytes);
  EXPECT_NE(bytes_of(items_t({product{}}, 1, x, y)).bytes, a.bytes);
  EXPECT_NE(bytes_of(items_t({product{}}, 0, x, y + 1)).bytes, a.bytes);
}

// The element reduces' arguments: the init (a candidate or a minmax state,
// with tail padding for 8-byte values) and the output that resolves the
// answer (holding an empty comparator) compare by their members, so that a
// repeated call skips its graph update too.
template <class T>
std::pair<std::vector<unsigned char>, bool> launch_bytes_of(const T& value) {
  cascade::detail::argument_buffer<sizeof(T)> b;
  b.append(value);
  return {std::vector<unsigned char>(b.data, b.data + b.size), b.comparable};
}

TEST(LaunchArguments, ElementArgumentsCompareByTheirMembers) {
  using namespace cascade::detail;
  using comp = cuda::std::less<>;
  candidate<double, std::uint32_t> none{};
  none.index = candidate<double, std::uint32_t>::none;
  const auto init = launch_bytes_of(none);
  ASSERT_TRUE(init.second);
  EXPECT_EQ(init.first.size(), sizeof(double) + sizeof(std::uint32_t));
  EXPECT_EQ(launch_bytes_of(empty_minmax<double, std::uint32_t>()).second, true);
  EXPECT_EQ(launch_bytes_of(empty_minmax<double, std::uint32_t>()).first,
            launch_bytes_of(empty_minmax<double, std::uint32_t>()).first);

  const double x[8] = {};
  offset_t* out = nullptr;
  using tail_out = resolved_output<place_tail<comp, false, const double*>, offset_t>;
  const auto a = launch_bytes_of(tail_out{out, {x, 6, 7, {}}});
  ASSERT_TRUE(a.second);
  EXPECT_EQ(launch_bytes_of(tail_out{out, {x, 6, 7, {}}}).first, a.first);
  EXPECT_NE(launch_bytes_of(tail_out{out, {x, 6, 8, {}}}).first, a.first);
  EXPECT_NE(launch_bytes_of(tail_out{out + 1, {x, 6, 7, {}}}).first, a.first);
  using minmax_out = resolved_output<resolve_minmax<comp, const double*>, minmax_positions>;
  const auto m = launch_bytes_of(minmax_out{nullptr, {x, 8, {}}});
  ASSERT_TRUE(m.second);
  EXPECT_NE(launch_bytes_of(minmax_out{nullptr, {x + 1, 8, {}}}).first, m.first);

  // The items and the operators hold the comparator: its byte (empty, so
  // padding) made every element call's launch incomparable until they named
  // their members.
  const auto* runs = reinterpret_cast<const run_of<double>*>(x);
  using runs_t = indexed_transform<from_run<comp, false, double, std::uint32_t>, true, const run_of<double>*>;
  const auto r = launch_bytes_of(runs_t({comp{}}, 0, runs));
  ASSERT_TRUE(r.second);
  EXPECT_EQ(r.first.size(), sizeof(offset_t) + sizeof(runs));  // the position and the pointer
  EXPECT_EQ(launch_bytes_of(runs_t({comp{}}, 0, runs)).first, r.first);
  EXPECT_NE(launch_bytes_of(runs_t({comp{}}, 0, runs + 1)).first, r.first);
  const auto* pairs = reinterpret_cast<const pair_of<double>*>(x);
  EXPECT_TRUE(launch_bytes_of(indexed_transform<from_pair<comp, double, std::uint32_t>, true, const pair_of<double>*>(
                                  {comp{}}, 0, pairs))
                  .second);
  EXPECT_TRUE(launch_bytes_of(indexed_transform<to_minmax_pair<comp, const double*, std::uint32_t>, false>({x, {}}, 0))
                  .second);
  EXPECT_TRUE(launch_bytes_of(select_first<comp, false>{}).second);
  EXPECT_TRUE(launch_bytes_of(combine_minmax<comp, true>{}).second);
}

// The library's operator wrappers as launch arguments: by their members, so
// that a repeated reduce with monoid(op, identity) or commutative(op) skips
// its graph update, and another identity does not.
TEST(LaunchArguments, OperatorWrappersCompareByTheirMembers) {
  const auto m = launch_bytes_of(cascade::monoid(cuda::std::plus<>{}, 0.0));
  ASSERT_TRUE(m.second);
  EXPECT_EQ(m.first.size(), sizeof(double));  // the identity; the empty operator has no bytes
  EXPECT_EQ(launch_bytes_of(cascade::monoid(cuda::std::plus<>{}, 0.0)).first, m.first);
  EXPECT_NE(launch_bytes_of(cascade::monoid(cuda::std::plus<>{}, 1.0)).first, m.first);
  EXPECT_TRUE(launch_bytes_of(cascade::commutative(cuda::std::plus<>{})).second);
  EXPECT_TRUE(launch_bytes_of(cascade::detail::device_operator(cascade::monoid(std::plus<>{}, 0))).second);
}

// Thrust's fancy iterators as launch arguments: by what makes them what they
// are (position, value, functor, underlying iterators), so that a repeated
// reduce over one skips its graph update and one moved along does not.
struct twice {
  __host__ __device__ int operator()(int x) const { return 2 * x; }
};
TEST(LaunchArguments, FancyIteratorsCompareByTheirMembers) {
  const int x[4] = {};
  const auto counting = launch_bytes_of(thrust::counting_iterator<int>(3));
  ASSERT_TRUE(counting.second);
  EXPECT_EQ(launch_bytes_of(thrust::counting_iterator<int>(3)).first, counting.first);
  EXPECT_NE(launch_bytes_of(thrust::counting_iterator<int>(4)).first, counting.first);
  const auto transformed = launch_bytes_of(thrust::make_transform_iterator(x, twice{}));
  ASSERT_TRUE(transformed.second);
  EXPECT_EQ(transformed.first.size(), sizeof(const int*));  // the pointer; the functor has no bytes
  EXPECT_NE(launch_bytes_of(thrust::make_transform_iterator(x + 1, twice{})).first, transformed.first);
#if defined(_CCCL_SUPPRESS_DEPRECATED_PUSH)
  _CCCL_SUPPRESS_DEPRECATED_PUSH  // thrust::constant_iterator is deprecated in CCCL 3.6, still accepted
#endif
  const auto constant = launch_bytes_of(thrust::constant_iterator<float>(1.5f));
  ASSERT_TRUE(constant.second);
  EXPECT_NE(launch_bytes_of(thrust::constant_iterator<float>(2.5f)).first, constant.first);
  EXPECT_NE(launch_bytes_of(thrust::constant_iterator<float>(1.5f) + 1).first, constant.first);
#if defined(_CCCL_SUPPRESS_DEPRECATED_POP)
  _CCCL_SUPPRESS_DEPRECATED_POP
#endif
  const auto zipped = launch_bytes_of(thrust::make_zip_iterator(x, thrust::counting_iterator<int>(0)));
  ASSERT_TRUE(zipped.second);
  EXPECT_NE(launch_bytes_of(thrust::make_zip_iterator(x, thrust::counting_iterator<int>(1))).first, zipped.first);
}

TYPED_TEST(HostFamily, EmptyRangesAndReversedRanges) {
  const TypeParam policy{};
  std::vector<int> v(10, 1), out(10, 0);
  EXPECT_EQ(cascade::min_element(policy, v.begin(), v.begin()), v.begin());
  EXPECT_EQ(cascade::max_element(policy, v.end(), v.end()), v.end());
  EXPECT_EQ(cascade::minmax_element(policy, v.end(), v.end()), std::make_pair(v.end(), v.end()));
  EXPECT_EQ(cascade::transform_reduce(policy, v.begin(), v.begin(), v.begin(), 17), 17);
  EXPECT_THROW(cascade::min_element(policy, v.end(), v.begin()), std::invalid_argument);
  EXPECT_THROW(cascade::max_element(policy, v.end(), v.begin()), std::invalid_argument);
  EXPECT_THROW(cascade::minmax_element(policy, v.end(), v.begin()), std::invalid_argument);
  EXPECT_THROW(cascade::transform_reduce(policy, v.end(), v.begin(), v.begin(), 0), std::invalid_argument);
  EXPECT_THROW(cascade::transform_reduce(policy, v.end(), v.begin(), 0, std::plus<>{}, square{}), std::invalid_argument);
  EXPECT_THROW(cascade::transform_inclusive_scan(policy, v.end(), v.begin(), out.begin(), std::plus<>{}, square{}),
               std::invalid_argument);
  EXPECT_THROW(cascade::transform_exclusive_scan(policy, v.end(), v.begin(), out.begin(), 0, std::plus<>{}, square{}),
               std::invalid_argument);
  EXPECT_EQ(out, std::vector<int>(10, 0));
}

}  // namespace
}  // namespace cascade_test
