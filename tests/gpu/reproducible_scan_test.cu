// The reproducible look-back's bits are a function of the input and N only: the same
// bits run after run, whatever the schedule of its tiles (reversed, recomputed
// predecessors, other launch bounds and pacing), wherever its tiles live
// (shared memory or registers: aligned, misaligned and computed inputs), and
// with another stream loading the GPU. The first run of each case is also
// checked against the float64 reference, so equal bits are right bits.
//
// With CASCADE_SCAN_BITS_FILE set, each case's checksum of the output bits is
// appended to that file: builds for different architectures (sm_90 and
// compute_80 PTX) must write identical files.
//
// The named decoupled_lookback strategy (whose bits may differ) keeps its
// reference checks here too.

#include "progress_tuning.cuh"
#include "scan_suite.cuh"

#include <cascade/detail/scan/reproducible_lookback.cuh>
#include <cascade/detail/segmented/pairs.cuh>

#include <thrust/equal.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace cascade_test {
namespace {

namespace lookback = cascade::detail::decoupled_lookback;
using cascade::detail::scan_mode;

class ReproducibleScan : public gpu_test {};

// The strategy whose bits these tests pin (the automatic scan of
// non-integral values and the keyed and segmented forms run on it).
const auto kReproducible = cascade::device.with(cascade::strategy::reproducible_lookback);

// Whether two device arrays hold the same bits (compared as unsigned words,
// so that NaNs and signed zeros compare as bits).
template <class T>
bool same_bits(const thrust::device_vector<T>& a, const thrust::device_vector<T>& b) {
  using word = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  static_assert(sizeof(T) == sizeof(word));
  if (a.size() != b.size()) return false;
  const auto first = thrust::device_pointer_cast(reinterpret_cast<const word*>(a.data().get()));
  const auto other = thrust::device_pointer_cast(reinterpret_cast<const word*>(b.data().get()));
  return thrust::equal(first, first + a.size(), other);
}

// FNV-1a over the bytes.
template <class T>
std::uint64_t checksum(const std::vector<T>& v) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}

void record_checksum(const std::string& name, std::uint64_t sum) {
  const char* path = std::getenv("CASCADE_SCAN_BITS_FILE");
  if (path == nullptr) return;
  std::ofstream file(path, std::ios::app);
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(sum));
  file << name << " " << hex << "\n";
}

const char* kind_name(scan_kind kind) {
  switch (kind) {
    case scan_kind::inclusive: return "inclusive";
    case scan_kind::inclusive_init: return "inclusive_init";
    default: return "exclusive";
  }
}

template <class Policy, class It, class OutIt, class T>
void run_scan(const Policy& policy, scan_kind kind, It first, It last, OutIt out, T init) {
  switch (kind) {
    case scan_kind::inclusive: cascade::inclusive_scan(policy, first, last, out); break;
    case scan_kind::inclusive_init: cascade::inclusive_scan(policy, first, last, out, plus{}, init); break;
    default: cascade::exclusive_scan(policy, first, last, out, init, plus{});
  }
}

const std::int64_t kSizes[] = {5000, 70001, 100003, 1000003, (1 << 24) + 7, 1 << 26};

// Runs of one (type, kind, N): the first checked against the reference and
// recorded, every later one bitwise equal to it, and so is the automatic
// scan's (half the runs: the same rule, so the same bits).
template <class T>
void check_run_to_run(std::int64_t n, scan_kind kind, int runs, std::uint64_t seed) {
  SCOPED_TRACE(std::string(kind_name(kind)) + ", n = " + std::to_string(n));
  const std::vector<T> h = random_input<T, plus>(n, seed);
  const auto d = to_device(h);
  const T init = draw_init<T, plus>(seed);
  thrust::device_vector<T> first(n), again(n);
  poison(first);
  run_scan(kReproducible, kind, d.begin(), d.end(), first.begin(), init);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  const std::vector<T> got = to_host(first);
  expect_scan_equal(h, got, d, kind, init, plus{});
  record_checksum(std::string(sizeof(T) == 4 ? "float" : "double") + " " + kind_name(kind) + " " + std::to_string(n),
                  checksum(got));
  for (int run = 1; run < runs; ++run) {
    poison(again);
    const bool automatic = run % 2 == 1;
    if (automatic) {
      run_scan(cascade::device, kind, d.begin(), d.end(), again.begin(), init);
    } else {
      run_scan(kReproducible, kind, d.begin(), d.end(), again.begin(), init);
    }
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    ASSERT_TRUE(same_bits(first, again))
        << (automatic ? "the automatic scan's run " : "run ") << run << " differs from the first";
  }
}

TEST_F(ReproducibleScan, FloatAndDoubleSumsGiveTheSameBitsEveryRun) {
  std::uint64_t seed = 1000;
  for (const std::int64_t n : kSizes) {
    check_run_to_run<float>(n, scan_kind::inclusive, 20, seed++);
    check_run_to_run<double>(n, scan_kind::inclusive, 20, seed++);
    check_run_to_run<float>(n, scan_kind::inclusive_init, 5, seed++);
    check_run_to_run<double>(n, scan_kind::exclusive, 5, seed++);
    if (HasFailure()) return;
  }
}

// --------------------------------------------- schedules and tile places ---
// The automatic scan's shapes with another schedule: Reversed (successors
// start first and recompute what their predecessors have not published),
// Polls (1: most predecessors recomputed), MinBlocks (other launch bounds:
// other registers, other residency), Paced (pacing on every grid, or none)
// and WholeBlock (the whole block's rule on grids of up to 512 tiles, or
// the first warp's on every grid).
template <class Base, bool Reversed, int Polls, int MinBlocks, bool Paced, bool WholeBlock = false>
struct schedule : Base {
  static constexpr bool reversed_tiles = Reversed;
  static constexpr int polls_before_fallback = Polls;
  static constexpr int min_blocks_per_sm = MinBlocks > 0 ? MinBlocks : Base::min_blocks_per_sm;
  static constexpr unsigned paced_grid = Paced ? 1u : 0xffffffffu;  // every grid has a block
  static constexpr unsigned whole_block_grid = WholeBlock ? 512u : 0u;
};

struct identity_op {
  template <class T>
  __host__ __device__ T operator()(T x) const { return x; }
};

template <class Tuning, class T>
void expect_tuned_bits(const thrust::device_vector<T>& in, const thrust::device_vector<T>& want, scan_kind kind,
                       T init, const char* what) {
  thrust::device_vector<T> out(in.size());
  poison(out);
  const bool exclusive = kind == scan_kind::exclusive;
  lookback::run_tuned<Tuning, lookback::group_prefix>(in.data().get(), static_cast<std::int64_t>(in.size()),
                                                      out.data().get(),
                                                      scan_mode<T>{init, kind != scan_kind::inclusive, exclusive},
                                                      plus{}, nullptr);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(out, want)) << what;
}

// Every variant against the public call's bits on the same input and N.
template <class T, class Shape>
void check_schedules_and_places(std::int64_t n, scan_kind kind, std::uint64_t seed) {
  SCOPED_TRACE(std::string(kind_name(kind)) + ", n = " + std::to_string(n));
  const std::vector<T> h = random_input<T, plus>(n, seed);
  const auto d = to_device(h);
  const T init = draw_init<T, plus>(seed);
  thrust::device_vector<T> want(n);
  poison(want);
  run_scan(kReproducible, kind, d.begin(), d.end(), want.begin(), init);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  expect_scan_equal(h, to_host(want), d, kind, init, plus{});

  expect_tuned_bits<Shape>(d, want, kind, init, "the shape's own tuning");
  expect_tuned_bits<schedule<Shape, true, 4, 0, true>>(d, want, kind, init, "reversed tiles");
  expect_tuned_bits<schedule<Shape, false, 1, 0, true>>(d, want, kind, init, "one poll before recomputing");
  expect_tuned_bits<schedule<Shape, true, 1, 0, false>>(d, want, kind, init, "reversed, one poll, no pacing");
  expect_tuned_bits<schedule<Shape, false, 60, 1, false>>(d, want, kind, init, "one block per SM allowed");
  // The whole block's rule (these grids have at most 410 tiles).
  expect_tuned_bits<schedule<Shape, true, 4, 0, true, true>>(d, want, kind, init, "whole block, reversed tiles");
  expect_tuned_bits<schedule<Shape, true, 1, 0, false, true>>(d, want, kind, init,
                                                              "whole block, reversed, one poll, no pacing");
  expect_tuned_bits<schedule<Shape, false, 60, 1, false, true>>(d, want, kind, init,
                                                                "whole block, one block per SM allowed");

  // Misaligned arrays and computed inputs take register tiles of the same shape.
  thrust::device_vector<T> shifted_in(n + 1), shifted_out(n + 1), out(n);
  thrust::copy(d.begin(), d.end(), shifted_in.begin() + 1);
  poison(shifted_out);
  run_scan(kReproducible, kind, shifted_in.data().get() + 1, shifted_in.data().get() + 1 + n,
           shifted_out.data().get() + 1, init);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(thrust::device_vector<T>(shifted_out.begin() + 1, shifted_out.end()), want))
      << "misaligned input and output";
  poison(out);
  const auto computed = thrust::make_transform_iterator(d.begin(), identity_op{});
  run_scan(kReproducible, kind, computed, computed + n, out.begin(), init);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(out, want)) << "computed input (register tiles)";
}

TEST_F(ReproducibleScan, SchedulesAndTilePlacesDoNotChangeTheBits) {
  using namespace cascade::detail;
  // Shared-tile shapes (128 threads from 2^17 on, 256 from 2^21) and the
  // register shape between the small one's and theirs.
  check_schedules_and_places<float, lookback_scan_wide_tuning<float>>((1 << 22) + 3, scan_kind::inclusive, 2001);
  check_schedules_and_places<float, lookback_scan_wide_tuning<float>>((1 << 22) + 3, scan_kind::exclusive, 2002);
  check_schedules_and_places<double, lookback_scan_wide_tuning<double>>((1 << 21) + 9, scan_kind::inclusive, 2003);
  check_schedules_and_places<double, lookback_scan_wide_tuning<double>>((1 << 21) + 9, scan_kind::inclusive_init,
                                                                        2004);
  check_schedules_and_places<float, lookback_scan_shared_tuning<float>>((1 << 20) + 3, scan_kind::inclusive, 2007);
  check_schedules_and_places<double, lookback_scan_shared_tuning<double>>((1 << 19) + 9, scan_kind::exclusive, 2008);
  check_schedules_and_places<float, lookback_scan_tuning<float>>(100003, scan_kind::inclusive, 2005);
  check_schedules_and_places<double, lookback_scan_tuning<double>>(100003, scan_kind::exclusive, 2006);
}

// Small tiles (progress_tuning.cuh), far more of them than can be resident,
// so that reversed blocks wait for predecessors that cannot start: every
// schedule completes and gives the forward schedule's bits (float), or the
// exact result (int, and a non-commutative operator in order).
template <template <class, bool, int> class Tuning, class T, class Op>
void check_exact_progress(std::size_t n, Op op, std::uint64_t seed) {
  const std::vector<T> h = random_input<T, Op>(n, seed);
  const auto d = to_device(h);
  thrust::device_vector<T> out(n);
  for (const bool exclusive : {false, true}) {
    poison(out);
    const T init = h[n / 2];
    lookback::run_tuned<Tuning<T, true, 4>, lookback::group_prefix>(
        d.data().get(), static_cast<std::int64_t>(n), out.data().get(), scan_mode<T>{init, exclusive, exclusive}, op,
        nullptr);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    ASSERT_EQ(to_host(out), host_scan(h, exclusive ? scan_kind::exclusive : scan_kind::inclusive, init, op))
        << (exclusive ? "exclusive" : "inclusive") << ", reversed tiles";
  }
}

// Float sums: the forward schedule's bits, right against the reference,
// then the same bits reversed and with predecessors recomputed.
template <template <class, bool, int> class Tuning>
void check_float_schedules(std::size_t n, std::uint64_t seed) {
  const std::vector<float> h = random_input<float, plus>(n, seed);
  const auto d = to_device(h);
  thrust::device_vector<float> want(n);
  poison(want);
  lookback::run_tuned<Tuning<float, false, 60>, lookback::group_prefix>(
      d.data().get(), static_cast<std::int64_t>(n), want.data().get(), scan_mode<float>{0.f, false, false}, plus{},
      nullptr);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  expect_scan_equal(h, to_host(want), d, scan_kind::inclusive, 0.f, plus{});
  expect_tuned_bits<Tuning<float, true, 4>>(d, want, scan_kind::inclusive, 0.f, "reversed small tiles");
  expect_tuned_bits<Tuning<float, false, 1>>(d, want, scan_kind::inclusive, 0.f, "small tiles, one poll");
}

TEST_F(ReproducibleScan, ProgressDoesNotDependOnBlockOrder) {
  int sms = 0;
  CASCADE_TEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::size_t tiles = std::size_t(sms) * 32 * 3;  // 32: the most blocks an SM holds
  const std::size_t n = tiles * 128 - 37;
  check_exact_progress<small_tiles, int>(n, plus{}, 3001);
  check_exact_progress<small_tiles, affine>(n, compose{}, 3002);
  check_exact_progress<small_tiles, triple>(n, triple_plus{}, 3003);
  check_exact_progress<small_shared_tiles, int>(n * 4, plus{}, 3004);
  check_exact_progress<small_shared_tiles, affine16>(n * 4, compose16{}, 3005);

  check_float_schedules<small_tiles>(n, 3006);
  check_float_schedules<small_shared_tiles>(n * 4, 3007);
}

// ------------------------------------------------ absorbing aggregates ---
// The headed pairs' shortcut (reproducible_lookback.cuh; the masked scan's): a tile whose
// aggregate absorbs what precedes it lets its successors skip the prefixes
// before it, and lanes before it stand in as AccT{}. Every bit must be the
// full rule's: the same pairs scanned with an operator that cannot absorb
// (the same operations, no shortcut) give the reference.
template <class Op>
struct opaque {
  Op op;
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return op(a, b); }
};

// Pair i of an array, computed: the engine's register tiles.
template <class Pair>
struct read_pair {
  const Pair* pairs;
  __host__ __device__ Pair operator()(std::int64_t i) const { return pairs[i]; }
};

// A pair's fields as bits (its padding is not compared).
int tag_field(const cascade::detail::headed<bool, float>& p) { return p.heads; }
template <class Pair>
std::vector<std::uint64_t> pair_bits(const thrust::device_vector<Pair>& d) {
  std::vector<std::uint64_t> bits;
  for (const Pair& p : to_host(d)) {
    std::uint32_t value = 0;
    std::memcpy(&value, &p.value, 4);
    bits.push_back((std::uint64_t(static_cast<std::uint32_t>(tag_field(p))) << 32) | value);
  }
  return bits;
}

template <class Tuning, class Pair, class InIt, class Op>
thrust::device_vector<Pair> scan_pairs(InIt in, std::int64_t n, scan_mode<Pair> mode, Op op) {
  thrust::device_vector<Pair> out(n);
  poison(out);
  lookback::run_tuned<Tuning, lookback::group_prefix>(in, n, out.data().get(), mode, op, nullptr);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  return out;
}

// The pairs under each schedule and tile place, against the full rule's bits.
template <class Pair, class PairOp>
void check_absorbing(const std::vector<Pair>& h, scan_mode<Pair> mode, PairOp op, const std::string& what) {
  using namespace cascade::detail;
  SCOPED_TRACE(what + (mode.exclusive ? ", exclusive" : ", inclusive"));
  const auto d = to_device(h);
  const std::int64_t n = static_cast<std::int64_t>(h.size());
  using shape = lookback_scan_shared_tuning<Pair>;
  const auto want = pair_bits(scan_pairs<shape>(d.data().get(), n, mode, opaque<PairOp>{op}));
  const auto computed = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                        read_pair<Pair>{d.data().get()});
  EXPECT_EQ(pair_bits(scan_pairs<shape>(d.data().get(), n, mode, op)), want) << "shared tiles";
  EXPECT_EQ(pair_bits(scan_pairs<shape>(computed, n, mode, op)), want) << "register tiles";
  EXPECT_EQ(pair_bits(scan_pairs<schedule<shape, true, 4, 0, true>>(computed, n, mode, op)), want) << "reversed";
  EXPECT_EQ(pair_bits(scan_pairs<schedule<shape, false, 1, 0, true>>(computed, n, mode, op)), want) << "one poll";
  EXPECT_EQ(pair_bits(scan_pairs<small_tiles<Pair, true, 4>>(computed, n, mode, op)),
            pair_bits(scan_pairs<small_tiles<Pair, false, 60>>(computed, n, mode, opaque<PairOp>{op})))
      << "small tiles reversed";
  EXPECT_EQ(pair_bits(scan_pairs<small_tiles<Pair, false, 1>>(computed, n, mode, op)),
            pair_bits(scan_pairs<small_tiles<Pair, false, 60>>(computed, n, mode, opaque<PairOp>{op})))
      << "small tiles, one poll";
}

TEST_F(ReproducibleScan, AbsorbingAggregatesKeepTheFullRulesBits) {
  using cascade::detail::headed;
  using cascade::detail::headed_op;
  const std::int64_t n = (1 << 22) + 3;
  const auto values = random_input<float, plus>(n, 5001);
  std::mt19937_64 rng(5002);
  // Mean distance between segment starts: every tile, a few tiles, none after the first.
  for (const std::uint64_t spacing : {std::uint64_t(3), std::uint64_t(900), std::uint64_t(40000), std::uint64_t(0)}) {
    std::vector<headed<bool, float>> heads(n);
    for (std::int64_t i = 0; i < n; ++i) {
      const bool start = i == 0 || (spacing > 0 && rng() % spacing == 0);
      heads[i] = {start, values[i]};
    }
    const std::string what = "segment starts every ~" + std::to_string(spacing) + " items";
    const headed_op<plus> by_heads{};
    check_absorbing(heads, scan_mode<headed<bool, float>>{{}, false, false}, by_heads, what + ", heads");
    check_absorbing(heads, scan_mode<headed<bool, float>>{{true, 0.5f}, true, true}, by_heads, what + ", heads");
    if (HasFailure()) return;
  }
}

template <class T>
void check_under_load(std::int64_t n, std::uint64_t seed) {
  SCOPED_TRACE("n = " + std::to_string(n));
  const auto d = to_device(random_input<T, plus>(n, seed));
  thrust::device_vector<T> want(n), got(n);
  poison(want);
  cascade::inclusive_scan(kReproducible, d.begin(), d.end(), want.begin());
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());

  gpu_load load;  // (tests/gpu/harness.cuh)
  cudaStream_t scans;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&scans, cudaStreamNonBlocking));
  for (int run = 0; run < 10; ++run) {
    poison(got);  // (before the load: poison waits for the whole device)
    load.start();
    cascade::inclusive_scan(kReproducible.on(scans), d.begin(), d.end(), got.begin());
    CASCADE_TEST_CUDA(cudaStreamSynchronize(scans));
    EXPECT_TRUE(same_bits(got, want)) << "run " << run << " under load";
  }
  CASCADE_TEST_CUDA(cudaStreamDestroy(scans));
}

TEST_F(ReproducibleScan, AnotherStreamLoadingTheGpuDoesNotChangeTheBits) {
  check_under_load<float>((1 << 24) + 7, 4001);
  check_under_load<double>((1 << 23) + 5, 4002);
}

// Status words left by other calls, or none (harness.cuh,
// on_fresh_and_stale_words). A 16-byte status word read as two loads would
// let a tile take a new word's tag with the old word's value: the compiler
// split them where the value leaves bytes of the word unused (8-byte values:
// the tag's half held 4 bytes of nothing). Each scan must give the bits of a
// scan of its input on a warm workspace.
template <class T>
void check_fresh_and_stale_words(std::int64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::string(sizeof(T) == 4 ? "float" : "double") + " n = " + std::to_string(n));
  const thrust::device_vector<T> inputs[2] = {to_device(random_input<T, plus>(n, seed)),
                                              to_device(random_input<T, plus>(n, seed + 1))};
  thrust::device_vector<T> want[2] = {thrust::device_vector<T>(n), thrust::device_vector<T>(n)};
  for (int i = 0; i < 2; ++i) {
    for (int warm = 0; warm < 2; ++warm) cascade::inclusive_scan(cascade::device, inputs[i].begin(), inputs[i].end(), want[i].begin());
  }
  thrust::device_vector<T> got(n);
  on_fresh_and_stale_words([&](int i) {
    poison(got);
    cascade::inclusive_scan(cascade::device, inputs[i].begin(), inputs[i].end(), got.begin());
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_TRUE(same_bits(got, want[i]));
  });
}

TEST_F(ReproducibleScan, FreshAndStaleStatusWordsDoNotChangeTheBits) {
  check_fresh_and_stale_words<float>((1 << 20) + 3, 5001);
  check_fresh_and_stale_words<double>((1 << 20) + 3, 5003);
  check_fresh_and_stale_words<double>((1 << 24) + 7, 5005);
}

}  // namespace

// The named textbook strategy: right at every boundary (its bits may differ
// from run to run and from the automatic scan's).
using lookback_combos =
    ::testing::Types<combo<std::int32_t, plus, cascade::strategy::decoupled_lookback_t>,
                     combo<std::uint64_t, bit_xor, cascade::strategy::decoupled_lookback_t>,
                     combo<float, plus, cascade::strategy::decoupled_lookback_t>,
                     combo<double, plus, cascade::strategy::decoupled_lookback_t>,
                     combo<affine, compose, cascade::strategy::decoupled_lookback_t>,
                     combo<affine16, compose16, cascade::strategy::decoupled_lookback_t>>;
INSTANTIATE_TYPED_TEST_SUITE_P(DecoupledLookback, ScanSuite, lookback_combos);

}  // namespace cascade_test
