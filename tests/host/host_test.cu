// The host policies (cascade::seq, cascade::par) against the standard library:
// every algorithm and overload, non-commutative operators, in place, empty
// ranges, sizes past 2^31, and the range check. These always run.

#include "../common.cuh"

#include <thrust/iterator/counting_iterator.h>

#include <numeric>
#include <stdexcept>

namespace cascade_test {
namespace {

template <class Policy>
class HostPolicy : public ::testing::Test {};
using policies = ::testing::Types<cascade::sequenced_policy, cascade::parallel_policy>;
TYPED_TEST_SUITE(HostPolicy, policies);

// Sizes below and above the parallel threshold, odd ones included.
const std::vector<std::int64_t> kSizes = {0, 1, 2, 31, 1000, 32767, 32768, 100003, 1 << 20};

TYPED_TEST(HostPolicy, ReduceMatchesStdReduce) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    const auto v = random_input<std::int64_t, cuda::std::plus<>>(n, n + 1);
    EXPECT_EQ(cascade::reduce(policy, v.begin(), v.end(), std::int64_t{7}, cuda::std::plus<>{}),
              std::reduce(v.begin(), v.end(), std::int64_t{7}))
        << n;
    EXPECT_EQ(cascade::reduce(policy, v.begin(), v.end(), std::int64_t{7}), std::reduce(v.begin(), v.end(), std::int64_t{7}));
    EXPECT_EQ(cascade::reduce(policy, v.begin(), v.end()), std::reduce(v.begin(), v.end()));
    const auto u = random_input<std::uint32_t, cuda::maximum<>>(n, n + 2);
    EXPECT_EQ(cascade::reduce(policy, u.begin(), u.end(), 0u, cuda::maximum<>{}),
              std::reduce(u.begin(), u.end(), 0u, [](auto a, auto b) { return std::max(a, b); }));
    std::int64_t into = -1;
    cascade::reduce_into(policy, v.begin(), v.end(), &into, std::int64_t{0}, std::plus<>{});
    EXPECT_EQ(into, std::reduce(v.begin(), v.end()));
    into = -1;  // the short forms: plus, then also init = V{}
    cascade::reduce_into(policy, v.begin(), v.end(), &into, std::int64_t{7});
    EXPECT_EQ(into, std::reduce(v.begin(), v.end(), std::int64_t{7})) << n;
    into = -1;
    cascade::reduce_into(policy, v.begin(), v.end(), &into);
    EXPECT_EQ(into, std::reduce(v.begin(), v.end())) << n;
  }
}

TYPED_TEST(HostPolicy, FloatReduceWithinRoundingOfFloat64) {
  const TypeParam policy{};
  const auto v = random_input<float, cuda::std::plus<>>(1 << 20, 3);
  double want = 0, scale = 0;
  for (float x : v) want += x, scale += std::fabs(x);
  EXPECT_TRUE(close(cascade::reduce(policy, v.begin(), v.end(), 0.0f), want, scale, double(v.size())));
}

TYPED_TEST(HostPolicy, NonCommutativeReduceKeepsOrder) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    const auto v = random_input<affine, compose>(n, n + 3);
    const affine init{3, 4};
    EXPECT_EQ(cascade::reduce(policy, v.begin(), v.end(), init, compose{}),
              std::accumulate(v.begin(), v.end(), init, compose{}))
        << n;
  }
}

TYPED_TEST(HostPolicy, ScansMatchStdScans) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    const auto v = random_input<std::int64_t, cuda::std::plus<>>(n, n + 4);
    std::vector<std::int64_t> got(n, poison_value<std::int64_t>()), want(n);

    EXPECT_EQ(cascade::inclusive_scan(policy, v.begin(), v.end(), got.begin()), got.end());
    std::inclusive_scan(v.begin(), v.end(), want.begin());
    EXPECT_EQ(got, want) << n;

    std::fill(got.begin(), got.end(), poison_value<std::int64_t>());
    cascade::inclusive_scan(policy, v.begin(), v.end(), got.begin(), cuda::maximum<>{});
    std::inclusive_scan(v.begin(), v.end(), want.begin(), [](auto a, auto b) { return std::max(a, b); });
    EXPECT_EQ(got, want) << n;

    std::fill(got.begin(), got.end(), poison_value<std::int64_t>());
    cascade::inclusive_scan(policy, v.begin(), v.end(), got.begin(), std::plus<>{}, std::int64_t{-5});
    std::inclusive_scan(v.begin(), v.end(), want.begin(), std::plus<>{}, std::int64_t{-5});
    EXPECT_EQ(got, want) << n;

    std::fill(got.begin(), got.end(), poison_value<std::int64_t>());
    EXPECT_EQ(cascade::exclusive_scan(policy, v.begin(), v.end(), got.begin(), std::int64_t{9}), got.end());
    std::exclusive_scan(v.begin(), v.end(), want.begin(), std::int64_t{9});
    EXPECT_EQ(got, want) << n;

    std::fill(got.begin(), got.end(), poison_value<std::int64_t>());
    cascade::exclusive_scan(policy, v.begin(), v.end(), got.begin(), std::int64_t{9}, cuda::std::bit_xor<>{});
    std::exclusive_scan(v.begin(), v.end(), want.begin(), std::int64_t{9}, std::bit_xor<>{});
    EXPECT_EQ(got, want) << n;
  }
}

TYPED_TEST(HostPolicy, NonCommutativeScansInPlace) {
  const TypeParam policy{};
  for (std::int64_t n : kSizes) {
    const auto v = random_input<affine, compose>(n, n + 5);
    std::vector<affine> want(n);

    auto inout = v;
    cascade::inclusive_scan(policy, inout.begin(), inout.end(), inout.begin(), compose{});
    std::partial_sum(v.begin(), v.end(), want.begin(), compose{});
    EXPECT_EQ(inout, want) << n;

    inout = v;
    const affine init{5, 6};
    cascade::exclusive_scan(policy, inout.begin(), inout.end(), inout.begin(), init, compose{});
    affine running = init;
    for (std::int64_t i = 0; i < n; ++i) want[i] = std::exchange(running, compose{}(running, v[i]));
    EXPECT_EQ(inout, want) << n;
  }
}

TYPED_TEST(HostPolicy, BeyondTwoToThe31Elements) {
  const TypeParam policy{};
  const std::int64_t n = (std::int64_t(1) << 31) + 11;
  thrust::counting_iterator<std::int64_t> first(0);
  EXPECT_EQ(cascade::reduce(policy, first, first + n, std::int64_t{0}), n * (n - 1) / 2);
}

TYPED_TEST(HostPolicy, ReversedRangeIsInvalidArgument) {
  const TypeParam policy{};
  std::vector<int> v(10, 1), out(10, 0);
  EXPECT_THROW(cascade::reduce(policy, v.end(), v.begin(), 0), std::invalid_argument);
  EXPECT_THROW(cascade::inclusive_scan(policy, v.end(), v.begin(), out.begin()), std::invalid_argument);
  EXPECT_THROW(cascade::exclusive_scan(policy, v.end(), v.begin(), out.begin(), 0), std::invalid_argument);
  EXPECT_EQ(out, std::vector<int>(10, 0));
}

}  // namespace
}  // namespace cascade_test
