#pragma once
// L2 prefetch of the inputs a block will read about a wave later, for the
// kernels that take one tile per block (the look-back scans, the segmented
// reductions): those loads are in flight while the SM's blocks wait on
// other things (a look-back, a segment search), and hold no registers.

#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/math.cuh>

#include <nv/target>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace cascade::detail {

// The arrays an input reads item i from, each given to fn as a pointer to
// item i's element: the input itself where it is a pointer, else those an
// input names through each_array(i, fn) (a segmented input's keys and values).
template <class It, class = void>
struct names_arrays : std::false_type {};
template <class It>
struct names_arrays<It, std::void_t<decltype(std::declval<const It&>().each_array(offset_t{}, std::declval<void (*)(const int*)>()))>>
    : std::true_type {};
template <class InIt, class Fn>
__device__ __forceinline__ void each_input_array(const InIt& in, offset_t i, Fn fn) {
  if constexpr (std::is_pointer_v<InIt>) fn(in + i);
  else if constexpr (names_arrays<InIt>::value) in.each_array(i, fn);
}

// Asks L2 for the whole 16-byte units of [p, p + count): a hint (one bulk
// prefetch, sm_90; nothing before).
template <class T>
__device__ __forceinline__ void prefetch_l2(const T* p, offset_t count) {
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + 15) / 16 * 16;
  const auto end = reinterpret_cast<std::uintptr_t>(p + count) / 16 * 16;
  if (end > begin) {
    NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin),
                                                  "r"(unsigned(end - begin)) : "memory");))
  }
}

// The tile whose inputs a block of tile `tile` asks for: the one
// Tuning::prefetch_bytes of Value after it, which a block starting about a
// wave later will read.
template <class Tuning, offset_t TileItems, class Value>
__device__ __forceinline__ offset_t tile_ahead(offset_t tile) {
  constexpr offset_t tile_bytes = TileItems * offset_t(sizeof(Value));
  return tile + (Tuning::prefetch_bytes > tile_bytes ? Tuning::prefetch_bytes / tile_bytes : 1);
}

// Asks L2 for the inputs of that tile (thread 0; a hint: no result depends on it).
template <class Tuning, offset_t TileItems, class InIt>
__device__ __forceinline__ void prefetch_tile(InIt in, offset_t n, offset_t tile) {
  if constexpr (Tuning::prefetch_bytes > 0 && (std::is_pointer_v<InIt> || names_arrays<InIt>::value)) {
    const offset_t first = tile_ahead<Tuning, TileItems, value_t<InIt>>(tile) * TileItems;
    if (threadIdx.x != 0 || first >= n) return;
    const offset_t count = min_of(n - first, TileItems);
    each_input_array(in, first, [&](const auto* p) { prefetch_l2(p, count); });
  }
}

}  // namespace cascade::detail
