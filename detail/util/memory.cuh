#pragma once
// Caller-supplied memory for a call's temporaries (policy.with_memory(r)).
//
// `r` is a stream-ordered memory resource: libcu++'s (CCCL 3.0's
// allocate_async(bytes, alignment, stream) / deallocate_async(ptr, bytes,
// alignment, stream), or CCCL 3.1 and later's allocate(stream, bytes,
// alignment) / deallocate(stream, ptr, bytes, alignment)), RMM's, or any
// object with either pair of members. The policy holds a reference: `r` must
// outlive the calls that use it. With one, a call takes every byte of device
// memory it needs from `r` on the call's stream and gives it back before it
// returns; cascade's own pool and per-stream workspaces are not touched.
//
// The dispatch layer installs the policy's resource for the duration of the
// call (memory_scope), so that the strategies below, which take a stream,
// need not carry it.

#include <cuda_runtime_api.h>

#include <cuda/stream_ref>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace cascade::detail {

inline constexpr std::size_t kTemporaryAlignment = 256;

template <class R, class = void>
struct has_async_members : std::false_type {};  // CCCL 3.0's names
template <class R>
struct has_async_members<R, std::void_t<decltype(std::declval<R&>().allocate_async(
                                std::size_t{}, std::size_t{}, ::cuda::stream_ref{cudaStream_t{}}))>>
    : std::true_type {};
template <class R, class = void>
struct has_stream_first_members : std::false_type {};  // CCCL 3.1 and later
template <class R>
struct has_stream_first_members<R, std::void_t<decltype(std::declval<R&>().allocate(
                                       ::cuda::stream_ref{cudaStream_t{}}, std::size_t{}, std::size_t{}))>>
    : std::true_type {};
template <class R>
inline constexpr bool is_memory_resource_v = has_async_members<R>::value || has_stream_first_members<R>::value;

// A type-erased reference to such a resource.
struct memory_ref {
  void* resource = nullptr;
  void* (*allocate)(void*, std::size_t, cudaStream_t) = nullptr;
  void (*deallocate)(void*, void*, std::size_t, cudaStream_t) = nullptr;

  template <class R>
  static memory_ref to(R& r) {
    static_assert(is_memory_resource_v<R>,
                  "cascade::cuda.with_memory(r): r must be a stream-ordered memory resource: members "
                  "allocate(cuda::stream_ref, bytes, alignment) and deallocate(cuda::stream_ref, ptr, bytes, "
                  "alignment), or allocate_async(bytes, alignment, cuda::stream_ref) and "
                  "deallocate_async(ptr, bytes, alignment, cuda::stream_ref)");
    memory_ref m;
    m.resource = static_cast<void*>(&r);
    m.allocate = [](void* self, std::size_t bytes, cudaStream_t s) -> void* {
      R& res = *static_cast<R*>(self);
      if constexpr (has_stream_first_members<R>::value) {
        return res.allocate(::cuda::stream_ref{s}, bytes, kTemporaryAlignment);
      } else {
        return res.allocate_async(bytes, kTemporaryAlignment, ::cuda::stream_ref{s});
      }
    };
    m.deallocate = [](void* self, void* p, std::size_t bytes, cudaStream_t s) {
      R& res = *static_cast<R*>(self);
      if constexpr (has_stream_first_members<R>::value) {
        res.deallocate(::cuda::stream_ref{s}, p, bytes, kTemporaryAlignment);
      } else {
        res.deallocate_async(p, bytes, kTemporaryAlignment, ::cuda::stream_ref{s});
      }
    };
    return m;
  }
};

// The resource of the call this thread is making, if its policy has one.
inline const memory_ref*& current_memory() {
  thread_local const memory_ref* current = nullptr;
  return current;
}

// Installs a policy's resource (or none) for one call.
class memory_scope {
 public:
  explicit memory_scope(const memory_ref* m) : previous_(current_memory()) { current_memory() = m; }
  ~memory_scope() { current_memory() = previous_; }
  memory_scope(const memory_scope&) = delete;
  memory_scope& operator=(const memory_scope&) = delete;

 private:
  const memory_ref* previous_;
};

}  // namespace cascade::detail
