// cascade in a real process: device resets, stream capture in every mode,
// host threads sharing streams, streams by the thousand, a stream's handle
// reused while its work runs, out-of-memory and recovery, caller-supplied
// memory, libcu++'s iterators, arrays over pieces of virtual memory, green
// contexts, contexts of the program's own, several GPUs.
// Results are checked against the standard library on random inputs, outputs
// poisoned first. (The process's first call inside a capture needs a fresh
// process: first_call_in_capture_test.cu; value types of up to 1 KB:
// large_values.cuh.)

#include "harness.cuh"
#include "../segmented_reference.cuh"

#include <cascade/cascade.cuh>

#include <cub/device/device_reduce.cuh>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/stream_ref>
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace cascade_test;

namespace {

class Robustness : public gpu_test {};

// Inputs for int sums: small values, so that no sum overflows.
std::vector<int> small_ints(std::size_t n, std::uint64_t seed) {
  std::vector<int> h = random_input<int, cuda::std::plus<>>(n, seed);
  for (int& x : h) x = x % 1000;
  return h;
}
std::vector<int> inclusive(const std::vector<int>& h) {
  std::vector<int> r(h.size());
  std::inclusive_scan(h.begin(), h.end(), r.begin());
  return r;
}
std::vector<int> exclusive(const std::vector<int>& h, int init) {
  std::vector<int> r(h.size());
  std::exclusive_scan(h.begin(), h.end(), r.begin(), init);
  return r;
}

// The keyed forms (runs of 1-7 equal keys), the fixed-size reduce and the
// std family on `policy`'s stream, over `h` (on the GPU as `d`), checked.
template <class Policy>
void check_keyed_and_family(const Policy& policy, const std::vector<int>& h, const thrust::device_vector<int>& d,
                            std::uint64_t seed) {
  const std::size_t n = h.size();
  std::mt19937_64 rng(seed);
  std::vector<int> keys(n), want_keys, want_run_sums, want_by_key(n);
  for (std::size_t i = 0, run = 0; i < n; ++run) {
    const std::size_t end = std::min(n, i + 1 + rng() % 7);
    int acc = 0;
    for (; i < end; ++i) {
      keys[i] = static_cast<int>(run);
      want_by_key[i] = acc += h[i];
    }
    want_keys.push_back(static_cast<int>(run));
    want_run_sums.push_back(acc);
  }
  const auto d_keys = to_device(keys);
  thrust::device_vector<int> keys_out(n), sums_out(n), out(n);
  poison(keys_out);
  poison(sums_out);
  const auto ends = cascade::reduce_by_key(policy, d_keys.begin(), d_keys.end(), d.begin(), keys_out.begin(),
                                           sums_out.begin());
  const auto runs = static_cast<std::size_t>(ends.first - keys_out.begin());
  ASSERT_EQ(runs, want_keys.size());
  EXPECT_EQ(static_cast<std::size_t>(ends.second - sums_out.begin()), runs);
  std::vector<int> got_keys = to_host(keys_out), got_sums = to_host(sums_out);
  got_keys.resize(runs);
  got_sums.resize(runs);
  EXPECT_EQ(got_keys, want_keys);
  EXPECT_EQ(got_sums, want_run_sums);
  poison(out);
  cascade::inclusive_scan_by_key(policy, d_keys.begin(), d_keys.end(), d.begin(), out.begin());
  CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream()));
  EXPECT_EQ(to_host(out), want_by_key);
  // Fixed segments of 100 (the last shorter).
  std::vector<long long> want_fixed;
  for (std::size_t i = 0; i < n; i += 100) {
    want_fixed.push_back(std::accumulate(h.begin() + i, h.begin() + std::min(n, i + 100), 7ll));
  }
  thrust::device_vector<long long> fixed(want_fixed.size());
  poison(fixed);
  cascade::segmented_reduce(policy, d.begin(), d.end(), 100, fixed.begin(), 7ll, cuda::std::plus<>{});
  CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream()));
  EXPECT_EQ(to_host(fixed), want_fixed);
  // The std family: an inner product, the first smallest, first largest and
  // last largest (small_ints repeat, so ties are there to break).
  EXPECT_EQ(cascade::transform_reduce(policy, d.begin(), d.end(), d.begin(), 3ll),
            std::transform_reduce(h.begin(), h.end(), h.begin(), 3ll));
  EXPECT_EQ(cascade::min_element(policy, d.begin(), d.end()) - d.begin(),
            std::min_element(h.begin(), h.end()) - h.begin());
  EXPECT_EQ(cascade::max_element(policy, d.begin(), d.end()) - d.begin(),
            std::max_element(h.begin(), h.end()) - h.begin());
  const auto minmax = cascade::minmax_element(policy, d.begin(), d.end());
  const auto want_minmax = std::minmax_element(h.begin(), h.end());
  EXPECT_EQ(minmax.first - d.begin(), want_minmax.first - h.begin());
  EXPECT_EQ(minmax.second - d.begin(), want_minmax.second - h.begin());
}

// Every automatic algorithm once on `policy`'s stream, and two named
// strategies, checked; sizes take the single-block and multi-block paths.
template <class Policy>
void check_all_algorithms(const Policy& policy, std::uint64_t seed) {
  for (std::size_t n : {std::size_t(1000), std::size_t(3'000'017)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<int> h = small_ints(n, seed++);
    const auto d = to_device(h);
    const long long sum = std::accumulate(h.begin(), h.end(), 7ll);
    thrust::device_vector<int> out(n);
    thrust::device_vector<long long> total(1);
    EXPECT_EQ(cascade::reduce(policy, d.begin(), d.end(), 7ll), sum);
    poison(total);
    cascade::reduce_into(policy, d.begin(), d.end(), total.begin(), 7ll, cuda::std::plus<>{});
    poison(out);
    cascade::inclusive_scan(policy, d.begin(), d.end(), out.begin());
    CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream()));
    EXPECT_EQ(total[0], sum);
    EXPECT_EQ(to_host(out), inclusive(h));
    thrust::device_vector<int> in_place = d;
    cascade::exclusive_scan(policy, in_place.begin(), in_place.end(), in_place.begin(), 5);
    CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream()));
    EXPECT_EQ(to_host(in_place), exclusive(h, 5));
    EXPECT_EQ(cascade::reduce(policy.with(cascade::strategy::warp_shuffle), d.begin(), d.end(), 7ll), sum);
    poison(out);
    cascade::inclusive_scan(policy.with(cascade::strategy::blelloch), d.begin(), d.end(), out.begin());
    CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream()));
    EXPECT_EQ(to_host(out), inclusive(h));
    // The offsets forms (the scan reads the offsets' ends back while its
    // work is queued; segmented_reduce over an array does not): segments of 1000.
    std::vector<long long> offsets, want_sums;
    std::vector<int> want_scan(n);
    for (std::size_t i = 0; i < n; i += 1000) {
      offsets.push_back(static_cast<long long>(i));
      const std::size_t end = std::min(n, i + 1000);
      want_sums.push_back(std::accumulate(h.begin() + i, h.begin() + end, 7ll));
      std::inclusive_scan(h.begin() + i, h.begin() + end, want_scan.begin() + i);
    }
    offsets.push_back(static_cast<long long>(n));
    const auto d_offsets = to_device(offsets);
    thrust::device_vector<long long> sums(want_sums.size());
    poison(sums);
    cascade::segmented_reduce(policy, d.begin(), d_offsets.begin(), d_offsets.end(), sums.begin(), 7ll,
                              cuda::std::plus<>{});
    poison(out);
    cascade::segmented_inclusive_scan(policy, d.begin(), d_offsets.begin(), d_offsets.end(), out.begin());
    CASCADE_TEST_CUDA(cudaStreamSynchronize(policy.stream()));
    EXPECT_EQ(to_host(sums), want_sums);
    EXPECT_EQ(to_host(out), want_scan);
    check_keyed_and_family(policy, h, d, seed++);
  }
}

// ------------------------------------------------------------ resets -------

// Rounds of calls, each ended by cudaDeviceReset: every round rebuilds the
// pool, workspaces, graphs and result slots (the third round used to crash).
TEST_F(Robustness, CallsSurviveDeviceResets) {
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    check_all_algorithms(cascade::cuda, 100 + round * 10);
    cudaStream_t stream;
    CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    check_all_algorithms(cascade::cuda.on(stream), 200 + round * 10);
    check_all_algorithms(cascade::cuda.on(stream), 300 + round * 10);  // graphs from the round's first calls
    CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
    CASCADE_TEST_CUDA(cudaDeviceReset());
  }
}

// No case passes a stream made before a reset: the reset destroys it and
// CUDA leaves its use undefined. Every driver query of such a handle
// (cuStreamGetCtx, cuStreamGetId, cudaStreamQuery, ...) crashed the process in
// about half of the tries and returned CUDA_ERROR_CONTEXT_IS_DESTROYED in the
// rest, so cascade's stream check can only pass on what the driver reports
// (README, "All of it belongs to its device's context"). The rounds above make
// a new stream after each reset, which the driver may place at the old one's
// address: those calls must work.

// -------------------------------------------------------------- capture ----

// Captured in each mode: the graph replays right on its stream, on another
// stream, and as a child graph, several times each; reduce (which returns on
// the host) is a clear error that leaves the capture valid. segmented_reduce
// by offsets over a device array is captured too (the driver's queries of
// the values' allocation are made inside the capture).
TEST_F(Robustness, CaptureInEveryMode) {
  const std::int64_t n = (1 << 21) + 11;
  const std::vector<int> h = small_ints(n, 500);
  const auto d = to_device(h);
  const auto want_scan = inclusive(h);
  const auto want_exclusive = exclusive(h, 3);
  const long long want_sum = std::accumulate(h.begin(), h.end(), 0ll);
  std::vector<long long> offsets, want_segment_sums;
  for (std::int64_t i = 0; i < n; i += 777 + i % 5) offsets.push_back(i);
  offsets.push_back(n);
  for (std::size_t j = 0; j + 1 < offsets.size(); ++j) {
    want_segment_sums.push_back(std::accumulate(h.begin() + offsets[j], h.begin() + offsets[j + 1], 1ll));
  }
  const auto d_offsets = to_device(offsets);
  cudaStream_t stream, other;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  for (cudaStreamCaptureMode mode :
       {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed}) {
    SCOPED_TRACE("capture mode " + std::to_string(int(mode)));
    thrust::device_vector<int> out(n), out2(n);
    thrust::device_vector<long long> total(1), segment_sums(want_segment_sums.size());
    const auto policy = cascade::cuda.on(stream);
    cudaGraph_t graph;
    CASCADE_TEST_CUDA(cudaStreamBeginCapture(stream, mode));
    cascade::inclusive_scan(policy, d.begin(), d.end(), out.begin());
    cascade::exclusive_scan(policy, d.begin(), d.end(), out2.begin(), 3);
    cascade::reduce_into(policy, d.begin(), d.end(), total.begin(), 0ll, cuda::std::plus<>{});
    cascade::segmented_reduce(policy, d.begin(), d_offsets.begin(), d_offsets.end(), segment_sums.begin(), 1ll,
                              cuda::std::plus<>{});
    try {
      (void)cascade::reduce(policy, d.begin(), d.end());
      ADD_FAILURE() << "reduce inside a capture did not throw";
    } catch (const cascade::cuda_error& e) {
      EXPECT_EQ(e.code(), cudaErrorStreamCaptureUnsupported) << e.what();
      EXPECT_NE(std::string(e.what()).find("reduce_into"), std::string::npos) << e.what();
    }
    CASCADE_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CASCADE_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    auto check = [&](const char* where) {
      EXPECT_EQ(to_host(out), want_scan) << where;
      EXPECT_EQ(to_host(out2), want_exclusive) << where;
      EXPECT_EQ(total[0], want_sum) << where;
      EXPECT_EQ(to_host(segment_sums), want_segment_sums) << where;
    };
    auto poison_all = [&] {
      poison(out);
      poison(out2);
      poison(total);
      poison(segment_sums);
      CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    };
    for (cudaStream_t s : {stream, stream, other, other}) {
      poison_all();
      CASCADE_TEST_CUDA(cudaGraphLaunch(exec, s));
      CASCADE_TEST_CUDA(cudaStreamSynchronize(s));
      check(s == stream ? "replay on the capturing stream" : "replay on another stream");
    }
    CASCADE_TEST_CUDA(cudaGraphExecDestroy(exec));  // a graph with memory nodes: one executable at a time
    // As a child graph of another graph, launched twice. The captured calls'
    // temporaries are allocation and free nodes, so the child graph is moved
    // into its parent (CUDA 12.9 and later), not cloned.
#if CUDART_VERSION >= 13000
    cudaGraph_t parent;
    cudaGraphNode_t child;
    CASCADE_TEST_CUDA(cudaGraphCreate(&parent, 0));
    cudaGraphNodeParams params{};
    params.type = cudaGraphNodeTypeGraph;
    params.graph.graph = graph;
    params.graph.ownership = cudaGraphChildGraphOwnershipMove;
    CASCADE_TEST_CUDA(cudaGraphAddNode(&child, parent, nullptr, nullptr, 0, &params));
    cudaGraphExec_t parent_exec;
    CASCADE_TEST_CUDA(cudaGraphInstantiate(&parent_exec, parent, 0));
    for (int replay = 0; replay < 2; ++replay) {
      poison_all();
      CASCADE_TEST_CUDA(cudaGraphLaunch(parent_exec, other));
      CASCADE_TEST_CUDA(cudaStreamSynchronize(other));
      check("child graph");
    }
    CASCADE_TEST_CUDA(cudaGraphExecDestroy(parent_exec));
    CASCADE_TEST_CUDA(cudaGraphDestroy(parent));  // and the child graph it owns
#else
    CASCADE_TEST_CUDA(cudaGraphDestroy(graph));
    std::printf("child graph replay not checked: it needs CUDA 12.9 or later\n");
#endif
  }
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
  CASCADE_TEST_CUDA(cudaStreamDestroy(other));
}

// ------------------------------------------------------------- threads -----

// Host threads sharing one stream, with sizes that grow call after call (so
// the stream's status regions grow under contention): every result right.
TEST_F(Robustness, ThreadsSharingAStream) {
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  constexpr int kThreads = 8;
  std::atomic<int> wrong{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 12; ++i) {
          const std::size_t n = std::size_t(20'000) << (i % 8) | std::size_t(t);
          const std::vector<int> h = small_ints(n, 600 + t * 100 + i);
          thrust::device_vector<int> d(h.begin(), h.end());
          thrust::device_vector<int> out(n);
          thrust::device_vector<long long> total(1);
          cascade::inclusive_scan(cascade::cuda.on(stream), d.begin(), d.end(), out.begin());
          cascade::reduce_into(cascade::cuda.on(stream), d.begin(), d.end(), total.begin(), 0ll,
                               cuda::std::plus<>{});
          const long long sum = cascade::reduce(cascade::cuda.on(stream), d.begin(), d.end(), 0ll);
          // (segmented_reduce by offsets: stream-ordered, its grid sized by the values' allocation.)
          const thrust::device_vector<long long> halves(std::vector<long long>{0, (long long)n / 2, (long long)n});
          thrust::device_vector<long long> sums(2);
          cascade::segmented_reduce(cascade::cuda.on(stream), d.begin(), halves.begin(), halves.end(), sums.begin(),
                                    0ll, cuda::std::plus<>{});
          CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
          std::vector<int> got(n);
          thrust::copy(out.begin(), out.end(), got.begin());
          const long long want = std::accumulate(h.begin(), h.end(), 0ll);
          const long long first_half = std::accumulate(h.begin(), h.begin() + n / 2, 0ll);
          if (got != inclusive(h) || sum != want || total[0] != want || sums[0] != first_half ||
              sums[1] != want - first_half) {
            ++wrong;
          }
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), 0);
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

// Threads on the default stream, the legacy and the per-thread default
// streams named as such (one handle for many threads: one workspace per
// thread), and on streams of their own; a reduce and a stream-ordered scan.
TEST_F(Robustness, ThreadsOnDefaultAndOwnStreams) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        cudaStream_t own = nullptr;
        if (t % 4 == 1 && cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess) ++failures;
        if (t % 4 == 2) own = cudaStreamPerThread;
        if (t % 4 == 3) own = cudaStreamLegacy;
        for (int i = 0; i < 10; ++i) {
          const std::vector<int> h = small_ints(100'000 + 4099 * i, 700 + 31 * t + i);
          thrust::device_vector<int> d(h.begin(), h.end());
          thrust::device_vector<int> out(h.size());
          if (cascade::reduce(cascade::cuda.on(own), d.begin(), d.end(), 0ll) !=
              std::accumulate(h.begin(), h.end(), 0ll)) {
            ++failures;
          }
          cascade::inclusive_scan(cascade::cuda.on(own), d.begin(), d.end(), out.begin());
          if (cudaStreamSynchronize(own) != cudaSuccess) ++failures;
          std::vector<int> got(h.size());
          thrust::copy(out.begin(), out.end(), got.begin());
          if (got != inclusive(h)) ++failures;
        }
        if (t % 4 == 1) (void)cudaStreamDestroy(own);
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// ------------------------------------------------ bounded state, release ---

// A stream per request, by the thousand: what cascade keeps stays bounded,
// release_resources() gives it all back, and calls work after.
TEST_F(Robustness, ManyStreamsKeepBoundedState) {
  const std::vector<int> h = small_ints(1'000'003, 800);
  const auto d = to_device(h);
  const auto want = inclusive(h);
  const long long sum = std::accumulate(h.begin(), h.end(), 0ll);
  thrust::device_vector<int> out(h.size());
  std::size_t most_streams = 0, most_bytes = 0, most_graphs = 0;
  for (int i = 0; i < 1000; ++i) {
    cudaStream_t s;
    CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cascade::inclusive_scan(cascade::cuda.on(s), d.begin(), d.end(), out.begin());
    ASSERT_EQ(cascade::reduce(cascade::cuda.on(s), d.begin(), d.end(), 0ll), sum) << "stream " << i;
    if (i % 97 == 0) ASSERT_EQ(to_host(out), want) << "stream " << i;
    CASCADE_TEST_CUDA(cudaStreamDestroy(s));
    const cascade::resource_usage kept = cascade::kept_resources();
    most_streams = std::max(most_streams, kept.streams);
    most_bytes = std::max(most_bytes, kept.device_bytes);
    most_graphs = std::max(most_graphs, kept.graphs);
  }
  // The measurement the README's table quotes.
  std::printf("kept at most %zu stream workspaces, %zu bytes of status words, %zu graphs\n", most_streams,
              most_bytes, most_graphs);
  EXPECT_LE(most_streams, cascade::detail::kStreamsKept + 1);
  cascade::release_resources();
  EXPECT_EQ(cascade::kept_resources().streams, 0u);
  EXPECT_EQ(cascade::kept_resources().device_bytes, 0u);
  EXPECT_EQ(cascade::kept_resources().graphs, 0u);
  check_all_algorithms(cascade::cuda, 801);
}

// A stream destroyed with work still queued hands its handle to the next
// stream made, and the new stream's work runs beside that work, not after
// it. Calls on the two must not share status words: kept by handle, a slow
// reduce still running on the old stream and fast ones on the new stream
// read each other's chunk partials (H200: wrong sums in 2 of 12 such runs).
struct mixed_bits {
  int rounds;  // the work per item: 0 for a fast input, thousands for a slow one
  __host__ __device__ long long operator()(long long i) const {
    unsigned long long x = static_cast<unsigned long long>(i);
    for (int k = 0; k < rounds; ++k) x = (x * 6364136223846793005ull + 1442695040888963407ull) ^ (x >> 17);
    return static_cast<long long>(x & 1) + 1;
  }
};
template <class It>
long long cub_sum(It in, long long n) {
  thrust::device_vector<long long> out(1);
  std::size_t bytes = 0;
  CASCADE_TEST_CUDA(cub::DeviceReduce::Sum(nullptr, bytes, in, out.data().get(), n));
  thrust::device_vector<char> temp(bytes);
  CASCADE_TEST_CUDA(cub::DeviceReduce::Sum(temp.data().get(), bytes, in, out.data().get(), n));
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  return out[0];
}
TEST_F(Robustness, StreamHandleReusedWhileItsWorkRuns) {
  constexpr int calls = 2000;
  thrust::device_vector<long long> out(calls + 1);
  int reused = 0;
  for (int log_slow : {18, 20}) {
    for (int log_fast : {14, 16, 18}) {
      SCOPED_TRACE("slow 2^" + std::to_string(log_slow) + ", fast 2^" + std::to_string(log_fast));
      const long long n_slow = 1ll << log_slow, n_fast = 1ll << log_fast;
      const auto items = [](int rounds) {
        return thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), mixed_bits{rounds});
      };
      const auto slow = items(int((1ll << 36) / n_slow / 64)), fast = items(0);  // about 10 ms slow
      const long long want_slow = cub_sum(slow, n_slow), want_fast = cub_sum(fast, n_fast);
      poison(out);
      cudaStream_t old_stream, new_stream;
      CASCADE_TEST_CUDA(cudaStreamCreate(&old_stream));
      cascade::reduce_into(cascade::cuda.on(old_stream), slow, slow + n_slow, out.begin(), 0ll, cuda::std::plus<>{});
      CASCADE_TEST_CUDA(cudaStreamDestroy(old_stream));  // its reduce still running
      CASCADE_TEST_CUDA(cudaStreamCreate(&new_stream));
      reused += new_stream == old_stream;
      for (int k = 1; k <= calls; ++k) {
        cascade::reduce_into(cascade::cuda.on(new_stream), fast, fast + n_fast, out.begin() + k, 0ll,
                             cuda::std::plus<>{});
      }
      CASCADE_TEST_CUDA(cudaDeviceSynchronize());
      CASCADE_TEST_CUDA(cudaStreamDestroy(new_stream));
      const std::vector<long long> got = to_host(out);
      EXPECT_EQ(got[0], want_slow);
      EXPECT_EQ(std::count(got.begin() + 1, got.end(), want_fast), calls);
    }
  }
  // (Where the runtime gives the handle to the new stream, as it did on an
  // H200 every time, this is the case above; else it is two streams.)
  std::printf("the new stream had the old one's handle in %d of 6 runs\n", reused);
}

// Out of memory: a clear cuda_error, nothing written, then recovery once
// memory is free again.
TEST_F(Robustness, OutOfMemoryThenRecovery) {
  const std::vector<int> h = small_ints(4'000'037, 900);
  const auto d = to_device(h);
  thrust::device_vector<int> out(h.size());
  cascade::release_resources();  // nothing kept: the next call must allocate
  std::vector<void*> hog;
  for (std::size_t chunk = std::size_t(1) << 30; chunk >= (std::size_t(1) << 16);) {
    void* p = nullptr;
    if (cudaMalloc(&p, chunk) == cudaSuccess) {
      hog.push_back(p);
    } else {
      (void)cudaGetLastError();
      chunk /= 2;
    }
  }
  cudaStream_t s;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  poison(out);
  bool threw = false;
  try {
    cascade::inclusive_scan(cascade::cuda.on(s), d.begin(), d.end(), out.begin());
    (void)cascade::reduce(cascade::cuda.on(s), d.begin(), d.end(), 0ll);
  } catch (const cascade::cuda_error& e) {
    threw = true;
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation) << e.what();
  }
  for (void* p : hog) CASCADE_TEST_CUDA(cudaFree(p));
  EXPECT_TRUE(threw) << "no allocation failed with the device full";
  if (threw) {
    // The scan failed before its launch: the poison is intact.
    const auto got = to_host(out);
    EXPECT_TRUE(std::all_of(got.begin(), got.end(), [&](int x) { return x == got[0]; }));
  }
  check_all_algorithms(cascade::cuda.on(s), 901);
  CASCADE_TEST_CUDA(cudaStreamDestroy(s));
}

// Caller-supplied memory: every temporary comes from the resource and goes
// back to it; cascade keeps nothing for the stream. cuda::stream_ref is
// accepted by .on().
struct counting_resource {
  std::atomic<long> allocations{0}, outstanding{0};
  void* allocate(cuda::stream_ref s, std::size_t bytes, std::size_t) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, s.get()) != cudaSuccess) throw std::bad_alloc();
    ++allocations;
    ++outstanding;
    return p;
  }
  void deallocate(cuda::stream_ref s, void* p, std::size_t, std::size_t) noexcept {
    (void)cudaFreeAsync(p, s.get());
    --outstanding;
  }
};

TEST_F(Robustness, CallerSuppliedMemoryAndStreamRef) {
  cudaStream_t s;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cascade::release_resources();
  counting_resource resource;
  const auto policy = cascade::cuda.on(cuda::stream_ref{s}).with_memory(resource);
  EXPECT_EQ(policy.stream(), s);
  check_all_algorithms(policy, 1000);
  EXPECT_GT(resource.allocations.load(), 0);
  EXPECT_EQ(resource.outstanding.load(), 0);
  EXPECT_EQ(cascade::kept_resources().streams, 0u) << "a policy with its own memory keeps no workspace";
  CASCADE_TEST_CUDA(cudaStreamDestroy(s));
}

// ---------------------------------------------------- libcu++ iterators ----

#if CASCADE_HAS_CUDA_ITERATORS
struct square {
  __host__ __device__ long long operator()(long long x) const { return x * x; }
};
TEST_F(Robustness, LibcuxxIterators) {
  static_assert(cascade::detail::computed_iterator_v<cuda::counting_iterator<long long>>);
  static_assert(cascade::detail::computed_iterator_v<cuda::constant_iterator<int>>);
  static_assert(
      cascade::detail::computed_iterator_v<cuda::transform_iterator<square, cuda::counting_iterator<long long>>>);
  for (long long n : {1ll, 1000ll, 10'000'019ll}) {
    cuda::counting_iterator<long long> first(0);
    EXPECT_EQ(cascade::reduce(cascade::cuda, first, first + n, 0ll), n * (n - 1) / 2);
    cuda::constant_iterator<int> ones(1);
    EXPECT_EQ(cascade::reduce(cascade::cuda, ones, ones + n, 0ll), n);
    const cuda::transform_iterator<square, cuda::counting_iterator<long long>> squares(first, square{});
    long long want = 0;
    for (long long i = 0; i < n; ++i) want += i * i;
    EXPECT_EQ(cascade::reduce(cascade::cuda, squares, squares + n, 0ll), want);
    thrust::device_vector<long long> out(n);
    poison(out);
    cascade::inclusive_scan(cascade::cuda, first, first + n, out.begin());
    const auto got = to_host(out);
    EXPECT_EQ(got.back(), n * (n - 1) / 2);
    EXPECT_EQ(got[n / 2], (n / 2) * (n / 2 + 1) / 2);
  }
}
#endif

// ------------------------------------------- virtual memory mappings ------

// Device memory mapped piece by piece into one reserved range through the
// virtual memory API (cuMemCreate, cuMemMap), as PyTorch's expandable segments
// and allocators that grow in place make it. The driver reports each piece
// as a range of its own and the reservation as the pointer's range; the
// segmented forms size their grids by the memory behind the values.
template <class Fn>
Fn driver_function(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  // As of this toolkit's version: the signature cuda.h declares (decltype(&fn)).
  CASCADE_TEST_CUDA(cudaGetDriverEntryPointByVersion(name, &fn, CUDA_VERSION, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess) throw std::runtime_error(std::string("no driver entry point ") + name);
  return reinterpret_cast<Fn>(fn);
}
// Calls the driver's `fn` (looked up once), throwing where it fails.
#define CASCADE_TEST_DRIVER(fn, ...)                                                                    \
  do {                                                                                                  \
    static const auto f = driver_function<decltype(&fn)>(#fn);                                          \
    if (const CUresult status = f(__VA_ARGS__); status != CUDA_SUCCESS) {                               \
      throw std::runtime_error(std::string(#fn) + " failed: " + std::to_string(static_cast<int>(status))); \
    }                                                                                                   \
  } while (0)

// A reservation of `granules` granules whose first pieces (granule counts in
// `readable`) are mapped, each its own allocation, readable and writable from
// device 0; then one granule mapped that the device may not access; the rest
// reserved only.
struct mapped_pieces {
  CUdeviceptr base = 0;
  std::size_t granule = 0, reserved = 0, readable_bytes = 0;
  std::vector<std::pair<CUdeviceptr, std::size_t>> maps;
  std::vector<CUmemGenericAllocationHandle> handles;

  mapped_pieces(const std::vector<int>& readable, int granules) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CASCADE_TEST_DRIVER(cuMemGetAllocationGranularity, &granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    reserved = granule * granules;
    CASCADE_TEST_DRIVER(cuMemAddressReserve, &base, reserved, 0, 0, 0);
    CUdeviceptr at = base;
    auto map = [&](std::size_t bytes) {
      CUmemGenericAllocationHandle h = 0;
      CASCADE_TEST_DRIVER(cuMemCreate, &h, bytes, &prop, 0);
      handles.push_back(h);
      CASCADE_TEST_DRIVER(cuMemMap, at, bytes, 0, h, 0);
      maps.push_back({at, bytes});
      at += bytes;
    };
    for (int g : readable) map(granule * g);
    readable_bytes = at - base;
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CASCADE_TEST_DRIVER(cuMemSetAccess, base, readable_bytes, &access, 1);
    map(granule);  // no access granted
  }
  ~mapped_pieces() {
    (void)cudaDeviceSynchronize();
    try {
      for (auto [at, bytes] : maps) CASCADE_TEST_DRIVER(cuMemUnmap, at, bytes);
      for (auto h : handles) CASCADE_TEST_DRIVER(cuMemRelease, h);
      CASCADE_TEST_DRIVER(cuMemAddressFree, base, reserved);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
};

struct doubled {
  __host__ __device__ int operator()(int x) const { return 2 * x; }
};

TEST_F(Robustness, ArraysOverPiecesOfVirtualMemory) {
  CASCADE_TEST_CUDA(cudaSetDevice(0));
  CUdevice device = 0;
  int supported = 0;
  CASCADE_TEST_DRIVER(cuDeviceGet, &device, 0);
  CASCADE_TEST_DRIVER(cuDeviceGetAttribute, &supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device);
  if (!supported) GTEST_SKIP() << "the device has no virtual memory management";
  // Pieces of 1, 2 and 1 granules (2 MB on the H200), the values from 100
  // items into the first: every array below spans the three.
  const mapped_pieces memory({1, 2, 1}, 7);
  int* const values = reinterpret_cast<int*>(memory.base) + 100;
  const auto n = static_cast<std::int64_t>(memory.readable_bytes / sizeof(int)) - 100;
  const std::vector<int> h = small_ints(static_cast<std::size_t>(n), 71);
  CASCADE_TEST_CUDA(cudaMemcpy(values, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> h_doubled(h.size());
  std::transform(h.begin(), h.end(), h_doubled.begin(), doubled{});
  const auto twice = thrust::make_transform_iterator(values, doubled{});
  cudaStream_t stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto policy = cascade::cuda.on(stream);
  for (const char* shape : {"random", "powerlaw"}) {
    SCOPED_TRACE(shape);
    const auto offsets = offsets_of<std::int64_t>(segment_lengths(shape, n, 3000, 72));
    const auto d_offsets = to_device(offsets);
    const auto segments = offsets.size() - 1;
    thrust::device_vector<long long> sums(segments);
    poison(sums);
    cascade::segmented_reduce(policy, values, d_offsets.begin(), d_offsets.end(), sums.begin(), 5ll,
                              cuda::std::plus<>{});
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(to_host(sums), ref_segmented_reduce(h, offsets, 5ll, std::plus<>{}));
    poison(sums);
    cascade::segmented_reduce(policy, twice, d_offsets.begin(), d_offsets.end(), sums.begin(), 0ll,
                              cuda::std::plus<>{});
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(to_host(sums), ref_segmented_reduce(h_doubled, offsets, 0ll, std::plus<>{}));

    thrust::device_vector<int> out(n);
    std::vector<int> want(n);
    poison(out);
    auto end = cascade::segmented_inclusive_scan(policy, values, d_offsets.begin(), d_offsets.end(), out.begin());
    EXPECT_EQ(end - out.begin(), n);
    ref_segmented_scan(h, offsets, want, std::plus<>{}, static_cast<const int*>(nullptr), false);
    EXPECT_EQ(to_host(out), want);
    poison(out);
    const int init = -7;
    end = cascade::segmented_exclusive_scan(policy, values, d_offsets.begin(), d_offsets.end(), out.begin(), init);
    EXPECT_EQ(end - out.begin(), n);
    ref_segmented_scan(h, offsets, want, std::plus<>{}, &init, true);
    EXPECT_EQ(to_host(out), want);
  }
  // Offsets that end past the readable pieces, in the granule the device may
  // not access: refused without a read there (a fault would end the context).
  {
    const std::vector<std::int64_t> offsets{0, n / 2, n + 1000};
    const auto d_offsets = to_device(offsets);
    thrust::device_vector<long long> sums(2);
    poison(sums);
    const auto poisoned = to_host(sums);
    cascade::segmented_reduce(policy, values, d_offsets.begin(), d_offsets.end(), sums.begin(), 0ll,
                              cuda::std::plus<>{});
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(to_host(sums), poisoned) << "offsets past the values: nothing written";
    thrust::device_vector<int> out(n + 1000);
    EXPECT_THROW(cascade::segmented_inclusive_scan(policy, values, d_offsets.begin(), d_offsets.end(), out.begin()),
                 std::invalid_argument);
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  }
  // The other forms over the same pieces, their outputs written into pieces
  // of their own: nothing of theirs is bounded by the memory, but their
  // tiles' copies cross the pieces' edges.
  {
    const mapped_pieces out_memory({2, 1, 1}, 5);
    int* const out = reinterpret_cast<int*>(out_memory.base);
    auto got = [&](std::int64_t count) {
      CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
      std::vector<int> r(static_cast<std::size_t>(count));
      CASCADE_TEST_CUDA(cudaMemcpy(r.data(), out, r.size() * sizeof(int), cudaMemcpyDeviceToHost));
      CASCADE_TEST_CUDA(cudaMemset(out, 0xAB, out_memory.readable_bytes));  // poisoned for the next
      return r;
    };
    CASCADE_TEST_CUDA(cudaMemset(out, 0xAB, out_memory.readable_bytes));
    EXPECT_EQ(cascade::reduce(policy, values, values + n, 0ll), std::accumulate(h.begin(), h.end(), 0ll));
    cascade::inclusive_scan(policy, values, values + n, out);
    EXPECT_EQ(got(n), inclusive(h));
    cascade::exclusive_scan(policy, values, values + n, out, 11);
    EXPECT_EQ(got(n), exclusive(h, 11));
    const std::int64_t size = 1000;
    cascade::segmented_reduce(policy, values, values + n, size, out, 0, cuda::std::plus<>{});
    std::vector<std::int64_t> fixed{0};
    while (fixed.back() < n) fixed.push_back(std::min<std::int64_t>(n, fixed.back() + size));
    EXPECT_EQ(got(static_cast<std::int64_t>(fixed.size()) - 1), ref_segmented_reduce(h, fixed, 0, std::plus<>{}));
    const auto keys = keys_of<int>(segment_lengths("random", n, 7, 74), 75);
    const auto d_keys = to_device(keys);
    thrust::device_vector<int> keys_out(n);
    poison(keys_out);
    const auto ends = cascade::reduce_by_key(policy, d_keys.begin(), d_keys.end(), values, keys_out.begin(), out);
    const auto runs = run_offsets(keys);
    ASSERT_EQ(ends.first - keys_out.begin(), static_cast<std::ptrdiff_t>(runs.size() - 1));
    EXPECT_EQ(ends.second - out, static_cast<std::ptrdiff_t>(runs.size() - 1));
    EXPECT_EQ(got(static_cast<std::int64_t>(runs.size()) - 1), ref_segmented_reduce(h, runs, 0, std::plus<>{}));
  }
  // Captured (any size of memory behind the values) and replayed.
  {
    const auto offsets = offsets_of<std::int64_t>(segment_lengths("random", n, 5000, 73));
    const auto d_offsets = to_device(offsets);
    thrust::device_vector<long long> sums(offsets.size() - 1);
    cudaGraph_t graph;
    CASCADE_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cascade::segmented_reduce(policy, values, d_offsets.begin(), d_offsets.end(), sums.begin(), 0ll,
                              cuda::std::plus<>{});
    CASCADE_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CASCADE_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 2; ++replay) {
      poison(sums);
      CASCADE_TEST_CUDA(cudaGraphLaunch(exec, stream));
      CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
      EXPECT_EQ(to_host(sums), ref_segmented_reduce(h, offsets, 0ll, std::plus<>{})) << "replay " << replay;
    }
    CASCADE_TEST_CUDA(cudaGraphExecDestroy(exec));
    CASCADE_TEST_CUDA(cudaGraphDestroy(graph));
  }
  CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
}

// ---------------------------------------------------- green contexts ------

// A green context: some of the device's SMs, sharing the primary context's
// memory and modules (cuGreenCtxCreate, CUDA 12.4), as PyTorch's green
// contexts and servers that split a GPU between kinds of work make it. Its
// streams (cuGreenCtxStreamCreate) may be used while the primary context is
// current, or it is made current itself (cuCtxFromGreenCtx, cuCtxSetCurrent).
struct green_context {
  CUgreenCtx green = nullptr;
  CUcontext as_context = nullptr;
  CUstream stream = nullptr;

  explicit green_context(unsigned sms) {
    CUdevice device = 0;
    CASCADE_TEST_DRIVER(cuDeviceGet, &device, 0);
    CUdevResource all{}, part{}, rest{};
    CASCADE_TEST_DRIVER(cuDeviceGetDevResource, device, &all, CU_DEV_RESOURCE_TYPE_SM);
    unsigned groups = 1;
    CASCADE_TEST_DRIVER(cuDevSmResourceSplitByCount, &part, &groups, &all, &rest, 0, sms);
    CUdevResourceDesc desc = nullptr;
    CASCADE_TEST_DRIVER(cuDevResourceGenerateDesc, &desc, &part, 1);
    CASCADE_TEST_DRIVER(cuGreenCtxCreate, &green, desc, device, CU_GREEN_CTX_DEFAULT_STREAM);
    CASCADE_TEST_DRIVER(cuCtxFromGreenCtx, &as_context, green);
    CASCADE_TEST_DRIVER(cuGreenCtxStreamCreate, &stream, green, CU_STREAM_NON_BLOCKING, 0);
  }
  ~green_context() {
    try {
      CASCADE_TEST_DRIVER(cuStreamSynchronize, stream);
      CASCADE_TEST_DRIVER(cuStreamDestroy, stream);
      CASCADE_TEST_DRIVER(cuGreenCtxDestroy, green);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
};

// 32-byte values: Blelloch's tiles of them take 64 KB of shared memory,
// beyond the 48 KB a kernel has without asking (per context).
struct quad {
  long long v[4];
  bool operator==(const quad& o) const { return std::equal(v, v + 4, o.v); }
};
struct quad_plus {
  __host__ __device__ quad operator()(const quad& a, const quad& b) const {
    return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}};
  }
};

TEST_F(Robustness, GreenContexts) {
  int driver = 0;
  CASCADE_TEST_CUDA(cudaDriverGetVersion(&driver));
  if (driver < 12050) GTEST_SKIP() << "green contexts' streams need a CUDA 12.5 driver; this one is " << driver;
  CASCADE_TEST_CUDA(cudaSetDevice(0));
  CASCADE_TEST_CUDA(cudaFree(nullptr));
  CUcontext primary = nullptr;
  CASCADE_TEST_DRIVER(cuCtxGetCurrent, &primary);
  const green_context green(16);
  auto make_current = [](CUcontext c) { CASCADE_TEST_DRIVER(cuCtxSetCurrent, c); };

  // Its stream while the primary context is current (was refused as another device's).
  check_all_algorithms(cascade::cuda.on(reinterpret_cast<cudaStream_t>(green.stream)), 81);
  // The green context current: its default streams, and a stream made in it,
  // used again once the primary context is current.
  make_current(green.as_context);
  check_all_algorithms(cascade::cuda, 83);
  check_all_algorithms(cascade::cuda.on(cudaStreamLegacy), 84);
  // CUDA has no per-thread stream there: a clear error, nothing written, and
  // the calls after it go on.
  {
    const std::vector<int> h = small_ints(100'000, 86);
    const auto d = to_device(h);
    thrust::device_vector<int> out(h.size());
    poison(out);
    const auto poisoned = to_host(out);
    try {
      cascade::inclusive_scan(cascade::cuda.on(cudaStreamPerThread), d.begin(), d.end(), out.begin());
      ADD_FAILURE() << "the per-thread stream under a green context was not refused";
    } catch (const cascade::cuda_error& e) {
      EXPECT_NE(std::string(e.what()).find("per-thread default stream"), std::string::npos) << e.what();
    }
    CASCADE_TEST_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(to_host(out), poisoned);
  }
  cudaStream_t made_in_green;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&made_in_green, cudaStreamNonBlocking));
  check_all_algorithms(cascade::cuda.on(made_in_green), 85);
  make_current(primary);
  check_all_algorithms(cascade::cuda.on(made_in_green), 87);
  // A kernel with more than 48 KB of dynamic shared memory on the green
  // context's stream, the primary context current.
  {
    const std::vector<int> h = small_ints(100'003, 88);
    std::vector<quad> hq(h.size()), want(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) hq[i] = {{h[i], -h[i], 2ll * h[i], 1}};
    std::inclusive_scan(hq.begin(), hq.end(), want.begin(), quad_plus{});
    const auto d = to_device(hq);
    thrust::device_vector<quad> out(h.size());
    poison(out);
    const auto on_green = cascade::cuda.on(reinterpret_cast<cudaStream_t>(green.stream));
    cascade::inclusive_scan(on_green.with(cascade::strategy::blelloch), d.begin(), d.end(), out.begin(),
                            cascade::monoid(quad_plus{}, quad{}));
    CASCADE_TEST_CUDA(cudaStreamSynchronize(on_green.stream()));
    EXPECT_TRUE(to_host(out) == want);
  }

  // Switching between the two keeps one set of state: it was made again at
  // every switch, the other's left behind (34 MB a switch on the H200).
  const std::vector<int> h = small_ints(std::size_t(1) << 22, 89);
  const auto d = to_device(h);
  const long long sum = std::accumulate(h.begin(), h.end(), 0ll);
  thrust::device_vector<int> out(h.size());
  auto calls = [&] {
    EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), 0ll), sum);
    poison(out);
    cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin());
    CASCADE_TEST_CUDA(cudaStreamSynchronize(nullptr));
    EXPECT_EQ(to_host(out), inclusive(h));
  };
  for (CUcontext c : {green.as_context, primary}) {
    make_current(c);
    calls();
  }
  std::size_t free_before = 0, free_after = 0, total = 0;
  CASCADE_TEST_CUDA(cudaMemGetInfo(&free_before, &total));
  for (int round = 0; round < 20; ++round) {
    make_current(round % 2 == 0 ? green.as_context : primary);
    calls();
  }
  make_current(primary);
  CASCADE_TEST_CUDA(cudaDeviceSynchronize());
  CASCADE_TEST_CUDA(cudaMemGetInfo(&free_after, &total));
  EXPECT_LE(free_before - std::min(free_before, free_after), std::size_t(16) << 20)
      << "device memory taken by 20 switches between a green context and the primary one";
  // Calls repeated on a stream in its own context launch through its graphs,
  // the green context's default stream too.
  EXPECT_GT(cascade::kept_resources().graphs, 0u);
  cascade::release_resources();
  make_current(green.as_context);
  for (int round = 0; round < 3; ++round) calls();
  EXPECT_GT(cascade::kept_resources().graphs, 0u);
  make_current(primary);

  // Streams by the dozen made while the green context is current: past
  // kStreamsKept the least recently used workspaces are released, after a
  // synchronisation that waits for the green context's work too.
  make_current(green.as_context);
  for (int i = 0; i < 80; ++i) {
    cudaStream_t s;
    CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ASSERT_EQ(cascade::reduce(cascade::cuda.on(s), d.begin(), d.end(), 0ll), sum) << "stream " << i;
    CASCADE_TEST_CUDA(cudaStreamDestroy(s));
  }
  EXPECT_LE(cascade::kept_resources().streams, cascade::detail::kStreamsKept + 1);
  calls();
  make_current(primary);

  // release_resources() leaves the caller's green context current, and calls go on.
  make_current(green.as_context);
  cascade::release_resources();
  CUcontext now = nullptr;
  CASCADE_TEST_DRIVER(cuCtxGetCurrent, &now);
  EXPECT_EQ(now, green.as_context);
  calls();
  make_current(primary);
  CASCADE_TEST_CUDA(cudaStreamDestroy(made_in_green));
}

// ------------------------------------------ contexts of the program's own --

// A context the program makes itself (cuCtxCreate, as PyCUDA's make_context
// does), used in turn with the primary context, then destroyed. Each keeps
// its own state (it was made again at every switch, the other's left
// behind: 34 MB a switch on the H200). A destroyed context's state is
// forgotten, never touched (the driver may crash on its handles).
CUcontext create_context() {
  CUdevice device = 0;
  CASCADE_TEST_DRIVER(cuDeviceGet, &device, 0);
  CUcontext made = nullptr;
#if CUDA_VERSION >= 13000
  CASCADE_TEST_DRIVER(cuCtxCreate, &made, nullptr, 0, device);
#else
  CASCADE_TEST_DRIVER(cuCtxCreate, &made, 0, device);
#endif
  return made;  // and current
}

TEST_F(Robustness, ContextsOfTheProgramsOwn) {
  CASCADE_TEST_CUDA(cudaSetDevice(0));
  CASCADE_TEST_CUDA(cudaFree(nullptr));
  CUcontext primary = nullptr;
  CASCADE_TEST_DRIVER(cuCtxGetCurrent, &primary);
  auto make_current = [](CUcontext c) { CASCADE_TEST_DRIVER(cuCtxSetCurrent, c); };
  const CUcontext own = create_context();

  // Every algorithm in it, on its default stream and on a stream made in it.
  check_all_algorithms(cascade::cuda, 91);
  cudaStream_t own_stream;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&own_stream, cudaStreamNonBlocking));
  check_all_algorithms(cascade::cuda.on(own_stream), 92);
  make_current(primary);
  check_all_algorithms(cascade::cuda, 93);

  // Switching: memory in each context of its own (the primary's arrays are
  // not the own context's to read), one set of state each.
  const std::vector<int> h = small_ints(std::size_t(1) << 22, 94);
  const long long sum = std::accumulate(h.begin(), h.end(), 0ll);
  const std::vector<int> want = inclusive(h);
  struct arrays {
    thrust::device_vector<int> in, out;
  };
  std::vector<arrays> in_context(2);
  for (int c = 0; c < 2; ++c) {
    make_current(c == 0 ? own : primary);
    in_context[c] = {to_device(h), thrust::device_vector<int>(h.size())};
  }
  auto calls = [&](int c) {
    make_current(c == 0 ? own : primary);
    arrays& a = in_context[c];
    EXPECT_EQ(cascade::reduce(cascade::cuda, a.in.begin(), a.in.end(), 0ll), sum);
    poison(a.out);
    cascade::inclusive_scan(cascade::cuda, a.in.begin(), a.in.end(), a.out.begin());
    CASCADE_TEST_CUDA(cudaStreamSynchronize(nullptr));
    EXPECT_EQ(to_host(a.out), want);
  };
  calls(0);
  calls(1);
  std::size_t free_before = 0, free_after = 0, total = 0;
  CASCADE_TEST_CUDA(cudaMemGetInfo(&free_before, &total));
  for (int round = 0; round < 20; ++round) calls(round % 2);
  make_current(primary);
  CASCADE_TEST_CUDA(cudaMemGetInfo(&free_after, &total));
  EXPECT_LE(free_before - std::min(free_before, free_after), std::size_t(16) << 20)
      << "device memory taken by 20 switches between a context of the program's own and the primary one";
  EXPECT_GT(cascade::kept_resources().graphs, 0u);

  // A host thread in each context at once, each on streams it makes and
  // destroys as it goes: past 64 streams a context's least recently used
  // workspaces are released under that context, while the other context's
  // thread goes on.
  {
    std::atomic<int> wrong{0}, errors{0};
    std::vector<std::thread> threads;
    for (int c = 0; c < 2; ++c) {
      threads.emplace_back([&, c] {
        try {
          make_current(c == 0 ? own : primary);
          const arrays& a = in_context[c];
          thrust::device_vector<int> out(h.size());
          for (int i = 0; i < 80; ++i) {
            cudaStream_t s;
            CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            const auto on = cascade::cuda.on(s);
            CASCADE_TEST_CUDA(cudaMemsetAsync(thrust::raw_pointer_cast(out.data()), 0xAB, h.size() * sizeof(int), s));
            cascade::inclusive_scan(on, a.in.begin(), a.in.end(), out.begin());
            if (cascade::reduce(on, a.in.begin(), a.in.end(), 0ll) != sum || to_host(out) != want) ++wrong;
            CASCADE_TEST_CUDA(cudaStreamDestroy(s));
          }
        } catch (const std::exception&) {
          ++errors;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(errors.load(), 0);
  }

  // release_resources() frees both contexts' state and leaves the caller's
  // context current; calls go on in both.
  make_current(own);
  CASCADE_TEST_CUDA(cudaMemGetInfo(&free_before, &total));
  cascade::release_resources();
  CASCADE_TEST_CUDA(cudaMemGetInfo(&free_after, &total));
  EXPECT_GT(free_after, free_before + (std::size_t(8) << 20)) << "release_resources() freed too little";
  EXPECT_EQ(cascade::kept_resources().streams, 0u);
  CUcontext now = nullptr;
  CASCADE_TEST_DRIVER(cuCtxGetCurrent, &now);
  EXPECT_EQ(now, own);
  calls(0);
  calls(1);

  // The own context destroyed (its stream, memory and cascade's state in it
  // with it): the primary's calls go on, and release_resources() leaves the
  // dead state alone.
  make_current(own);
  CASCADE_TEST_CUDA(cudaStreamDestroy(own_stream));
  in_context[0] = {};
  CASCADE_TEST_DRIVER(cuCtxDestroy, own);
  make_current(primary);
  calls(1);
  check_all_algorithms(cascade::cuda, 95);
  cascade::release_resources();
  calls(1);

  // Contexts made, called in and destroyed in turn, with another host
  // thread's calls in them: results right, and no state of a dead context
  // kept past the next context's first call. Released first, so that this
  // thread's result slot is made in the short-lived context and outlives it.
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("short-lived context " + std::to_string(round));
    const CUcontext brief = create_context();
    cascade::release_resources();
    {
      const auto d = to_device(h);
      EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), 0ll), sum);
      std::thread([&] {
        make_current(brief);
        EXPECT_EQ(cascade::reduce(cascade::cuda, d.begin(), d.end(), 0ll), sum);
      }).join();
      thrust::device_vector<int> out(h.size());
      poison(out);
      cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin());
      EXPECT_EQ(to_host(out), want);
    }
    CASCADE_TEST_DRIVER(cuCtxDestroy, brief);
    make_current(primary);
    calls(1);
  }
  EXPECT_LE(cascade::kept_resources().streams, 2u) << "workspaces of destroyed contexts kept";
  std::thread([&] {
    make_current(primary);
    calls(1);
  }).join();
}

// ------------------------------------------------------- several GPUs ------

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  return n;
}

// One host thread alternating devices, on each one's default stream and own stream.
TEST_F(Robustness, OneThreadAlternatingDevices) {
  if (device_count() < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << device_count();
  cudaStream_t streams[2];
  for (int dev = 0; dev < 2; ++dev) {
    CASCADE_TEST_CUDA(cudaSetDevice(dev));
    CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&streams[dev], cudaStreamNonBlocking));
  }
  for (int round = 0; round < 3; ++round) {
    for (int dev = 0; dev < 2; ++dev) {
      SCOPED_TRACE("device " + std::to_string(dev) + ", round " + std::to_string(round));
      CASCADE_TEST_CUDA(cudaSetDevice(dev));
      check_all_algorithms(cascade::cuda, 1300 + 10 * round + dev);
      check_all_algorithms(cascade::cuda.on(streams[dev]), 1400 + 10 * round + dev);
    }
  }
  for (int dev = 0; dev < 2; ++dev) {
    CASCADE_TEST_CUDA(cudaSetDevice(dev));
    CASCADE_TEST_CUDA(cudaStreamDestroy(streams[dev]));
  }
  CASCADE_TEST_CUDA(cudaSetDevice(0));
}

// One host thread per device.
TEST_F(Robustness, OneThreadPerDevice) {
  const int devices = device_count();
  if (devices < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int dev = 0; dev < devices; ++dev) {
    threads.emplace_back([&, dev] {
      try {
        if (cudaSetDevice(dev) != cudaSuccess) ++failures;
        for (int i = 0; i < 20; ++i) {
          const std::vector<int> h = small_ints(2'000'003 + i, 1500 + 100 * dev + i);
          thrust::device_vector<int> d(h.begin(), h.end());
          thrust::device_vector<int> out(h.size());
          cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin());
          std::vector<int> got(h.size());
          thrust::copy(out.begin(), out.end(), got.begin());
          if (got != inclusive(h) ||
              cascade::reduce(cascade::cuda, d.begin(), d.end(), 0ll) != std::accumulate(h.begin(), h.end(), 0ll)) {
            ++failures;
          }
        }
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Calls on device 0 with `stream`, a stream of device 1: a clear
// std::invalid_argument, nothing written.
void expect_refused_as_another_devices(cudaStream_t stream, const thrust::device_vector<int>& d,
                                       thrust::device_vector<int>& out) {
  poison(out);
  try {
    cascade::inclusive_scan(cascade::cuda.on(stream), d.begin(), d.end(), out.begin());
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("another device"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)cascade::reduce(cascade::cuda.on(stream), d.begin(), d.end()), std::invalid_argument);
  const auto got = to_host(out);
  EXPECT_TRUE(std::all_of(got.begin(), got.end(), [&](int x) { return x == got[0]; })) << "output written";
}

// A policy whose stream belongs to another device than the current one.
TEST_F(Robustness, StreamOfAnotherDeviceIsAClearError) {
  if (device_count() < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << device_count();
  CASCADE_TEST_CUDA(cudaSetDevice(1));
  cudaStream_t on_one;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&on_one, cudaStreamNonBlocking));
  CASCADE_TEST_CUDA(cudaSetDevice(0));
  const auto d = to_device(small_ints(100'000, 1600));
  thrust::device_vector<int> out(100'000);
  expect_refused_as_another_devices(on_one, d, out);
  CASCADE_TEST_CUDA(cudaSetDevice(1));
  CASCADE_TEST_CUDA(cudaStreamDestroy(on_one));
  CASCADE_TEST_CUDA(cudaSetDevice(0));
}

// A handle a thread passed, destroyed on device 0 and given again by the
// driver to a stream of device 1, must be refused while device 0 is current,
// nothing written: the check must not trust a handle it saw before. (Where
// the driver never gives a handle to another device's stream, the case
// cannot arise and the test says so.)
TEST_F(Robustness, ReusedHandleOfAnotherDeviceIsAClearError) {
  if (device_count() < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << device_count();
  CASCADE_TEST_CUDA(cudaSetDevice(0));
  const std::vector<int> h = small_ints(100'000, 1700);
  const auto d = to_device(h);
  thrust::device_vector<int> out(h.size());
  cudaStream_t first;
  CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
  cascade::inclusive_scan(cascade::cuda.on(first), d.begin(), d.end(), out.begin());
  CASCADE_TEST_CUDA(cudaStreamSynchronize(first));
  ASSERT_EQ(to_host(out), inclusive(h));
  CASCADE_TEST_CUDA(cudaStreamDestroy(first));
  CASCADE_TEST_CUDA(cudaSetDevice(1));
  std::vector<cudaStream_t> made;
  cudaStream_t same = nullptr;
  for (int i = 0; i < 256 && same == nullptr; ++i) {
    cudaStream_t s;
    CASCADE_TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    made.push_back(s);
    if (s == first) same = s;
  }
  CASCADE_TEST_CUDA(cudaSetDevice(0));
  if (same != nullptr) {
    expect_refused_as_another_devices(same, d, out);
    cascade::inclusive_scan(cascade::cuda, d.begin(), d.end(), out.begin());
    EXPECT_EQ(to_host(out), inclusive(h)) << "device 0 after the refusal";
  }
  CASCADE_TEST_CUDA(cudaSetDevice(1));
  for (cudaStream_t s : made) CASCADE_TEST_CUDA(cudaStreamDestroy(s));
  CASCADE_TEST_CUDA(cudaSetDevice(0));
  if (same == nullptr) GTEST_SKIP() << "the driver gave none of 256 new streams of device 1 the destroyed handle";
}

}  // namespace
