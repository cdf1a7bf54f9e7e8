// Reduce and scans across GPUs through NCCL: one process drives every visible
// GPU, one rank and one host thread per GPU. Results are compared with
// cascade's single-GPU result on the concatenated array (on GPU 0), and
// between ranks and runs bit for bit.
//
// On the GPU machines NVLink multicast stays off: NCCL_NVLS_ENABLE=0 is set
// below, before main and so before any NCCL call.

#include "../gpu/harness.cuh"

#include <cascade/nccl.cuh>

#include <nccl.h>

#include <cstdlib>
#include <exception>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace cascade_test {
namespace {

[[maybe_unused]] const bool nvls_off = [] { return setenv("NCCL_NVLS_ENABLE", "0", 1) == 0; }();

using plus = cuda::std::plus<>;
using maximum = cuda::maximum<>;

int device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

// One communicator per GPU over the first `ranks` GPUs (ncclCommInitAll).
class clique {
 public:
  explicit clique(int ranks) : comms_(ranks) {
    std::vector<int> devices(ranks);
    std::iota(devices.begin(), devices.end(), 0);
    const ncclResult_t status = ncclCommInitAll(comms_.data(), ranks, devices.data());
    if (status != ncclSuccess) throw cascade::nccl_error(status, "ncclCommInitAll");
  }

  int size() const { return static_cast<int>(comms_.size()); }
  ncclComm_t comm(int rank) const { return comms_[rank]; }

  // f(rank) on one host thread per rank, the rank's GPU current. One thread
  // per rank, because cascade::reduce waits on the host for the collective,
  // which needs every rank in it. A rank's exception is rethrown here.
  template <class F>
  void run(F f) const {
    std::vector<std::exception_ptr> errors(comms_.size());
    std::vector<std::thread> threads;
    for (int r = 0; r < size(); ++r) {
      threads.emplace_back([&, r] {
        try {
          cascade::detail::check(cudaSetDevice(r), "cudaSetDevice");
          f(r);
        } catch (...) {
          errors[r] = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }

 private:
  std::vector<ncclComm_t> comms_;
};

// Made once and kept for the whole program (never destroyed: ncclCommDestroy
// after the CUDA runtime has shut down at exit would be undefined).
const clique& one_gpu() {
  static const clique* c = new clique(1);
  return *c;
}
const clique& all_gpus() {
  static const clique* c = new clique(device_count());
  return *c;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The first element where two arrays differ, if any.
template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!same_bits(got[i], want[i])) {
      ADD_FAILURE() << what << ": element " << i << " of " << got.size() << ": got " << got[i] << ", want "
                    << want[i];
      return;
    }
  }
}

// Shard sizes for `ranks` ranks.
struct layout {
  std::string name;
  std::vector<std::int64_t> sizes;
};

std::vector<std::int64_t> cyclic(int ranks, const std::vector<std::int64_t>& pattern) {
  std::vector<std::int64_t> sizes(ranks);
  for (int r = 0; r < ranks; ++r) sizes[r] = pattern[r % pattern.size()];
  return sizes;
}

std::vector<layout> layouts(int ranks) {
  std::vector<std::int64_t> last_only(ranks, 0);
  last_only.back() = 100003;
  return {{"{0, 1000003, 17, 0} cyclic", cyclic(ranks, {0, 1000003, 17, 0})},
          {"{1000003, 17, 65537} cyclic", cyclic(ranks, {1000003, 17, 65537})},
          {"one item each", cyclic(ranks, {1})},
          {"all empty", cyclic(ranks, {0})},
          {"only the last rank", last_only}};
}

// What one rank computed.
template <class T>
struct rank_results {
  T reduce{}, reduce_again{};
  T local_reduce{};  // its shard alone, with the single-GPU policy (floating point only)
  std::vector<T> inclusive, inclusive_init, exclusive;
};

template <class T, class Op>
void check_distributed(const clique& c, const layout& shards, std::uint64_t seed) {
  SCOPED_TRACE(std::to_string(c.size()) + " rank(s), shards " + shards.name + ", seed " + std::to_string(seed));
  const int ranks = c.size();
  std::vector<std::int64_t> offsets(ranks + 1, 0);
  std::partial_sum(shards.sizes.begin(), shards.sizes.end(), offsets.begin() + 1);
  const std::int64_t n = offsets[ranks];
  const std::vector<T> h_in = random_input<T, Op>(n, seed);
  const T init = draw_init<T, Op>(seed);
  const Op op{};

  std::vector<rank_results<T>> got(ranks);
  c.run([&](int r) {
    const auto d_in = to_device(std::vector<T>(h_in.begin() + offsets[r], h_in.begin() + offsets[r + 1]));
    thrust::device_vector<T> d_out(d_in.size());
    const auto policy = cascade::nccl(c.comm(r));
    rank_results<T>& g = got[r];
    g.reduce = cascade::reduce(policy, d_in.begin(), d_in.end(), init, op);
    g.reduce_again = cascade::reduce(policy, d_in.begin(), d_in.end(), init, op);
    if constexpr (rounds_v<T, Op>) {
      const T identity = cascade::identity_element<Op, T>::value();
      g.local_reduce = cascade::reduce(cascade::cuda, d_in.begin(), d_in.end(), identity, op);
    }
    auto scanned = [&](auto scan) {
      poison(d_out);
      const auto end = scan();
      EXPECT_EQ(end - d_out.begin(), static_cast<std::int64_t>(d_in.size()));
      CASCADE_TEST_CUDA(cudaDeviceSynchronize());
      return to_host(d_out);
    };
    g.inclusive = scanned([&] { return cascade::inclusive_scan(policy, d_in.begin(), d_in.end(), d_out.begin(), op); });
    g.inclusive_init =
        scanned([&] { return cascade::inclusive_scan(policy, d_in.begin(), d_in.end(), d_out.begin(), op, init); });
    g.exclusive =
        scanned([&] { return cascade::exclusive_scan(policy, d_in.begin(), d_in.end(), d_out.begin(), init, op); });
  });

  // Every rank and every run: the same bits.
  for (int r = 0; r < ranks; ++r) {
    EXPECT_TRUE(same_bits(got[r].reduce, got[0].reduce))
        << "rank " << r << ": " << got[r].reduce << " vs rank 0: " << got[0].reduce;
    EXPECT_TRUE(same_bits(got[r].reduce_again, got[r].reduce)) << "rank " << r << ", second run";
  }
  auto concatenated = [&](std::vector<T> rank_results<T>::*part) {
    std::vector<T> all;
    for (const auto& g : got) all.insert(all.end(), (g.*part).begin(), (g.*part).end());
    return all;
  };

  CASCADE_TEST_CUDA(cudaSetDevice(0));
  const thrust::device_vector<T> d_all = to_device(h_in);
  if constexpr (rounds_v<T, Op>) {
    // Rounding: within the float64 reference's tolerance (one more rounding
    // per rank), and exactly the rank-order fold of the ranks' own reductions.
    const auto [want, scale] = fold_f64(h_in, init, op);
    EXPECT_TRUE(close(got[0].reduce, want, scale, reduce_depth<Op>(n) + ranks));
    T folded = init;
    for (int r = 0; r < ranks; ++r) {
      if (shards.sizes[r] > 0) folded = op(folded, got[r].local_reduce);
    }
    EXPECT_TRUE(same_bits(got[0].reduce, folded)) << got[0].reduce << " vs the rank-order fold " << folded;
    expect_scan_equal(h_in, concatenated(&rank_results<T>::inclusive), d_all, scan_kind::inclusive, init, op);
    expect_scan_equal(h_in, concatenated(&rank_results<T>::inclusive_init), d_all, scan_kind::inclusive_init, init, op);
    expect_scan_equal(h_in, concatenated(&rank_results<T>::exclusive), d_all, scan_kind::exclusive, init, op);
  } else {
    // Exact: the single-GPU result on the whole array.
    const T want = cascade::reduce(cascade::cuda, d_all.begin(), d_all.end(), init, op);
    EXPECT_TRUE(same_bits(got[0].reduce, want)) << got[0].reduce << " vs single GPU " << want;
    thrust::device_vector<T> d_want(n);
    cascade::inclusive_scan(cascade::cuda, d_all.begin(), d_all.end(), d_want.begin(), op);
    expect_same(concatenated(&rank_results<T>::inclusive), to_host(d_want), "inclusive_scan");
    cascade::inclusive_scan(cascade::cuda, d_all.begin(), d_all.end(), d_want.begin(), op, init);
    expect_same(concatenated(&rank_results<T>::inclusive_init), to_host(d_want), "inclusive_scan with init");
    cascade::exclusive_scan(cascade::cuda, d_all.begin(), d_all.end(), d_want.begin(), init, op);
    expect_same(concatenated(&rank_results<T>::exclusive), to_host(d_want), "exclusive_scan");
  }
}

template <class Combo>
class NcclMatrix : public gpu_test {};

using matrix = ::testing::Types<combo<std::int32_t, plus>, combo<std::int64_t, plus>, combo<float, plus>,
                                combo<double, plus>, combo<std::int32_t, maximum>, combo<std::int64_t, maximum>,
                                combo<float, maximum>, combo<double, maximum>, combo<affine, compose>>;
TYPED_TEST_SUITE(NcclMatrix, matrix);

template <class Combo>
void check_layouts(const clique& c) {
  std::uint64_t seed = 1;
  for (const layout& l : layouts(c.size())) {
    check_distributed<typename Combo::value_type, typename Combo::op_type>(c, l, seed++);
  }
}

#define CASCADE_NEEDS_TWO_GPUS() \
  if (device_count() < 2) GTEST_SKIP() << "fewer than two CUDA devices: multi-GPU NCCL test skipped"

TYPED_TEST(NcclMatrix, OneRank) { check_layouts<TypeParam>(one_gpu()); }

TYPED_TEST(NcclMatrix, EveryGpuARank) {
  CASCADE_NEEDS_TWO_GPUS();
  check_layouts<TypeParam>(all_gpus());
}

class NcclApi : public gpu_test {};

// The overloads without op and without init, a stream of the caller's, an
// in-place scan; against host results (exact integers).
TEST_F(NcclApi, OverloadsStreamsAndInPlace) {
  CASCADE_NEEDS_TWO_GPUS();
  const clique& c = all_gpus();
  const std::vector<std::int64_t> sizes = cyclic(c.size(), {100003, 0, 17});
  std::vector<std::int64_t> offsets(c.size() + 1, 0);
  std::partial_sum(sizes.begin(), sizes.end(), offsets.begin() + 1);
  const std::vector<int> h_in = random_input<int, plus>(offsets.back(), 99);
  std::vector<long long> inclusive(h_in.size()), exclusive(h_in.size());
  std::inclusive_scan(h_in.begin(), h_in.end(), inclusive.begin(), std::plus<>{}, 0ll);
  std::exclusive_scan(h_in.begin(), h_in.end(), exclusive.begin(), 3ll);
  const long long total = inclusive.empty() ? 0 : inclusive.back();

  std::vector<std::vector<int>> got_inclusive(c.size()), got_in_place(c.size());
  std::vector<std::pair<int, long long>> got_reduce(c.size());
  c.run([&](int r) {
    cudaStream_t stream = nullptr;
    cascade::detail::check(cudaStreamCreate(&stream), "cudaStreamCreate");
    const auto policy = cascade::nccl(c.comm(r)).on(stream);
    auto d = to_device(std::vector<int>(h_in.begin() + offsets[r], h_in.begin() + offsets[r + 1]));
    thrust::device_vector<int> out(d.size());
    got_reduce[r] = {cascade::reduce(policy, d.begin(), d.end()), cascade::reduce(policy, d.begin(), d.end(), 0ll)};
    cascade::inclusive_scan(policy, d.begin(), d.end(), out.begin());
    cascade::exclusive_scan(policy, d.begin(), d.end(), d.begin(), 3);  // in place
    CASCADE_TEST_CUDA(cudaStreamSynchronize(stream));
    got_inclusive[r] = to_host(out);
    got_in_place[r] = to_host(d);
    CASCADE_TEST_CUDA(cudaStreamDestroy(stream));
  });
  for (int r = 0; r < c.size(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(got_reduce[r].first, static_cast<int>(total));
    EXPECT_EQ(got_reduce[r].second, total);
    for (std::int64_t i = 0; i < sizes[r]; ++i) {
      const std::size_t g = offsets[r] + i;
      ASSERT_EQ(got_inclusive[r][i], static_cast<int>(inclusive[g])) << "inclusive_scan, global element " << g;
      ASSERT_EQ(got_in_place[r][i], static_cast<int>(exclusive[g])) << "exclusive_scan in place, global element " << g;
    }
  }
}

// A communicator whose GPU is not the current device is refused before any
// communication (NCCL would otherwise read another GPU's memory).
TEST_F(NcclApi, WrongDeviceIsRefused) {
  CASCADE_NEEDS_TWO_GPUS();
  const clique& c = all_gpus();
  std::thread([&] {
    CASCADE_TEST_CUDA(cudaSetDevice(1));
    thrust::device_vector<int> d(10, 1);
    EXPECT_THROW(cascade::reduce(cascade::nccl(c.comm(0)), d.begin(), d.end(), 0), std::invalid_argument);
  }).join();
}

}  // namespace
}  // namespace cascade_test
