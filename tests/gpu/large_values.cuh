#pragma once
// Value types of 188 bytes and 1 KB through every engine: reduce and scans
// (in and out of place), segmented_reduce (both forms; by offsets also one
// segment over a grid that joins it by a launch of its own) and
// inclusive_scan_by_key at both sizes, the segmented scan and reduce_by_key
// at 188 bytes; checked against the standard library on random inputs,
// outputs poisoned first. One file per size (large_values_*_test.cu): the
// kernels of a 1 KB value take minutes each to compile, and the two halves
// compile in parallel.

#include "harness.cuh"

#include <cascade/cascade.cuh>

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace cascade_test {

class LargeValues : public gpu_test {};

// Trivially copyable value types (a non-trivial default constructor is fine).
template <int Bins>
struct histogram {
  int bins[Bins];
  __host__ __device__ histogram() : bins{} {}
  bool operator==(const histogram& o) const { return std::equal(bins, bins + Bins, o.bins); }
};
template <int Bins>
struct add_bins {
  __host__ __device__ histogram<Bins> operator()(const histogram<Bins>& a, const histogram<Bins>& b) const {
    histogram<Bins> r;
    for (int i = 0; i < Bins; ++i) r.bins[i] = a.bins[i] + b.bins[i];
    // Order-sensitive in bin 0: r = a * 3 + b is associative only as an
    // affine map would be; keep bin 0 a plain sum and make bin 1 the
    // last element's (associative, not commutative).
    r.bins[1] = b.bins[1];
    return r;
  }
};

// n histograms of random bins.
template <int Bins>
std::vector<histogram<Bins>> random_histograms(std::size_t n, std::uint64_t seed) {
  std::vector<histogram<Bins>> h(n);
  std::mt19937_64 rng(seed);
  for (histogram<Bins>& x : h) {
    for (int& b : x.bins) b = int(rng() % 100);
  }
  return h;
}

template <int Bins>
void check_large_type(std::size_t n, std::uint64_t seed) {
  using H = histogram<Bins>;
  static_assert(std::is_trivially_copyable_v<H>);
  const std::vector<H> h = random_histograms<Bins>(n, seed);
  const auto d = to_device(h);
  H init;
  init.bins[0] = 5;
  H want = init;
  for (const H& x : h) want = add_bins<Bins>{}(want, x);
  EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), init, add_bins<Bins>{}), want) << "reduce";
  std::vector<H> want_scan(n);
  std::inclusive_scan(h.begin(), h.end(), want_scan.begin(), add_bins<Bins>{});
  thrust::device_vector<H> out(n);
  poison(out);
  cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin(), add_bins<Bins>{});
  EXPECT_EQ(to_host(out), want_scan) << "inclusive scan";
  std::exclusive_scan(h.begin(), h.end(), want_scan.begin(), init, add_bins<Bins>{});
  thrust::copy(d.begin(), d.end(), out.begin());
  cascade::exclusive_scan(cascade::cuda, out.begin(), out.end(), out.begin(), init, add_bins<Bins>{});
  EXPECT_EQ(to_host(out), want_scan) << "exclusive scan in place";

  // segmented_reduce, both forms (the segment totals engine): segments of 7,
  // and segments of 5 with an empty one after each.
  std::vector<std::int64_t> offsets{0};
  for (std::size_t i = 5; i < n; i += 5) offsets.insert(offsets.end(), {std::int64_t(i), std::int64_t(i)});
  offsets.push_back(std::int64_t(n));
  const std::size_t fixed_segments = (n + 6) / 7, segments = offsets.size() - 1;
  auto totals = [&](std::size_t count, auto begin_of) {  // init, then the segment's items in order
    std::vector<H> want_totals;
    for (std::size_t j = 0; j < count; ++j) {
      want_totals.push_back(std::accumulate(h.begin() + begin_of(j), h.begin() + std::min(begin_of(j + 1), n), init,
                                            add_bins<Bins>{}));
    }
    return want_totals;
  };
  thrust::device_vector<H> sums(std::max(fixed_segments, segments));
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, d.begin(), d.end(), 7, sums.begin(), init, add_bins<Bins>{});
  auto got = to_host(sums);
  got.resize(fixed_segments);
  EXPECT_EQ(got, totals(fixed_segments, [](std::size_t j) { return 7 * j; })) << "segmented_reduce, fixed size";
  // Segments over more than one round of pieces: joined by a launch of
  // their own (joins_kernel), whose warps take a round each; a size that is
  // not a multiple of the tile, so that segments begin and end inside tiles.
  using tuning = cascade::detail::tile_totals_tuning<H>;
  const std::size_t long_size = std::size_t(cascade::detail::segmented_tile_items<tuning>) *
                                    std::size_t(tuning::joins_apart_min_tiles + tuning::block_threads) + 3;
  if (n > long_size) {
    const std::size_t long_segments = (n + long_size - 1) / long_size;
    poison(sums);
    cascade::segmented_reduce(cascade::cuda, d.begin(), d.end(), long_size, sums.begin(), init, add_bins<Bins>{});
    got = to_host(sums);
    got.resize(long_segments);
    EXPECT_EQ(got, totals(long_segments, [&](std::size_t j) { return long_size * j; }))
        << "segmented_reduce, fixed size of " << long_size;
  }
  const auto d_offsets = to_device(offsets);
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, d.begin(), d_offsets.begin(), d_offsets.end(), sums.begin(), init,
                            add_bins<Bins>{});
  got = to_host(sums);
  got.resize(segments);
  EXPECT_EQ(got, totals(segments, [&](std::size_t j) { return std::size_t(offsets[j]); }))
      << "segmented_reduce, offsets";

  // The masked scan (keyed and segmented scans, reduce_by_key): runs of 5
  // keys, and the same segments by the offsets above (empty ones between).
  std::vector<int> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = int(i / 5);
  const auto d_keys = to_device(keys);
  std::vector<H> want_runs(n), want_run_totals;
  for (std::size_t b = 0; b < n; b += 5) {
    const std::size_t e = std::min(b + 5, n);
    std::inclusive_scan(h.begin() + b, h.begin() + e, want_runs.begin() + b, add_bins<Bins>{});
    want_run_totals.push_back(want_runs[e - 1]);
  }
  poison(out);
  cascade::inclusive_scan_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d.begin(), out.begin(),
                                 cuda::std::equal_to<>{}, add_bins<Bins>{});
  EXPECT_EQ(to_host(out), want_runs) << "inclusive_scan_by_key";
  // The other forms at 188 bytes only: each kernel of a 1 KB value takes
  // minutes to compile (its look-back's windows), the same code otherwise.
  if constexpr (Bins <= 64) {
    poison(out);
    cascade::segmented_inclusive_scan(cascade::cuda, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin(),
                                      add_bins<Bins>{});
    EXPECT_EQ(to_host(out), want_runs) << "segmented_inclusive_scan";
    thrust::device_vector<int> keys_out(n);
    poison(out);
    const auto ends = cascade::reduce_by_key(cascade::cuda, d_keys.begin(), d_keys.end(), d.begin(), keys_out.begin(),
                                             out.begin(), cuda::std::equal_to<>{}, add_bins<Bins>{});
    ASSERT_EQ(std::size_t(ends.second - out.begin()), want_run_totals.size()) << "reduce_by_key";
    got = to_host(out);
    got.resize(want_run_totals.size());
    EXPECT_EQ(got, want_run_totals) << "reduce_by_key";
  }
}

// segmented_reduce by offsets over a grid large enough that its segments of
// more than 256 tiles are joined by a launch of their own (joins_by_window:
// the tile where one ends marks its status word, of the split layout here):
// a segment over all the tiles but the first and last few items, in order;
// and by a fixed size, a segment over nearly all of them.
template <int Bins>
void check_long_segment_by_offsets(std::uint64_t seed) {
  using H = histogram<Bins>;
  using tuning = cascade::detail::tile_totals_tuning<H>;
  const std::size_t n = std::size_t(tuning::listed_joins_min_tiles) * cascade::detail::segmented_tile_items<tuning> + 5;
  const std::vector<H> h = random_histograms<Bins>(n, seed);
  const auto d = to_device(h);
  H init;
  init.bins[0] = 5;
  const std::vector<std::int64_t> offsets{0, 3, std::int64_t(n) - 7, std::int64_t(n)};
  std::vector<H> want;
  for (std::size_t j = 0; j + 1 < offsets.size(); ++j) {
    want.push_back(std::accumulate(h.begin() + offsets[j], h.begin() + offsets[j + 1], init, add_bins<Bins>{}));
  }
  const auto d_offsets = to_device(offsets);
  thrust::device_vector<H> sums(want.size());
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, d.begin(), d_offsets.begin(), d_offsets.end(), sums.begin(), init,
                            add_bins<Bins>{});
  EXPECT_EQ(to_host(sums), want) << "segmented_reduce, offsets, n = " << n;
  // And by a fixed size of all but 7 items: its join takes the most warps
  // joins_kernel is launched with (32: which a 1 KB value's registers did not
  // allow before the kernel was bounded for them).
  const std::vector<H> want_fixed{
      std::accumulate(h.begin(), h.end() - 7, init, add_bins<Bins>{}),
      std::accumulate(h.end() - 7, h.end(), init, add_bins<Bins>{})};
  poison(sums);
  cascade::segmented_reduce(cascade::cuda, d.begin(), d.end(), n - 7, sums.begin(), init, add_bins<Bins>{});
  std::vector<H> got = to_host(sums);
  got.resize(2);
  EXPECT_EQ(got, want_fixed) << "segmented_reduce, fixed size of " << n - 7;
}

// check_large_type at each size n, with seed + n.
template <int Bins>
void check_large_sizes(const char* label, std::initializer_list<std::size_t> sizes, std::uint64_t seed) {
  for (std::size_t n : sizes) {
    SCOPED_TRACE(std::string(label) + ", n = " + std::to_string(n));
    check_large_type<Bins>(n, seed + n);
  }
}

}  // namespace cascade_test
