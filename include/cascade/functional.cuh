#pragma once
// Operators and what cascade knows about them: an identity element (needed by
// strategies that pad partial tiles, as the seeds pad with 0) and
// commutativity (needed by strategies that combine element i with i + s).
//
//   cascade::monoid(op, identity)    an operator together with its identity
//   cascade::commutative(op)         declares that op commutes
//   cascade::identity_element<Op,T>  trait; specialise it for your own operators
//   cascade::is_commutative<Op>      trait; specialise it for your own operators

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

// std::plus and its kin without the rest of <functional>, which in
// libstdc++'s C++17 mode brings std::function, <unordered_map> and the
// searchers: about 13,000 preprocessed lines in every program (see
// scripts/compile-time).
#if __has_include(<bits/stl_function.h>)
#include <bits/stl_function.h>
#else
#include <functional>
#endif
#include <type_traits>

namespace cascade {

namespace detail {
// The family an operator belongs to, whatever its argument type, with the
// std:: functors mapped onto their cuda::std:: twins (thrust::plus and friends
// are already aliases of those).
template <class Op>
struct family {
  using type = Op;
};
template <template <class> class Op, class U>
struct family<Op<U>> {
  using type = Op<void>;
};
template <>
struct family<std::plus<>> {
  using type = ::cuda::std::plus<>;
};
template <class U>
struct family<std::plus<U>> : family<std::plus<>> {};
template <class U>
struct family<std::multiplies<U>> {
  using type = ::cuda::std::multiplies<>;
};
template <class U>
struct family<std::bit_and<U>> {
  using type = ::cuda::std::bit_and<>;
};
template <class U>
struct family<std::bit_or<U>> {
  using type = ::cuda::std::bit_or<>;
};
template <class U>
struct family<std::bit_xor<U>> {
  using type = ::cuda::std::bit_xor<>;
};
template <class U>
struct family<std::logical_and<U>> {
  using type = ::cuda::std::logical_and<>;
};
template <class U>
struct family<std::logical_or<U>> {
  using type = ::cuda::std::logical_or<>;
};
template <class Op>
using family_t = typename family<Op>::type;

// A function object whose call operator is not const, held mutable so that
// const code can call it: Thrust takes such functors (its wrappers hold them
// mutable), while cascade's kernels, tiles and candidates call their
// operators through const objects. It is the same operator to every trait
// (family, identity, commutativity: forwarded below).
template <class F>
struct mutable_call {
  mutable F f;

  template <class Buffer>
  void append_members(Buffer& b) const {  // launch bytes: the functor's own (see monoid_t)
    b.append(f);
  }

  template <class... A>
  __host__ __device__ constexpr auto operator()(A&&... a) const -> decltype(f(static_cast<A&&>(a)...)) {
    return f(static_cast<A&&>(a)...);
  }
};
template <class F>
struct family<mutable_call<F>> : family<F> {};

// Whether F's one call operator is not const (an overloaded or templated
// operator() is taken as it is).
template <class M>
struct is_const_member_call : ::cuda::std::false_type {};
template <class R, class C, class... A>
struct is_const_member_call<R (C::*)(A...) const> : ::cuda::std::true_type {};
template <class R, class C, class... A>
struct is_const_member_call<R (C::*)(A...) const noexcept> : ::cuda::std::true_type {};
template <class F, class = void>
struct calls_only_non_const : ::cuda::std::false_type {};
template <class F>
struct calls_only_non_const<F, ::cuda::std::void_t<decltype(&F::operator())>>
    : ::cuda::std::bool_constant<!is_const_member_call<decltype(&F::operator())>::value> {};

template <class T>
inline constexpr bool is_arithmetic_v = ::cuda::std::numeric_limits<T>::is_specialized;

// known_identity<Family, T>: value() where cascade knows the identity.
template <class Family, class T, class = void>
struct known_identity {};

template <class T>
struct known_identity<::cuda::std::plus<>, T, ::cuda::std::enable_if_t<is_arithmetic_v<T>>> {
  __host__ __device__ static constexpr T value() { return T(0); }
};
template <class T>
struct known_identity<::cuda::std::multiplies<>, T, ::cuda::std::enable_if_t<is_arithmetic_v<T>>> {
  __host__ __device__ static constexpr T value() { return T(1); }
};
// min's identity is the largest value (+inf where the type has one), max's the smallest.
template <class T>
struct known_identity<::cuda::minimum<>, T, ::cuda::std::enable_if_t<is_arithmetic_v<T>>> {
  __host__ __device__ static constexpr T value() {
    using limits = ::cuda::std::numeric_limits<T>;
    if constexpr (limits::has_infinity) {
      return limits::infinity();
    } else {
      return limits::max();
    }
  }
};
template <class T>
struct known_identity<::cuda::maximum<>, T, ::cuda::std::enable_if_t<is_arithmetic_v<T>>> {
  __host__ __device__ static constexpr T value() {
    using limits = ::cuda::std::numeric_limits<T>;
    if constexpr (limits::has_infinity) {
      return -limits::infinity();
    } else {
      return limits::lowest();
    }
  }
};
template <class T>
struct known_identity<::cuda::std::bit_and<>, T, ::cuda::std::enable_if_t<::cuda::std::is_integral_v<T>>> {
  __host__ __device__ static constexpr T value() { return static_cast<T>(~T(0)); }
};
template <class T>
struct known_identity<::cuda::std::bit_or<>, T, ::cuda::std::enable_if_t<::cuda::std::is_integral_v<T>>>
    : known_identity<::cuda::std::plus<>, T> {};
template <class T>
struct known_identity<::cuda::std::bit_xor<>, T, ::cuda::std::enable_if_t<::cuda::std::is_integral_v<T>>>
    : known_identity<::cuda::std::plus<>, T> {};
template <class T>
struct known_identity<::cuda::std::logical_and<>, T> : known_identity<::cuda::std::multiplies<>, T> {};
template <class T>
struct known_identity<::cuda::std::logical_or<>, T> : known_identity<::cuda::std::plus<>, T> {};
}  // namespace detail

// ---------------------------------------------------------------------------
// identity_element<Op, T>: has a static value() where the identity is known.
// Specialise it for your own operator and type (or pass cascade::monoid).
// ---------------------------------------------------------------------------
template <class Op, class T, class = void>
struct identity_element : detail::known_identity<detail::family_t<Op>, T> {};

// ---------------------------------------------------------------------------
// is_commutative<Op>: true for the recognised operators and for anything
// wrapped in cascade::commutative(op).
// ---------------------------------------------------------------------------
namespace detail {
template <class Family>
struct known_commutative
    : ::cuda::std::disjunction<::cuda::std::is_same<Family, ::cuda::std::plus<>>,
                               ::cuda::std::is_same<Family, ::cuda::std::multiplies<>>,
                               ::cuda::std::is_same<Family, ::cuda::minimum<>>,
                               ::cuda::std::is_same<Family, ::cuda::maximum<>>,
                               ::cuda::std::is_same<Family, ::cuda::std::bit_and<>>,
                               ::cuda::std::is_same<Family, ::cuda::std::bit_or<>>,
                               ::cuda::std::is_same<Family, ::cuda::std::bit_xor<>>,
                               ::cuda::std::is_same<Family, ::cuda::std::logical_and<>>,
                               ::cuda::std::is_same<Family, ::cuda::std::logical_or<>>> {};
}  // namespace detail

template <class Op, class = void>
struct is_commutative : detail::known_commutative<detail::family_t<Op>> {};

template <class Op>
inline constexpr bool is_commutative_v = is_commutative<Op>::value;

// ---------------------------------------------------------------------------
// monoid(op, identity): an operator with an explicit identity element.
// ---------------------------------------------------------------------------
template <class Op, class T>
struct monoid_t {
  Op op;
  T identity;

  // Its bytes as a kernel argument, member by member (an empty operator's
  // byte and the padding after it are no value): repeated calls then compare
  // equal and skip their graph update (detail/util/launch.cuh).
  template <class Buffer>
  void append_members(Buffer& b) const {
    b.append(op);
    b.append(identity);
  }

  template <class A, class B>
  __host__ __device__ constexpr auto operator()(A&& a, B&& b) const
      -> decltype(op(static_cast<A&&>(a), static_cast<B&&>(b))) {
    return op(static_cast<A&&>(a), static_cast<B&&>(b));
  }
};

template <class Op, class T>
constexpr monoid_t<Op, T> monoid(Op op, T identity) {
  return {op, identity};
}

template <class Op, class T>
struct is_commutative<monoid_t<Op, T>> : is_commutative<Op> {};

// ---------------------------------------------------------------------------
// commutative(op): the caller's declaration that op(a, b) == op(b, a).
// ---------------------------------------------------------------------------
template <class Op>
struct commutative_t {
  Op op;

  template <class Buffer>
  void append_members(Buffer& b) const {  // see monoid_t
    b.append(op);
  }

  template <class A, class B>
  __host__ __device__ constexpr auto operator()(A&& a, B&& b) const
      -> decltype(op(static_cast<A&&>(a), static_cast<B&&>(b))) {
    return op(static_cast<A&&>(a), static_cast<B&&>(b));
  }
};

template <class Op>
constexpr commutative_t<Op> commutative(Op op) {
  return {op};
}

template <class Op>
struct is_commutative<commutative_t<Op>> : ::cuda::std::true_type {};
template <class Op, class T>
struct identity_element<commutative_t<Op>, T> : identity_element<Op, T> {};

template <class F>
struct is_commutative<detail::mutable_call<F>> : is_commutative<F> {};
template <class F, class T>
struct identity_element<detail::mutable_call<F>, T> : identity_element<F, T> {};

namespace detail {

template <class Op, class T, class = void>
struct has_static_identity : ::cuda::std::false_type {};
template <class Op, class T>
struct has_static_identity<Op, T, ::cuda::std::void_t<decltype(identity_element<Op, T>::value())>>
    : ::cuda::std::true_type {};

// Does op carry or have a known identity for accumulator type T?
template <class Op, class T>
struct has_identity : has_static_identity<Op, T> {};
template <class Op, class U, class T>
struct has_identity<monoid_t<Op, U>, T> : ::cuda::std::true_type {};
template <class Op, class T>
struct has_identity<commutative_t<Op>, T> : has_identity<Op, T> {};
template <class F, class T>
struct has_identity<mutable_call<F>, T> : has_identity<F, T> {};

template <class Op, class T>
inline constexpr bool has_identity_v = has_identity<Op, T>::value;

// The operator's form for folds whose left operand holds only items that come
// before all of its right operand's (a thread folding its own items in
// order): the same results, where tie rules that make an operator commute can
// rest on that order instead (the element selections, util/element_order.cuh).
// By default the operator itself.
template <class Op>
struct in_order {
  static __host__ __device__ constexpr const Op& form(const Op& op) { return op; }
};

// The identity of op as a T: from the monoid object, else from the trait.
template <class T, class Op>
__host__ __device__ constexpr T identity_of(const Op&) {
  return identity_element<Op, T>::value();
}
template <class T, class Op, class U>
__host__ __device__ constexpr T identity_of(const monoid_t<Op, U>& m) {
  return static_cast<T>(m.identity);
}
template <class T, class Op>
__host__ __device__ constexpr T identity_of(const commutative_t<Op>& c) {
  return identity_of<T>(c.op);
}
template <class T, class F>
__host__ __device__ constexpr T identity_of(const mutable_call<F>& m) {
  return identity_of<T>(m.f);
}

// The operator a GPU policy runs (and the element candidates on any policy
// call): the std:: functors become their cuda::std:: twins, also inside
// monoid and commutative; a call operator that is not const is held
// mutable; any other operator is itself. std::plus<T>::operator() is a host
// function (nvcc would need --expt-relaxed-constexpr to call it in a
// kernel); the twins compute the same and have the same identities and
// commutativity (see family above).
template <class Op>
constexpr decltype(auto) device_operator(const Op& op) {
  if constexpr (calls_only_non_const<Op>::value) return mutable_call<Op>{op};
  else return (op);
}
template <class U>
constexpr ::cuda::std::plus<U> device_operator(const std::plus<U>&) {
  return {};
}
template <class U>
constexpr ::cuda::std::multiplies<U> device_operator(const std::multiplies<U>&) {
  return {};
}
template <class U>
constexpr ::cuda::std::bit_and<U> device_operator(const std::bit_and<U>&) {
  return {};
}
template <class U>
constexpr ::cuda::std::bit_or<U> device_operator(const std::bit_or<U>&) {
  return {};
}
template <class U>
constexpr ::cuda::std::bit_xor<U> device_operator(const std::bit_xor<U>&) {
  return {};
}
template <class U>
constexpr ::cuda::std::logical_and<U> device_operator(const std::logical_and<U>&) {
  return {};
}
template <class U>
constexpr ::cuda::std::logical_or<U> device_operator(const std::logical_or<U>&) {
  return {};
}
template <class Op, class T>
constexpr auto device_operator(const monoid_t<Op, T>& m) {
  return monoid(device_operator(m.op), m.identity);
}
template <class Op>
constexpr auto device_operator(const commutative_t<Op>& c) {
  return commutative(device_operator(c.op));
}

}  // namespace detail
}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
