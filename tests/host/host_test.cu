// The host policies (cascade::seq, cascade::par) against the standard library:
// every algorithm and overload, non-commutative operators, in place, empty
// ranges, sizes past 2^31, the range check, values that std takes but a GPU
// does not (no default constructor, not trivially copyable) through every
// entry point, and an operator's exception reaching the caller. These always
// run.

#include "../segmented_reference.cuh"

#include <thrust/iterator/counting_iterator.h>

#include <cuda/std/functional>

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

// An affine map with no default constructor and a copy constructor of its
// own (so not trivially copyable): std's algorithms take such values, and so
// must the host policies, which therefore never make a value from nothing.
struct held {
  affine f;
  explicit held(affine g) : f(g) {}
  held(const held& other) : f(other.f) {}
  held& operator=(const held& other) {
    f = other.f;
    return *this;
  }
  friend bool operator==(const held& x, const held& y) { return x.f == y.f; }
  friend std::ostream& operator<<(std::ostream& os, const held& x) { return os << x.f; }
};
struct held_compose {
  held operator()(const held& x, const held& y) const { return held(compose{}(x.f, y.f)); }
};
struct held_doubled {
  held operator()(const held& x) const { return held(affine{x.f.a, 2 * x.f.b}); }
};
struct held_low_bits_less {  // few distinct keys: ties everywhere
  bool operator()(const held& x, const held& y) const { return x.f.a % 64 < y.f.a % 64; }
};

TYPED_TEST(HostPolicy, ValuesWithoutDefaultConstructorMatchStd) {
  const TypeParam policy{};
  const held_compose op;
  const held init(affine{3, 4}), poison(affine{0xdeadbeef, 0xdeadbeef});
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(100003)}) {
    std::vector<held> v, doubled;
    for (const affine& f : random_input<affine, compose>(n, n + 6)) v.emplace_back(f);
    for (const held& x : v) doubled.push_back(held_doubled{}(x));
    std::vector<held> got(n, poison), want(n, poison);
    const auto expect_scan = [&](const char* what, auto run, auto reference) {
      got.assign(n, poison);
      want.assign(n, poison);
      run();
      reference();
      EXPECT_EQ(got, want) << what << ", n = " << n;
    };

    EXPECT_EQ(cascade::reduce(policy, v.begin(), v.end(), init, op), std::accumulate(v.begin(), v.end(), init, op));
    EXPECT_EQ(cascade::transform_reduce(policy, v.begin(), v.end(), init, op, held_doubled{}),
              std::accumulate(doubled.begin(), doubled.end(), init, op));
    expect_scan("inclusive_scan", [&] { cascade::inclusive_scan(policy, v.begin(), v.end(), got.begin(), op); },
                [&] { std::inclusive_scan(v.begin(), v.end(), want.begin(), op); });
    expect_scan("inclusive_scan, in place",
                [&] {
                  got = v;
                  cascade::inclusive_scan(policy, got.begin(), got.end(), got.begin(), op);
                },
                [&] { std::inclusive_scan(v.begin(), v.end(), want.begin(), op); });
    expect_scan("inclusive_scan with init",
                [&] { cascade::inclusive_scan(policy, v.begin(), v.end(), got.begin(), op, init); },
                [&] { std::inclusive_scan(v.begin(), v.end(), want.begin(), op, init); });
    expect_scan("exclusive_scan", [&] { cascade::exclusive_scan(policy, v.begin(), v.end(), got.begin(), init, op); },
                [&] { std::exclusive_scan(v.begin(), v.end(), want.begin(), init, op); });
    expect_scan("transform_inclusive_scan",
                [&] { cascade::transform_inclusive_scan(policy, v.begin(), v.end(), got.begin(), op, held_doubled{}); },
                [&] { std::inclusive_scan(doubled.begin(), doubled.end(), want.begin(), op); });
    expect_scan("transform_inclusive_scan with init",
                [&] {
                  cascade::transform_inclusive_scan(policy, v.begin(), v.end(), got.begin(), op, held_doubled{}, init);
                },
                [&] { std::inclusive_scan(doubled.begin(), doubled.end(), want.begin(), op, init); });
    expect_scan("transform_exclusive_scan",
                [&] {
                  cascade::transform_exclusive_scan(policy, v.begin(), v.end(), got.begin(), init, op, held_doubled{});
                },
                [&] { std::exclusive_scan(doubled.begin(), doubled.end(), want.begin(), init, op); });

    const held_low_bits_less less;
    EXPECT_EQ(cascade::min_element(policy, v.begin(), v.end(), less), std::min_element(v.begin(), v.end(), less));
    EXPECT_EQ(cascade::max_element(policy, v.begin(), v.end(), less), std::max_element(v.begin(), v.end(), less));
    EXPECT_EQ(cascade::minmax_element(policy, v.begin(), v.end(), less), std::minmax_element(v.begin(), v.end(), less));

    // Runs of keys and segments of random lengths, some empty.
    const auto lengths = segment_lengths("random", n, 40, n + 7);
    const auto keys = keys_of<int>(lengths, n + 8);
    const auto runs = run_offsets(keys);
    const auto offsets = offsets_of<std::int64_t>(lengths);
    std::vector<held> totals(lengths.size(), poison), want_totals;
    for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
      want_totals.push_back(std::accumulate(v.begin() + runs[r] + 1, v.begin() + runs[r + 1], v[runs[r]], op));
    }
    std::vector<int> keys_out(n, -1);
    const auto ends = cascade::reduce_by_key(policy, keys.begin(), keys.end(), v.begin(), keys_out.begin(),
                                             totals.begin(), std::equal_to<>{}, op);
    EXPECT_EQ(std::vector<held>(totals.begin(), ends.second), want_totals) << "reduce_by_key, n = " << n;
    expect_scan("inclusive_scan_by_key",
                [&] {
                  cascade::inclusive_scan_by_key(policy, keys.begin(), keys.end(), v.begin(), got.begin(),
                                                 std::equal_to<>{}, op);
                },
                [&] { ref_segmented_scan(v, runs, want, op, static_cast<const held*>(nullptr), false); });
    expect_scan("exclusive_scan_by_key",
                [&] {
                  cascade::exclusive_scan_by_key(policy, keys.begin(), keys.end(), v.begin(), got.begin(), init,
                                                 std::equal_to<>{}, op);
                },
                [&] { ref_segmented_scan(v, runs, want, op, &init, true); });

    cascade::segmented_reduce(policy, v.begin(), offsets.begin(), offsets.end(), totals.begin(), init, op);
    EXPECT_EQ(totals, ref_segmented_reduce(v, offsets, init, op)) << "segmented_reduce, n = " << n;
    const auto sevens = offsets_of<std::int64_t>(segment_lengths("fixed", n, 7, 0));
    std::vector<held> fixed_totals(sevens.size() - 1, poison);
    cascade::segmented_reduce(policy, v.begin(), v.end(), 7, fixed_totals.begin(), init, op);
    EXPECT_EQ(fixed_totals, ref_segmented_reduce(v, sevens, init, op)) << "segmented_reduce, fixed size, n = " << n;
    expect_scan("segmented_inclusive_scan",
                [&] {
                  cascade::segmented_inclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), got.begin(),
                                                    op);
                },
                [&] { ref_segmented_scan(v, offsets, want, op, static_cast<const held*>(nullptr), false); });
    expect_scan("segmented_inclusive_scan with init",
                [&] {
                  cascade::segmented_inclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), got.begin(), op,
                                                    init);
                },
                [&] { ref_segmented_scan(v, offsets, want, op, &init, false); });
    expect_scan("segmented_exclusive_scan",
                [&] {
                  cascade::segmented_exclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), got.begin(),
                                                    init, op);
                },
                [&] { ref_segmented_scan(v, offsets, want, op, &init, true); });
  }
}

// An operator that throws on one value: the exception reaches the caller on
// both policies (cascade::par catches it inside its OpenMP loops, which it
// must not leave, and rethrows it), and the next call runs as usual.
struct add_unless_marked {
  std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    if (b == 777777) throw std::overflow_error("marked value");
    return a + b;
  }
};
struct less_unless_marked {
  bool operator()(std::int64_t a, std::int64_t b) const {
    if (a == 777777 || b == 777777) throw std::overflow_error("marked value");
    return a < b;
  }
};

TYPED_TEST(HostPolicy, OperatorExceptionsReachTheCaller) {
  const TypeParam policy{};
  const std::int64_t n = 1 << 20;
  std::vector<std::int64_t> v(n), out(n), keys(n), offsets;
  std::iota(v.begin(), v.end(), std::int64_t{0});
  for (std::int64_t i = 0; i < n; ++i) keys[i] = i / 100;
  for (std::int64_t i = 0; i <= n; i += 1000) offsets.push_back(i);
  offsets.push_back(n);
  const add_unless_marked add;
  using overflow = std::overflow_error;
  EXPECT_THROW(cascade::reduce(policy, v.begin(), v.end(), std::int64_t{0}, add), overflow);
  EXPECT_THROW(cascade::inclusive_scan(policy, v.begin(), v.end(), out.begin(), add), overflow);
  EXPECT_THROW(cascade::exclusive_scan(policy, v.begin(), v.end(), out.begin(), std::int64_t{0}, add), overflow);
  EXPECT_THROW(cascade::transform_reduce(policy, v.begin(), v.end(), std::int64_t{0}, add, cuda::std::identity{}),
               overflow);
  EXPECT_THROW(cascade::min_element(policy, v.begin(), v.end(), less_unless_marked{}), overflow);
  EXPECT_THROW(cascade::minmax_element(policy, v.begin(), v.end(), less_unless_marked{}), overflow);
  EXPECT_THROW(cascade::reduce_by_key(policy, keys.begin(), keys.end(), v.begin(), out.begin(), out.begin(),
                                      std::equal_to<>{}, add),
               overflow);
  EXPECT_THROW(cascade::inclusive_scan_by_key(policy, keys.begin(), keys.end(), v.begin(), out.begin(),
                                              std::equal_to<>{}, add),
               overflow);
  EXPECT_THROW(cascade::segmented_reduce(policy, v.begin(), offsets.begin(), offsets.end(), out.begin(),
                                         std::int64_t{0}, add),
               overflow);
  EXPECT_THROW(cascade::segmented_inclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), out.begin(), add),
               overflow);
  // One segment of every item: cascade::par gives it all its threads.
  const std::vector<std::int64_t> whole{0, n};
  EXPECT_THROW(cascade::segmented_reduce(policy, v.begin(), whole.begin(), whole.end(), out.begin(), std::int64_t{0},
                                         add),
               overflow);

  v[777777] = 0;  // unmarked: the same calls run through
  EXPECT_EQ(cascade::reduce(policy, v.begin(), v.end(), std::int64_t{0}, add),
            std::accumulate(v.begin(), v.end(), std::int64_t{0}));
  cascade::inclusive_scan(policy, v.begin(), v.end(), out.begin(), add);
  EXPECT_EQ(out.back(), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
}

}  // namespace
}  // namespace cascade_test
