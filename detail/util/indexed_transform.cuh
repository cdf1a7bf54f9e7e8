#pragma once
// indexed_transform: the iterator that transform_reduce and the *_element
// algorithms hand to the automatic reduce. Its item i is f(i, x1[i], x2[i],
// ...): the transform of one or more input ranges, told its position (the
// *_element algorithms keep it, transform_reduce ignores it), or, with no
// inputs, f(i) alone (minmax_element's pairs of an unaligned array: f reads
// them itself).
//
// Why not thrust::transform_iterator over a zip_iterator: the reduce engine
// reads raw pointers with 16-byte vector loads, and a zip of two pointers is
// no pointer. Here, where every input is a raw pointer to items of one size
// and the caller has checked that they share their alignment (`Together`),
// a lane loads one 16-byte vector from each input and transforms the items
// in registers (load_items in primitives/load.cuh), so that both arrays are
// read at the same rate as one.

#include <cascade/detail/util/iterator.cuh>

#include <cuda/std/tuple>
#include <cuda/std/type_traits>

#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>

namespace cascade::detail {

template <class F, bool Together, class... It>
class indexed_transform {
 public:
  // cuda::std's invoke_result: it also takes an extended __device__ lambda
  // with a trailing return type (one without is CCCL's clear compile error).
  using value_type = std::decay_t<::cuda::std::invoke_result_t<const F&, offset_t, value_t<It>...>>;
  using difference_type = std::ptrdiff_t;
  using reference = value_type;
  using pointer = void;
  using iterator_category = std::random_access_iterator_tag;

  indexed_transform() = default;
#pragma nv_exec_check_disable
  __host__ __device__ indexed_transform(F f, offset_t pos, It... in) : f_(f), pos_(pos), in_(in...) {}

  __host__ __device__ value_type operator[](offset_t k) const { return item(pos_ + k, std::index_sequence_for<It...>{}); }
  __host__ __device__ value_type operator*() const { return (*this)[0]; }
  __host__ __device__ indexed_transform operator+(offset_t k) const {
    indexed_transform r = *this;
    r.pos_ += k;
    return r;
  }
  __host__ __device__ indexed_transform& operator+=(offset_t k) { return pos_ += k, *this; }
  __host__ __device__ indexed_transform& operator++() { return ++pos_, *this; }
  __host__ __device__ offset_t operator-(const indexed_transform& other) const { return pos_ - other.pos_; }
  __host__ __device__ bool operator==(const indexed_transform& o) const { return pos_ == o.pos_; }
  __host__ __device__ bool operator!=(const indexed_transform& o) const { return pos_ != o.pos_; }

  // V items from pos + k: one 16-byte vector from each input (V items of the
  // load type fill one; the maker checked the alignment: see vectorizable_v).
  template <int V, class AccT>
  __device__ __forceinline__ void load_vectors(offset_t k, AccT (&items)[V]) const {
    const offset_t at = pos_ + k;
    ::cuda::std::apply([&](const It&... in) {
      auto vectors = ::cuda::std::make_tuple(load_run<V>(in + at)...);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        items[j] = ::cuda::std::apply([&](const auto&... run) { return static_cast<AccT>(f_(at + j, run.v[j]...)); },
                                      vectors);
      }
    }, in_);
  }

  // What the launch compares to tell repeated arguments (util/launch.cuh):
  // the members, not the object's bytes (its functor's byte and padding).
  template <class Buffer>
  void append_members(Buffer& b) const {
    b.append(f_);
    b.append(pos_);
    ::cuda::std::apply([&](const It&... in) { (b.append(in), ...); }, in_);
  }

  // Bytes past the last 16-byte boundary at the current position (0 for
  // inputs that are no pointers: they are never vectorised).
  __host__ __device__ std::uintptr_t misalignment() const {
    if constexpr (sizeof...(It) > 0) {
      using first_t = std::tuple_element_t<0, std::tuple<It...>>;
      if constexpr (std::is_pointer_v<first_t>) {
        return reinterpret_cast<std::uintptr_t>(::cuda::std::get<0>(in_) + pos_) % 16;
      }
    }
    return 0;
  }

 private:
  template <int V, class T>
  struct alignas(16) run_t {
    T v[V];
  };
  template <int V, class P>
  __device__ __forceinline__ static run_t<V, value_t<P>> load_run(P p) {
    return *reinterpret_cast<const run_t<V, value_t<P>>*>(p);
  }

#pragma nv_exec_check_disable
  template <std::size_t... I>
  __host__ __device__ value_type item(offset_t i, std::index_sequence<I...>) const {
    return f_(i, ::cuda::std::get<I>(in_)[i]...);
  }

  F f_;
  offset_t pos_ = 0;
  ::cuda::std::tuple<It...> in_;
};

template <class It>
struct is_indexed_transform : std::false_type {};
template <class F, bool Together, class... It>
struct is_indexed_transform<indexed_transform<F, Together, It...>> : std::true_type {};

// Computed when every input is (a counting or constant iterator, ...): the
// reduce then lets each lane fold a run of its own. With no inputs, f reads
// what it needs itself (minmax_element's pairs): reads from memory, as far
// as the reduce can tell.
template <class F, bool Together, class... It>
struct computed_iterator<indexed_transform<F, Together, It...>>
    : std::bool_constant<(sizeof...(It) > 0) && (computed_iterator_v<It> && ...)> {};

// The item type that sizes loads: the first input's (what a lane reads), not
// the transformed value's.
template <class It>
struct load_type {
  using type = value_t<It>;
};
template <class F, bool Together, class It0, class... It>
struct load_type<indexed_transform<F, Together, It0, It...>> {
  using type = value_t<It0>;
};
template <class It>
using load_type_t = typename load_type<It>::type;

// f(i, x...) -> g(x...): transform_reduce's functors do not take the position.
// g is mutable, as in thrust::transform_iterator: an extended __device__
// lambda's host-side stand-in has a call operator that is not const.
template <class G>
struct ignore_position {
  mutable G g;
  template <class Buffer>
  void append_members(Buffer& b) const {  // see indexed_transform::append_members
    b.append(g);
  }
  // The return type is declared, not deduced: deducing it would call g in
  // host code, which an extended __device__ lambda cannot be.
#pragma nv_exec_check_disable
  template <class... X>
  __host__ __device__ ::cuda::std::invoke_result_t<G&, X...> operator()(offset_t, X&&... x) const {
    return g(std::forward<X>(x)...);
  }
};

// Whether the inputs, as given, may be read together with vector loads:
// raw pointers, one item size, one misalignment.
template <class... P>
bool aligned_together(P... p) {
  if constexpr ((std::is_pointer_v<P> && ...)) {
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(std::get<0>(std::make_tuple(p...))) % 16;
    return ((reinterpret_cast<std::uintptr_t>(p) % 16 == first) && ...);
  } else {
    return false;
  }
}

}  // namespace cascade::detail
