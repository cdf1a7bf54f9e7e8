// The host policies' keyed and segmented algorithms against per-segment
// std::accumulate / std::inclusive_scan / std::exclusive_scan: every
// overload, non-commutative operators, empty segments, in place, and the
// argument checks.

#include "../segmented_reference.cuh"

#include <stdexcept>

#ifdef _OPENMP
#include <omp.h>
#endif

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

// Every keyed algorithm over the runs that `lengths` gives, against the
// standard library: a non-commutative operator, in place, the defaults.
template <class Policy>
void check_keyed(const Policy& policy, const std::vector<std::int64_t>& lengths, std::int64_t n) {
  const auto keys = keys_of<int>(lengths, 7);
  const auto v = random_input<affine, compose>(n, n + 2);
  const auto offsets = run_offsets(keys);
  const std::size_t runs = offsets.size() - 1;

  std::vector<int> keys_out(n + 1, -1);
  std::vector<affine> values_out(n + 1, poison_value<affine>());
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

  std::vector<affine> got(n, poison_value<affine>()), want(n);
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
  std::vector<std::int64_t> iv(n), igot(n, -1), iwant(n);
  std::iota(iv.begin(), iv.end(), 0);
  ref_segmented_scan<std::int64_t>(iv, offsets, iwant, std::plus<>{}, nullptr, false);
  cascade::inclusive_scan_by_key(policy, keys.begin(), keys.end(), iv.begin(), igot.begin());
  EXPECT_EQ(igot, iwant);
  const std::int64_t zero = 0;
  ref_segmented_scan<std::int64_t>(iv, offsets, iwant, std::plus<>{}, &zero, true);
  cascade::exclusive_scan_by_key(policy, keys.begin(), keys.end(), iv.begin(), igot.begin());
  EXPECT_EQ(igot, iwant);
}

TYPED_TEST(HostSegmented, KeyedMatchStd) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(std::string(s.name) + " n = " + std::to_string(s.n));
    check_keyed(TypeParam{}, segment_lengths(s.name, s.n, s.len, s.n + 1), s.n);
  }
}

// Every segmented algorithm over the segments `lengths` gives (items from
// the fifth), against the standard library; and the fixed-size form where
// the segments are fixed_size long (0: they are not).
template <class Policy>
void check_segmented(const Policy& policy, const std::vector<std::int64_t>& lengths, std::int64_t n,
                     std::int64_t fixed_size) {
  const auto offsets = offsets_of<std::int32_t>(lengths, 5);  // items start at 5
  const auto v = random_input<affine, compose>(n + 5, n + 4);
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

  if (fixed_size > 0) {  // offsets from a stride
    std::vector<affine> fixed(segments, poison_value<affine>());
    const std::vector<affine> w(v.begin() + 5, v.end());
    cascade::segmented_reduce(policy, w.begin(), w.end(), fixed_size, fixed.begin(), init, compose{});
    EXPECT_EQ(fixed, ref_segmented_reduce(w, offsets_of<std::int64_t>(lengths), init, compose{}));
  }
}

TYPED_TEST(HostSegmented, SegmentedMatchStd) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(std::string(s.name) + " n = " + std::to_string(s.n));
    check_segmented(TypeParam{}, segment_lengths(s.name, s.n, s.len, s.n + 3), s.n,
                    std::string(s.name) == "fixed" ? s.len : 0);
  }
}

// cascade::par cuts keys into one chunk per thread wherever the cuts fall
// (the runs across them carried over) and gives each segment of a
// thread's share of the items or more every thread in turn: runs and
// segments across one cut and across several (chunks with no head), a last
// run over several chunks, short ones around them; at 1, 2, 3 and 7 threads.
TEST(HostSegmentedParallel, LongRunsAndSegmentsAtAnyThreadCount) {
#ifdef _OPENMP
  const int threads_before = omp_get_max_threads();
  const std::vector<std::vector<std::int64_t>> shapes = {
      {3, 1 << 18, 5, 1, 70000, 2}, {1 << 17, 1, 1 << 17}, {7, 300000}, {40000, 0, 40000, 0, 3}};
  for (const int threads : {1, 2, 3, 7}) {
    omp_set_num_threads(threads);
    for (const auto& lengths : shapes) {
      const std::int64_t n = std::accumulate(lengths.begin(), lengths.end(), std::int64_t(0));
      SCOPED_TRACE(std::to_string(threads) + " threads, n = " + std::to_string(n));
      check_keyed(cascade::par, lengths, n);
      check_segmented(cascade::par, lengths, n, 0);
    }
    check_segmented(cascade::par, std::vector<std::int64_t>(3, 100000), 300000, 100000);
  }
  omp_set_num_threads(threads_before);
#else
  GTEST_SKIP() << "built without OpenMP: cascade::par is cascade::seq";
#endif
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
