#pragma once
// index_input<F>: an iterator whose item i is f(i), a pure function of i:
// the masked scan's items as pairs (heads.cuh), which a look-back reads
// again to recompute a silent predecessor's aggregate.

#include <cascade/detail/util/iterator.cuh>

#include <iterator>
#include <utility>

namespace cascade::detail {

template <class F>
struct index_input {
  using value_type = typename F::result_type;
  using difference_type = offset_t;
  using reference = value_type;
  using pointer = void;
  using iterator_category = std::random_access_iterator_tag;

  F f;
  offset_t first;

  __device__ value_type operator[](offset_t k) const { return f(first + k); }
  __device__ value_type operator*() const { return f(first); }
  __host__ __device__ index_input operator+(offset_t k) const { return {f, first + k}; }
  // The arrays item k is read from (the engine's L2 prefetch).
  template <class Fn, class G = F>
  __device__ auto each_array(offset_t k, Fn fn) const -> decltype(std::declval<const G&>().each_array(k, fn)) {
    return f.each_array(first + k, fn);
  }
};

}  // namespace cascade::detail
