#pragma once
// Shared memory for values of any trivially copyable type: raw, suitably
// aligned bytes (a __shared__ object cannot run a constructor, and value types
// may have non-trivial default constructors).

namespace cascade::detail {

template <class T, int N>
struct uninitialized_array {
  alignas(T) unsigned char bytes[sizeof(T) * N];

  __device__ __forceinline__ T& operator[](int i) { return reinterpret_cast<T*>(bytes)[i]; }
  __device__ __forceinline__ const T& operator[](int i) const { return reinterpret_cast<const T*>(bytes)[i]; }
};

}  // namespace cascade::detail
