#pragma once
// Loading V consecutive items per lane: one 16-byte vector load where the
// input is a raw pointer aligned for it, V scalar reads otherwise. Items are
// converted to the accumulator type on the way in.

#include <cascade/detail/util/indexed_transform.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <nv/target>

#include <algorithm>
#include <cstdint>

namespace cascade::detail {

// How many items of T one 16-byte load carries (1 where T does not divide 16).
template <class T>
inline constexpr int vector_items_v = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;

// Whether an iterator can be read with 16-byte vector loads once aligned:
// a raw pointer to a type whose size divides 16 and equals its alignment (so
// that skipping a few items always reaches a 16-byte boundary).
template <class It>
inline constexpr bool vectorizable_pointer_v = std::is_pointer_v<It> && vector_items_v<value_t<It>> > 1 &&
                                               alignof(value_t<It>) == sizeof(value_t<It>);
// An indexed_transform of such pointers, all of one item size, which its
// maker found sharing their alignment (Together): one vector from each.
template <class It>
struct vectorizable : std::bool_constant<vectorizable_pointer_v<It>> {};
template <class F, class It0, class... It>
struct vectorizable<indexed_transform<F, true, It0, It...>>
    : std::bool_constant<vectorizable_pointer_v<It0> &&
                         ((vectorizable_pointer_v<It> && sizeof(value_t<It>) == sizeof(value_t<It0>)) && ...)> {};
template <class It>
inline constexpr bool vectorizable_v = vectorizable<It>::value;

// 16 bytes from global to shared memory without passing through registers
// (sm_80's cp.async, cached in L2 only: each byte is read once); completed
// by the thread's next wait_copies_async. Before sm_80, a plain copy.
template <class V>
__device__ __forceinline__ void copy_16_async(V* to_shared, const V* from_global) {
  static_assert(sizeof(V) == 16 && alignof(V) == 16, "one 16-byte unit");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                                      static_cast<unsigned>(__cvta_generic_to_shared(to_shared))),
                                  "l"(__cvta_generic_to_global(from_global))
                                  : "memory");),
                    (*to_shared = *from_global;))
}
__device__ __forceinline__ void wait_copies_async() {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.wait_all;" ::: "memory");))
}

template <int V, bool Vectorized, class AccT, class It>
__device__ __forceinline__ void load_items(It in, offset_t index, AccT (&items)[V]) {
  if constexpr (Vectorized && is_indexed_transform<It>::value) {
    in.template load_vectors<V>(index, items);
  } else if constexpr (Vectorized) {
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

namespace cascade::detail {

// A thread's `Items` consecutive items starting at in + index, in the blocked
// arrangement: as 16-byte vectors when the caller says `vector` (all Items
// present and the pointer aligned: callers decide it per tile, so that no
// thread of a partial tile takes it), else `count` guarded scalar reads.
template <int Items, class AccT, class It>
__device__ __forceinline__ void load_blocked(It in, offset_t index, int count, bool vector, AccT (&items)[Items]) {
  using T = load_type_t<It>;
  constexpr int per_vector = vector_items_v<T>;
  if constexpr (vectorizable_v<It> && Items % per_vector == 0) {
    if (vector) {
#pragma unroll
      for (int v = 0; v < Items / per_vector; ++v) {
        AccT part[per_vector];
        load_items<per_vector, true>(in, index + v * per_vector, part);
#pragma unroll
        for (int k = 0; k < per_vector; ++k) items[v * per_vector + k] = part[k];
      }
      return;
    }
  }
  load_items_guarded(in, index, count, items);
}

// The mirror of load_blocked: the first `count` items to out + index, as
// vectors when the caller says `vector`.
template <int Items, class AccT, class OutIt>
__device__ __forceinline__ void store_blocked(OutIt out, offset_t index, int count, bool vector, const AccT (&items)[Items]) {
  using T = value_t<OutIt>;
  constexpr int per_vector = vector_items_v<T>;
  if constexpr (vectorizable_v<OutIt> && Items % per_vector == 0) {
    if (vector) {
      struct alignas(16) vector_t {
        T v[per_vector];
      };
#pragma unroll
      for (int v = 0; v < Items / per_vector; ++v) {
        vector_t x;
#pragma unroll
        for (int k = 0; k < per_vector; ++k) x.v[k] = static_cast<T>(items[v * per_vector + k]);
        *reinterpret_cast<vector_t*>(out + index + v * per_vector) = x;
      }
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (k < count) out[index + k] = items[k];
  }
}

// Items before the first 16-byte boundary (vectorised inputs only).
template <class It>
int aligned_head(It in, offset_t n) {
  if constexpr (vectorizable_v<It>) {
    std::uintptr_t misalignment = 0;
    if constexpr (std::is_pointer_v<It>) misalignment = reinterpret_cast<std::uintptr_t>(in) % 16;
    else misalignment = in.misalignment();
    constexpr auto item = sizeof(load_type_t<It>);
    if (misalignment != 0) return static_cast<int>(std::min<offset_t>((16 - misalignment) / item, n));
  }
  return 0;
}

// Whether a pointer (or any iterator: no) sits on a 16-byte boundary.
template <class It>
__host__ __device__ bool aligned16(It it) {
  if constexpr (std::is_pointer_v<It>) return reinterpret_cast<std::uintptr_t>(it) % 16 == 0;
  return false;
}

}  // namespace cascade::detail
