// Thrust users' idioms (tests/idioms.cuh) on the host policies, cascade::seq
// and cascade::par, over std::vector and Thrust's iterators on the host.

#include <cuda/std/version>  // CCCL's configuration: _CCCL_SUPPRESS_DEPRECATED_PUSH

// Thrust's functors and constant_iterator are deprecated in CCCL 3.6 and still
// accepted (see gpu/idioms_test.cu).
_CCCL_SUPPRESS_DEPRECATED_PUSH

#include "../idioms.cuh"

namespace cascade_test {
namespace {

using namespace idioms;

// Data in std::vectors: put and get copy, poison fills with the poison's bytes.
template <class Policy>
struct host_side {
  Policy policy;
  template <class T>
  using vector = std::vector<T>;
  template <class T>
  vector<T> put(const std::vector<T>& h) const { return h; }
  template <class T>
  std::vector<T> get(const vector<T>& v) const { return v; }
  template <class T>
  void poison(vector<T>& v) const { std::fill(v.begin(), v.end(), poison_value<T>()); }
  void sync() const {}
};

template <class Policy>
class HostIdioms : public ::testing::Test {
 protected:
  const host_side<Policy> side{};
};
using policies = ::testing::Types<cascade::sequenced_policy, cascade::parallel_policy>;
TYPED_TEST_SUITE(HostIdioms, policies);

TYPED_TEST(HostIdioms, SummaryStatisticsOfAStructAccumulator) { check_summary_statistics(this->side); }
TYPED_TEST(HostIdioms, RowSumsWithDiscardedKeys) { check_row_sums(this->side); }
TYPED_TEST(HostIdioms, ZippedKeysAndValues) { check_zipped_keys_and_values(this->side); }
TYPED_TEST(HostIdioms, KeyPredicateGroupsUnequalKeys) { check_key_predicate(this->side); }
TYPED_TEST(HostIdioms, ExtremesOfStructsByOneField) { check_extremes_of_structs(this->side); }
TYPED_TEST(HostIdioms, ScansOfPairsAndStructs) { check_scans_of_pairs_and_structs(this->side); }
TYPED_TEST(HostIdioms, ThrustFunctors) { check_thrust_functors(this->side); }
TYPED_TEST(HostIdioms, ReversedGatheredAndTransformedOutputs) { check_reversed_gathered_and_transformed(this->side); }
TYPED_TEST(HostIdioms, LibcuxxIterators) {
#if CASCADE_HAS_CUDA_ITERATORS
  check_libcuxx_iterators(this->side);
#else
  GTEST_SKIP() << "this CCCL has no cuda/iterator (CCCL 3.1 and later)";
#endif
}
TYPED_TEST(HostIdioms, HalfValues) { check_16_bit_floats<__half>(this->side); }
TYPED_TEST(HostIdioms, Bfloat16Values) { check_16_bit_floats<__nv_bfloat16>(this->side); }
TYPED_TEST(HostIdioms, NarrowKeysAndValues) { check_narrow_keys_and_values(this->side); }
TYPED_TEST(HostIdioms, Int128Values) { check_int128_values(this->side); }
TYPED_TEST(HostIdioms, ComplexBoolAndWiderSums) { check_complex_bool_and_wider_sums(this->side); }
TYPED_TEST(HostIdioms, CountsAndRanksByKey) { check_counts_and_ranks_by_key(this->side); }
TYPED_TEST(HostIdioms, NonConstCallOperators) { check_non_const_call_operators(this->side); }

}  // namespace
}  // namespace cascade_test

_CCCL_SUPPRESS_DEPRECATED_POP
