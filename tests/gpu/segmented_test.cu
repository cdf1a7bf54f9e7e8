// The keyed and segmented algorithms on the GPU against CUB (the build's
// CCCL; DeviceSegmentedScan and the fixed-size segmented reduce from CCCL
// 3.6, a host reference before it) for integers, and against per-segment
// std algorithms for non-commutative operators: every shape of the
// benchmarks at small n and a few at 2^20 and more, empty segments (tiles
// with more segment starts than items), one segment over many tiles, 32-
// and 64-bit offsets, fancy iterators, in place, bitwise identical runs,
// more than 2^31 items and segments (computed iterators), graph capture of
// the stream-ordered forms, bad offsets, and the masked scan's progress
// guarantee (tiles in reverse, silent predecessors recomputed).

#include "harness.cuh"
#include "../segmented_reference.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/transform.h>

#include <numeric>
#include <random>
#include <string>
#include <thread>

#if CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 6)
#include <cub/device/device_segmented_scan.cuh>
#define CASCADE_TEST_CUB_SEGMENTED_SCAN 1
#endif

namespace cascade_test {
namespace {

using plus = cuda::std::plus<>;
using maximum = cuda::maximum<>;

struct shape {
  const char* name;
  std::int64_t n, len;
};
const shape kShapes[] = {
    {"fixed", 1, 1},           {"fixed", 1000, 1},       {"fixed", 4099, 4},        {"fixed", 65537, 16},
    {"fixed", 65536, 64},      {"fixed", 100003, 256},   {"fixed", 100003, 4096},   {"fixed", 300007, 65536},
    {"fixed", 1 << 20, 1 << 20}, {"powerlaw", 1 << 16, 0}, {"halfempty", 65537, 8},  {"random", 100003, 40},
    {"fixed", (1 << 20) + 3, 1}, {"powerlaw", 1 << 21, 0}, {"halfempty", 1 << 21, 64}, {"fixed", 1 << 22, 1 << 22},
    {"fixed", 100003, 2},      {"fixed", 262147, 8}};

std::string trace(const shape& s) { return std::string(s.name) + " n = " + std::to_string(s.n) + " len = " + std::to_string(s.len); }

template <class T>
void expect_equal(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) {
      ADD_FAILURE() << "element " << i << " of " << got.size() << ": got " << got[i] << ", want " << want[i];
      return;
    }
  }
}

template <class F>
void cub_call(F f) {
  std::size_t bytes = 0;
  CASCADE_TEST_CUDA(f(nullptr, bytes));
  thrust::device_vector<char> temp(bytes + 1);
  CASCADE_TEST_CUDA(f(temp.data().get(), bytes));
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
}

// CUB's segment totals over CSR offsets (the reference).
template <class T, class O>
thrust::device_vector<T> cub_segment_totals(const thrust::device_vector<T>& v, const thrust::device_vector<O>& offsets,
                                            T init) {
  const std::int64_t segments = std::int64_t(offsets.size()) - 1;
  thrust::device_vector<T> totals(segments);
  cub_call([&](void* t, std::size_t& b) {
    return cub::DeviceSegmentedReduce::Reduce(t, b, v.data().get(), totals.data().get(), segments,
                                              offsets.data().get(), offsets.data().get() + 1, plus{}, init);
  });
  return totals;
}

class Segmented : public gpu_test {};

TEST_F(Segmented, ReduceByKeyMatchesCub) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n);
    const auto d_keys = to_device(keys_of<std::int32_t>(lengths, 3));
    const auto d_v = to_device(random_input<std::int32_t, plus>(s.n, s.n + 1));
    thrust::device_vector<std::int32_t> keys_out(s.n), values_out(s.n), want_keys(s.n), want_values(s.n);
    thrust::device_vector<std::int64_t> runs(1);
    poison(keys_out), poison(values_out);
    auto [kend, vend] = cascade::reduce_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(),
                                               keys_out.begin(), values_out.begin());
    cub_call([&](void* t, std::size_t& b) {
      return cub::DeviceReduce::ReduceByKey(t, b, d_keys.data().get(), want_keys.data().get(), d_v.data().get(),
                                            want_values.data().get(), runs.data().get(), plus{}, s.n);
    });
    const std::int64_t want_runs = runs[0];
    ASSERT_EQ(kend - keys_out.begin(), want_runs);
    ASSERT_EQ(vend - values_out.begin(), want_runs);
    keys_out.resize(want_runs), values_out.resize(want_runs), want_keys.resize(want_runs), want_values.resize(want_runs);
    expect_equal(to_host(keys_out), to_host(want_keys));
    expect_equal(to_host(values_out), to_host(want_values));

    // Stream-ordered form, the count in device memory.
    thrust::device_vector<std::int32_t> count(1);
    poison(keys_out), poison(values_out), poison(count);
    cascade::reduce_by_key_into(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), keys_out.begin(),
                                values_out.begin(), count.begin(), cuda::std::equal_to<>{}, plus{});
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(std::int64_t(count[0]), want_runs);
    expect_equal(to_host(keys_out), to_host(want_keys));
    expect_equal(to_host(values_out), to_host(want_values));
  }
}

// The scans by key of integer values against CUB's: inclusive sums, and
// exclusive in place with a maximum.
template <class K, class V>
void check_scans_by_key_against_cub(const thrust::device_vector<K>& d_keys, const thrust::device_vector<V>& d_v) {
  const std::int64_t n = d_v.size();
  thrust::device_vector<V> got(n), want(n);
  poison(got);
  EXPECT_EQ(cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), got.begin()) -
                got.begin(), n);
  cub_call([&](void* t, std::size_t& b) {
    return cub::DeviceScan::InclusiveScanByKey(t, b, d_keys.data().get(), d_v.data().get(), want.data().get(), plus{},
                                               n);
  });
  expect_equal(to_host(got), to_host(want));
  thrust::device_vector<V> inout = d_v;
  cascade::exclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), inout.begin(), inout.begin(), V{-7},
                                 cuda::std::equal_to<>{}, maximum{});
  cub_call([&](void* t, std::size_t& b) {
    return cub::DeviceScan::ExclusiveScanByKey(t, b, d_keys.data().get(), d_v.data().get(), want.data().get(),
                                               maximum{}, V{-7}, n);
  });
  expect_equal(to_host(inout), to_host(want));
}

TEST_F(Segmented, ScansByKeyMatchCub) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n);
    check_scans_by_key_against_cub(to_device(keys_of<std::int64_t>(lengths, 4)),
                                   to_device(random_input<std::int32_t, plus>(s.n, s.n + 2)));
  }
}

// The scans by key with 4-byte keys at and past
// wide_keyed_scan_tuning::min_items items (tiles of 8192 4-byte or 4096
// 8-byte values, the keys in shared memory), runs ending at and beside the
// tile edges: against CUB (int32 and int64, plus; exclusive in place with a
// maximum), the std reference (non-commutative operators of 4 and 8 bytes,
// inclusive and exclusive with init), and float and double sums run to run.
template <class V, class Op>
void check_scans_by_key_keep_order(const std::vector<std::int32_t>& keys,
                                   const thrust::device_vector<std::int32_t>& d_keys, std::uint64_t seed, V init,
                                   Op op) {
  const std::int64_t n = keys.size();
  const auto v = random_input<V, Op>(n, seed);
  const auto runs = run_offsets(keys);
  const auto d_v = to_device(v);
  std::vector<V> want(n);
  thrust::device_vector<V> out(n);
  poison(out);
  cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), out.begin(),
                                 cuda::std::equal_to<>{}, op);
  ref_segmented_scan<V>(v, runs, want, op, nullptr, false);
  expect_equal(to_host(out), want);
  poison(out);
  cascade::exclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), out.begin(), init,
                                 cuda::std::equal_to<>{}, op);
  ref_segmented_scan<V>(v, runs, want, op, &init, true);
  expect_equal(to_host(out), want);
}
template <class V>
void check_scans_by_key_repeat_bits(const thrust::device_vector<std::int32_t>& d_keys, std::uint64_t seed) {
  const std::int64_t n = d_keys.size();
  const auto d_x = to_device(random_input<V, plus>(n, seed));
  thrust::device_vector<V> first(n), again(n);
  cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_x.begin(), first.begin());
  const auto a = to_host(first);
  for (int run = 0; run < 3; ++run) {
    poison(again);
    cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_x.begin(), again.begin());
    const auto b = to_host(again);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(V)), 0) << sizeof(V) << "-byte values, run " << run;
  }
}

TEST_F(Segmented, WideKeyedTilesMatchCubAndKeepOrder) {
  using wide_t = cascade::detail::wide_keyed_scan_tuning<std::int32_t>;
  const std::int64_t wide = wide_t::min_items, tile = cascade::detail::segmented_tile_items<wide_t>;
  const shape shapes[] = {{"fixed", wide - 1, 3},           {"fixed", wide, tile},
                          {"fixed", wide + tile + 1, tile - 1}, {"fixed", wide + 9, 1},
                          {"random", wide + 5 * tile + 5, 40},  {"powerlaw", wide + 7, 0},
                          {"halfempty", wide + 3, 64},          {"fixed", wide + 3 * tile, tile / 2 + 3}};
  for (const shape& s : shapes) {
    if (s.n > max_test_size()) continue;
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 31);
    const auto keys = keys_of<std::int32_t>(lengths, 7);
    const auto d_keys = to_device(keys);
    check_scans_by_key_against_cub(d_keys, to_device(random_input<std::int32_t, plus>(s.n, s.n + 32)));
    check_scans_by_key_against_cub(d_keys, to_device(random_input<std::int64_t, plus>(s.n, s.n + 33)));
    check_scans_by_key_keep_order(keys, d_keys, s.n + 34, affine16{3, 7}, compose16{});
    check_scans_by_key_keep_order(keys, d_keys, s.n + 35, affine{3, 7}, compose{});
    check_scans_by_key_repeat_bits<float>(d_keys, s.n + 36);
    check_scans_by_key_repeat_bits<double>(d_keys, s.n + 37);
  }
}

// The segmented scans of v by offsets under a non-commutative op, against
// the std references: inclusive with init into out (poisoned first; its
// first v.size() items compared), exclusive in place.
template <class V, class Op>
void check_segmented_scans_keep_order(const std::vector<V>& v, const std::vector<std::int64_t>& offsets,
                                      const thrust::device_vector<V>& d_v,
                                      const thrust::device_vector<std::int64_t>& d_offsets,
                                      thrust::device_vector<V>& out, const V& init, Op op) {
  std::vector<V> want(v.size());
  poison(out);
  cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), op,
                                    init);
  ref_segmented_scan<V>(v, offsets, want, op, &init, false);
  auto got = to_host(out);
  got.resize(v.size());
  expect_equal(got, want);
  thrust::device_vector<V> inout = d_v;
  cascade::segmented_exclusive_scan(cascade::cuda, inout.begin(), d_offsets.begin(), d_offsets.end(), inout.begin(),
                                    init, op);
  ref_segmented_scan<V>(v, offsets, want, op, &init, true);
  expect_equal(to_host(inout), want);
}

// Non-commutative: affine maps, against the std references.
TEST_F(Segmented, NonCommutativeKeepsOrder) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 9);
    const auto keys = keys_of<std::int32_t>(lengths, 5);
    const auto offsets = offsets_of<std::int64_t>(lengths);
    const auto runs = run_offsets(keys);
    const auto v = random_input<affine, compose>(s.n, s.n + 3);
    const auto d_keys = to_device(keys);
    const auto d_v = to_device(v);
    const auto d_offsets = to_device(offsets);
    const affine init{3, 7};

    thrust::device_vector<affine> out(std::max<std::int64_t>(s.n, lengths.size()));
    poison(out);
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init, compose{});
    auto sums = to_host(out);
    sums.resize(lengths.size());
    expect_equal(sums, ref_segmented_reduce(v, offsets, init, compose{}));
    if (std::string(s.name) == "fixed") {  // sizes 1, 2, 4, 8: segments inside the threads
      poison(out);
      cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_v.end(), s.len, out.begin(), init, compose{});
      sums = to_host(out);
      sums.resize(lengths.size());
      expect_equal(sums, ref_segmented_reduce(v, offsets, init, compose{}));
    }

    check_segmented_scans_keep_order(v, offsets, d_v, d_offsets, out, init, compose{});
    std::vector<affine> want(s.n);
    poison(out);
    cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), out.begin(),
                                   cuda::std::equal_to<>{}, compose{});
    ref_segmented_scan<affine>(v, runs, want, compose{}, nullptr, false);
    expect_equal(to_host(out), want);

    thrust::device_vector<std::int32_t> keys_out(s.n);
    thrust::device_vector<affine> values_out(s.n);
    poison(values_out);
    auto ends = cascade::reduce_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), keys_out.begin(),
                                       values_out.begin(), cuda::std::equal_to<>{}, compose{});
    auto got = to_host(values_out);
    got.resize(ends.second - values_out.begin());
    std::vector<affine> run_sums;
    for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
      run_sums.push_back(std::accumulate(v.begin() + runs[r] + 1, v.begin() + runs[r + 1], v[runs[r]], compose{}));
    }
    expect_equal(got, run_sums);
  }
}

// The segmented scans of a non-commutative operator on 4-byte values, whose
// tiles (numbered_masked_scan_tuning) differ from the 8-byte ones above:
// inclusive with init, exclusive in place, against the std references.
TEST_F(Segmented, NonCommutativeScansOf4ByteValuesKeepOrder) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 13);
    const auto offsets = offsets_of<std::int64_t>(lengths);
    const auto v = random_input<affine16, compose16>(s.n, s.n + 17);
    const auto d_v = to_device(v);
    const auto d_offsets = to_device(offsets);
    thrust::device_vector<affine16> out(s.n);
    check_segmented_scans_keep_order(v, offsets, d_v, d_offsets, out, affine16{3, 7}, compose16{});
  }
}

// Offsets of 32 and 64 bits, items starting past 0, against CUB's
// DeviceSegmentedReduce and (CCCL 3.6) DeviceSegmentedScan.
template <class O>
void check_offsets_forms() {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(trace(s) + ", " + std::to_string(8 * sizeof(O)) + "-bit offsets");
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 11);
    const std::int64_t segments = lengths.size();
    const auto offsets = offsets_of<O>(lengths, O(3));
    const auto v = random_input<std::int64_t, plus>(s.n + 3, s.n + 5);
    const auto d_offsets = to_device(offsets);
    const auto d_v = to_device(v);
    const std::int64_t init = 11;

    thrust::device_vector<std::int64_t> got(segments);
    poison(got);
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), got.begin(), init, plus{});
    const auto want = to_host(cub_segment_totals(d_v, d_offsets, init));
    expect_equal(to_host(got), want);

    thrust::device_vector<std::int64_t> scanned(v.size()), want_scanned(v.size());
    poison(scanned);
    auto end = cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(),
                                                 scanned.begin(), plus{});
    EXPECT_EQ(end - scanned.begin(), std::int64_t(offsets.back()));
    std::vector<std::int64_t> host_want = to_host(scanned);  // positions before offsets[0]: untouched
#ifdef CASCADE_TEST_CUB_SEGMENTED_SCAN
    CASCADE_TEST_CUDA(cudaMemcpy(want_scanned.data().get(), scanned.data().get(), v.size() * 8, cudaMemcpyDeviceToDevice));
    cub_call([&](void* t, std::size_t& b) {
      return cub::DeviceSegmentedScan::InclusiveSegmentedSum(t, b, d_v.data().get(), want_scanned.data().get(),
                                                             d_offsets.data().get(), d_offsets.data().get() + 1,
                                                             segments);
    });
    host_want = to_host(want_scanned);
#else
    ref_segmented_scan<std::int64_t>(v, offsets, host_want, std::plus<>{}, nullptr, false);
#endif
    expect_equal(to_host(scanned), host_want);

    poison(scanned);
    cascade::segmented_exclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), scanned.begin(),
                                      init, plus{});
    host_want = to_host(scanned);
    ref_segmented_scan<std::int64_t>(v, offsets, host_want, std::plus<>{}, &init, true);
    expect_equal(to_host(scanned), host_want);
  }
}
TEST_F(Segmented, OffsetsOf32Bits) { check_offsets_forms<std::int32_t>(); }
TEST_F(Segmented, OffsetsOf64Bits) { check_offsets_forms<std::int64_t>(); }

TEST_F(Segmented, FixedSizeMatchesReference) {
  for (std::int64_t n : {1, 1000, 65537, (1 << 20) + 5}) {
    for (int size : {1, 2, 3, 4, 8, 16, 32, 64, 512, 4096, 1 << 20}) {
      SCOPED_TRACE("n = " + std::to_string(n) + " size = " + std::to_string(size));
      const auto v = random_input<std::int32_t, plus>(n, n + size);
      const auto d_v = to_device(v);
      const std::int64_t segments = (n + size - 1) / size;
      thrust::device_vector<std::int32_t> got(segments);
      poison(got);
      cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_v.end(), size, got.begin(), std::int32_t{5}, plus{});
      std::vector<std::int64_t> lengths(segments, size);
      lengths.back() = n - (segments - 1) * size;
      expect_equal(to_host(got), ref_segmented_reduce(v, offsets_of<std::int64_t>(lengths), std::int32_t{5}, plus{}));
#if CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 6)
      if (n % size == 0) {  // CUB's fixed-size overload takes whole segments only
        thrust::device_vector<std::int32_t> want(segments);
        cub_call([&](void* t, std::size_t& b) {
          return cub::DeviceSegmentedReduce::Reduce(t, b, d_v.data().get(), want.data().get(), segments, size, plus{},
                                                    std::int32_t{5});
        });
        expect_equal(to_host(got), to_host(want));
      }
#endif
    }
  }
}

// Grids of more than 4096 tiles (16385 of 2048 int64 values), where
// segments and runs span tiles: segmented_reduce's tile that ends a segment
// joins the pieces the tiles before it publish (waiting for those not yet
// published), and reduce_by_key's second launch, which begins while the
// tiles run (a dependent launch, on Hopper), must wait for their pieces.
// Against CUB, segments of 65543 items (33 tiles each) and a power law.
TEST_F(Segmented, SpansJoinedAfterLargeGrids) {
  const std::int64_t n = (std::int64_t(1) << 25) + 123;
  for (const shape& s : {shape{"fixed", n, 65543}, shape{"powerlaw", n, 0}}) {
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, 29);
    const std::int64_t segments = lengths.size();
    const auto d_offsets = to_device(offsets_of<std::int64_t>(lengths));
    const auto d_v = to_device(random_input<std::int64_t, plus>(s.n, 31));
    const std::int64_t init = 7;
    thrust::device_vector<std::int64_t> got(segments);
    poison(got);
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), got.begin(), init, plus{});
    const auto want = to_host(cub_segment_totals(d_v, d_offsets, init));
    expect_equal(to_host(got), want);
    if (s.len > 0) {
      poison(got);
      cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_v.end(), s.len, got.begin(), init, plus{});
      expect_equal(to_host(got), want);
    }

    const auto d_keys = to_device(keys_of<std::int32_t>(lengths, 3));
    thrust::device_vector<std::int32_t> keys_out(segments), want_keys(segments);
    thrust::device_vector<std::int64_t> sums(segments), want_sums(segments), runs(1);
    poison(sums);
    const auto ends = cascade::reduce_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(),
                                             keys_out.begin(), sums.begin());
    cub_call([&](void* t, std::size_t& b) {
      return cub::DeviceReduce::ReduceByKey(t, b, d_keys.data().get(), want_keys.data().get(), d_v.data().get(),
                                            want_sums.data().get(), runs.data().get(), plus{}, s.n);
    });
    const std::int64_t want_runs = runs[0];
    ASSERT_EQ(ends.second - sums.begin(), want_runs);
    sums.resize(want_runs), want_sums.resize(want_runs);
    expect_equal(to_host(sums), to_host(want_sums));
  }
}

// Segments over thousands of tiles: the tile that ends one joins its
// pieces a block's threads' worth a round (join_pieces_before in
// tile_totals.cuh). 20 million items are 4883 tiles of 4-byte values and
// 9766 of 8-byte ones: 20 and 39 rounds, each ending part-way through a
// round; in order, for a non-commutative operator of either size, by
// offsets (a segment begun inside the first tile, a short one after it) and
// by a fixed size (a last segment shorter). Fixed sizes of more than 256
// tiles are joined by a launch of their own (joins_kernel): 9000001 items
// (about 2200 or 4400 tiles a segment), and whole tiles (16 KB of values), 1200 a
// segment, 5 rounds, and a last segment of 83.
template <class V, class Op>
void check_long_joins() {
  const std::int64_t n = 20000003;
  const auto v = random_input<V, Op>(n, 41);
  const auto d_v = to_device(v);
  const V init = v[7];
  const std::vector<std::int64_t> offsets{0, 3, n - 777, n};
  const auto d_offsets = to_device(offsets);
  thrust::device_vector<V> out(3);
  poison(out);
  cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init, Op{});
  expect_equal(to_host(out), ref_segmented_reduce(v, offsets, init, Op{}));
  for (const std::int64_t size : {std::int64_t(9000001), std::int64_t(16384 / sizeof(V) * 1200)}) {
    SCOPED_TRACE("size = " + std::to_string(size));
    std::vector<std::int64_t> fixed_offsets;
    for (std::int64_t i = 0; i < n; i += size) fixed_offsets.push_back(i);
    fixed_offsets.push_back(n);
    thrust::device_vector<V> totals(fixed_offsets.size() - 1);
    poison(totals);
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_v.end(), size, totals.begin(), init, Op{});
    expect_equal(to_host(totals), ref_segmented_reduce(v, fixed_offsets, init, Op{}));
  }
}
TEST_F(Segmented, LongJoinsKeepOrder4Bytes) { check_long_joins<affine16, compose16>(); }
TEST_F(Segmented, LongJoinsKeepOrder8Bytes) { check_long_joins<affine, compose>(); }

// Runs call(t, stream) three times on each of four threads, each on a stream
// of its own, and waits; returns each thread's error message ("" if none).
template <class Call>
std::vector<std::string> on_four_streams(Call call) {
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      try {
        cudaStream_t stream;
        cascade::detail::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        for (int repeat = 0; repeat < 3; ++repeat) call(t, stream);
        cascade::detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        cascade::detail::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  return failures;
}

// Segments by offsets of more than 256 tiles (on grids of
// listed_joins_min_tiles tiles or more) are joined by a launch of their own,
// each found by the tile where it ends (joins_by_window in tile_totals.cuh:
// at most one can end in a window of 256 tiles). Lengths in tiles T of the
// value type: 256 tiles and one item more or fewer (either side of the
// bound), long segments back to back (their ends in neighbouring windows),
// one ending at a tile's edge, empty and short ones between, the last one
// ending at the last item; in order for a non-commutative operator.
// A last segment makes the grid large enough.
template <class V>
std::vector<std::int64_t> windowed_lengths() {
  const std::int64_t T = 16384 / sizeof(V);
  std::vector<std::int64_t> lengths{3,           256 * T - 2, 256 * T + 1, 0, 0,       300 * T + 5, 257 * T, 17,
                                    255 * T + 1, 2,           1000 * T,    T - 20,     0,           513 * T - 7, 5,
                                    700 * T + 11};
  const std::int64_t tiles = std::accumulate(lengths.begin(), lengths.end(), std::int64_t(0)) / T;
  const std::int64_t fewest = cascade::detail::tile_totals_tuning<V>::listed_joins_min_tiles;
  lengths.push_back(std::max<std::int64_t>(fewest - tiles, 300) * T + 9);
  return lengths;
}
template <class V, class Op>
void check_joins_by_window() {
  const auto lengths = windowed_lengths<V>();
  const auto offsets = offsets_of<std::int64_t>(lengths);
  const std::int64_t n = offsets.back(), segments = lengths.size();
  const auto v = random_input<V, Op>(n, 43);
  const auto d_v = to_device(v);
  const auto d_offsets = to_device(offsets);
  const V init = v[11];
  const auto want = ref_segmented_reduce(v, offsets, init, Op{});
  thrust::device_vector<V> out(segments);
  for (int repeat = 0; repeat < 2; ++repeat) {  // (the stream's status words again, a new epoch)
    poison(out);
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init, Op{});
    expect_equal(to_host(out), want);
  }
}
TEST_F(Segmented, JoinsByWindowKeepOrder4Bytes) { check_joins_by_window<affine16, compose16>(); }
TEST_F(Segmented, JoinsByWindowKeepOrder8Bytes) { check_joins_by_window<affine, compose>(); }

// The same segments of int64 sums against CUB, over an array and over a
// transform iterator (the grid sized by the allocation) and a counting
// iterator (ends read back, the grid sized by the items), from four
// threads on streams of their own, each with the segments shifted by a
// different number of tiles and items (other windows); and in a graph
// replayed with other offsets (marks from the replay before must not be
// taken for this one's).
struct triple64 {
  __host__ __device__ std::int64_t operator()(std::int64_t x) const { return 3 * x; }
};
TEST_F(Segmented, JoinsByWindowFromIteratorsThreadsAndGraphs) {
  const std::int64_t T = 16384 / sizeof(std::int64_t);
  std::vector<std::vector<std::int64_t>> offsets;
  for (int t = 0; t < 4; ++t) {
    auto lengths = windowed_lengths<std::int64_t>();
    lengths.insert(lengths.begin(), t * 37 * T + t * 5);
    offsets.push_back(offsets_of<std::int64_t>(lengths));
  }
  const std::int64_t n = offsets.back().back();
  for (auto& o : offsets) o.back() = n;  // (every set of offsets covers all the items)
  const auto d_v = to_device(random_input<std::int64_t, plus>(n, 45));
  std::vector<thrust::device_vector<std::int64_t>> d_offsets, wants;
  for (const auto& o : offsets) {
    d_offsets.push_back(to_device(o));
    wants.push_back(cub_segment_totals(d_v, d_offsets.back(), std::int64_t{3}));
  }
  const auto tripled = thrust::make_transform_iterator(d_v.begin(), triple64{});
  thrust::device_vector<std::int64_t> d_v3(n);
  thrust::transform(d_v.begin(), d_v.end(), d_v3.begin(), triple64{});
  const auto want_tripled = to_host(cub_segment_totals(d_v3, d_offsets[1], std::int64_t{3}));
  thrust::device_vector<std::int64_t> got(offsets[1].size() - 1);
  poison(got);
  cascade::segmented_reduce(cascade::cuda, tripled, d_offsets[1].begin(), d_offsets[1].end(), got.begin(),
                            std::int64_t{3}, plus{});
  expect_equal(to_host(got), want_tripled);
  // Values from a counting iterator (no allocation: the ends are read back
  // and the grid sized by the items), against the sums' closed form.
  std::vector<std::int64_t> want_counted;
  for (std::size_t j = 0; j + 1 < offsets[2].size(); ++j) {
    const std::int64_t b = offsets[2][j], e = offsets[2][j + 1];
    want_counted.push_back(3 + (b + e - 1) * (e - b) / 2);
  }
  poison(got);
  cascade::segmented_reduce(cascade::cuda, thrust::counting_iterator<std::int64_t>(0), d_offsets[2].begin(),
                            d_offsets[2].end(), got.begin(), std::int64_t{3}, plus{});
  expect_equal(to_host(got), want_counted);

  std::vector<thrust::device_vector<std::int64_t>> outs;
  for (const auto& o : offsets) outs.emplace_back(o.size() - 1);
  for (auto& out : outs) poison(out);
  const auto failures = on_four_streams([&](int t, cudaStream_t stream) {
    cascade::segmented_reduce(cascade::cuda.on(stream), d_v.begin(), d_offsets[t].begin(), d_offsets[t].end(),
                              outs[t].begin(), std::int64_t{3}, plus{});
  });
  for (int t = 0; t < 4; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_EQ(failures[t], "");
    expect_equal(to_host(outs[t]), to_host(wants[t]));
  }

  // One graph over one offsets array, replayed with each set in turn (the
  // sets have as many segments); then with offsets of no long segment.
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  thrust::device_vector<std::int64_t> replayed_offsets = d_offsets[0], replayed(offsets[0].size() - 1);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CASCADE_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cascade::segmented_reduce(cascade::cuda.on(stream), d_v.begin(), replayed_offsets.begin(), replayed_offsets.end(),
                            replayed.begin(), std::int64_t{3}, plus{});
  CASCADE_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  CASCADE_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int t : {0, 3, 1, 2, 0}) {
    SCOPED_TRACE("replay with the offsets of thread " + std::to_string(t));
    thrust::copy(d_offsets[t].begin(), d_offsets[t].end(), replayed_offsets.begin());
    poison(replayed);
    CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    expect_equal(to_host(replayed), to_host(wants[t]));
  }
  std::vector<std::int64_t> even(offsets[0].size());
  for (std::size_t j = 0; j < even.size(); ++j) even[j] = n * std::int64_t(j) / std::int64_t(even.size() - 1);
  thrust::copy(even.begin(), even.end(), replayed_offsets.begin());
  poison(replayed);
  CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
  CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
  expect_equal(to_host(replayed), to_host(cub_segment_totals(d_v, replayed_offsets, std::int64_t{3})));
  CASCADE_TEST_CUDA(cudaGraphExecDestroy(exec));
  CASCADE_TEST_CUDA(cudaGraphDestroy(graph));
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

// Fixed sizes take the offsets form's combination tree: the same bits for
// float sums (sizes that divide a thread's items fold inside the threads,
// sizes of 2-32 threads' items complete in a warp scan, and whole tiles of
// 4096 floats over many tiles, and other sizes of more than 256 tiles, are
// joined by a launch of their own; so are such segments by offsets, on
// grids of listed_joins_min_tiles tiles or more).
void check_fixed_sizes_give_the_offsets_forms_bits(std::int64_t n, std::initializer_list<std::int64_t> sizes) {
  const auto d_v = to_device(random_input<float, plus>(n, 31));
  for (std::int64_t size : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", size = " + std::to_string(size));
    const std::int64_t segments = (n + size - 1) / size;
    std::vector<std::int64_t> lengths(segments, size);
    lengths.back() = n - (segments - 1) * size;
    const auto d_offsets = to_device(offsets_of<std::int64_t>(lengths));
    thrust::device_vector<float> fixed(segments), by_offsets(segments);
    poison(fixed), poison(by_offsets);
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_v.end(), size, fixed.begin(), 0.5f, plus{});
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), by_offsets.begin(), 0.5f,
                              plus{});
    const auto a = to_host(fixed), b = to_host(by_offsets);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  }
}
TEST_F(Segmented, FixedSizesGiveTheOffsetsFormsBits) {
  check_fixed_sizes_give_the_offsets_forms_bits((1 << 22) + 5, {1, 2, 3, 4, 8, 16, 32, 64, 256, 512, 1024, 5000, 4096 * 2,
                                                                4096 * 33, 4096 * 300, 4096 * 1000, 4096 * 300 + 7,
                                                                4096 * 1000 - 3});
  // Grids where the offsets form joins its long segments apart too
  // (joins_by_window, from listed_joins_min_tiles tiles).
  const std::int64_t tiles = cascade::detail::tile_totals_tuning<float>::listed_joins_min_tiles;
  check_fixed_sizes_give_the_offsets_forms_bits(tiles * 4096 + 5, {4096 * 255 + 1, 4096 * 300 + 7, 4096 * 5000 - 3});
}

// Values, keys and offsets from fancy iterators: values i % 97, keys i / 7,
// offsets 5 j (segments of 5).
struct mod97 {
  __host__ __device__ std::int32_t operator()(std::int64_t i) const { return std::int32_t(i % 97); }
};
struct div7 {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i / 7; }
};
struct times5 {
  __host__ __device__ std::int64_t operator()(std::int64_t j) const { return 5 * j; }
};
TEST_F(Segmented, FancyIterators) {
  const std::int64_t n = 1000003 / 5 * 5;
  thrust::counting_iterator<std::int64_t> i0(0);
  auto values = thrust::make_transform_iterator(i0, mod97{});
  auto keys = thrust::make_transform_iterator(i0, div7{});
  auto offsets = thrust::make_transform_iterator(i0, times5{});
  std::vector<std::int32_t> v(n);
  std::vector<std::int64_t> k(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = mod97{}(i), k[i] = div7{}(i);

  thrust::device_vector<std::int32_t> out(n);
  poison(out);
  cascade::inclusive_scan_by_key(cascade::cuda, keys, keys + n, values, out.begin());
  std::vector<std::int32_t> want(n);
  ref_segmented_scan<std::int32_t>(v, run_offsets(k), want, std::plus<>{}, nullptr, false);
  expect_equal(to_host(out), want);

  const std::int64_t segments = n / 5;
  thrust::device_vector<std::int32_t> sums(segments);
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, values, offsets, offsets + segments + 1, sums.begin(), std::int32_t{0}, plus{});
  std::vector<std::int64_t> offs(segments + 1);
  for (std::int64_t j = 0; j <= segments; ++j) offs[j] = 5 * j;
  expect_equal(to_host(sums), ref_segmented_reduce(v, offs, std::int32_t{0}, plus{}));
}

// Fixed sizes of more than 256 tiles (joined by a second launch) over a
// transform iterator, and from four threads at once, each on a stream of its
// own (each stream's status words and the pieces beside them) with a size of
// its own, multiples of the tile and not; against the standard library.
TEST_F(Segmented, JoinsApartFromIteratorsAndThreads) {
  const std::int64_t n = (1 << 22) + 11;
  thrust::counting_iterator<std::int64_t> i0(0);
  const auto values = thrust::make_transform_iterator(i0, mod97{});
  std::vector<std::int32_t> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = mod97{}(i);
  const auto d_v = to_device(v);
  auto want_of = [&](std::int64_t size, std::int32_t init) {
    std::vector<std::int64_t> offsets;
    for (std::int64_t i = 0; i < n; i += size) offsets.push_back(i);
    offsets.push_back(n);
    return ref_segmented_reduce(v, offsets, init, plus{});
  };
  const std::int64_t size = 4096 * 300 + 7;
  thrust::device_vector<std::int32_t> sums((n + size - 1) / size);
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, values, values + n, size, sums.begin(), std::int32_t{3}, plus{});
  expect_equal(to_host(sums), want_of(size, 3));

  const std::int64_t sizes[] = {4096 * 257, 4096 * 300 + 7, 4096 * 400 - 1, 4096 * 513};
  std::vector<thrust::device_vector<std::int32_t>> outs;
  for (std::int64_t sz : sizes) outs.emplace_back((n + sz - 1) / sz);
  for (auto& out : outs) poison(out);
  const auto failures = on_four_streams([&](int t, cudaStream_t stream) {
    cascade::segmented_reduce(cascade::cuda.on(stream), d_v.begin(), d_v.end(), sizes[t], outs[t].begin(),
                              std::int32_t{t}, plus{});
  });
  for (int t = 0; t < 4; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_EQ(failures[t], "");
    expect_equal(to_host(outs[t]), want_of(sizes[t], std::int32_t(t)));
  }
}

// Fixed sizes that divide a thread's items have a kernel of their own, whose
// threads read their items as 16-byte vectors only from aligned arrays: the
// same sizes from a transform iterator and from an array one item off its
// alignment, with a partial last tile and a shorter last segment.
TEST_F(Segmented, FixedSizesInsideThreadsFromIteratorsAndMisalignedArrays) {
  const std::int64_t n = 100003;
  thrust::counting_iterator<std::int64_t> i0(0);
  const auto values = thrust::make_transform_iterator(i0, mod97{});
  std::vector<std::int32_t> v(n + 1);
  for (std::int64_t i = 0; i <= n; ++i) v[i] = mod97{}(i);
  const auto d_v = to_device(v);  // item i at i + 1 below: misaligned
  const std::vector<std::int32_t> from_iterator(v.begin(), v.begin() + n), from_array(v.begin() + 1, v.end());
  for (int size : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE("size = " + std::to_string(size));
    const std::int64_t segments = (n + size - 1) / size;
    std::vector<std::int64_t> offs;
    for (std::int64_t j = 0; j < segments; ++j) offs.push_back(j * size);
    offs.push_back(n);
    thrust::device_vector<std::int32_t> sums(segments);
    poison(sums);
    cascade::segmented_reduce(cascade::cuda, values, values + n, size, sums.begin(), std::int32_t{3}, plus{});
    expect_equal(to_host(sums), ref_segmented_reduce(from_iterator, offs, std::int32_t{3}, plus{}));
    poison(sums);
    const std::int32_t* misaligned = thrust::raw_pointer_cast(d_v.data()) + 1;
    cascade::segmented_reduce(cascade::cuda, misaligned, misaligned + n, size, sums.begin(), std::int32_t{3}, plus{});
    expect_equal(to_host(sums), ref_segmented_reduce(from_array, offs, std::int32_t{3}, plus{}));
  }
}

// Floating point sums: the same bits on every run.
TEST_F(Segmented, BitwiseIdenticalRuns) {
  const std::int64_t n = (1 << 22) + 77;
  const auto lengths = segment_lengths("powerlaw", n, 0, 17);
  const auto d_offsets = to_device(offsets_of<std::int64_t>(lengths));
  const auto d_keys = to_device(keys_of<std::int32_t>(lengths, 2));
  const auto d_v = to_device(random_input<float, plus>(n, 23));
  std::vector<float> first_scan, first_sums, first_runs, first_keyed;
  for (int run = 0; run < 5; ++run) {
    thrust::device_vector<float> scan(n), sums(lengths.size()), run_sums(n), keyed(n);
    thrust::device_vector<std::int32_t> keys_out(n);
    cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), scan.begin());
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), sums.begin(), 0.0f, plus{});
    cascade::reduce_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), keys_out.begin(), run_sums.begin());
    cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_v.begin(), keyed.begin());
    auto a = to_host(scan), b = to_host(sums), c = to_host(run_sums), k = to_host(keyed);
    if (run == 0) {
      first_scan = a, first_sums = b, first_runs = c, first_keyed = k;
      continue;
    }
    EXPECT_EQ(std::memcmp(a.data(), first_scan.data(), a.size() * 4), 0) << "run " << run;
    EXPECT_EQ(std::memcmp(b.data(), first_sums.data(), b.size() * 4), 0) << "run " << run;
    EXPECT_EQ(std::memcmp(c.data(), first_runs.data(), c.size() * 4), 0) << "run " << run;
    EXPECT_EQ(std::memcmp(k.data(), first_keyed.data(), k.size() * 4), 0) << "run " << run;
  }
}

// The keyed and segmented forms on a stream of their own while another
// stream keeps every SM and the memory busy (tests/gpu/harness.cuh,
// gpu_load): their tiles start late and out of order, so silent
// predecessors, late counts and the second launches' waits all happen.
// 2^24 + 77 items (more than 4096 tiles of reduce_by_key: its second
// launch is a dependent launch), a power law and runs of 4. Integers
// against the host, exactly; floats bitwise against a run without the load.
template <class V>
struct keyed_and_segmented {
  std::vector<V> sums, scan, run_sums, keyed;
  std::vector<std::int32_t> keys;
};
template <class V>
keyed_and_segmented<V> run_keyed_and_segmented(cudaStream_t s, gpu_load* load, const thrust::device_vector<V>& d_v,
                                               const thrust::device_vector<std::int64_t>& d_offsets,
                                               const thrust::device_vector<std::int32_t>& d_keys) {
  const auto on_s = cascade::cuda.on(s);
  const std::int64_t n = std::int64_t(d_v.size()), segments = std::int64_t(d_offsets.size()) - 1;
  thrust::device_vector<V> sums(segments), scan(n), run_sums(n), keyed(n);
  thrust::device_vector<std::int32_t> keys_out(n);
  poison(sums), poison(scan), poison(keys_out), poison(run_sums), poison(keyed);  // (each waits for the device)
  if (load) load->start(16);  // (about 4 ms alone: longer than the four calls take)
  cascade::segmented_reduce(on_s, d_v.begin(), d_offsets.begin(), d_offsets.end(), sums.begin(), V(0), plus{});
  cascade::segmented_inclusive_scan(on_s, d_v.begin(), d_offsets.begin(), d_offsets.end(), scan.begin());
  const auto ends = cascade::reduce_by_key(on_s, d_keys.begin(), d_keys.end(), d_v.begin(), keys_out.begin(),
                                           run_sums.begin());
  cascade::inclusive_scan_by_key(on_s, d_keys.begin(), d_keys.end(), d_v.begin(), keyed.begin());
  CASCADE_TEST_CUDA(cudaStreamSynchronize(s));
  EXPECT_EQ(ends.first - keys_out.begin(), segments);  // (every segment here holds items)
  keyed_and_segmented<V> got{to_host(sums), to_host(scan), to_host(run_sums), to_host(keyed), to_host(keys_out)};
  got.run_sums.resize(segments), got.keys.resize(segments);
  return got;
}
template <class V>
void expect_same_bits(const std::vector<V>& got, const std::vector<V>& want) {
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(V)), 0);
}
TEST_F(Segmented, AnotherStreamLoadingTheGpuChangesNothing) {
  const std::int64_t n = (1 << 24) + 77;
  cudaStream_t s;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gpu_load load;
  const auto h = random_input<std::int32_t, plus>(n, 91);
  const auto d_v = to_device(h);
  const auto d_f = to_device(random_input<float, plus>(n, 92));
  for (const char* name : {"powerlaw", "fixed"}) {
    SCOPED_TRACE(name);
    const auto lengths = segment_lengths(name, n, 4, 93);
    const auto offsets = offsets_of<std::int64_t>(lengths);
    const auto keys = keys_of<std::int32_t>(lengths, 95);
    const auto d_offsets = to_device(offsets);
    const auto d_keys = to_device(keys);
    const auto want_sums = ref_segmented_reduce<std::int32_t>(h, offsets, 0, plus{});
    std::vector<std::int32_t> want_scan(n), want_keys;
    ref_segmented_scan(h, offsets, want_scan, plus{}, static_cast<const std::int32_t*>(nullptr), false);
    for (std::size_t j = 0; j + 1 < offsets.size(); ++j) want_keys.push_back(keys[offsets[j]]);
    const auto unloaded = run_keyed_and_segmented(s, nullptr, d_f, d_offsets, d_keys);
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      const auto got = run_keyed_and_segmented(s, &load, d_v, d_offsets, d_keys);
      expect_equal(got.sums, want_sums);
      expect_equal(got.scan, want_scan);
      expect_equal(got.keys, want_keys);
      expect_equal(got.run_sums, want_sums);
      expect_equal(got.keyed, want_scan);
      const auto bits = run_keyed_and_segmented(s, &load, d_f, d_offsets, d_keys);
      expect_same_bits(bits.sums, unloaded.sums);
      expect_same_bits(bits.scan, unloaded.scan);
      expect_same_bits(bits.run_sums, unloaded.run_sums);
      expect_same_bits(bits.keyed, unloaded.keyed);
    }
  }
  CASCADE_TEST_CUDA(cudaStreamSynchronize(load.stream));
  CASCADE_TEST_CUDA(cudaStreamDestroy(s));
}

// Status words left by other calls, or none (harness.cuh,
// on_fresh_and_stale_words). A 16-byte status word read as two loads let a
// tile take a new word's tag with the old word's value: the compiler split
// them where the value leaves bytes of the word unused. reduce_by_key over
// __int128 (a 4-byte count beside it: 12 bytes of padding) was wrong in 95
// calls of 100 on a fresh workspace (H200, 65537 items). Here reduce_by_key
// of padded pairs (__int128 and int64 values) against the host, and a float
// scan by key against its bits on a warm workspace.
template <class V>
void check_reduce_by_key_on_fresh_and_stale_words(std::int64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::to_string(sizeof(V)) + "-byte values, n = " + std::to_string(n));
  const auto keys = keys_of<std::int32_t>(segment_lengths("powerlaw", n, 0, seed), seed + 1);
  const auto runs = run_offsets(keys);
  const auto d_keys = to_device(keys);
  std::vector<V> inputs[2];
  std::vector<std::vector<V>> want(2);
  for (int i = 0; i < 2; ++i) {
    const auto h = random_input<std::int32_t, plus>(n, seed + 2 + i);
    for (std::int64_t j = 0; j < n; ++j) {  // every word of the value in play
      if constexpr (sizeof(V) == 16) inputs[i].push_back((V(h[j]) << 96) + (V(h[j]) << 40) + V(j));
      else inputs[i].push_back((V(h[j]) << 33) + V(j));
    }
    for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
      want[i].push_back(std::accumulate(inputs[i].begin() + runs[r], inputs[i].begin() + runs[r + 1], V(0)));
    }
  }
  const thrust::device_vector<V> d_inputs[2] = {to_device(inputs[0]), to_device(inputs[1])};
  thrust::device_vector<std::int32_t> keys_out(n);
  thrust::device_vector<V> totals(n);
  on_fresh_and_stale_words([&](int i) {
    poison(keys_out), poison(totals);
    const auto ends = cascade::reduce_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d_inputs[i].begin(),
                                             keys_out.begin(), totals.begin());
    ASSERT_EQ(ends.second - totals.begin(), std::ptrdiff_t(want[i].size()));
    const auto got = to_host(totals);
    for (std::size_t r = 0; r < want[i].size(); ++r) {
      if (got[r] != want[i][r]) {
        ADD_FAILURE() << "run " << r << " of " << want[i].size() << ": wrong total";
        break;
      }
    }
  });
}

TEST_F(Segmented, FreshAndStaleStatusWordsChangeNothing) {
  check_reduce_by_key_on_fresh_and_stale_words<__int128>(65537, 101);
  check_reduce_by_key_on_fresh_and_stale_words<__int128>(200003, 111);
  check_reduce_by_key_on_fresh_and_stale_words<std::int64_t>(65537, 121);
  check_reduce_by_key_on_fresh_and_stale_words<std::int64_t>((1 << 20) + 3, 131);

  SCOPED_TRACE("float scan by key");
  const std::int64_t n = (1 << 20) + 3;
  const auto d_keys = to_device(keys_of<std::int32_t>(segment_lengths("powerlaw", n, 0, 141), 142));
  const thrust::device_vector<float> inputs[2] = {to_device(random_input<float, plus>(n, 143)),
                                                  to_device(random_input<float, plus>(n, 144))};
  std::vector<float> want[2];
  thrust::device_vector<float> out(n);
  for (int i = 0; i < 2; ++i) {
    for (int warm = 0; warm < 2; ++warm) {
      cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), inputs[i].begin(), out.begin());
    }
    want[i] = to_host(out);
  }
  on_fresh_and_stale_words([&](int i) {
    poison(out);
    cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), inputs[i].begin(), out.begin());
    expect_same_bits(to_host(out), want[i]);
  });
}

// Runs of thousands of empty segments between items: tiles with more
// segment starts than items (their staged begins run out), and walks over
// many empty segments inside a thread's items.
TEST_F(Segmented, ManyEmptySegmentsInATile) {
  std::mt19937_64 rng(91);
  std::vector<std::int64_t> lengths;
  std::int64_t n = 0;
  while (n < 300000) {
    const int kind = int(rng() % 8);
    if (kind == 0) lengths.insert(lengths.end(), 1 + rng() % 20000, 0);  // a run of empty segments
    else if (kind == 1) lengths.push_back(std::int64_t(rng() % 20000));    // spans tiles
    else lengths.push_back(std::int64_t(rng() % 4));
    n += lengths.back();
  }
  lengths.insert(lengths.end(), 7000, 0);  // empty segments after the last item
  SCOPED_TRACE(std::to_string(lengths.size()) + " segments, " + std::to_string(n) + " items");
  const auto offsets = offsets_of<std::int64_t>(lengths);
  const auto v = random_input<std::int64_t, plus>(n, 92);
  const auto d_offsets = to_device(offsets);
  const auto d_v = to_device(v);
  const std::int64_t init = -5;

  thrust::device_vector<std::int64_t> sums(lengths.size());
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), sums.begin(), init, plus{});
  expect_equal(to_host(sums), ref_segmented_reduce(v, offsets, init, plus{}));

  std::vector<std::int64_t> want(n);
  thrust::device_vector<std::int64_t> out(n);
  poison(out);
  cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(),
                                    plus{});
  ref_segmented_scan<std::int64_t>(v, offsets, want, std::plus<>{}, nullptr, false);
  expect_equal(to_host(out), want);
  poison(out);
  cascade::segmented_exclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init,
                                    plus{});
  ref_segmented_scan<std::int64_t>(v, offsets, want, std::plus<>{}, &init, true);
  expect_equal(to_host(out), want);
}

// Segments of a tile's length, each followed by 0-2 empty ones, so that
// empty segments end where tiles start (a tile tells them from the begin it
// stages before its first segment); whole tiles of an aligned array and of
// a misaligned one (values from item 1). The tiles of segmented_reduce and
// of the segmented scans, whose lengths differ (4096 and 5120 4-byte values,
// 2048 and 3072 8-byte ones).
template <class T>
void check_empties_at_tile_edges() {
  using namespace cascade::detail;
  for (const std::int64_t tile : {segmented_tile_items<tile_totals_tuning<T>>,
                                  segmented_tile_items<numbered_masked_scan_tuning<T>>}) {
    SCOPED_TRACE("segments of " + std::to_string(tile) + " items");
    std::mt19937_64 rng(93);
    std::vector<std::int64_t> lengths{0};  // and before the first item
    for (int t = 0; t < 3000; ++t) {
      lengths.push_back(t % 7 == 3 ? tile + std::int64_t(rng() % 5) - 2 : tile);
      lengths.insert(lengths.end(), rng() % 3, 0);
    }
    const auto offsets = offsets_of<std::int64_t>(lengths);
    const std::int64_t n = offsets.back();
    const auto v = random_input<T, plus>(n + 1, 94);
    const auto d_offsets = to_device(offsets);
    const auto d_v = to_device(v);
    const T init = 7;
    for (int skip : {0, 1}) {
      SCOPED_TRACE("values from item " + std::to_string(skip));
      const std::vector<T> shifted(v.begin() + skip, v.begin() + skip + n);
      thrust::device_vector<T> sums(lengths.size());
      poison(sums);
      cascade::segmented_reduce(cascade::cuda, d_v.begin() + skip, d_offsets.begin(), d_offsets.end(), sums.begin(),
                                init, plus{});
      expect_equal(to_host(sums), ref_segmented_reduce(shifted, offsets, init, plus{}));
      thrust::device_vector<T> out(n);
      std::vector<T> want(n);
      for (bool exclusive : {false, true}) {
        SCOPED_TRACE(exclusive ? "exclusive scan" : "inclusive scan");
        poison(out);
        if (exclusive) {
          cascade::segmented_exclusive_scan(cascade::cuda, d_v.begin() + skip, d_offsets.begin(), d_offsets.end(),
                                            out.begin(), init, plus{});
        } else {
          cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin() + skip, d_offsets.begin(), d_offsets.end(),
                                            out.begin(), plus{});
        }
        ref_segmented_scan<T>(shifted, offsets, want, std::plus<>{}, exclusive ? &init : nullptr, exclusive);
        expect_equal(to_host(out), want);
      }
    }
  }
}
TEST_F(Segmented, EmptySegmentsAtTileEdgesInt32) { check_empties_at_tile_edges<std::int32_t>(); }
TEST_F(Segmented, EmptySegmentsAtTileEdgesInt64) { check_empties_at_tile_edges<std::int64_t>(); }

// Long runs of empty segments where a tile starts (before the first item,
// and at tiles' edges: of 31, 32, 33 and thousands, around the 32 that a
// tile probes at once before it searches) and after the last item: every
// one gets init, and the scans are unchanged by them. Offsets from item 3
// of the values, so that the runs' begins are not 0. The tiles of
// segmented_reduce and of the segmented scans (8-byte values: 2048 and 3072).
template <class T>
void check_long_runs_of_empty_segments(std::int64_t tile) {
  std::vector<std::int64_t> lengths(100003, 0);
  const std::int64_t runs[] = {31, 32, 33, 1, 5000, 64, 2, 250000};
  for (int t = 0; t < 40; ++t) {
    lengths.push_back(t % 3 == 1 ? 3 * tile : tile);
    if (t % 2 == 0) lengths.insert(lengths.end(), runs[(t / 2) % 8], 0);
  }
  lengths.insert(lengths.end(), 40000, 0);
  const auto offsets = offsets_of<std::int64_t>(lengths, 3);
  const std::int64_t n = offsets.back() - 3;
  SCOPED_TRACE(std::to_string(lengths.size()) + " segments, " + std::to_string(n) + " items");
  const auto v = random_input<T, plus>(n + 3, 95);
  const auto d_offsets = to_device(offsets);
  const auto d_v = to_device(v);
  const T init = -9;

  thrust::device_vector<T> sums(lengths.size());
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), sums.begin(), init, plus{});
  expect_equal(to_host(sums), ref_segmented_reduce(v, offsets, init, plus{}));

  thrust::device_vector<T> out(n + 3);
  for (bool exclusive : {false, true}) {
    poison(out);
    auto want = to_host(out);  // (items before offsets[0] keep it)
    if (exclusive) {
      cascade::segmented_exclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(),
                                        init, plus{});
    } else {
      cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(),
                                        plus{});
    }
    ref_segmented_scan<T>(v, offsets, want, std::plus<>{}, exclusive ? &init : nullptr, exclusive);
    expect_equal(to_host(out), want);
  }
}

TEST_F(Segmented, LongRunsOfEmptySegmentsAtTileEdges) {
  using T = std::int64_t;
  using namespace cascade::detail;
  for (const std::int64_t tile : {segmented_tile_items<tile_totals_tuning<T>>,
                                  segmented_tile_items<numbered_masked_scan_tuning<T>>}) {
    SCOPED_TRACE("segments of " + std::to_string(tile) + " items");
    check_long_runs_of_empty_segments<T>(tile);
  }
}

// Inclusive scans in place (the exclusive ones are in place above).
TEST_F(Segmented, InclusiveScansInPlace) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 21);
    const auto offsets = offsets_of<std::int64_t>(lengths);
    const auto keys = keys_of<std::int32_t>(lengths, 22);
    const auto v = random_input<affine, compose>(s.n, s.n + 23);
    const auto d_offsets = to_device(offsets);
    const auto d_keys = to_device(keys);
    std::vector<affine> want(s.n);

    thrust::device_vector<affine> inout = to_device(v);
    cascade::segmented_inclusive_scan(cascade::cuda, inout.begin(), d_offsets.begin(), d_offsets.end(), inout.begin(),
                                      compose{});
    ref_segmented_scan<affine>(v, offsets, want, compose{}, nullptr, false);
    expect_equal(to_host(inout), want);

    inout = to_device(v);
    cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), inout.begin(), inout.begin(),
                                   cuda::std::equal_to<>{}, compose{});
    ref_segmented_scan<affine>(v, run_offsets(keys), want, compose{}, nullptr, false);
    expect_equal(to_host(inout), want);
  }
}

// Computed inputs: value i % 7, segments of kLength (the last shorter).
constexpr std::int64_t kLength = (1 << 20) + 3;
struct mod7 {
  __host__ __device__ std::int32_t operator()(std::int64_t i) const { return std::int32_t(i % 7); }
};
struct fixed_offset {
  std::int64_t n;
  __host__ __device__ std::int64_t operator()(std::int64_t j) const { return j * kLength < n ? j * kLength : n; }
};
struct fixed_key {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i / kLength; }
};
struct fixed_key32 {  // (4-byte keys: the scans by key's wide tiles)
  __host__ __device__ std::int32_t operator()(std::int64_t i) const { return std::int32_t(i / kLength); }
};
// The sum of i % 7 over [0, m): the independent reference.
__host__ __device__ inline std::int64_t mod7_sum(std::int64_t m) { return m / 7 * 21 + (m % 7) * (m % 7 - 1) / 2; }
// Whether a scanned output is wrong: out[i] == init + the sum of i % 7 over
// its segment up to i (inclusive) or before i (exclusive).
struct wrong_scan {
  const std::int32_t* out;
  std::int64_t length;
  std::int32_t init;
  bool exclusive;
  __host__ __device__ bool operator()(std::int64_t i) const {
    const std::int64_t first = i / length * length;
    return out[i] != std::int32_t(init + mod7_sum(i + (exclusive ? 0 : 1)) - mod7_sum(first));
  }
};

// More than 2^31 items, from computed iterators, in every form that takes
// them: per-segment sums against the closed form, scans checked on the GPU.
TEST_F(Segmented, MoreThan2To31Items) {
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  const std::int64_t segments = (n + kLength - 1) / kLength;
  thrust::counting_iterator<std::int64_t> i0(0);
  const auto values = thrust::make_transform_iterator(i0, mod7{});
  const auto offsets = thrust::make_transform_iterator(i0, fixed_offset{n});
  const auto keys = thrust::make_transform_iterator(i0, fixed_key{});
  std::vector<std::int32_t> want(segments);
  for (std::int64_t j = 0; j < segments; ++j) {
    want[j] = std::int32_t(3 + mod7_sum(std::min(n, (j + 1) * kLength)) - mod7_sum(j * kLength));
  }

  thrust::device_vector<std::int32_t> sums(segments);
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, values, values + n, kLength, sums.begin(), std::int32_t{3}, plus{});
  expect_equal(to_host(sums), want);
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, values, offsets, offsets + segments + 1, sums.begin(), std::int32_t{3},
                            plus{});
  expect_equal(to_host(sums), want);

  thrust::device_vector<std::int64_t> keys_out(segments);
  thrust::device_vector<std::int32_t> run_sums(segments);
  poison(run_sums);
  const auto ends = cascade::reduce_by_key(cascade::cuda, keys, keys + n, values, keys_out.begin(), run_sums.begin());
  ASSERT_EQ(ends.second - run_sums.begin(), segments);
  for (auto& w : want) w -= 3;
  expect_equal(to_host(run_sums), want);
  std::vector<std::int64_t> key_want(segments);
  for (std::int64_t j = 0; j < segments; ++j) key_want[j] = j;
  expect_equal(to_host(keys_out), key_want);

  thrust::device_vector<std::int32_t> out(n);
  const auto wrong = [&](std::int32_t init, bool exclusive) {
    return thrust::count_if(thrust::device, i0, i0 + n, wrong_scan{out.data().get(), kLength, init, exclusive});
  };
  poison(out);
  cascade::segmented_inclusive_scan(cascade::cuda, values, offsets, offsets + segments + 1, out.begin());
  EXPECT_EQ(wrong(0, false), 0) << "segmented_inclusive_scan";
  poison(out);
  cascade::segmented_exclusive_scan(cascade::cuda, values, offsets, offsets + segments + 1, out.begin(),
                                    std::int32_t{2});
  EXPECT_EQ(wrong(2, true), 0) << "segmented_exclusive_scan";
  poison(out);
  cascade::exclusive_scan_by_key(cascade::cuda, keys, keys + n, values, out.begin(), std::int32_t{1});
  EXPECT_EQ(wrong(1, true), 0) << "exclusive_scan_by_key";
  poison(out);
  const auto keys32 = thrust::make_transform_iterator(i0, fixed_key32{});
  cascade::inclusive_scan_by_key(cascade::cuda, keys32, keys32 + n, values, out.begin());
  EXPECT_EQ(wrong(0, false), 0) << "inclusive_scan_by_key, 4-byte keys";
}

// More than 2^31 segments (64-bit segment ids): offsets[j] = j, every
// segment one item, so out[j] = init + j % 7; then a scan over them.
struct wrong_single {
  const std::int32_t* out;
  std::int32_t init;
  __host__ __device__ bool operator()(std::int64_t j) const { return out[j] != init + std::int32_t(j % 7); }
};
TEST_F(Segmented, MoreThan2To31Segments) {
  const std::int64_t segments = (std::int64_t(1) << 31) + 5;
  thrust::counting_iterator<std::int64_t> i0(0);
  const auto values = thrust::make_transform_iterator(i0, mod7{});
  thrust::device_vector<std::int32_t> out(segments);
  poison(out);
  cascade::segmented_reduce(cascade::cuda, values, i0, i0 + segments + 1, out.begin(), std::int32_t{4}, plus{});
  EXPECT_EQ(thrust::count_if(thrust::device, i0, i0 + segments, wrong_single{out.data().get(), 4}), 0);
  poison(out);
  cascade::segmented_inclusive_scan(cascade::cuda, values, i0, i0 + segments + 1, out.begin());
  EXPECT_EQ(thrust::count_if(thrust::device, i0, i0 + segments, wrong_single{out.data().get(), 0}), 0);
}

struct triple {
  __host__ __device__ std::int32_t operator()(std::int32_t x) const { return 3 * x; }
};

// The stream-ordered forms captured into a graph and replayed, among them
// segmented_reduce by offsets over a device array or a transform of one (its
// grid sized by the allocation), which writes nothing on a replay whose offsets' ends are
// wrong; the offsets forms that read two offsets back to the host (the
// scans, which return where their outputs end, and segmented_reduce over
// other values) refuse capture clearly and leave the capture intact.
TEST_F(Segmented, GraphCaptureOfStreamOrderedForms) {
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto pol = cascade::cuda.on(stream);
  const std::int64_t n = (1 << 22) + 17;  // reduce_by_key_into with its second launch
  const auto lengths = segment_lengths("powerlaw", n, 0, 31);
  const auto keys = keys_of<std::int32_t>(lengths, 32);
  const auto runs = run_offsets(keys);
  const auto v = random_input<std::int32_t, plus>(n, 33);
  const auto d_keys = to_device(keys);
  const auto d_v = to_device(v);
  const auto offsets = offsets_of<std::int64_t>(lengths);
  auto d_offsets = to_device(offsets);
  // size: segments inside tiles; long_size: about 300 tiles a segment, joined
  // by a launch of their own (joins_kernel).
  const std::int64_t segments = runs.size() - 1, size = 1000, long_size = 4096 * 300 + 5;
  thrust::device_vector<std::int32_t> inclusive(n), exclusive(n), keys_out(n), run_sums(n);
  thrust::device_vector<std::int32_t> offset_sums(offsets.size() - 1), tripled_sums(offsets.size() - 1);
  thrust::device_vector<std::int32_t> fixed((n + size - 1) / size), fixed_long((n + long_size - 1) / long_size);
  thrust::device_vector<std::int64_t> count(1);

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CASCADE_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cascade::inclusive_scan_by_key(pol, d_keys.begin(), d_keys.end(), d_v.begin(), inclusive.begin());
  cascade::exclusive_scan_by_key(pol, d_keys.begin(), d_keys.end(), d_v.begin(), exclusive.begin(), std::int32_t{9});
  cascade::reduce_by_key_into(pol, d_keys.begin(), d_keys.end(), d_v.begin(), keys_out.begin(), run_sums.begin(),
                              count.begin(), cuda::std::equal_to<>{}, plus{});
  cascade::segmented_reduce(pol, d_v.begin(), d_v.end(), size, fixed.begin(), std::int32_t{0}, plus{});
  cascade::segmented_reduce(pol, d_v.begin(), d_v.end(), long_size, fixed_long.begin(), std::int32_t{2}, plus{});
  cascade::segmented_reduce(pol, d_v.begin(), d_offsets.begin(), d_offsets.end(), offset_sums.begin(), std::int32_t{5},
                            plus{});
  cascade::segmented_reduce(pol, thrust::make_transform_iterator(d_v.begin(), triple{}), d_offsets.begin(),
                            d_offsets.end(), tripled_sums.begin(), std::int32_t{5}, plus{});
  auto refused = [&](auto call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << " inside a capture did not throw";
    } catch (const cascade::cuda_error& e) {
      EXPECT_EQ(e.code(), cudaErrorStreamCaptureUnsupported) << what << ": " << e.what();
    }
  };
  refused([&] { cascade::segmented_inclusive_scan(pol, d_v.begin(), d_offsets.begin(), d_offsets.end(), inclusive.begin()); },
          "segmented_inclusive_scan");
  refused([&] {
    cascade::segmented_reduce(pol, thrust::counting_iterator<std::int32_t>(0), d_offsets.begin(), d_offsets.end(),
                              offset_sums.begin(), std::int32_t{0}, plus{});
  }, "segmented_reduce over a counting iterator");
  CASCADE_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  CASCADE_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  std::vector<std::int32_t> want_inclusive(n), want_exclusive(n);
  const std::int32_t nine = 9;
  ref_segmented_scan<std::int32_t>(v, runs, want_inclusive, std::plus<>{}, nullptr, false);
  ref_segmented_scan<std::int32_t>(v, runs, want_exclusive, std::plus<>{}, &nine, true);
  auto want_sums = ref_segmented_reduce(v, runs, std::int32_t{0}, plus{});
  auto want_fixed_of = [&](std::int64_t length, std::int32_t init) {
    std::vector<std::int64_t> fixed_offsets;
    for (std::int64_t i = 0; i < n; i += length) fixed_offsets.push_back(i);
    fixed_offsets.push_back(n);
    return ref_segmented_reduce(v, fixed_offsets, init, plus{});
  };
  const auto want_fixed = want_fixed_of(size, 0), want_fixed_long = want_fixed_of(long_size, 2);
  const auto want_offset_sums = ref_segmented_reduce(v, offsets, std::int32_t{5}, plus{});
  std::vector<std::int32_t> v3(v.size());
  std::transform(v.begin(), v.end(), v3.begin(), triple{});
  const auto want_tripled_sums = ref_segmented_reduce(v3, offsets, std::int32_t{5}, plus{});
  for (int replay = 0; replay < 2; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    poison(inclusive), poison(exclusive), poison(run_sums), poison(fixed), poison(fixed_long), poison(count),
        poison(offset_sums), poison(tripled_sums);
    CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    expect_equal(to_host(inclusive), want_inclusive);
    expect_equal(to_host(exclusive), want_exclusive);
    ASSERT_EQ(std::int64_t(count[0]), segments);
    auto got = to_host(run_sums);
    got.resize(segments);
    expect_equal(got, want_sums);
    expect_equal(to_host(fixed), want_fixed);
    expect_equal(to_host(fixed_long), want_fixed_long);
    expect_equal(to_host(offset_sums), want_offset_sums);
    expect_equal(to_host(tripled_sums), want_tripled_sums);
  }
  // Replays whose offsets' ends are wrong (past the values' allocation; not
  // ascending) write nothing, and a replay after them is right again.
  for (const auto& ends : {std::pair<std::int64_t, std::int64_t>{0, n + 1}, {7, 3}}) {
    SCOPED_TRACE("offsets[0] = " + std::to_string(ends.first) + ", offsets[last] = " + std::to_string(ends.second));
    d_offsets[0] = ends.first;
    d_offsets[offsets.size() - 1] = ends.second;
    poison(offset_sums);
    const auto poisoned = to_host(offset_sums);
    CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    expect_equal(to_host(offset_sums), poisoned);
  }
  thrust::copy(offsets.begin(), offsets.end(), d_offsets.begin());
  poison(offset_sums);
  CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
  CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
  expect_equal(to_host(offset_sums), want_offset_sums);
  CASCADE_TEST_CUDA(cudaGraphExecDestroy(exec));
  CASCADE_TEST_CUDA(cudaGraphDestroy(graph));
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(Segmented, BadOffsetsWriteNothing) {
  const auto d_v = to_device(std::vector<std::int32_t>(100, 1));
  const auto descending = to_device(std::vector<std::int64_t>{50, 60, 10});
  const auto negative = to_device(std::vector<std::int64_t>{-4, 10});
  const auto past_the_values = to_device(std::vector<std::int64_t>{0, 50, 101});
  thrust::device_vector<std::int32_t> out(100, -1);
  // segmented_reduce over an array is stream-ordered: the host never sees
  // the offsets, and the kernel, which checks their ends, writes nothing.
  for (const auto* bad : {&descending, &negative, &past_the_values}) {
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), bad->begin(), bad->end(), out.begin(), 0, plus{});
    cascade::segmented_reduce(cascade::cuda, thrust::make_transform_iterator(d_v.begin(), triple{}), bad->begin(),
                              bad->end(), out.begin(), 0, plus{});
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  }
  EXPECT_EQ(to_host(out), std::vector<std::int32_t>(100, -1));
  EXPECT_THROW(cascade::segmented_reduce(cascade::cuda, thrust::counting_iterator<std::int32_t>(0), descending.begin(),
                                         descending.end(), out.begin(), 0, plus{}),
               std::invalid_argument);  // (values with no allocation: the ends read back first)
  EXPECT_THROW(cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin(), negative.begin(), negative.end(), out.begin()),
               std::invalid_argument);
  EXPECT_THROW(cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin(), past_the_values.begin(),
                                                 past_the_values.end(), out.begin()),
               std::invalid_argument);
  EXPECT_THROW(cascade::segmented_inclusive_scan(cascade::cuda, thrust::make_transform_iterator(d_v.begin(), triple{}),
                                                 past_the_values.begin(), past_the_values.end(), out.begin()),
               std::invalid_argument);
  EXPECT_THROW(cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_v.end(), 0, out.begin(), 0, plus{}),
               std::invalid_argument);
  EXPECT_EQ(to_host(out), std::vector<std::int32_t>(100, -1));
}

// Holds its stream until the host opens the gate, or gives up after 20 s
// (what a call that waited for the stream would make it do) and says so.
__global__ void hold_until_open(const volatile int* gate, int* gave_up) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (*gate != 0) return;
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < 20'000'000'000ull);
  *gave_up = 1;
}

// segmented_reduce by offsets over an array, or over a transform of one,
// returns at once, its work queued behind what its stream holds (a kernel
// that waits for the host), and is right once the stream runs.
TEST_F(Segmented, OffsetsFormOverAnArrayIsStreamOrdered) {
  const std::int64_t n = (1 << 20) + 5;
  const auto v = random_input<std::int32_t, plus>(n, 51);
  const auto d_v = to_device(v);
  const auto offsets = offsets_of<std::int64_t>(segment_lengths("powerlaw", n, 0, 53));
  const auto d_offsets = to_device(offsets);
  thrust::device_vector<std::int32_t> out(offsets.size() - 1), tripled(offsets.size() - 1);
  poison(out);
  poison(tripled);
  std::vector<std::int32_t> v3(v.size());
  std::transform(v.begin(), v.end(), v3.begin(), triple{});
  int* gate = nullptr;
  CASCADE_TEST_CUDA(cudaHostAlloc(&gate, sizeof(int), cudaHostAllocMapped));
  *gate = 0;
  thrust::device_vector<int> gave_up(1, 0);
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  hold_until_open<<<1, 1, 0, stream>>>(gate, gave_up.data().get());
  CASCADE_TEST_CUDA(cudaGetLastError());
  cascade::segmented_reduce(cascade::cuda.on(stream), d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), 3,
                            plus{});
  cascade::segmented_reduce(cascade::cuda.on(stream), thrust::make_transform_iterator(d_v.begin(), triple{}),
                            d_offsets.begin(), d_offsets.end(), tripled.begin(), 3, plus{});
  EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady) << "a call waited for its stream";
  *static_cast<volatile int*>(gate) = 1;
  CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
  EXPECT_EQ(gave_up[0], 0) << "a call waited for its stream";
  expect_equal(to_host(out), ref_segmented_reduce(v, offsets, std::int32_t{3}, plus{}));
  expect_equal(to_host(tripled), ref_segmented_reduce(v3, offsets, std::int32_t{3}, plus{}));
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
  CASCADE_TEST_CUDA(cudaFreeHost(gate));
}

// Offsets that do not ascend inside the range (not checked: that would cost
// a pass over them) give unspecified totals, but the call returns, reads
// nothing outside the tiles, and leaves nothing behind: the tile where a
// segment spanning tiles ends waits for the pieces of the tiles before it,
// which every tile publishes whatever its segments. A valid call after it,
// on the same stream, is right.
TEST_F(Segmented, OffsetsOutOfOrderInsideReturn) {
  const std::int64_t n = (1 << 22) + 3;
  const auto v = random_input<std::int32_t, plus>(n, 41);
  const auto d_v = to_device(v);
  const auto lengths = segment_lengths("powerlaw", n, 0, 43);
  const auto offsets = offsets_of<std::int64_t>(lengths);
  const std::int64_t segments = std::int64_t(offsets.size()) - 1;
  thrust::device_vector<std::int32_t> out(segments);
  for (const std::int64_t swapped : {std::int64_t(1), segments / 2, segments - 2}) {
    SCOPED_TRACE("offsets " + std::to_string(swapped) + " and " + std::to_string(swapped + 1) + " swapped");
    auto bad = offsets;
    std::swap(bad[swapped], bad[swapped + 1]);
    bad[swapped] += 70000;  // a segment that ends before it begins, across tiles
    const auto d_bad = to_device(bad);
    cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_bad.begin(), d_bad.end(), out.begin(), 0, plus{});
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  }
  const auto d_offsets = to_device(offsets);
  poison(out);
  cascade::segmented_reduce(cascade::cuda, d_v.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), 0, plus{});
  expect_equal(to_host(out), ref_segmented_reduce(v, offsets, std::int32_t{0}, plus{}));
}

// segmented_reduce by offsets sizes its grid by the values' allocation where
// they are an array (no read-back before the reduction): values that are a
// part of a larger allocation (blocks past the items), segments that are all
// empty (no items: every block fills), a misaligned start; against CUB on the
// same pointers.
TEST_F(Segmented, OffsetsOverPartOfAnAllocation) {
  for (const shape& s : kShapes) {
    SCOPED_TRACE(trace(s));
    const auto lengths = segment_lengths(s.name, s.n, s.len, s.n + 17);
    const auto offsets = offsets_of<std::int64_t>(lengths, std::int64_t(5));
    const auto d_offsets = to_device(offsets);
    const auto d_v = to_device(random_input<std::int32_t, plus>(4 * s.n + 4099, s.n + 19));  // more than the items
    for (const std::int64_t from : {std::int64_t(0), std::int64_t(2 * s.n + 1)}) {
      const std::int64_t segments = std::int64_t(lengths.size());
      thrust::device_vector<std::int32_t> got(segments), want(segments);
      poison(got);
      cascade::segmented_reduce(cascade::cuda, d_v.begin() + from, d_offsets.begin(), d_offsets.end(), got.begin(),
                                std::int32_t(3), plus{});
      cub_call([&](void* t, std::size_t& b) {
        return cub::DeviceSegmentedReduce::Reduce(t, b, d_v.data().get() + from, want.data().get(), segments,
                                                  d_offsets.data().get(), d_offsets.data().get() + 1, plus{},
                                                  std::int32_t(3));
      });
      expect_equal(to_host(got), to_host(want));

      // The segmented scans the same way (out: as large as the values).
      const std::vector<std::int32_t> host_v = to_host(d_v);
      std::vector<std::int32_t> part(host_v.begin() + from, host_v.end());
      std::vector<std::int32_t> part_want(part.size(), -5);
      ref_segmented_scan<std::int32_t>(part, offsets, part_want, std::plus<>{}, nullptr, false);
      thrust::device_vector<std::int32_t> scanned(d_v.size() - from, -5);
      auto end = cascade::segmented_inclusive_scan(cascade::cuda, d_v.begin() + from, d_offsets.begin(),
                                                   d_offsets.end(), scanned.begin(), plus{});
      EXPECT_EQ(end - scanned.begin(), std::int64_t(offsets.back()));
      expect_equal(to_host(scanned), part_want);
    }
  }
  const auto d_v = to_device(random_input<std::int32_t, plus>(1 << 20, 23));
  const auto all_empty = to_device(std::vector<std::int64_t>(3001, 1 << 19));
  thrust::device_vector<std::int32_t> got(3000);
  poison(got);
  cascade::segmented_reduce(cascade::cuda, d_v.begin(), all_empty.begin(), all_empty.end(), got.begin(),
                            std::int32_t(-7), plus{});
  EXPECT_EQ(to_host(got), std::vector<std::int32_t>(3000, -7));
  thrust::device_vector<std::int32_t> scanned(1 << 20, -5);
  auto end = cascade::segmented_exclusive_scan(cascade::cuda, d_v.begin(), all_empty.begin(), all_empty.end(),
                                               scanned.begin(), std::int32_t(4), plus{});
  EXPECT_EQ(end - scanned.begin(), std::int64_t(1 << 19));
  EXPECT_EQ(to_host(scanned), std::vector<std::int32_t>(1 << 20, -5));
}

// The masked scan's progress guarantee (the look-back's fallback): small
// tiles scheduled in reverse, so that successors run first, and a silent
// predecessor polled once before the waiting warp recomputes its aggregate
// from its keys and values; in place (the recomputation reads values its
// tile may be overwriting) and with counted heads (reduce_by_key's runs).
// SpansMinTiles: reduce_by_key's run count looked back alone and its runs
// across tiles joined by a second launch (2), or its counted pairs looked
// back in one launch (a large number). StashRunItems: a tile of runs this
// long on average leaves them in its slots for the second launch rather
// than wait for the count (8: the power law's tiles of 128 items, about 16
// runs each, either way).
template <bool Reversed, int Polls, long long SpansMinTiles = 2, int StashRunItems = 8, bool Chased = false>
struct masked_progress_tuning : cascade::detail::masked_scan_tuning<std::int32_t> {
  static constexpr bool chased_counts = Chased;
  static constexpr int block_threads = 64;
  static constexpr cascade::detail::offset_t spans_min_tiles = SpansMinTiles;
  static constexpr int few_tiles_blocks_per_sm = 2;
  static constexpr int stash_run_items = StashRunItems;
  static constexpr int items_per_thread = 2;
  static constexpr unsigned first_poll_delay_ns = 0;
  static constexpr unsigned busy_tile_poll_delay_ns = 0;
  static constexpr unsigned spin_nanoseconds = 100;
  static constexpr int polls_before_fallback = Polls;
  static constexpr bool reversed_tiles = Reversed;
};

// The scans by key's wide tiles (8192 items, their keys in dynamic shared
// memory), scheduled in reverse, a silent predecessor polled once.
struct wide_progress_tuning : cascade::detail::wide_keyed_scan_tuning<std::int32_t> {
  static constexpr unsigned first_poll_delay_ns = 0;
  static constexpr unsigned spin_nanoseconds = 100;
  static constexpr int polls_before_fallback = 1;
  static constexpr bool reversed_tiles = true;
};

TEST_F(Segmented, MaskedScanProgressWithReversedTiles) {
  namespace d = cascade::detail;
  const std::int64_t n = (1 << 20) + 5;  // 8193 tiles of 128
  const auto lengths = segment_lengths("powerlaw", n, 0, 31);
  const auto keys = keys_of<std::int32_t>(lengths, 32);
  const auto v = random_input<std::int32_t, plus>(n, 33);
  const auto runs = run_offsets(keys);
  const auto d_keys = to_device(keys);
  std::vector<std::int32_t> want(n);
  ref_segmented_scan<std::int32_t>(v, runs, want, plus{}, nullptr, false);
  std::vector<std::int32_t> want_keys, want_totals;
  for (std::size_t j = 0; j + 1 < runs.size(); ++j) {
    want_keys.push_back(keys[runs[j]]);
    want_totals.push_back(want[runs[j + 1] - 1]);
  }
  const d::key_heads<const std::int32_t*, cuda::std::equal_to<>> heads{d_keys.data().get(), n, {}};
  auto check = [&](auto tuning) {
    using tuning_t = decltype(tuning);
    SCOPED_TRACE(std::string("reversed ") + (tuning_t::reversed_tiles ? "yes" : "no") + ", polls " +
                 std::to_string(tuning_t::polls_before_fallback) + ", counts chased " +
                 (tuning_t::chased_counts ? "yes" : "no") + ", spans from " +
                 std::to_string(tuning_t::spans_min_tiles) + " tiles, slots for runs of " +
                 std::to_string(tuning_t::stash_run_items) + " items");
    thrust::device_vector<std::int32_t> inout = to_device(v);
    std::int32_t* p = inout.data().get();
    d::masked_scan::run_tuned<bool, std::int32_t, tuning_t>(
        heads, p, d::items_known{n}, n, d::masked_scan::scanned_values<false, std::int32_t*, std::int32_t, plus>{p, {0, false}, plus{}},
        plus{}, cudaStream_t{});
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    expect_equal(to_host(inout), want);

    // Not in place: the warps after a tile's first head write before its prefix is found.
    const auto d_v = to_device(v);
    thrust::device_vector<std::int32_t> scanned(n);
    poison(scanned);
    std::int32_t* q = scanned.data().get();
    d::masked_scan::run_tuned<bool, std::int32_t, tuning_t>(
        heads, d_v.data().get(), d::items_known{n}, n,
        d::masked_scan::scanned_values<false, std::int32_t*, std::int32_t, plus>{q, {0, false}, plus{}}, plus{},
        cudaStream_t{});
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    expect_equal(to_host(scanned), want);

    thrust::device_vector<std::int32_t> keys_out(n), totals(n);
    thrust::device_vector<std::int64_t> count(1);
    poison(keys_out), poison(totals), poison(count);
    d::masked_scan::run_tuned<std::uint32_t, std::int32_t, tuning_t>(
        heads, d_v.data().get(), d::items_known{n}, n,
        d::masked_scan::run_totals<std::int32_t*, std::int32_t*, std::int64_t*, plus>{
            keys_out.data().get(), totals.data().get(), count.data().get(), plus{}},
        plus{}, cudaStream_t{});
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    ASSERT_EQ(std::int64_t(count[0]), std::int64_t(want_keys.size()));
    keys_out.resize(want_keys.size()), totals.resize(want_keys.size());
    expect_equal(to_host(keys_out), want_keys);
    expect_equal(to_host(totals), want_totals);
  };
  check(masked_progress_tuning<true, 1>{});
  check(masked_progress_tuning<true, 60>{});
  check(masked_progress_tuning<false, 1>{});
  check(masked_progress_tuning<true, 1, 2, 1024>{});  // no slots: every tile with runs waits for its count
  check(masked_progress_tuning<true, 1, 2, 1>{});     // slots for every run: none does
  check(masked_progress_tuning<true, 1, 1000000>{});
  check(masked_progress_tuning<true, 60, 1000000>{});
  // Block 0 chasing the counts, with the tiles after it in reverse and in order.
  check(masked_progress_tuning<true, 1, 2, 1024, true>{});
  check(masked_progress_tuning<true, 60, 2, 8, true>{});
  check(masked_progress_tuning<false, 60, 2, 1024, true>{});

  SCOPED_TRACE("wide keyed tiles, reversed");  // in place and not
  const auto d_v = to_device(v);
  for (bool in_place : {true, false}) {
    thrust::device_vector<std::int32_t> out = to_device(v);
    if (!in_place) poison(out);
    std::int32_t* q = out.data().get();
    d::masked_scan::run_tuned<bool, std::int32_t, wide_progress_tuning>(
        heads, in_place ? q : d_v.data().get(), d::items_known{n}, n,
        d::masked_scan::scanned_values<false, std::int32_t*, std::int32_t, plus>{q, {0, false}, plus{}}, plus{},
        cudaStream_t{});
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    expect_equal(to_host(out), want);
  }
}

}  // namespace
}  // namespace cascade_test
