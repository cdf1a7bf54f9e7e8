#pragma once
// Thrust's fancy iterators as launch arguments, member by member: none has a
// unique object representation (an empty functor's byte and its padding, or
// a class that is not trivially copyable), so a launch that held one compared
// unequal to the last and paid a graph update on every repeated call
// (util/launch.cuh). launch_members<T>::append gives the members that make
// the iterator what it is.

#include <thrust/device_ptr.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/iterator/detail/normal_iterator.h>

#include <cuda/std/tuple>

namespace cascade::detail {

template <class T>
struct launch_members {
  static constexpr bool available = false;
};

// A device_vector's iterators, under another iterator (a transform's base).
template <class T>
struct launch_members<thrust::device_ptr<T>> {
  static constexpr bool available = true;
  template <class Buffer>
  static void append(Buffer& b, const thrust::device_ptr<T>& p) {
    b.append(p.get());
  }
};

template <class P>
struct launch_members<thrust::detail::normal_iterator<P>> {
  static constexpr bool available = true;
  template <class Buffer>
  static void append(Buffer& b, const thrust::detail::normal_iterator<P>& it) {
    b.append(it.base());
  }
};

template <class I, class S, class Tr, class D>
struct launch_members<thrust::counting_iterator<I, S, Tr, D>> {
  static constexpr bool available = true;
  template <class Buffer>
  static void append(Buffer& b, const thrust::counting_iterator<I, S, Tr, D>& it) {
    b.append(*it);  // the count it stands at
  }
};

#if defined(_CCCL_SUPPRESS_DEPRECATED_PUSH)
_CCCL_SUPPRESS_DEPRECATED_PUSH  // thrust::constant_iterator is deprecated in CCCL 3.6, still accepted
#endif
template <class V, class I, class S>
struct launch_members<thrust::constant_iterator<V, I, S>> {
  static constexpr bool available = true;
  template <class Buffer>
  static void append(Buffer& b, const thrust::constant_iterator<V, I, S>& it) {
    b.append(*it);        // the value
    b.append(it.base());  // and the position (a counting iterator)
  }
};
#if defined(_CCCL_SUPPRESS_DEPRECATED_POP)
_CCCL_SUPPRESS_DEPRECATED_POP
#endif

template <class F, class It, class R, class V>
struct launch_members<thrust::transform_iterator<F, It, R, V>> {
  static constexpr bool available = true;
  template <class Buffer>
  static void append(Buffer& b, const thrust::transform_iterator<F, It, R, V>& it) {
    b.append(it.functor());
    b.append(it.base());
  }
};

template <class Tuple>
struct launch_members<thrust::zip_iterator<Tuple>> {
  static constexpr bool available = true;
  template <class Buffer>
  static void append(Buffer& b, const thrust::zip_iterator<Tuple>& it) {
    ::cuda::std::apply([&](const auto&... in) { (b.append(in), ...); }, it.get_iterator_tuple());
  }
};

}  // namespace cascade::detail
