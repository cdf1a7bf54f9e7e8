#pragma once
// Warp shuffles for any trivially copyable type: arithmetic types of 4 or 8
// bytes go through the intrinsic directly, anything else word by word.

#include <cuda/std/cstring>
#include <cuda/std/type_traits>

namespace cascade::detail {

inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kWarpThreads = 32;

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & (kWarpThreads - 1); }
__device__ __forceinline__ int warp_id() { return static_cast<int>(threadIdx.x) / kWarpThreads; }

enum class shuffle_kind { down, up, idx };

template <shuffle_kind K, class W>
__device__ __forceinline__ W shuffle_word(W w, int arg) {
  if constexpr (K == shuffle_kind::down) return __shfl_down_sync(kFullMask, w, static_cast<unsigned>(arg));
  if constexpr (K == shuffle_kind::up) return __shfl_up_sync(kFullMask, w, static_cast<unsigned>(arg));
  if constexpr (K == shuffle_kind::idx) return __shfl_sync(kFullMask, w, arg);
}

// Types that shuffle member by member: their padding would otherwise travel
// through the shuffles and come back as byte-wise moves and selects (a warp
// reduction of (8-byte value, 32-bit position) candidates: 159 PTX
// instructions word by word, 89 member by member). A specialisation provides
// `static T apply(const T&, F f)`: the value with f applied to each member.
template <class T>
struct shuffle_members : ::cuda::std::false_type {};

// Values wider than this many bytes go through the warp primitives
// (shuffles, warp reduce and scan) as calls, not inlined: a 1 KB value's tree
// is thousands of instructions, and inlined at each of a kernel's call sites
// it took minutes per kernel to compile (a 1 KB scan kernel: 106 value
// shuffles, 122 K lines of PTX). The same operations in the same order, so
// the same bits; narrower values stay inline (the fast paths).
inline constexpr unsigned long long kInlineWarpBytes = 64;
template <class T>
inline constexpr bool outlined_in_warps = sizeof(T) > kInlineWarpBytes;

template <shuffle_kind K, class T>
__device__ __forceinline__ T shuffle_inline(const T& value, int arg);
template <shuffle_kind K, class T>
__device__ __noinline__ T shuffle_outlined(const T& value, int arg) {
  return shuffle_inline<K>(value, arg);
}

template <shuffle_kind K, class T>
__device__ __forceinline__ T shuffle(const T& value, int arg) {
  if constexpr (outlined_in_warps<T>) return shuffle_outlined<K>(value, arg);
  else return shuffle_inline<K>(value, arg);
}

template <shuffle_kind K, class T>
__device__ __forceinline__ T shuffle_inline(const T& value, int arg) {
  static_assert(::cuda::std::is_trivially_copyable_v<T>, "cascade: values must be trivially copyable");
  if constexpr (::cuda::std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {
    return shuffle_word<K>(value, arg);
  } else if constexpr (shuffle_members<T>::value) {
    return shuffle_members<T>::apply(value, [arg](const auto& member) { return shuffle<K>(member, arg); });
  } else {
    constexpr int words = (sizeof(T) + sizeof(unsigned) - 1) / sizeof(unsigned);
    unsigned buffer[words] = {};
    ::cuda::std::memcpy(buffer, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < words; ++w) buffer[w] = shuffle_word<K>(buffer[w], arg);
    T result;
    ::cuda::std::memcpy(&result, buffer, sizeof(T));
    return result;
  }
}

template <class T>
__device__ __forceinline__ T shuffle_down(const T& v, int delta) { return shuffle<shuffle_kind::down>(v, delta); }
template <class T>
__device__ __forceinline__ T shuffle_up(const T& v, int delta) { return shuffle<shuffle_kind::up>(v, delta); }
template <class T>
__device__ __forceinline__ T shuffle_idx(const T& v, int src) { return shuffle<shuffle_kind::idx>(v, src); }

}  // namespace cascade::detail
