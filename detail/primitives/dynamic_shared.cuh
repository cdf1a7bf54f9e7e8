#pragma once
// The block's dynamic shared memory (the launch's third parameter) seen as an
// array of T. It is declared as raw bytes, as in uninitialized.cuh: a
// __shared__ object cannot run a constructor, and value types may have one.

namespace cascade::detail {

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  // 16: the alignment of the widest built-in types; larger ones are refused.
  static_assert(alignof(T) <= 16, "cascade: value types aligned to more than 16 bytes are not supported");
  extern __shared__ __align__(16) unsigned char cascade_dynamic_shared[];
  return reinterpret_cast<T*>(cascade_dynamic_shared);
}

}  // namespace cascade::detail
