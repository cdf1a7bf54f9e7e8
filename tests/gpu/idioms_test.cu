// Thrust users' idioms (tests/idioms.cuh) on the GPU, on the default stream
// and on a stream of their own; and extended __device__ lambdas, capturing, as
// the operators of every GPU entry point.

#include <cuda/std/version>  // CCCL's configuration: _CCCL_SUPPRESS_DEPRECATED_PUSH

// Thrust's functors (thrust::maximum, ...) and constant_iterator are deprecated
// in CCCL 3.6 and still accepted: the tests pass them as users' code does. The library's templates
// that they instantiate are inside the region too (the warning points at them).
_CCCL_SUPPRESS_DEPRECATED_PUSH

#include "harness.cuh"

#include "../idioms.cuh"

#include <thrust/device_vector.h>

#include <cuda/functional>

namespace cascade_test {
namespace {

using namespace idioms;

class Idioms : public gpu_test {};

// Data in device_vectors, calls on `policy` (the default stream, or a stream
// of its own: the checks then wait for it).
template <class Policy>
struct gpu_side {
  Policy policy;
  template <class T>
  using vector = thrust::device_vector<T>;
  template <class T>
  vector<T> put(const std::vector<T>& h) const { return to_device(h); }
  template <class T>
  std::vector<T> get(const vector<T>& d) const {
    sync();
    return to_host(d);
  }
  template <class T>
  void poison(vector<T>& d) const { cascade_test::poison(d); }
  void sync() const { CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream())); }
};

struct own_stream {
  cudaStream_t s = nullptr;
  own_stream() { CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~own_stream() { (void)cudaStreamDestroy(s); }
};

template <class Check>
void on_both_streams(Check check) {
  check(gpu_side<std::decay_t<decltype(cascade::cuda)>>{cascade::cuda});
  own_stream stream;
  check(gpu_side<std::decay_t<decltype(cascade::cuda.on(stream.s))>>{cascade::cuda.on(stream.s)});
}

TEST_F(Idioms, SummaryStatisticsOfAStructAccumulator) {
  on_both_streams([](const auto& side) { check_summary_statistics(side); });
}
TEST_F(Idioms, RowSumsWithDiscardedKeys) {
  on_both_streams([](const auto& side) { check_row_sums(side); });
}
TEST_F(Idioms, ZippedKeysAndValues) {
  on_both_streams([](const auto& side) { check_zipped_keys_and_values(side); });
}
TEST_F(Idioms, KeyPredicateGroupsUnequalKeys) {
  on_both_streams([](const auto& side) { check_key_predicate(side); });
}
TEST_F(Idioms, ExtremesOfStructsByOneField) {
  on_both_streams([](const auto& side) { check_extremes_of_structs(side); });
}
TEST_F(Idioms, ScansOfPairsAndStructs) {
  on_both_streams([](const auto& side) { check_scans_of_pairs_and_structs(side); });
}
TEST_F(Idioms, ThrustFunctors) {
  on_both_streams([](const auto& side) { check_thrust_functors(side); });
}
TEST_F(Idioms, ReversedGatheredAndTransformedOutputs) {
  on_both_streams([](const auto& side) { check_reversed_gathered_and_transformed(side); });
}
TEST_F(Idioms, LibcuxxIterators) {
#if CASCADE_HAS_CUDA_ITERATORS
  on_both_streams([](const auto& side) { check_libcuxx_iterators(side); });
#else
  GTEST_SKIP() << "this CCCL has no cuda/iterator (CCCL 3.1 and later)";
#endif
}
TEST_F(Idioms, HalfValues) {
  on_both_streams([](const auto& side) { check_16_bit_floats<__half>(side); });
}
TEST_F(Idioms, Bfloat16Values) {
  on_both_streams([](const auto& side) { check_16_bit_floats<__nv_bfloat16>(side); });
}
TEST_F(Idioms, NarrowKeysAndValues) {
  on_both_streams([](const auto& side) { check_narrow_keys_and_values(side); });
}
TEST_F(Idioms, Int128Values) {
  on_both_streams([](const auto& side) { check_int128_values(side); });
}
TEST_F(Idioms, ComplexBoolAndWiderSums) {
  on_both_streams([](const auto& side) { check_complex_bool_and_wider_sums(side); });
}
TEST_F(Idioms, CountsAndRanksByKey) {
  on_both_streams([](const auto& side) { check_counts_and_ranks_by_key(side); });
}
TEST_F(Idioms, NonConstCallOperators) {
  on_both_streams([](const auto& side) { check_non_const_call_operators(side); });
}

// ---------------------------------------------------------------------------
// Extended __device__ lambdas, capturing, as operators of every GPU entry
// point; the transforms, whose result type the host must know, with a
// trailing return type (CCCL's rule).
// ---------------------------------------------------------------------------
// (A free function: an extended lambda's enclosing function may not be a
// private member, as a test's body is.)
void check_device_lambdas() {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints(n, 2001, n + 8);
    const auto hk = run_keys(n, 20, n + 9);
    const auto d = to_device(h), dk = to_device(hk);
    const int w = 3;  // captured by every lambda that can use it
    const auto plus_w = [w] __device__(long long a, long long b) { return a + b + 0 * w; };
    const auto same = [] __device__(int a, int b) { return a == b; };
    const auto less_w = [w] __device__(int a, int b) { return a * w < b * w; };
    const auto times_w = [w] __device__(int x) -> long long { return (long long)x * w; };
    const auto dot_w = [w] __device__(int x, int y) -> long long { return (long long)x * y * w; };

    long long want = 0, want_dot = 0;
    std::vector<long long> want_scan(n), want_by_key(n);
    std::vector<int> want_keys;
    std::vector<long long> want_sums;
    for (std::size_t i = 0; i < n; ++i) {
      want_scan[i] = want += (long long)h[i] * w;
      want_dot += (long long)h[i] * h[i] * w;
      if (i == 0 || hk[i] != hk[i - 1]) want_keys.push_back(hk[i]), want_sums.push_back(0);
      want_by_key[i] = want_sums.back() += h[i];
    }
    const auto wide = thrust::make_transform_iterator(d.begin(), widen{});
    EXPECT_EQ(cascade::reduce(cascade::cuda, wide, wide + n, 0ll, plus_w), want / w);
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda, d.begin(), d.end(), 0ll, plus_w, times_w), want);
    // The other way CCCL offers to name a device lambda's result.
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda, d.begin(), d.end(), 0ll, plus_w,
                                        cuda::proclaim_return_type<long long>([w] __device__(int x) { return 1ll * x * w; })),
              want);
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda, d.begin(), d.end(), d.begin(), 0ll, plus_w, dot_w), want_dot);
    // Two arrays that do not share their alignment: each item from its position.
    EXPECT_EQ(cascade::transform_reduce(cascade::cuda, d.begin() + 1, d.end(), d.begin(), 0ll, plus_w, dot_w),
              std::transform_reduce(h.begin() + 1, h.end(), h.begin(), 0ll, std::plus<>{},
                                    [](long long x, long long y) { return x * y * 3; }));
    EXPECT_EQ(cascade::min_element(cascade::cuda, d.begin(), d.end(), less_w) - d.begin(),
              std::min_element(h.begin(), h.end()) - h.begin());
    const auto mm = cascade::minmax_element(cascade::cuda, d.begin(), d.end(), less_w);
    const auto want_mm = std::minmax_element(h.begin(), h.end());
    EXPECT_EQ(mm.first - d.begin(), want_mm.first - h.begin());
    EXPECT_EQ(mm.second - d.begin(), want_mm.second - h.begin());

    thrust::device_vector<long long> out(n);
    poison(out);
    cascade::transform_inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin(), plus_w, times_w);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(to_host(out), want_scan);
    // A scan, then a transform scan of its output in place.
    poison(out);
    cascade::inclusive_scan(cascade::cuda, wide, wide + n, out.begin(), plus_w);
    cascade::transform_inclusive_scan(cascade::cuda, out.begin(), out.end(), out.begin(), plus_w,
                                      [w] __device__(long long x) -> long long { return x * w; });
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<long long> want_twice(n);  // the prefix sums of w * (the prefix sums of h)
    for (std::size_t i = 0; i < n; ++i) want_twice[i] = (i ? want_twice[i - 1] : 0) + want_scan[i];
    EXPECT_EQ(to_host(out), want_twice);

    thrust::device_vector<int> keys_out(n);
    thrust::device_vector<long long> sums(n);
    poison(keys_out), poison(sums);
    const auto ends =
        cascade::reduce_by_key(cascade::cuda, dk.begin(), dk.end(), wide, keys_out.begin(), sums.begin(), same, plus_w);
    ASSERT_EQ(std::size_t(ends.first - keys_out.begin()), want_keys.size());
    auto got_keys = to_host(keys_out);
    auto got_sums = to_host(sums);
    got_keys.resize(want_keys.size()), got_sums.resize(want_keys.size());
    EXPECT_EQ(got_keys, want_keys);
    EXPECT_EQ(got_sums, want_sums);
    poison(out);
    cascade::inclusive_scan_by_key(cascade::cuda, dk.begin(), dk.end(), wide, out.begin(), same, plus_w);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(to_host(out), want_by_key);
    // The runs as offsets: the segmented reduce and scan.
    const auto d_offsets = to_device(run_offsets(hk));
    poison(sums);
    cascade::segmented_reduce(cascade::cuda, wide, d_offsets.begin(), d_offsets.end(), sums.begin(), 0ll, plus_w);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    got_sums = to_host(sums);
    got_sums.resize(want_sums.size());
    EXPECT_EQ(got_sums, want_sums);
    poison(out);
    cascade::segmented_inclusive_scan(cascade::cuda, wide, d_offsets.begin(), d_offsets.end(), out.begin(), plus_w);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(to_host(out), want_by_key);
  }
}
TEST_F(Idioms, DeviceLambdasEverywhere) { check_device_lambdas(); }

}  // namespace
}  // namespace cascade_test

_CCCL_SUPPRESS_DEPRECATED_POP
