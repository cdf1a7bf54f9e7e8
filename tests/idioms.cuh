#pragma once
// cascade driven as Thrust users' programs drive it, on any policy: statistics
// of a struct accumulator by transform_reduce, the sums of a matrix's rows
// with the keys discarded, keys and values zipped from several arrays (keyed,
// by offsets), a key predicate that groups unequal keys, the extremes of
// structs by one field (ties included), scans of zipped values, Thrust's
// functors, reverse, permutation and transform-output iterators, libcu++'s
// iterators, __int128 values, complex values, a bool accumulator, sums wider
// than their items, counts and ranks by key from constant and counting
// iterators, and function objects whose call operator is not const.
// References: the standard library on host copies, outputs poisoned first;
// integer data, so that every association gives the same answer.
//
// Each check takes a Side: the policy, the container its data live in, and
// how data get there and back (gpu/idioms_test.cu, host/idioms_test.cu).
//   side.policy; Side::vector<T>; side.put(std::vector) -> vector;
//   side.get(vector) -> std::vector; side.poison(vector); side.sync()

#include "common.cuh"
#include "segmented_reference.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <thrust/complex.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/memory.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace cascade_test::idioms {

template <class Side, class T>
using vector_of = typename Side::template vector<T>;

// The items of a host or device vector, as a raw pointer.
template <class V>
auto raw(V& v) {
  return thrust::raw_pointer_cast(v.data());
}

inline std::vector<int> random_ints(std::size_t n, int below, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> h(n);
  for (int& x : h) x = int(rng() % below) - below / 2;
  return h;
}

// Runs of 1..max_run equal keys, numbered from 0.
inline std::vector<int> run_keys(std::size_t n, int max_run, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> keys(n);
  for (std::size_t i = 0, run = 0; i < n; ++run) {
    for (std::size_t end = std::min(n, i + 1 + rng() % max_run); i < end; ++i) keys[i] = int(run);
  }
  return keys;
}

// Capped by CASCADE_TEST_MAX_SIZE (common.cuh), for the sanitizers.
inline const std::vector<std::int64_t> kSizes = capped({1, 2, 999, 65537, (1 << 20) + 3, (1 << 23) + 5});

// check(n, h, d) for each size n, h random ints of magnitude below `below`
// on the host and d the same on the side.
template <class Side, class Check>
void for_each_size(const Side& side, int below, std::uint64_t seed, Check check) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints(n, below, n + seed);
    check(n, h, side.put(h));
  }
}

// ---------------------------------------------------------------------------
// Thrust's summary_statistics: one pass, a 40-byte accumulator.
// ---------------------------------------------------------------------------
struct stats {
  long long count, sum, sum_of_squares;
  int min, max;
  bool operator==(const stats& o) const {
    return count == o.count && sum == o.sum && sum_of_squares == o.sum_of_squares && min == o.min && max == o.max;
  }
};
struct to_stats {
  __host__ __device__ stats operator()(int x) const { return {1, x, (long long)x * x, x, x}; }
};
struct merge_stats {
  __host__ __device__ stats operator()(const stats& a, const stats& b) const {
    return {a.count + b.count, a.sum + b.sum, a.sum_of_squares + b.sum_of_squares, a.min < b.min ? a.min : b.min,
            a.max > b.max ? a.max : b.max};
  }
};

template <class Side>
void check_summary_statistics(const Side& side) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints(n, 200001, n);
    const auto d = side.put(h);
    const stats init{0, 0, 0, 1 << 30, -(1 << 30)};
    const stats want = std::transform_reduce(h.begin(), h.end(), init, merge_stats{}, to_stats{});
    EXPECT_EQ(cascade::transform_reduce(side.policy, d.begin(), d.end(), init, merge_stats{}, to_stats{}), want);
    vector_of<Side, stats> out(1);
    side.poison(out);
    cascade::transform_reduce_into(side.policy, d.begin(), d.end(), out.begin(), init, merge_stats{}, to_stats{});
    EXPECT_EQ(side.get(out)[0], want);
  }
}

// ---------------------------------------------------------------------------
// Thrust's sum_rows: the row of item i is i / columns; the keys are discarded.
// ---------------------------------------------------------------------------
struct widen {
  __host__ __device__ long long operator()(int x) const { return x; }
};
struct row_of {
  int columns;
  __host__ __device__ int operator()(int i) const { return i / columns; }
};

template <class Side>
void check_row_sums(const Side& side) {
  for (int columns : {1, 3, 50, 4096, 100000}) {
    const int rows = int(std::max<std::int64_t>(1, std::min<std::int64_t>(1 << 22, max_test_size()) / columns)) + 3;
    const std::size_t n = std::size_t(rows) * columns;
    SCOPED_TRACE(std::to_string(rows) + " rows of " + std::to_string(columns));
    const auto h = random_ints(n, 1001, columns);
    const auto d = side.put(h);
    std::vector<long long> want(rows);
    for (std::size_t i = 0; i < n; ++i) want[i / columns] += h[i];
    const auto keys = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), row_of{columns});
    vector_of<Side, long long> sums(rows + 1);
    side.poison(sums);
    const auto wide = thrust::make_transform_iterator(d.begin(), widen{});
    const auto ends = cascade::reduce_by_key(side.policy, keys, keys + n, wide, thrust::make_discard_iterator(),
                                             sums.begin());
    EXPECT_EQ(ends.second - sums.begin(), rows);
    auto got = side.get(sums);
    EXPECT_EQ(got.back(), poison_value<long long>());  // past the last row: not written
    got.resize(rows);
    EXPECT_EQ(got, want);
    // Stream-ordered, the row count in device memory.
    vector_of<Side, int> count(1);
    side.poison(sums);
    side.poison(count);
    cascade::reduce_by_key_into(side.policy, keys, keys + n, wide, thrust::make_discard_iterator(), sums.begin(),
                                count.begin(), cuda::std::equal_to<>{}, cuda::std::plus<>{});
    EXPECT_EQ(side.get(count)[0], rows);
    got = side.get(sums);
    EXPECT_EQ(got.back(), poison_value<long long>());
    got.resize(rows);
    EXPECT_EQ(got, want);
  }
}

// ---------------------------------------------------------------------------
// Keys and values zipped from several arrays (a run: equal (a, b) pairs).
// ---------------------------------------------------------------------------
struct add_pairs {
  template <class A, class B>
  __host__ __device__ thrust::tuple<int, long long> operator()(const A& a, const B& b) const {
    return {thrust::get<0>(a) + thrust::get<0>(b), thrust::get<1>(a) + thrust::get<1>(b)};
  }
};

template <class Side>
void check_zipped_keys_and_values(const Side& side) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Key pairs (run / 3, run % 3): runs where both change, and where one does.
    const auto runs = run_keys(n, 9, n + 1);
    std::vector<int> ha(n), hb(n);
    for (std::size_t i = 0; i < n; ++i) ha[i] = runs[i] / 3, hb[i] = runs[i] % 3;
    const auto hx = random_ints(n, 1001, n + 2);
    std::vector<long long> hy(n);
    for (std::size_t i = 0; i < n; ++i) hy[i] = (long long)hx[i] * 1000003;
    const auto da = side.put(ha), db = side.put(hb), dx = side.put(hx);
    const auto dy = side.put(hy);
    const auto keys = thrust::make_zip_iterator(da.begin(), db.begin());
    const auto values = thrust::make_zip_iterator(dx.begin(), dy.begin());

    // The host reference: a sequential pass.
    std::vector<int> want_a, want_b, want_x, scan_x(n);
    std::vector<long long> want_y, scan_y(n);
    for (std::size_t i = 0; i < n; ++i) {
      const bool head = i == 0 || ha[i] != ha[i - 1] || hb[i] != hb[i - 1];
      if (head) want_a.push_back(ha[i]), want_b.push_back(hb[i]), want_x.push_back(0), want_y.push_back(0);
      want_x.back() += hx[i];
      want_y.back() += hy[i];
      scan_x[i] = want_x.back();
      scan_y[i] = want_y.back();
    }
    const std::size_t want_runs = want_a.size();

    vector_of<Side, int> oa(n), ob(n), ox(n);
    vector_of<Side, long long> oy(n);
    side.poison(oa), side.poison(ob), side.poison(ox), side.poison(oy);
    const auto ends = cascade::reduce_by_key(side.policy, keys, keys + n, values,
                                             thrust::make_zip_iterator(oa.begin(), ob.begin()),
                                             thrust::make_zip_iterator(ox.begin(), oy.begin()),
                                             cuda::std::equal_to<>{}, add_pairs{});
    ASSERT_EQ(std::size_t(ends.first - thrust::make_zip_iterator(oa.begin(), ob.begin())), want_runs);
    ASSERT_EQ(std::size_t(ends.second - thrust::make_zip_iterator(ox.begin(), oy.begin())), want_runs);
    auto first = [&](auto v) {
      v.resize(want_runs);
      return v;
    };
    EXPECT_EQ(first(side.get(oa)), want_a);
    EXPECT_EQ(first(side.get(ob)), want_b);
    EXPECT_EQ(first(side.get(ox)), want_x);
    EXPECT_EQ(first(side.get(oy)), want_y);

    // The inclusive scan by the same keys, into zipped outputs.
    side.poison(ox), side.poison(oy);
    cascade::inclusive_scan_by_key(side.policy, keys, keys + n, values,
                                   thrust::make_zip_iterator(ox.begin(), oy.begin()), cuda::std::equal_to<>{},
                                   add_pairs{});
    side.sync();
    EXPECT_EQ(side.get(ox), scan_x);
    EXPECT_EQ(side.get(oy), scan_y);

    // The same runs as CSR offsets: segmented_reduce and the segmented scan
    // over the zipped values.
    const auto d_offsets = side.put(run_offsets(runs));
    side.poison(ox), side.poison(oy);
    cascade::segmented_reduce(side.policy, values, d_offsets.begin(), d_offsets.end(),
                              thrust::make_zip_iterator(ox.begin(), oy.begin()),
                              thrust::tuple<int, long long>{0, 0}, add_pairs{});
    side.sync();
    EXPECT_EQ(first(side.get(ox)), want_x);
    EXPECT_EQ(first(side.get(oy)), want_y);
    side.poison(ox), side.poison(oy);
    cascade::segmented_inclusive_scan(side.policy, values, d_offsets.begin(), d_offsets.end(),
                                      thrust::make_zip_iterator(ox.begin(), oy.begin()), add_pairs{});
    side.sync();
    EXPECT_EQ(side.get(ox), scan_x);
    EXPECT_EQ(side.get(oy), scan_y);
  }
}

// ---------------------------------------------------------------------------
// A predicate that calls unequal keys equal: keys in one bucket of 10 form a
// run, and the run's FIRST key is written (Thrust's rule).
// ---------------------------------------------------------------------------
struct same_bucket {
  __host__ __device__ bool operator()(int a, int b) const { return a / 10 == b / 10; }
};

template <class Side>
void check_key_predicate(const Side& side) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Ascending keys that step by 0-4: buckets of up to ten keys, each key
    // repeated, so a run holds several distinct keys.
    std::mt19937_64 rng(n + 3);
    std::vector<int> hk(n);
    for (std::size_t i = 0, k = 0; i < n; ++i) hk[i] = int(k += rng() % 5 == 0 ? 1 + rng() % 4 : 0);
    const auto hv = random_ints(n, 1001, n + 4);
    const auto dk = side.put(hk), dv = side.put(hv);
    std::vector<int> want_keys, want_sums, want_scan(n), want_exclusive(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || !same_bucket{}(hk[i - 1], hk[i])) want_keys.push_back(hk[i]), want_sums.push_back(0);
      want_exclusive[i] = 7 + want_sums.back();
      want_scan[i] = want_sums.back() += hv[i];
    }
    vector_of<Side, int> keys_out(n), sums(n), out(n);
    side.poison(keys_out), side.poison(sums);
    const auto ends = cascade::reduce_by_key(side.policy, dk.begin(), dk.end(), dv.begin(), keys_out.begin(),
                                             sums.begin(), same_bucket{});
    ASSERT_EQ(std::size_t(ends.first - keys_out.begin()), want_keys.size());
    auto got_keys = side.get(keys_out), got_sums = side.get(sums);
    got_keys.resize(want_keys.size());
    got_sums.resize(want_keys.size());
    EXPECT_EQ(got_keys, want_keys);
    EXPECT_EQ(got_sums, want_sums);
    side.poison(out);
    cascade::inclusive_scan_by_key(side.policy, dk.begin(), dk.end(), dv.begin(), out.begin(), same_bucket{});
    side.sync();
    EXPECT_EQ(side.get(out), want_scan);
    side.poison(out);
    cascade::exclusive_scan_by_key(side.policy, dk.begin(), dk.end(), dv.begin(), out.begin(), 7, same_bucket{});
    side.sync();
    EXPECT_EQ(side.get(out), want_exclusive);
  }
}

// ---------------------------------------------------------------------------
// The extremes of structs by one field, with many ties: 3-byte pixels by
// brightness, float3 and 16-byte particles by z, 40-byte records by one int
// (item sizes that are not a power of two did not compile in minmax_element),
// 256-byte samples by their key (a candidate wider than a status word; up
// to 2^20 + 3 of them).
// ---------------------------------------------------------------------------
struct particle {
  float x, y, z;
  int id;
};
struct record {
  double weight;
  long long tag[3];
  int height, pad;
};
struct by_z {
  __host__ __device__ bool operator()(const particle& a, const particle& b) const { return a.z < b.z; }
};
struct by_float3_z {
  __host__ __device__ bool operator()(const float3& a, const float3& b) const { return a.z < b.z; }
};
struct by_brightness {
  __host__ __device__ bool operator()(const uchar3& a, const uchar3& b) const {
    return a.x + a.y + a.z < b.x + b.y + b.z;
  }
};
struct by_height {
  __host__ __device__ bool operator()(const record& a, const record& b) const { return a.height < b.height; }
};
struct sample {
  float key;
  int history[63];
};
struct by_sample_key {
  __host__ __device__ bool operator()(const sample& a, const sample& b) const { return a.key < b.key; }
};

template <class T, class Side, class Comp, class Make>
void check_extremes_by(const Side& side, Comp comp, Make make, std::size_t max_n = std::size_t(-1)) {
  for (std::size_t n : kSizes) {
    if (n > max_n) continue;
    for (int offset : {0, 1}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", offset " + std::to_string(offset));
      std::mt19937_64 rng(n + offset);
      std::vector<T> h(n + 1);
      for (std::size_t i = 0; i < h.size(); ++i) h[i] = make(int(rng() % 1000), int(i));
      const auto d = side.put(h);
      const auto b = d.begin() + offset, e = b + n;
      const auto hb = h.begin() + offset, he = h.begin() + offset + n;
      EXPECT_EQ(cascade::min_element(side.policy, b, e, comp) - b, std::min_element(hb, he, comp) - hb);
      EXPECT_EQ(cascade::max_element(side.policy, b, e, comp) - b, std::max_element(hb, he, comp) - hb);
      const auto got = cascade::minmax_element(side.policy, b, e, comp);
      const auto want = std::minmax_element(hb, he, comp);
      EXPECT_EQ(got.first - b, want.first - hb);
      EXPECT_EQ(got.second - b, want.second - hb);
    }
  }
}

template <class Side>
void check_extremes_of_structs(const Side& side) {
  check_extremes_by<uchar3>(side, by_brightness{}, [](int key, int i) {
    return make_uchar3(key % 256, (key / 4) % 256, i % 2);
  });
  check_extremes_by<float3>(side, by_float3_z{}, [](int key, int i) { return make_float3(i, -i, key); });
  check_extremes_by<particle>(side, by_z{}, [](int key, int i) {
    return particle{float(i), -float(i), float(key), i};
  });
  check_extremes_by<record>(side, by_height{}, [](int key, int i) {
    return record{double(i), {i, -i, 3ll * i}, key, 0};
  });
  check_extremes_by<sample>(
      side, by_sample_key{},
      [](int key, int i) {
        sample s{float(key % 97), {}};
        s.history[62] = i;
        return s;
      },
      (1 << 20) + 3);
}

// ---------------------------------------------------------------------------
// Scans of zipped values: a running (count, sum) pair, and an exclusive
// transform scan of structs.
// ---------------------------------------------------------------------------
struct count_and_sum {
  __host__ __device__ thrust::tuple<int, long long> operator()(int x) const { return {1, x}; }
};

template <class Side>
void check_scans_of_pairs_and_structs(const Side& side) {
  for_each_size(side, 1001, 5, [&](std::size_t n, const std::vector<int>& h, const auto& d) {
    vector_of<Side, int> counts(n);
    vector_of<Side, long long> sums(n);
    side.poison(counts), side.poison(sums);
    const auto out = thrust::make_zip_iterator(counts.begin(), sums.begin());
    const auto end = cascade::transform_inclusive_scan(side.policy, d.begin(), d.end(), out, add_pairs{},
                                                       count_and_sum{});
    EXPECT_EQ(std::size_t(end - out), n);
    side.sync();
    std::vector<int> want_counts(n);
    std::vector<long long> want_sums(n);
    long long s = 0;
    for (std::size_t i = 0; i < n; ++i) want_counts[i] = int(i + 1), want_sums[i] = s += h[i];
    EXPECT_EQ(side.get(counts), want_counts);
    EXPECT_EQ(side.get(sums), want_sums);

    vector_of<Side, stats> running(n);
    side.poison(running);
    const stats init{0, 0, 0, 1 << 30, -(1 << 30)};
    cascade::transform_exclusive_scan(side.policy, d.begin(), d.end(), running.begin(), init, merge_stats{},
                                      to_stats{});
    side.sync();
    std::vector<stats> want(n);
    std::transform_exclusive_scan(h.begin(), h.end(), want.begin(), init, merge_stats{}, to_stats{});
    EXPECT_TRUE(side.get(running) == want);
  });
}

// ---------------------------------------------------------------------------
// Thrust's functors where cascade's examples use cuda::std's.
// ---------------------------------------------------------------------------
template <class Side>
void check_thrust_functors(const Side& side) {
  for_each_size(side, 2001, 6, [&](std::size_t n, const std::vector<int>& h, const auto& d) {
    const auto hk = run_keys(n, 20, n + 7);
    const auto dk = side.put(hk);
    EXPECT_EQ(cascade::reduce(side.policy, d.begin(), d.end(), -5000, thrust::maximum<int>()),
              std::max(-5000, *std::max_element(h.begin(), h.end())));
    EXPECT_EQ(cascade::max_element(side.policy, d.begin(), d.end(), thrust::greater<int>()) - d.begin(),
              std::max_element(h.begin(), h.end(), std::greater<int>()) - h.begin());
    // Exclusive running maxima by key, and the minimum of fixed segments of 33.
    std::vector<int> want_scan(n), want_mins;
    for (std::size_t i = 0; i < n; ++i) {
      const bool head = i == 0 || hk[i] != hk[i - 1];
      want_scan[i] = head ? -7000 : std::max(want_scan[i - 1], h[i - 1]);
    }
    for (std::size_t i = 0; i < n; i += 33) {
      want_mins.push_back(std::min(0, *std::min_element(h.begin() + i, h.begin() + std::min(n, i + 33))));
    }
    vector_of<Side, int> out(n), mins(want_mins.size());
    side.poison(out), side.poison(mins);
    cascade::exclusive_scan_by_key(side.policy, dk.begin(), dk.end(), d.begin(), out.begin(), -7000,
                                   thrust::equal_to<int>(), thrust::maximum<int>());
    cascade::segmented_reduce(side.policy, d.begin(), d.end(), 33, mins.begin(), 0, thrust::minimum<int>());
    side.sync();
    EXPECT_EQ(side.get(out), want_scan);
    EXPECT_EQ(side.get(mins), want_mins);
  });
}

// ---------------------------------------------------------------------------
// Reverse, permutation and transform-output iterators: suffix sums (in place
// too), gathers, and outputs converted on the way out.
// ---------------------------------------------------------------------------
struct twice {
  __host__ __device__ long long operator()(long long x) const { return 2 * x; }
};

template <class Side>
void check_reversed_gathered_and_transformed(const Side& side) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints(n, 2001, n + 10);
    const auto hk = run_keys(n, 20, n + 11);
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(n + 12));
    const auto d = side.put(h), dk = side.put(hk), d_order = side.put(order);
    std::vector<int> r(h.rbegin(), h.rend()), gathered(n);  // the input reversed, and gathered by order
    for (std::size_t i = 0; i < n; ++i) gathered[i] = h[order[i]];

    // Suffix sums: a scan from the back, then again in place.
    vector_of<Side, int> out(n);
    side.poison(out);
    cascade::inclusive_scan(side.policy, d.rbegin(), d.rend(), out.rbegin());
    side.sync();
    std::vector<int> want(n);
    std::inclusive_scan(h.rbegin(), h.rend(), want.rbegin());
    EXPECT_EQ(side.get(out), want);
    cascade::exclusive_scan(side.policy, out.rbegin(), out.rend(), out.rbegin(), 5);
    side.sync();
    std::exclusive_scan(want.rbegin(), want.rend(), want.rbegin(), 5);
    EXPECT_EQ(side.get(out), want);
    // The first smallest from the back: the last smallest from the front.
    EXPECT_EQ(cascade::min_element(side.policy, d.rbegin(), d.rend()) - d.rbegin(),
              std::min_element(r.begin(), r.end()) - r.begin());
    const auto reversed_extremes = cascade::minmax_element(side.policy, d.rbegin(), d.rend());
    const auto want_reversed_extremes = std::minmax_element(r.begin(), r.end());
    EXPECT_EQ(reversed_extremes.first - d.rbegin(), want_reversed_extremes.first - r.begin());
    EXPECT_EQ(reversed_extremes.second - d.rbegin(), want_reversed_extremes.second - r.begin());
    EXPECT_EQ(cascade::transform_reduce(side.policy, d.rbegin(), d.rend(), d.begin(), 0ll),
              std::transform_reduce(r.begin(), r.end(), h.begin(), 0ll));

    // Gathers: values[order[i]].
    const auto perm = thrust::make_permutation_iterator(d.begin(), d_order.begin());
    EXPECT_EQ(cascade::reduce(side.policy, perm, perm + n, 0ll), std::accumulate(h.begin(), h.end(), 0ll));
    vector_of<Side, long long> wide_out(n);
    side.poison(wide_out);
    // Scans through a transform_output_iterator: doubled on the way out.
    const auto doubled = thrust::make_transform_output_iterator(wide_out.begin(), twice{});
    cascade::inclusive_scan(side.policy, perm, perm + n, doubled);
    side.sync();
    std::vector<long long> want_wide(n);
    long long prefix = 0;
    for (std::size_t i = 0; i < n; ++i) want_wide[i] = 2 * (prefix += gathered[i]);
    EXPECT_EQ(side.get(wide_out), want_wide);

    // Keyed and segmented over the gathered values, outputs from the back.
    std::vector<int> want_keys;
    std::vector<long long> want_sums, want_seg_scan(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || hk[i] != hk[i - 1]) want_keys.push_back(hk[i]), want_sums.push_back(0);
      want_seg_scan[i] = want_sums.back() += gathered[i];
    }
    const std::size_t runs = want_keys.size();
    vector_of<Side, int> keys_out(n);
    side.poison(keys_out), side.poison(wide_out);
    const auto ends = cascade::reduce_by_key(side.policy, dk.begin(), dk.end(), perm, keys_out.rbegin(),
                                             wide_out.rbegin(), cuda::std::equal_to<>{}, cuda::std::plus<long long>{});
    ASSERT_EQ(std::size_t(ends.first - keys_out.rbegin()), runs);
    auto got_keys = side.get(keys_out);
    auto got_sums = side.get(wide_out);
    EXPECT_EQ(std::vector<int>(got_keys.rbegin(), got_keys.rbegin() + runs), want_keys);
    EXPECT_EQ(std::vector<long long>(got_sums.rbegin(), got_sums.rbegin() + runs), want_sums);
    const auto d_offsets = side.put(run_offsets(hk));
    side.poison(wide_out);
    cascade::segmented_reduce(side.policy, perm, d_offsets.begin(), d_offsets.end(), wide_out.rbegin(), 0ll,
                              cuda::std::plus<>{});
    side.sync();
    got_sums = side.get(wide_out);
    EXPECT_EQ(std::vector<long long>(got_sums.rbegin(), got_sums.rbegin() + runs), want_sums);
    side.poison(wide_out);
    cascade::segmented_inclusive_scan(side.policy, perm, d_offsets.begin(), d_offsets.end(),
                                      thrust::make_transform_output_iterator(wide_out.begin(), twice{}));
    cascade::inclusive_scan_by_key(side.policy, dk.rbegin(), dk.rend(), d.rbegin(), out.rbegin());
    side.sync();
    for (auto& x : want_seg_scan) x *= 2;
    EXPECT_EQ(side.get(wide_out), want_seg_scan);
    std::vector<int> want_by_key(n);  // runs scanned from the back
    for (std::size_t j = n; j-- > 0;) want_by_key[j] = h[j] + (j + 1 < n && hk[j + 1] == hk[j] ? want_by_key[j + 1] : 0);
    EXPECT_EQ(side.get(out), want_by_key);
  }
}

#if CASCADE_HAS_CUDA_ITERATORS
// ---------------------------------------------------------------------------
// libcu++'s iterators, which CCCL 3.6 offers in place of Thrust's deprecated
// ones: gathers (cuda::permutation_iterator, whose std::iterator_traits are
// empty in C++17), every other item (cuda::strided_iterator), keys zipped from
// two arrays (cuda::zip_iterator, in and out), outputs placed by their index
// (cuda::tabulate_output_iterator), transformed (cuda::transform_output_iterator)
// and dropped (cuda::discard_iterator).
// ---------------------------------------------------------------------------
template <class T>
struct place_from_the_back {  // out[last - i] = v
  T* out;
  std::ptrdiff_t last;
  __host__ __device__ void operator()(std::ptrdiff_t i, T v) const { out[last - i] = v; }
};

template <class Side>
void check_libcuxx_iterators(const Side& side) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_ints(2 * n, 2001, n + 20);
    const auto hk = run_keys(n, 20, n + 21), hk2 = run_keys(n, 7, n + 22);
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(n + 23));
    const auto d = side.put(h), dk = side.put(hk), dk2 = side.put(hk2), d_order = side.put(order);
    std::vector<int> gathered(n), strided(n);  // h[order[i]], h[2i]
    for (std::size_t i = 0; i < n; ++i) gathered[i] = h[order[i]], strided[i] = h[2 * i];
    const cuda::permutation_iterator perm(d.begin(), d_order.begin());
    const cuda::strided_iterator every_other(d.begin(), 2);
    const cuda::zip_iterator keys(dk.begin(), dk2.begin());
    const std::ptrdiff_t last = std::ptrdiff_t(n) - 1;

    EXPECT_EQ(cascade::reduce(side.policy, perm, perm + n, 0ll), std::accumulate(gathered.begin(), gathered.end(), 0ll));
    EXPECT_EQ(cascade::reduce(side.policy, every_other, every_other + n, 0ll),
              std::accumulate(strided.begin(), strided.end(), 0ll));
    EXPECT_EQ(cascade::min_element(side.policy, every_other, every_other + n) - every_other,
              std::min_element(strided.begin(), strided.end()) - strided.begin());
    const auto extremes = cascade::minmax_element(side.policy, perm, perm + n);
    const auto want_extremes = std::minmax_element(gathered.begin(), gathered.end());
    EXPECT_EQ(extremes.first - perm, want_extremes.first - gathered.begin());
    EXPECT_EQ(extremes.second - perm, want_extremes.second - gathered.begin());
    EXPECT_EQ(cascade::transform_reduce(side.policy, perm, perm + n, every_other, 0ll),
              std::transform_reduce(gathered.begin(), gathered.end(), strided.begin(), 0ll));

    // Scans placed from the back by index, and doubled on the way out.
    vector_of<Side, long long> out(n);
    side.poison(out);
    cascade::inclusive_scan(side.policy, every_other, every_other + n,
                            cuda::tabulate_output_iterator(place_from_the_back<long long>{raw(out), last}),
                            cuda::std::plus<>{}, 0ll);
    side.sync();
    std::vector<long long> want(n);
    std::inclusive_scan(strided.begin(), strided.end(), want.rbegin(), std::plus<>{}, 0ll);
    EXPECT_EQ(side.get(out), want);
    side.poison(out);
    cascade::exclusive_scan(side.policy, perm, perm + n, cuda::transform_output_iterator(out.begin(), twice{}), 7ll);
    side.sync();
    std::exclusive_scan(gathered.begin(), gathered.end(), want.begin(), 7ll);
    for (auto& x : want) x *= 2;
    EXPECT_EQ(side.get(out), want);
    const auto dropped = cascade::inclusive_scan(side.policy, perm, perm + n, cuda::discard_iterator{});
    EXPECT_TRUE(dropped == cuda::discard_iterator{} + std::ptrdiff_t(n));  // (CCCL 3.6's difference has its sign reversed)

    // Keys zipped from two arrays: runs where both stay the same.
    std::vector<std::pair<int, int>> pairs(n);
    for (std::size_t i = 0; i < n; ++i) pairs[i] = {hk[i], hk2[i]};
    const auto offsets = run_offsets(pairs);
    const std::size_t runs = offsets.size() - 1;
    std::vector<int> want_k1(runs), want_k2(runs);
    std::vector<long long> want_sums(runs), want_by_key(n), want_by_key_excl(n);
    for (std::size_t r = 0; r < runs; ++r) {
      want_k1[r] = hk[offsets[r]], want_k2[r] = hk2[offsets[r]];
      for (auto i = offsets[r]; i < offsets[r + 1]; ++i) {
        want_by_key_excl[i] = 5 + want_sums[r];
        want_sums[r] += gathered[i];
        want_by_key[i] = i == offsets[r] ? strided[i] : want_by_key[i - 1] + strided[i];
      }
    }
    vector_of<Side, int> k1(n), k2(n);
    vector_of<Side, long long> sums(n);
    side.poison(k1), side.poison(k2), side.poison(sums);
    const auto ends = cascade::reduce_by_key(
        side.policy, keys, keys + n, perm, cuda::zip_iterator(k1.begin(), k2.begin()),
        cuda::tabulate_output_iterator(place_from_the_back<long long>{raw(sums), last}), cuda::std::equal_to<>{},
        cuda::std::plus<long long>{});
    ASSERT_EQ(std::size_t(ends.first - cuda::zip_iterator(k1.begin(), k2.begin())), runs);
    const auto got_k1 = side.get(k1), got_k2 = side.get(k2);
    const auto got_sums = side.get(sums);
    EXPECT_EQ(std::vector<int>(got_k1.begin(), got_k1.begin() + runs), want_k1);
    EXPECT_EQ(std::vector<int>(got_k2.begin(), got_k2.begin() + runs), want_k2);
    EXPECT_EQ(std::vector<long long>(got_sums.rbegin(), got_sums.rbegin() + runs), want_sums);
    side.poison(sums);
    const auto sums_end = cascade::reduce_by_key(side.policy, keys, keys + n, perm, cuda::discard_iterator{},
                                                 cuda::transform_output_iterator(sums.begin(), twice{}),
                                                 cuda::std::equal_to<>{}, cuda::std::plus<long long>{});
    EXPECT_EQ(sums_end.second - cuda::transform_output_iterator(sums.begin(), twice{}), std::ptrdiff_t(runs));
    const auto doubled = side.get(sums);
    for (std::size_t r = 0; r < runs; ++r) ASSERT_EQ(doubled[r], 2 * want_sums[r]) << "run " << r;
    side.poison(out);
    cascade::inclusive_scan_by_key(side.policy, keys, keys + n, every_other,
                                   cuda::tabulate_output_iterator(place_from_the_back<long long>{raw(out), last}),
                                   cuda::std::equal_to<>{}, cuda::std::plus<long long>{});
    side.sync();
    EXPECT_EQ(side.get(out), std::vector<long long>(want_by_key.rbegin(), want_by_key.rend()));
    side.poison(out);
    cascade::exclusive_scan_by_key(side.policy, keys, keys + n, perm, out.begin(), 5ll);
    side.sync();
    EXPECT_EQ(side.get(out), want_by_key_excl);

    // The same runs as segments by offsets, whose values are gathered.
    const auto d_offsets = side.put(offsets);
    side.poison(sums);
    cascade::segmented_reduce(side.policy, perm, d_offsets.begin(), d_offsets.end(),
                              cuda::transform_output_iterator(sums.begin(), twice{}), 0ll, cuda::std::plus<>{});
    side.sync();
    const auto segment_sums = side.get(sums);
    for (std::size_t r = 0; r < runs; ++r) ASSERT_EQ(segment_sums[r], 2 * want_sums[r]) << "segment " << r;
    side.poison(out);
    cascade::segmented_exclusive_scan(side.policy, perm, d_offsets.begin(), d_offsets.end(),
                                      cuda::tabulate_output_iterator(place_from_the_back<long long>{raw(out), last}),
                                      5ll);
    side.sync();
    EXPECT_EQ(side.get(out), std::vector<long long>(want_by_key_excl.rbegin(), want_by_key_excl.rend()));
  }
}
#endif

// ---------------------------------------------------------------------------
// __int128 values (GCC's, which nvcc takes in device code): sums whose high
// word matters, through the flat, keyed, segmented and element forms. The
// sums wrap modulo 2^128 alike on every side, so every association agrees.
// ---------------------------------------------------------------------------
using int128 = __int128;

// (Google Test cannot print an __int128: compared as their two halves.)
inline std::vector<std::pair<std::int64_t, std::uint64_t>> halves(const std::vector<int128>& v) {
  std::vector<std::pair<std::int64_t, std::uint64_t>> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = {std::int64_t(v[i] >> 64), std::uint64_t(v[i])};
  return out;
}

template <class Side>
void check_int128_values(const Side& side) {
  for_each_size(side, 2001, 31, [&](std::size_t n, const std::vector<int>& h, const auto&) {
    std::vector<int128> w(n);  // x * 2^100 + x * 2^40 + i: every word in play
    for (std::size_t i = 0; i < n; ++i) w[i] = (int128(h[i]) << 100) + (int128(h[i]) << 40) + int128(i);
    const auto d = side.put(w);
    const int128 init = int128(7) << 90;
    const int128 sum = std::accumulate(w.begin(), w.end(), init);
    EXPECT_TRUE(cascade::reduce(side.policy, d.begin(), d.end(), init) == sum);
    vector_of<Side, int128> out(n);
    side.poison(out);
    cascade::inclusive_scan(side.policy, d.begin(), d.end(), out.begin());
    side.sync();
    std::vector<int128> want(n);
    std::inclusive_scan(w.begin(), w.end(), want.begin());
    EXPECT_EQ(halves(side.get(out)), halves(want));
    side.poison(out);
    cascade::exclusive_scan(side.policy, d.begin(), d.end(), out.begin(), init);
    side.sync();
    std::exclusive_scan(w.begin(), w.end(), want.begin(), init);
    EXPECT_EQ(halves(side.get(out)), halves(want));
    EXPECT_EQ(cascade::min_element(side.policy, d.begin(), d.end()) - d.begin(),
              std::min_element(w.begin(), w.end()) - w.begin());
    EXPECT_EQ(cascade::max_element(side.policy, d.begin(), d.end()) - d.begin(),
              std::max_element(w.begin(), w.end()) - w.begin());

    // Runs of keys, and segments of 5 (the last shorter).
    const auto hk = run_keys(n, 9, n + 32);
    const auto dk = side.put(hk);
    const auto offsets = run_offsets(hk);
    const std::size_t runs = offsets.size() - 1;
    std::vector<int128> want_runs(runs);
    for (std::size_t r = 0; r < runs; ++r) {
      want_runs[r] = std::accumulate(w.begin() + offsets[r], w.begin() + offsets[r + 1], int128(0));
    }
    vector_of<Side, int> keys_out(n);
    side.poison(out);
    const auto ends = cascade::reduce_by_key(side.policy, dk.begin(), dk.end(), d.begin(), keys_out.begin(), out.begin());
    ASSERT_EQ(std::size_t(ends.second - out.begin()), runs);
    auto got = side.get(out);
    EXPECT_EQ(halves(std::vector<int128>(got.begin(), got.begin() + runs)), halves(want_runs));
    const std::size_t segments = (n + 4) / 5;
    std::vector<int128> want_segments(segments, init);
    for (std::size_t i = 0; i < n; ++i) want_segments[i / 5] += w[i];
    side.poison(out);
    cascade::segmented_reduce(side.policy, d.begin(), d.end(), 5, out.begin(), init, cuda::std::plus<>{});
    got = side.get(out);
    EXPECT_EQ(halves(std::vector<int128>(got.begin(), got.begin() + segments)), halves(want_segments));
  });
}

// ---------------------------------------------------------------------------
// 16-bit floats (__half, __nv_bfloat16), the values of mixed-precision
// programs, through every engine: 2-byte items in tiles cut for 4-byte ones.
// The values step a walk that stays in [-8, 8], so that every sum of a
// range is an integer of magnitude 16 or less, exact in either format: any
// association gives the same result, and an item misplaced or read twice
// shows. Compared as floats.
// ---------------------------------------------------------------------------
inline std::vector<float> bounded_walk_steps(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> steps(n);
  int at = 0;
  for (auto& x : steps) {
    int step = int(rng() % 3) - 1;
    if (at + step > 8 || at + step < -8) step = -step;
    at += step;
    x = float(step);
  }
  return steps;
}

template <class H>
std::vector<float> as_floats(const std::vector<H>& v, std::size_t count) {
  std::vector<float> f(count);
  for (std::size_t i = 0; i < count; ++i) f[i] = float(v[i]);
  return f;
}

struct negate_16 {
  template <class H>
  __host__ __device__ H operator()(const H& x) const { return H(-float(x)); }
};

template <class H, class Side>
void check_16_bit_floats(const Side& side) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto f = bounded_walk_steps(n, n + 53);
    std::vector<H> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = H(f[i]);
    const auto d = side.put(h);
    const H init = H(3.0f);
    const auto sum_of = [&](std::size_t a, std::size_t b) { return std::accumulate(f.begin() + a, f.begin() + b, 0.0f); };
    const float total = sum_of(0, n);
    EXPECT_EQ(float(cascade::reduce(side.policy, d.begin(), d.end(), init)), 3.0f + total);
    EXPECT_EQ(float(cascade::transform_reduce(side.policy, d.begin(), d.end(), init, cuda::std::plus<>{}, negate_16{})),
              3.0f - total);

    vector_of<Side, H> out(n);
    std::vector<float> want(n);
    // A float accumulator, as mixed-precision programs keep: the operator
    // names it (float + __half is ambiguous in CUDA's headers, so the default
    // plus<> fails to compile, as std::reduce does on the same values).
    EXPECT_EQ(cascade::reduce(side.policy, d.begin(), d.end(), 0.5f, cuda::std::plus<float>{}), 0.5f + total);
    vector_of<Side, float> wide(n);
    side.poison(wide);
    cascade::exclusive_scan(side.policy, d.begin(), d.end(), wide.begin(), 0.5f, cuda::std::plus<float>{});
    std::exclusive_scan(f.begin(), f.end(), want.begin(), 0.5f);
    EXPECT_EQ(side.get(wide), want);
    side.poison(out);
    cascade::inclusive_scan(side.policy, d.begin(), d.end(), out.begin());
    std::inclusive_scan(f.begin(), f.end(), want.begin());
    EXPECT_EQ(as_floats(side.get(out), n), want);
    side.poison(out);
    cascade::exclusive_scan(side.policy, d.begin(), d.end(), out.begin(), init);
    std::exclusive_scan(f.begin(), f.end(), want.begin(), 3.0f);
    EXPECT_EQ(as_floats(side.get(out), n), want);
    // Ties: std's first smallest, first largest, and last largest.
    EXPECT_EQ(cascade::min_element(side.policy, d.begin(), d.end()) - d.begin(), std::min_element(f.begin(), f.end()) - f.begin());
    EXPECT_EQ(cascade::max_element(side.policy, d.begin(), d.end()) - d.begin(), std::max_element(f.begin(), f.end()) - f.begin());
    const auto mm = cascade::minmax_element(side.policy, d.begin(), d.end());
    EXPECT_EQ(mm.second - d.begin(), std::minmax_element(f.begin(), f.end()).second - f.begin());

    // Runs of keys, and segments by the runs' offsets and of 7 items.
    const auto hk = run_keys(n, 9, n + 54);
    const auto dk = side.put(hk);
    const auto offsets = run_offsets(hk);
    const auto d_offsets = side.put(offsets);
    const std::size_t runs = offsets.size() - 1;
    std::vector<float> want_runs(runs), want_from_init(runs);
    for (std::size_t r = 0; r < runs; ++r) {
      want_runs[r] = sum_of(offsets[r], offsets[r + 1]);
      want_from_init[r] = 3.0f + want_runs[r];
    }
    vector_of<Side, int> keys_out(n);
    side.poison(out);
    const auto ends = cascade::reduce_by_key(side.policy, dk.begin(), dk.end(), d.begin(), keys_out.begin(), out.begin());
    ASSERT_EQ(std::size_t(ends.second - out.begin()), runs);
    EXPECT_EQ(as_floats(side.get(out), runs), want_runs);
    side.poison(out);
    cascade::segmented_reduce(side.policy, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init,
                              cuda::std::plus<>{});
    EXPECT_EQ(as_floats(side.get(out), runs), want_from_init);
    const std::size_t sevens = (n + 6) / 7;
    std::vector<float> want_sevens(sevens);
    for (std::size_t k = 0; k < sevens; ++k) want_sevens[k] = 3.0f + sum_of(7 * k, std::min(n, 7 * k + 7));
    side.poison(out);
    cascade::segmented_reduce(side.policy, d.begin(), d.end(), 7, out.begin(), init, cuda::std::plus<>{});
    EXPECT_EQ(as_floats(side.get(out), sevens), want_sevens);

    // Scans restarted at each run: by key and by the same runs' offsets.
    std::vector<float> want_in(n), want_ex(n);
    for (std::size_t r = 0; r < runs; ++r) {
      float acc = 0.0f;
      for (auto i = offsets[r]; i < offsets[r + 1]; ++i) {
        want_ex[i] = 3.0f + acc;
        acc += f[i];
        want_in[i] = acc;
      }
    }
    side.poison(out);
    cascade::inclusive_scan_by_key(side.policy, dk.begin(), dk.end(), d.begin(), out.begin());
    EXPECT_EQ(as_floats(side.get(out), n), want_in);
    side.poison(out);
    cascade::exclusive_scan_by_key(side.policy, dk.begin(), dk.end(), d.begin(), out.begin(), init);
    EXPECT_EQ(as_floats(side.get(out), n), want_ex);
    side.poison(out);
    cascade::segmented_inclusive_scan(side.policy, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin());
    EXPECT_EQ(as_floats(side.get(out), n), want_in);
    side.poison(out);
    cascade::segmented_exclusive_scan(side.policy, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init);
    EXPECT_EQ(as_floats(side.get(out), n), want_ex);
  }
}

// ---------------------------------------------------------------------------
// 1- and 2-byte keys and values in the keyed and segmented engines: stream
// compaction's indices (an exclusive scan of uint8_t flags into int from 0),
// reduce_by_key over uint8_t labels and int16_t values, scans by int16_t
// keys of uint8_t counts, segments of int8_t values summed into int, and
// the smallest int8_t. Wrapping is avoided by the sizes of the runs.
// ---------------------------------------------------------------------------
template <class Side>
void check_narrow_keys_and_values(const Side& side) {
  for_each_size(side, 3, 61, [&](std::size_t n, const std::vector<int>& h, const auto&) {
    std::vector<std::uint8_t> flags(n);
    std::vector<std::int8_t> small(n);  // -1 .. 1
    for (std::size_t i = 0; i < n; ++i) {
      flags[i] = std::uint8_t(h[i] > 0);
      small[i] = std::int8_t(h[i]);
    }
    const auto d_flags = side.put(flags);
    const auto d_small = side.put(small);
    vector_of<Side, int> index(n);
    side.poison(index);
    cascade::exclusive_scan(side.policy, d_flags.begin(), d_flags.end(), index.begin(), 0);
    std::vector<int> want_index(n);
    std::exclusive_scan(flags.begin(), flags.end(), want_index.begin(), 0);
    EXPECT_EQ(side.get(index), want_index);
    EXPECT_EQ(cascade::min_element(side.policy, d_small.begin(), d_small.end()) - d_small.begin(),
              std::min_element(small.begin(), small.end()) - small.begin());

    // Runs of at most 9 keys; uint8_t labels wrap at 256 runs, so neighbours differ.
    const auto run = run_keys(n, 9, n + 62);
    std::vector<std::uint8_t> labels(n);
    std::vector<std::int16_t> keys16(n), values16(n);
    for (std::size_t i = 0; i < n; ++i) {
      labels[i] = std::uint8_t(run[i]);
      keys16[i] = std::int16_t(run[i] % 30000);
      values16[i] = std::int16_t(small[i]);
    }
    const auto offsets = run_offsets(run);
    const std::size_t runs = offsets.size() - 1;
    const auto d_labels = side.put(labels);
    const auto d_keys16 = side.put(keys16);
    const auto d_values16 = side.put(values16);
    const auto d_offsets = side.put(offsets);
    std::vector<std::uint8_t> want_labels(runs);
    std::vector<std::int16_t> want_sums(runs);
    std::vector<int> want_wide(runs);
    for (std::size_t r = 0; r < runs; ++r) {
      want_labels[r] = labels[offsets[r]];
      want_sums[r] = std::int16_t(std::accumulate(values16.begin() + offsets[r], values16.begin() + offsets[r + 1], 0));
      want_wide[r] = 5 + std::accumulate(small.begin() + offsets[r], small.begin() + offsets[r + 1], 0);
    }
    vector_of<Side, std::uint8_t> labels_out(n);
    vector_of<Side, std::int16_t> sums(n);
    side.poison(labels_out);
    side.poison(sums);
    const auto ends = cascade::reduce_by_key(side.policy, d_labels.begin(), d_labels.end(), d_values16.begin(),
                                             labels_out.begin(), sums.begin());
    ASSERT_EQ(std::size_t(ends.first - labels_out.begin()), runs);
    ASSERT_EQ(std::size_t(ends.second - sums.begin()), runs);
    auto got_labels = side.get(labels_out);
    auto got_sums = side.get(sums);
    EXPECT_EQ(std::vector<std::uint8_t>(got_labels.begin(), got_labels.begin() + runs), want_labels);
    EXPECT_EQ(std::vector<std::int16_t>(got_sums.begin(), got_sums.begin() + runs), want_sums);

    vector_of<Side, int> wide(n);
    side.poison(wide);
    cascade::segmented_reduce(side.policy, d_small.begin(), d_offsets.begin(), d_offsets.end(), wide.begin(), 5,
                              cuda::std::plus<>{});
    auto got_wide = side.get(wide);
    EXPECT_EQ(std::vector<int>(got_wide.begin(), got_wide.begin() + runs), want_wide);

    // Counts of flags restarted at each run, by int16_t keys and by the runs' offsets.
    std::vector<std::uint8_t> want_counts(n);
    for (std::size_t r = 0; r < runs; ++r) {
      std::uint8_t acc = 0;
      for (auto i = offsets[r]; i < offsets[r + 1]; ++i) want_counts[i] = acc = std::uint8_t(acc + flags[i]);
    }
    vector_of<Side, std::uint8_t> counts(n);
    side.poison(counts);
    cascade::inclusive_scan_by_key(side.policy, d_keys16.begin(), d_keys16.end(), d_flags.begin(), counts.begin());
    EXPECT_EQ(side.get(counts), want_counts);
    side.poison(counts);
    cascade::segmented_inclusive_scan(side.policy, d_flags.begin(), d_offsets.begin(), d_offsets.end(), counts.begin());
    EXPECT_EQ(side.get(counts), want_counts);
  });
}

// ---------------------------------------------------------------------------
// thrust::complex values, a bool accumulator (all_of by transform_reduce),
// a count by transform_reduce, and offsets accumulated wider than the counts
// (exclusive_scan into long long from int counts, init 0ll: past 2^31).
// ---------------------------------------------------------------------------
struct is_positive {
  __host__ __device__ bool operator()(int x) const { return x > 0; }
};
struct is_negative_count {
  __host__ __device__ long long operator()(int x) const { return x < 0; }
};
struct above_minus_1000 {
  __host__ __device__ bool operator()(int x) const { return x > -1000; }
};
struct gaussian_integer {
  __host__ __device__ thrust::complex<double> operator()(int x) const { return {double(x % 7), double(x / 7 % 5)}; }
};
struct unit_root {  // 1, i, -1, -i: products stay exact
  __host__ __device__ thrust::complex<double> operator()(int x) const {
    const int k = (x % 4 + 4) % 4;
    return {k == 0 ? 1.0 : k == 2 ? -1.0 : 0.0, k == 1 ? 1.0 : k == 3 ? -1.0 : 0.0};
  }
};

template <class Side>
void check_complex_bool_and_wider_sums(const Side& side) {
  for_each_size(side, 1999, 13, [&](std::size_t n, const std::vector<int>& h, const auto& d) {
    EXPECT_EQ(cascade::transform_reduce(side.policy, d.begin(), d.end(), true, cuda::std::logical_and<>{}, is_positive{}),
              std::all_of(h.begin(), h.end(), is_positive{}));
    EXPECT_EQ(cascade::transform_reduce(side.policy, d.begin(), d.end(), true, cuda::std::logical_and<>{},
                                        above_minus_1000{}),
              std::all_of(h.begin(), h.end(), above_minus_1000{}));
    EXPECT_EQ(cascade::transform_reduce(side.policy, d.begin(), d.end(), 0ll, cuda::std::plus<>{}, is_negative_count{}),
              std::count_if(h.begin(), h.end(), [](int x) { return x < 0; }));

    std::vector<thrust::complex<double>> hc(n), want_scan(n);
    std::transform(h.begin(), h.end(), hc.begin(), gaussian_integer{});
    std::inclusive_scan(hc.begin(), hc.end(), want_scan.begin());
    const auto dc = side.put(hc);
    vector_of<Side, thrust::complex<double>> out(n);
    side.poison(out);
    cascade::inclusive_scan(side.policy, dc.begin(), dc.end(), out.begin());
    EXPECT_TRUE(side.get(out) == want_scan);
    thrust::complex<double> want_product = 1;
    for (int x : h) want_product *= unit_root{}(x);
    const auto roots = thrust::make_transform_iterator(d.begin(), unit_root{});
    EXPECT_EQ(cascade::reduce(side.policy, roots, roots + n, thrust::complex<double>(1), cuda::std::multiplies<>{}),
              want_product);

    // Counts of up to 2^20 each: their sum passes 2^31 from about 4000 items.
    std::vector<int> counts(n);
    for (std::size_t i = 0; i < n; ++i) counts[i] = (h[i] + 1000) * 1000;
    std::vector<long long> want_offsets(n);
    std::exclusive_scan(counts.begin(), counts.end(), want_offsets.begin(), 0ll);
    const auto d_counts = side.put(counts);
    vector_of<Side, long long> offsets(n);
    side.poison(offsets);
    cascade::exclusive_scan(side.policy, d_counts.begin(), d_counts.end(), offsets.begin(), 0ll);
    EXPECT_EQ(side.get(offsets), want_offsets);
  });
}

// ---------------------------------------------------------------------------
// Counts and ranks by key from computed values: the size of each run of keys
// (reduce_by_key over a constant_iterator), each item's rank in its run
// (exclusive_scan_by_key of ones), and sums of positions by keys and by
// offsets (counting_iterator values: no allocation to size a grid by).
// ---------------------------------------------------------------------------
template <class Side>
void check_counts_and_ranks_by_key(const Side& side) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hk = run_keys(n, 30, n + 14);
    const auto dk = side.put(hk);
    const auto offsets = run_offsets(hk);
    const std::size_t runs = offsets.size() - 1;
    std::vector<int> want_counts(runs), want_rank(n), want_rank_from_1(n);
    std::vector<long long> want_position_sums(runs), want_position_scan(n);
    for (std::size_t r = 0; r < runs; ++r) {
      want_counts[r] = int(offsets[r + 1] - offsets[r]);
      for (auto i = offsets[r]; i < offsets[r + 1]; ++i) {
        want_rank[i] = int(i - offsets[r]);
        want_rank_from_1[i] = want_rank[i] + 1;
        want_position_scan[i] = want_position_sums[r] += i;
      }
    }
    const thrust::constant_iterator<int> ones(1);
    const thrust::counting_iterator<long long> positions(0);
    vector_of<Side, int> keys_out(n), counts(n), rank(n);
    side.poison(keys_out), side.poison(counts), side.poison(rank);
    const auto ends = cascade::reduce_by_key(side.policy, dk.begin(), dk.end(), ones, keys_out.begin(), counts.begin());
    ASSERT_EQ(std::size_t(ends.second - counts.begin()), runs);
    auto got_counts = side.get(counts);
    got_counts.resize(runs);
    EXPECT_EQ(got_counts, want_counts);
    cascade::exclusive_scan_by_key(side.policy, dk.begin(), dk.end(), ones, rank.begin());
    EXPECT_EQ(side.get(rank), want_rank);
    side.poison(rank);
    const auto d_offsets = side.put(offsets);
    cascade::segmented_inclusive_scan(side.policy, ones, d_offsets.begin(), d_offsets.end(), rank.begin());
    EXPECT_EQ(side.get(rank), want_rank_from_1);

    vector_of<Side, long long> sums(runs), scan(n);
    side.poison(sums), side.poison(scan);
    cascade::inclusive_scan_by_key(side.policy, dk.begin(), dk.end(), positions, scan.begin());
    cascade::segmented_reduce(side.policy, positions, d_offsets.begin(), d_offsets.end(), sums.begin(), 0ll,
                              cuda::std::plus<>{});
    EXPECT_EQ(side.get(scan), want_position_scan);
    EXPECT_EQ(side.get(sums), want_position_sums);
  }
}

// ---------------------------------------------------------------------------
// Function objects whose call operator is not const (a common omission that
// Thrust accepts) as the operator, predicate, comparator and transform of
// every entry point.
// ---------------------------------------------------------------------------
struct add_not_const {
  __host__ __device__ long long operator()(long long a, long long b) { return a + b; }
};
struct less_not_const {
  __host__ __device__ bool operator()(int a, int b) { return a % 100 < b % 100; }  // ties
};
struct same_tens_not_const {
  __host__ __device__ bool operator()(int a, int b) { return a / 10 == b / 10; }
};
struct square_not_const {
  __host__ __device__ long long operator()(int a) { return (long long)a * a; }
};
struct product_not_const {
  __host__ __device__ long long operator()(int a, int b) { return (long long)a * b; }
};

template <class Side>
void check_non_const_call_operators(const Side& side) {
  for_each_size(side, 2001, 15, [&](std::size_t n, const std::vector<int>& h, const auto& d) {
    add_not_const add;
    less_not_const less;
    std::vector<long long> squares(n), want(n), sums;
    std::transform(h.begin(), h.end(), squares.begin(), square_not_const{});
    EXPECT_EQ(cascade::reduce(side.policy, d.begin(), d.end(), 5ll, add),
              std::accumulate(h.begin(), h.end(), 5ll, add));
    EXPECT_EQ(cascade::transform_reduce(side.policy, d.begin(), d.end(), 0ll, add, square_not_const{}),
              std::accumulate(squares.begin(), squares.end(), 0ll, add));
    EXPECT_EQ(cascade::transform_reduce(side.policy, d.begin(), d.end(), d.begin(), 0ll, add, product_not_const{}),
              std::accumulate(squares.begin(), squares.end(), 0ll, add));
    EXPECT_EQ(cascade::min_element(side.policy, d.begin(), d.end(), less) - d.begin(),
              std::min_element(h.begin(), h.end(), less) - h.begin());
    EXPECT_EQ(cascade::max_element(side.policy, d.begin(), d.end(), less) - d.begin(),
              std::max_element(h.begin(), h.end(), less) - h.begin());
    const auto got_minmax = cascade::minmax_element(side.policy, d.begin(), d.end(), less);
    const auto want_minmax = std::minmax_element(h.begin(), h.end(), less);
    EXPECT_EQ(got_minmax.first - d.begin(), want_minmax.first - h.begin());
    EXPECT_EQ(got_minmax.second - d.begin(), want_minmax.second - h.begin());

    vector_of<Side, long long> out(n);
    const auto expect_out = [&](const char* what, auto run) {
      side.poison(out);
      run();
      EXPECT_EQ(side.get(out), want) << what;
    };
    std::inclusive_scan(h.begin(), h.end(), want.begin(), add, 0ll);
    expect_out("inclusive_scan",
               [&] { cascade::inclusive_scan(side.policy, d.begin(), d.end(), out.begin(), add, 0ll); });
    std::exclusive_scan(h.begin(), h.end(), want.begin(), 3ll, add);
    expect_out("exclusive_scan",
               [&] { cascade::exclusive_scan(side.policy, d.begin(), d.end(), out.begin(), 3ll, add); });
    std::inclusive_scan(squares.begin(), squares.end(), want.begin(), add);
    expect_out("transform_inclusive_scan", [&] {
      cascade::transform_inclusive_scan(side.policy, d.begin(), d.end(), out.begin(), add, square_not_const{});
    });

    // Ascending keys, each repeated 7 times, in runs of the same tens (70
    // items); the same runs as offsets.
    std::vector<int> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = int(i / 7);
    const auto dk = side.put(keys);
    std::vector<std::int64_t> offsets{0};
    for (std::size_t i = 1; i <= n; ++i) {
      if (i == n || !same_tens_not_const{}(keys[i - 1], keys[i])) offsets.push_back(std::int64_t(i));
    }
    const auto d_offsets = side.put(offsets);
    std::vector<long long> wide(h.begin(), h.end());
    ref_segmented_scan(wide, offsets, want, add, static_cast<const long long*>(nullptr), false);
    expect_out("inclusive_scan_by_key", [&] {
      cascade::inclusive_scan_by_key(side.policy, dk.begin(), dk.end(), d.begin(), out.begin(), same_tens_not_const{},
                                     add);
    });
    expect_out("segmented_inclusive_scan", [&] {
      cascade::segmented_inclusive_scan(side.policy, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), add);
    });
    const long long init = 2;
    ref_segmented_scan(wide, offsets, want, add, &init, true);
    expect_out("exclusive_scan_by_key", [&] {
      cascade::exclusive_scan_by_key(side.policy, dk.begin(), dk.end(), d.begin(), out.begin(), init,
                                     same_tens_not_const{}, add);
    });
    expect_out("segmented_exclusive_scan", [&] {
      cascade::segmented_exclusive_scan(side.policy, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), init,
                                        add);
    });
    // The totals: the first outputs only (the rest stay poisoned).
    const auto expect_totals = [&](const char* what, const std::vector<long long>& totals, auto run) {
      side.poison(out);
      run();
      auto got = side.get(out);
      got.resize(totals.size());
      EXPECT_EQ(got, totals) << what;
    };
    const auto totals = ref_segmented_reduce(wide, offsets, 0ll, add);
    vector_of<Side, int> keys_out(n);
    side.poison(keys_out);
    expect_totals("reduce_by_key", totals, [&] {
      const auto ends = cascade::reduce_by_key(side.policy, dk.begin(), dk.end(), d.begin(), keys_out.begin(),
                                               out.begin(), same_tens_not_const{}, add);
      EXPECT_EQ(std::size_t(ends.second - out.begin()), totals.size());
    });
    expect_totals("segmented_reduce", totals, [&] {
      cascade::segmented_reduce(side.policy, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin(), 0ll, add);
    });
    const auto sevens = offsets_of<std::int64_t>(segment_lengths("fixed", std::int64_t(n), 7, 0));
    expect_totals("segmented_reduce, fixed size", ref_segmented_reduce(wide, sevens, 1ll, add), [&] {
      cascade::segmented_reduce(side.policy, d.begin(), d.end(), 7, out.begin(), 1ll, add);
    });
  });
}

}  // namespace cascade_test::idioms
