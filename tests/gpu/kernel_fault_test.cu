// A kernel that faults inside a cascade call: a user's iterator reads where
// nothing is mapped. Such an error is sticky: CUDA leaves the context unusable
// and the process must end to use the GPU again (cudaDeviceReset does not
// bring it back: the next allocation answered cudaErrorDevicesUnavailable on
// the H200). What a program can ask of cascade is that the fault comes out
// as the CUDA error it is, from the call or from the stream, that every later
// call reports that same error (never a hang, a crash or another
// diagnosis), and that release_resources() still returns. Each family
// faults in a process of its own (a death test, re-executed rather than
// forked from a process that holds a context).

#include "harness.cuh"

#include <cascade/cascade.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace cascade_test;

namespace {

class KernelFault : public gpu_test {};

// Item i: i % 7, or (at index `at`) a read of unmapped memory.
struct item_or_fault {
  std::int64_t at;
  const volatile int* nowhere;
  __host__ __device__ int operator()(std::int64_t i) const { return i == at ? *nowhere : int(i % 7); }
};
// Offset i: i * 1000, or (at index `at`) a read of unmapped memory.
struct offset_or_fault {
  std::int64_t at;
  const volatile int* nowhere;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i == at ? *nowhere : i * 1000; }
};

constexpr std::int64_t n = 3'000'000;
constexpr std::int64_t segments = n / 1000;
const volatile int* const nowhere = reinterpret_cast<const volatile int*>(std::uintptr_t(64));

struct outputs {
  int* items;
  long long* totals;
};

// One call of `family` on `policy`'s stream; the items (or, for the
// segmented scan, the offsets, whose ends the host reads first) fault at
// `fault_at` (-1: nowhere).
void call(const std::string& family, const cascade::cuda_policy<>& policy, std::int64_t fault_at,
          const outputs& out) {
  const auto count = thrust::counting_iterator<std::int64_t>(0);
  const auto items = thrust::make_transform_iterator(count, item_or_fault{fault_at, nowhere});
  const auto offsets = thrust::make_transform_iterator(count, offset_or_fault{-1, nowhere});
  const auto keys = thrust::make_transform_iterator(count, [] __host__ __device__(std::int64_t i) { return int(i / 5); });
  const auto plus = cuda::std::plus<>{};
  if (family == "reduce") (void)cascade::reduce(policy, items, items + n, 0ll);
  else if (family == "reduce_into") cascade::reduce_into(policy, items, items + n, out.totals, 0ll, plus);
  else if (family == "inclusive_scan") cascade::inclusive_scan(policy, items, items + n, out.items);
  else if (family == "exclusive_scan") cascade::exclusive_scan(policy, items, items + n, out.items, 3);
  else if (family == "segmented_reduce") {
    cascade::segmented_reduce(policy, items, offsets, offsets + segments + 1, out.totals, 0ll, plus);
  } else if (family == "segmented_inclusive_scan") {
    const auto faulting = thrust::make_transform_iterator(count, offset_or_fault{fault_at < 0 ? -1 : segments, nowhere});
    (void)cascade::segmented_inclusive_scan(policy, items, faulting, faulting + segments + 1, out.items);
  } else if (family == "reduce_by_key") {
    (void)cascade::reduce_by_key(policy, keys, keys + n, items, out.items, out.totals);
  } else if (family == "inclusive_scan_by_key") {
    cascade::inclusive_scan_by_key(policy, keys, keys + n, items, out.items);
  } else if (family == "transform_reduce") {
    (void)cascade::transform_reduce(policy, items, items + n, 0ll, plus, cuda::std::negate<>{});
  } else if (family == "min_element") {
    (void)cascade::min_element(policy, items, items + n);
  } else {
    std::fprintf(stderr, "unknown family %s\n", family.c_str());
    std::exit(2);
  }
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

// The child process: state made by healthy calls, the fault, then calls on
// the faulted stream, the default stream and the per-thread one.
[[noreturn]] void fault_then_calls(const std::string& family) {
  outputs out{};
  if (cudaMalloc(&out.items, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out.totals, (segments + 1) * sizeof(long long)) != cudaSuccess) {
    fail("cudaMalloc");
  }
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) fail("cudaStreamCreate");
  const auto policy = cascade::cuda.on(stream);
  try {
    for (int i = 0; i < 2; ++i) call(family, policy, -1, out);  // the stream's workspace and graphs
    (void)cascade::reduce(policy, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(1000), 0ll);
    if (cudaStreamSynchronize(stream) != cudaSuccess) fail("the healthy calls");
  } catch (const std::exception& e) {
    fail(std::string("a healthy call threw: ") + e.what());
  }
  cudaError_t fault = cudaSuccess;
  try {
    call(family, policy, n / 2, out);
    fault = cudaStreamSynchronize(stream);  // (a stream-ordered call may return first)
  } catch (const cascade::cuda_error& e) {
    fault = e.code();
  }
  if (fault != cudaErrorIllegalAddress) fail(std::string("the fault came out as ") + cudaGetErrorName(fault));
  const cascade::cuda_policy<> later[] = {policy, cascade::cuda, cascade::cuda.on(cudaStreamPerThread)};
  for (const auto& p : later) {
    for (const std::string& next : {family, std::string("reduce"), std::string("segmented_inclusive_scan")}) {
      try {
        call(next, p, -1, out);
        if (cudaStreamSynchronize(p.stream()) == cudaSuccess) fail(next + " after the fault succeeded");
      } catch (const cascade::cuda_error& e) {
        if (e.code() != fault || std::strstr(e.what(), cudaGetErrorString(fault)) == nullptr) {
          fail(next + " after the fault: " + e.what());
        }
      } catch (const std::exception& e) {
        fail(next + " after the fault threw another kind of error: " + e.what());
      }
    }
  }
  cascade::release_resources();
  (void)cascade::kept_resources();
  std::fprintf(stderr, "%s: the fault came out as %s, and every later call reported it\n", family.c_str(),
               cudaGetErrorName(fault));
  std::fflush(stderr);
  std::_Exit(0);
}

TEST_F(KernelFault, EveryFamilyReportsTheStickyError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process, not a fork of one with a context
  for (const char* family : {"reduce", "reduce_into", "inclusive_scan", "exclusive_scan", "segmented_reduce",
                             "segmented_inclusive_scan", "reduce_by_key", "inclusive_scan_by_key",
                             "transform_reduce", "min_element"}) {
    SCOPED_TRACE(family);
    EXPECT_EXIT(fault_then_calls(family), ::testing::ExitedWithCode(0), "every later call reported it");
  }
}

}  // namespace
