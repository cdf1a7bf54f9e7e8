// Compile-time facts of the API: identities, commutativity, strategy
// families, policy composition. A wrong fact fails the build; the runtime
// checks confirm the identities' values.

#include "../common.cuh"

#include <cascade/detail/util/iterator.cuh>

#include <thrust/device_ptr.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace cascade_test {
namespace {

using cascade::identity_element;
using cascade::is_commutative_v;
using cascade::detail::has_identity_v;

static_assert(is_commutative_v<cuda::std::plus<>> && is_commutative_v<cuda::std::plus<int>>);
static_assert(is_commutative_v<thrust::plus<int>> && is_commutative_v<thrust::maximum<float>>);
static_assert(is_commutative_v<std::plus<>> && is_commutative_v<std::bit_xor<unsigned>>);
static_assert(is_commutative_v<cuda::minimum<>> && is_commutative_v<cuda::std::logical_or<>>);
static_assert(!is_commutative_v<compose> && !is_commutative_v<cuda::std::minus<>>);
static_assert(is_commutative_v<decltype(cascade::commutative(compose{}))>);
static_assert(is_commutative_v<decltype(cascade::monoid(cuda::std::plus<>{}, 0))>);
static_assert(!is_commutative_v<decltype(cascade::monoid(compose{}, affine{1, 0}))>);

static_assert(has_identity_v<cuda::std::plus<>, int> && has_identity_v<cuda::maximum<>, double>);
static_assert(has_identity_v<thrust::bit_and<unsigned>, unsigned> && has_identity_v<std::multiplies<>, float>);
static_assert(!has_identity_v<compose, affine> && !has_identity_v<cuda::std::bit_and<>, float>);
static_assert(has_identity_v<decltype(cascade::monoid(compose{}, affine{1, 0})), affine>);
static_assert(has_identity_v<decltype(cascade::commutative(cuda::std::plus<>{})), int>);

namespace s = cascade::strategy;
static_assert(s::is_reduce_strategy_v<s::automatic_t> && s::is_scan_strategy_v<s::automatic_t>);
static_assert(s::is_reduce_strategy_v<s::warp_shuffle_t> && !s::is_scan_strategy_v<s::warp_shuffle_t>);
static_assert(s::is_scan_strategy_v<s::blelloch_t> && !s::is_reduce_strategy_v<s::blelloch_t>);
static_assert(std::is_same_v<decltype(cascade::cuda.with(s::radix4_pyramid)), const cascade::cuda_policy<s::radix4_pyramid_t>> ||
              std::is_same_v<decltype(cascade::cuda.with(s::radix4_pyramid)), cascade::cuda_policy<s::radix4_pyramid_t>>);
static_assert(cascade::cuda.with(s::warp_shuffle.block_size(128)).strategy().block_threads == 128);
static_assert(cascade::cuda.on(nullptr).with(s::decoupled_lookback).stream() == nullptr);

// Which iterators the reduce treats as computed (per-lane runs, no
// coalescing): counting and constant iterators and transforms of them, never
// anything that loads memory.
using negate = cuda::std::negate<int>;
using cascade::detail::computed_iterator_v;
using counting = thrust::counting_iterator<int>;
static_assert(computed_iterator_v<counting> && computed_iterator_v<thrust::counting_iterator<double>>);
#if defined(_CCCL_SUPPRESS_DEPRECATED_PUSH)
_CCCL_SUPPRESS_DEPRECATED_PUSH  // deprecated in CCCL 3.6 (cuda::constant_iterator), still accepted
#endif
static_assert(computed_iterator_v<thrust::constant_iterator<float>>);
#if defined(_CCCL_SUPPRESS_DEPRECATED_POP)
_CCCL_SUPPRESS_DEPRECATED_POP
#endif
static_assert(computed_iterator_v<thrust::transform_iterator<negate, counting>>);
static_assert(computed_iterator_v<thrust::transform_iterator<negate, thrust::transform_iterator<negate, counting>>>);
static_assert(!computed_iterator_v<const int*> && !computed_iterator_v<int*>);
static_assert(!computed_iterator_v<thrust::device_ptr<int>>);
static_assert(!computed_iterator_v<thrust::transform_iterator<negate, const int*>>);
#if CASCADE_HAS_CUDA_ITERATORS  // libcu++'s own (CCCL 3.1 and later)
static_assert(computed_iterator_v<cuda::counting_iterator<int>> && computed_iterator_v<cuda::constant_iterator<float>>);
static_assert(computed_iterator_v<cuda::transform_iterator<negate, cuda::counting_iterator<int>>>);
static_assert(computed_iterator_v<thrust::transform_iterator<negate, cuda::counting_iterator<int>>>);
static_assert(computed_iterator_v<cuda::transform_iterator<negate, counting>>);
static_assert(!computed_iterator_v<cuda::transform_iterator<negate, const int*>>);
#endif

// Policies: a cuda::stream_ref is a stream; a memory resource is recognised
// by its members (CCCL 3.1+ names, or CCCL 3.0's).
struct resource_new_names {
  void* allocate(cuda::stream_ref, std::size_t, std::size_t) { return nullptr; }
  void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
};
struct resource_old_names {
  void* allocate_async(std::size_t, std::size_t, cuda::stream_ref) { return nullptr; }
  void deallocate_async(void*, std::size_t, std::size_t, cuda::stream_ref) {}
};
static_assert(cascade::detail::is_memory_resource_v<resource_new_names>);
static_assert(cascade::detail::is_memory_resource_v<resource_old_names>);
static_assert(!cascade::detail::is_memory_resource_v<int>);

TEST(Traits, PolicyTakesStreamRefAndMemory) {
  const auto stream = reinterpret_cast<cudaStream_t>(std::uintptr_t(0x1234));
  EXPECT_EQ(cascade::cuda.on(cuda::stream_ref{stream}).stream(), stream);
  resource_new_names r;
  const auto p = cascade::cuda.on(stream).with_memory(r).with(s::decoupled_lookback);
  ASSERT_NE(p.memory(), nullptr);
  EXPECT_EQ(p.memory()->resource, static_cast<void*>(&r));
  EXPECT_EQ(p.stream(), stream);
  EXPECT_EQ(cascade::cuda.memory(), nullptr);
  resource_old_names old;
  EXPECT_EQ(cascade::cuda.with_memory(old).memory()->resource, static_cast<void*>(&old));
}

TEST(Traits, IdentityValues) {
  EXPECT_EQ((identity_element<cuda::std::plus<>, int>::value()), 0);
  EXPECT_EQ((identity_element<cuda::std::multiplies<>, double>::value()), 1.0);
  EXPECT_EQ((identity_element<cuda::minimum<>, float>::value()), std::numeric_limits<float>::infinity());
  EXPECT_EQ((identity_element<cuda::maximum<>, double>::value()), -std::numeric_limits<double>::infinity());
  EXPECT_EQ((identity_element<cuda::minimum<>, std::int16_t>::value()), std::numeric_limits<std::int16_t>::max());
  EXPECT_EQ((identity_element<cuda::maximum<>, std::int8_t>::value()), std::numeric_limits<std::int8_t>::lowest());
  EXPECT_EQ((identity_element<cuda::std::bit_and<>, std::uint16_t>::value()), std::uint16_t(0xffff));
  EXPECT_EQ((identity_element<std::bit_or<>, int>::value()), 0);
  EXPECT_EQ(cascade::detail::identity_of<affine>(cascade::monoid(compose{}, affine{1, 0})), (affine{1, 0}));
  EXPECT_EQ(cascade::detail::identity_of<int>(cascade::commutative(cuda::std::plus<>{})), 0);
}

TEST(Traits, MonoidAndCommutativeForwardTheOperator) {
  EXPECT_EQ(cascade::monoid(cuda::std::plus<>{}, 0)(2, 3), 5);
  EXPECT_EQ(cascade::commutative(cuda::maximum<>{})(2, 3), 3);
  EXPECT_EQ(cascade::commutative(cascade::monoid(compose{}, affine{1, 0}))(affine{2, 1}, affine{3, 0}),
            (compose{}(affine{2, 1}, affine{3, 0})));
}

// What a GPU policy runs for the std:: functors: their cuda::std:: twins
// (std's operator() is a host function), inside monoid and commutative too;
// other operators pass through untouched.
TEST(Traits, StdFunctorsRunAsTheirCudaStdTwins) {
  using cascade::detail::device_operator;
  static_assert(std::is_same_v<decltype(device_operator(std::plus<int>{})), cuda::std::plus<int>>);
  static_assert(std::is_same_v<decltype(device_operator(std::bit_xor<>{})), cuda::std::bit_xor<>>);
  static_assert(std::is_same_v<decltype(device_operator(cascade::monoid(std::multiplies<long>{}, 1l))),
                               cascade::monoid_t<cuda::std::multiplies<long>, long>>);
  static_assert(std::is_same_v<decltype(device_operator(cascade::commutative(std::logical_or<bool>{}))),
                               cascade::commutative_t<cuda::std::logical_or<bool>>>);
  static_assert(std::is_same_v<decltype(device_operator(compose{})), const compose&>);
  EXPECT_EQ(device_operator(std::plus<int>{})(2, 3), 5);
  EXPECT_EQ(device_operator(std::bit_and<unsigned>{})(6u, 3u), 2u);
  const auto m = device_operator(cascade::monoid(std::multiplies<int>{}, 1));
  EXPECT_EQ(m(4, 5), 20);
  EXPECT_EQ(m.identity, 1);
  EXPECT_EQ(device_operator(compose{})(affine{2, 1}, affine{3, 0}), (compose{}(affine{2, 1}, affine{3, 0})));
}

// A user's operator whose call operator is not const, with its traits
// declared: a GPU policy holds it mutable (the kernels call through const
// objects) and it keeps its commutativity and identity.
struct larger_not_const {
  int operator()(int a, int b) { return a < b ? b : a; }
};

}  // namespace
}  // namespace cascade_test

template <>
struct cascade::is_commutative<cascade_test::larger_not_const> : std::true_type {};
template <>
struct cascade::identity_element<cascade_test::larger_not_const, int> {
  static constexpr int value() { return -1000; }
};

namespace cascade_test {
namespace {

TEST(Traits, NonConstCallOperatorsAreHeldMutableWithTheirTraits) {
  using cascade::detail::device_operator;
  const auto op = device_operator(larger_not_const{});
  using held = std::decay_t<decltype(op)>;
  static_assert(std::is_same_v<held, cascade::detail::mutable_call<larger_not_const>>);
  static_assert(is_commutative_v<held> && has_identity_v<held, int>);
  static_assert(std::is_same_v<decltype(device_operator(cascade::monoid(larger_not_const{}, 0))),
                               cascade::monoid_t<held, int>>);
  EXPECT_EQ(op(3, 5), 5);  // called through a const object
  EXPECT_EQ(cascade::detail::identity_of<int>(op), -1000);
  EXPECT_EQ(device_operator(cascade::monoid(larger_not_const{}, 0))(7, 2), 7);
}

}  // namespace
}  // namespace cascade_test
