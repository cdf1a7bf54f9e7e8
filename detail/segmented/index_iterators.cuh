#pragma once
// Iterators over an index: how a segmented algorithm hands the scan engine
// its items and receives its outputs without a kernel of its own.
//
// index_input<F>: item i is f(i), a pure function of i (the engine may read
// any tile's items again, e.g. to recompute a silent predecessor's aggregate).
// index_output<F>: storing x at position i calls f(i, x): the output policy
// decides what, if anything, goes to memory (a value per item, or one per
// segment end). Where F stages per-tile data (F::tile_storage, F::stage;
// F::view for outputs), the scan engine's tiles use it (tile_staging.cuh).

#include <cascade/detail/primitives/tile_staging.cuh>
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
  // The values the items read (the engine's in-place test: may_overlap).
  template <class G = F>
  __device__ auto array() const -> decltype(std::declval<const G&>().values) {
    return f.values;
  }
  // The arrays item k is read from (the engine's L2 prefetch).
  template <class Fn, class G = F>
  __device__ auto each_array(offset_t k, Fn fn) const -> decltype(std::declval<const G&>().each_array(k, fn)) {
    return f.each_array(first + k, fn);
  }
};

// What an output policy writes over: a scan's outputs, or a reduction's values.
template <class G>
__device__ auto output_array(const G& g, int) -> decltype(g.out) {
  return g.out;
}
template <class G>
__device__ auto output_array(const G& g, long) -> decltype(g.values_out) {
  return g.values_out;
}

template <class F, class T>
struct index_output {
  using value_type = T;
  using difference_type = offset_t;
  using pointer = void;
  using iterator_category = std::random_access_iterator_tag;

  struct proxy {
    const F& f;
    offset_t i;
    __device__ void operator=(const T& x) const { f(i, x); }
  };
  using reference = proxy;

  F f;
  offset_t first;

  __device__ proxy operator[](offset_t k) const { return {f, first + k}; }
  __device__ proxy operator*() const { return {f, first}; }
  __host__ __device__ index_output operator+(offset_t k) const { return {f, first + k}; }
  template <class G = F>
  __device__ auto array() const -> decltype(output_array(std::declval<const G&>(), 0)) {
    return output_array(f, 0);
  }
};

// The tile [base, base + valid) of the input is F's items first + base on.
template <class F, offset_t TileItems>
struct tile_staging<index_input<F>, TileItems, std::void_t<typename F::template tile_storage<TileItems>>> {
  static constexpr bool staged = true;
  using storage = typename F::template tile_storage<TileItems>;
  __device__ static auto stage(const index_input<F>& in, offset_t base, int valid, storage& s) {
    const auto f = in.f.template stage<TileItems>(in.first + base, valid, s);
    return index_input<std::remove_const_t<decltype(f)>>{f, in.first};
  }
};

template <class F, class T, class Storage>
struct tile_output_view<index_output<F, T>, Storage,
                        std::void_t<decltype(std::declval<const F&>().view(std::declval<const Storage&>()))>> {
  __device__ static auto view(const index_output<F, T>& out, const Storage& s) {
    const auto f = out.f.view(s);
    return index_output<std::remove_const_t<decltype(f)>, T>{f, out.first};
  }
};

}  // namespace cascade::detail
