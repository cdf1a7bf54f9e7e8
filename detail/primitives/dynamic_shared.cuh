#pragma once
// The block's dynamic shared memory (the launch's third parameter) seen as an
// array of T. It is declared as raw bytes, as in uninitialized.cuh: a
// __shared__ object cannot run a constructor, and value types may have one.

#include <cstddef>

namespace cascade::detail {

// The shared memory a kernel may declare statically; beyond it, only
// dynamic shared memory, after asking (util/device.cuh, allow_dynamic_shared).
inline constexpr std::size_t kStaticSharedMax = 48 * 1024;

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  // 16: the alignment of the widest built-in types; larger ones are refused.
  static_assert(alignof(T) <= 16, "cascade: value types aligned to more than 16 bytes are not supported");
  extern __shared__ __align__(16) unsigned char cascade_dynamic_shared[];
  return reinterpret_cast<T*>(cascade_dynamic_shared);
}

// A block's storage of type Storage: static shared memory where it fits,
// else the launch's dynamic shared memory, kernel_shared_bytes<Storage> of it
// (0 where static), which the launch passes.
template <class Storage>
inline constexpr std::size_t kernel_shared_bytes = sizeof(Storage) <= kStaticSharedMax ? 0 : sizeof(Storage);
template <class Storage>
__device__ __forceinline__ Storage& kernel_shared() {
  if constexpr (kernel_shared_bytes<Storage> == 0) {
    __shared__ Storage storage;
    return storage;
  } else {
    return *dynamic_shared<Storage>();
  }
}

}  // namespace cascade::detail
