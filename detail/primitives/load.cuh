#pragma once
// Loading V consecutive items per lane: one 16-byte vector load where the
// input is a raw pointer aligned for it, V scalar reads otherwise. Items are
// converted to the accumulator type on the way in.

#include <cascade/detail/util/iterator.cuh>

namespace cascade::detail {

// How many items of T one 16-byte load carries (1 where T does not divide 16).
template <class T>
inline constexpr int vector_items_v = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;

// Whether an iterator can be read with 16-byte vector loads once aligned:
// a raw pointer to a type whose size divides 16 and equals its alignment (so
// that skipping a few items always reaches a 16-byte boundary).
template <class It>
inline constexpr bool vectorizable_v = std::is_pointer_v<It> && vector_items_v<value_t<It>> > 1 &&
                                       alignof(value_t<It>) == sizeof(value_t<It>);

template <int V, bool Vectorized, class AccT, class It>
__device__ __forceinline__ void load_items(It in, offset_t index, AccT (&items)[V]) {
  if constexpr (Vectorized) {
    using T = value_t<It>;
    struct alignas(16) vector_t {
      T v[V];
    };
    const vector_t x = *reinterpret_cast<const vector_t*>(in + index);
#pragma unroll
    for (int k = 0; k < V; ++k) items[k] = static_cast<AccT>(x.v[k]);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) items[k] = static_cast<AccT>(in[index + k]);
  }
}

// Only the first `count` items (0 <= count <= V) are read.
template <int V, class AccT, class It>
__device__ __forceinline__ void load_items_guarded(It in, offset_t index, int count, AccT (&items)[V]) {
#pragma unroll
  for (int k = 0; k < V; ++k) {
    if (k < count) items[k] = static_cast<AccT>(in[index + k]);
  }
}

// items[0] op ... op items[count-1], in order (count >= 1).
template <int V, class AccT, class Op>
__device__ __forceinline__ AccT fold_items(const AccT (&items)[V], Op op, int count = V) {
  AccT x = items[0];
#pragma unroll
  for (int k = 1; k < V; ++k) {
    if (k < count) x = op(x, items[k]);
  }
  return x;
}

}  // namespace cascade::detail
