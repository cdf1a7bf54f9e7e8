// The host policies' keyed and segmented algorithms against per-segment
// std::accumulate / std::inclusive_scan / std::exclusive_scan: every
// overload, non-commutative operators, empty segments, in place, and the
// argument checks.

#include "../segmented_reference.cuh"

#include <stdexcept>

namespace cascade_test {
namespace {

template <class Policy>
class HostSegmented : public ::testing::Test {};
using policies = ::testing::Types<cascade::sequenced_policy, cascade::parallel_policy>;
TYPED_TEST_SUITE(HostSegmented, policies);

struct shape {
  const char* name;
  std::int64_t n, len;
};
const shape kShapes[] = {{"fixed", 0, 1},        {"fixed", 1, 1},         {"fixed", 100003, 1},
                         {"fixed", 100003, 16},  {"fixed", 1 << 20, 4096}, {"fixed", 1 << 20, 1 << 20},
                         {"powerlaw", 1 << 18, 0}, {"halfempty", 100003, 8}, {"random", 200003, 40}};

TYPED_TEST(HostSegmented, KeyedMatchStd) {
  const TypeParam policy{};
  for (const shape& s : kShapes) {
    SCOPED_TRACE(std::string(s.name) + " n = " + std::to_string(s.n));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 1);
    const auto keys = keys_of<int>(lengths, 7);
    const auto v = random_input<affine, compose>(s.n, s.n + 2);
    const auto offsets = run_offsets(keys);
    const std::size_t runs = offsets.size() - 1;

    std::vector<int> keys_out(s.n + 1, -1);
    std::vector<affine> values_out(s.n + 1, poison_value<affine>());
    auto [kend, vend] = cascade::reduce_by_key(policy, keys.begin(), keys.end(), v.begin(), keys_out.begin(),
                                               values_out.begin(), cuda::std::equal_to<>{}, compose{});
    ASSERT_EQ(std::size_t(kend - keys_out.begin()), runs);
    ASSERT_EQ(std::size_t(vend - values_out.begin()), runs);
    std::vector<affine> sums;
    for (std::size_t r = 0; r < runs; ++r) {
      EXPECT_EQ(keys_out[r], keys[offsets[r]]);
      sums.push_back(std::accumulate(v.begin() + offsets[r] + 1, v.begin() + offsets[r + 1], v[offsets[r]], compose{}));
      EXPECT_EQ(values_out[r], sums[r]) << r;
    }
    long long count = -1;
    cascade::reduce_by_key_into(policy, keys.begin(), keys.end(), v.begin(), keys_out.begin(), values_out.begin(),
                                &count, cuda::std::equal_to<>{}, compose{});
    EXPECT_EQ(count, (long long)runs);

    std::vector<affine> got(s.n, poison_value<affine>()), want(s.n);
    ref_segmented_scan<affine>(v, offsets, want, compose{}, nullptr, false);
    EXPECT_EQ(cascade::inclusive_scan_by_key(policy, keys.begin(), keys.end(), v.begin(), got.begin(),
                                             cuda::std::equal_to<>{}, compose{}),
              got.end());
    EXPECT_EQ(got, want);
    const affine init{3, 5};
    ref_segmented_scan<affine>(v, offsets, want, compose{}, &init, true);
    got = v;  // in place
    cascade::exclusive_scan_by_key(policy, keys.begin(), keys.end(), got.begin(), got.begin(), init,
                                   cuda::std::equal_to<>{}, compose{});
    EXPECT_EQ(got, want);

    // Defaults: equal_to and plus, exclusive from V{}.
    std::vector<std::int64_t> iv(s.n), igot(s.n, -1), iwant(s.n);
    std::iota(iv.begin(), iv.end(), 0);
    ref_segmented_scan<std::int64_t>(iv, offsets, iwant, std::plus<>{}, nullptr, false);
    cascade::inclusive_scan_by_key(policy, keys.begin(), keys.end(), iv.begin(), igot.begin());
    EXPECT_EQ(igot, iwant);
    const std::int64_t zero = 0;
    ref_segmented_scan<std::int64_t>(iv, offsets, iwant, std::plus<>{}, &zero, true);
    cascade::exclusive_scan_by_key(policy, keys.begin(), keys.end(), iv.begin(), igot.begin());
    EXPECT_EQ(igot, iwant);
  }
}

TYPED_TEST(HostSegmented, SegmentedMatchStd) {
  const TypeParam policy{};
  for (const shape& s : kShapes) {
    SCOPED_TRACE(std::string(s.name) + " n = " + std::to_string(s.n));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 3);
    const auto offsets = offsets_of<std::int32_t>(lengths, 5);  // items start at 5
    const auto v = random_input<affine, compose>(s.n + 5, s.n + 4);
    const affine init{7, 9};
    const std::size_t segments = lengths.size();

    std::vector<affine> got(segments, poison_value<affine>());
    cascade::segmented_reduce(policy, v.begin(), offsets.begin(), offsets.end(), got.begin(), init, compose{});
    EXPECT_EQ(got, ref_segmented_reduce(v, offsets, init, compose{}));

    std::vector<affine> out(v.size(), poison_value<affine>()), want = out;
    ref_segmented_scan<affine>(v, offsets, want, compose{}, nullptr, false);
    EXPECT_EQ(cascade::segmented_inclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), out.begin(), compose{}),
              out.begin() + offsets.back());
    EXPECT_EQ(out, want);
    ref_segmented_scan<affine>(v, offsets, want, compose{}, &init, false);
    cascade::segmented_inclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), out.begin(), compose{}, init);
    EXPECT_EQ(out, want);
    ref_segmented_scan<affine>(v, offsets, want, compose{}, &init, true);
    auto inout = v;
    for (std::size_t p = 0; p < 5; ++p) want[p] = v[p];  // outside every segment: untouched
    cascade::segmented_exclusive_scan(policy, inout.begin(), offsets.begin(), offsets.end(), inout.begin(), init, compose{});
    EXPECT_EQ(inout, want);

    // Fixed-size segments: offsets from a stride.
    if (s.len > 0 && std::string(s.name) == "fixed") {
      std::vector<affine> fixed(segments, poison_value<affine>());
      const std::vector<affine> w(v.begin() + 5, v.end());
      cascade::segmented_reduce(policy, w.begin(), w.end(), s.len, fixed.begin(), init, compose{});
      EXPECT_EQ(fixed, ref_segmented_reduce(w, offsets_of<std::int64_t>(lengths), init, compose{}));
    }
  }
}

TYPED_TEST(HostSegmented, BadArgumentsWriteNothing) {
  const TypeParam policy{};
  std::vector<int> v(10, 1), out(10, -1);
  const std::vector<int> descending = {0, 4, 3, 10};
  EXPECT_THROW(cascade::segmented_reduce(policy, v.begin(), descending.begin(), descending.end(), out.begin(), 0,
                                         std::plus<>{}),
               std::invalid_argument);
  EXPECT_THROW(cascade::segmented_inclusive_scan(policy, v.begin(), descending.begin(), descending.end(), out.begin()),
               std::invalid_argument);
  EXPECT_THROW(cascade::segmented_reduce(policy, v.begin(), v.end(), 0, out.begin(), 0, std::plus<>{}),
               std::invalid_argument);
  EXPECT_THROW(cascade::segmented_reduce(policy, v.begin(), descending.begin(), descending.begin(), out.begin(), 0,
                                         std::plus<>{}),
               std::invalid_argument);
  EXPECT_THROW(cascade::reduce_by_key(policy, v.end(), v.begin(), v.begin(), out.begin(), out.begin()),
               std::invalid_argument);
  EXPECT_EQ(out, std::vector<int>(10, -1));
}

}  // namespace
}  // namespace cascade_test
