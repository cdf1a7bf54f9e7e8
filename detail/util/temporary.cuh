#pragma once
// Temporary device storage from a stream-ordered pool (cudaMallocFromPoolAsync
// on the call's stream), released with cudaFreeAsync when the call returns,
// also on error paths. The pool is cascade's own, one per device, so that the
// user's default pool keeps its settings; it keeps up to kRetainedBytes of
// freed memory mapped, so that repeated calls do not pay for mapping pages
// (with the default threshold of 0 every synchronisation would unmap them).
// A policy with its own memory resource (util/memory.cuh) takes the
// temporaries from that instead.
//
// A pool belongs to a context (util/context.cuh): each context a program
// calls in gets its own, and a dead context's pool (cudaDeviceReset,
// cuCtxDestroy) is forgotten, never used. The pool is created outside any
// capture's restrictions (util/context.cuh): a process's first call may be
// made inside a global-mode capture.

#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/context.cuh>
#include <cascade/detail/util/memory.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace cascade::detail {

inline constexpr std::uint64_t kRetainedBytes = 64ull << 20;

struct device_pools {
  struct pool {
    cudaMemPool_t handle = nullptr;
    device_context made_in;  // the device and context it belongs to
  };
  std::mutex mutex;
  std::vector<pool> pools;  // one per context that has called, dead ones forgotten
  static device_pools& get() {
    static device_pools* p = new device_pools;  // never destroyed: no call into the runtime at exit
    return *p;
  }
};

inline cudaMemPool_t temporary_pool(const device_context& at) {
  device_pools& all = device_pools::get();
  std::lock_guard<std::mutex> lock(all.mutex);
  for (const device_pools::pool& p : all.pools) {
    if (p.made_in.same_context(at)) return p.handle;
  }
  // The context's first call: first forget the pools of contexts that have died.
  context_tokens::get().enroll(at);
  all.pools.erase(std::remove_if(all.pools.begin(), all.pools.end(),
                                 [](const device_pools::pool& p) { return !p.made_in.alive(); }),
                  all.pools.end());
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = at.device;
  cudaMemPool_t pool = nullptr;
  relaxed_capture_mode relaxed;
  check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
  std::uint64_t threshold = kRetainedBytes;
  const cudaError_t status = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  if (status != cudaSuccess) {
    (void)cudaMemPoolDestroy(pool);
    check(status, "cudaMemPoolSetAttribute");
  }
  all.pools.push_back({pool, at});
  return pool;
}
inline cudaMemPool_t temporary_pool(int) { return temporary_pool(current_device_context()); }

// Destroys the pools of live contexts, each under its context, and forgets
// the rest (release_resources: the workspaces, which allocate from them,
// were released first and their contexts synchronised). The caller keeps
// its current context.
inline void release_pools() {
  device_pools& all = device_pools::get();
  std::lock_guard<std::mutex> lock(all.mutex);
  for (const device_pools::pool& p : all.pools) {
    if (synchronize_owner(p.made_in)) (void)cudaMemPoolDestroy(p.handle);
  }
  all.pools.clear();
}

inline int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

// `bytes` of device memory on `stream`: from the call's resource, else from
// cascade's pool.
inline void* allocate_temporary(std::size_t bytes, cudaStream_t stream) {
  if (const memory_ref* m = current_memory()) return m->allocate(m->resource, bytes, stream);
  void* p = nullptr;
  check(cudaMallocFromPoolAsync(&p, bytes, temporary_pool(current_device_context()), stream),
        "cudaMallocFromPoolAsync");
  return p;
}
// Stream-ordered release; never throws (destructors and error paths call it).
inline void free_temporary(void* p, std::size_t bytes, cudaStream_t stream) noexcept {
  if (const memory_ref* m = current_memory()) {
    try {
      m->deallocate(m->resource, p, bytes, stream);
    } catch (...) {
    }
    return;
  }
  (void)cudaFreeAsync(p, stream);
}

// Carves aligned pieces out of one allocation: one allocation per call.
class temporary_layout {
 public:
  static constexpr std::size_t kAlignment = kTemporaryAlignment;

  // Reserves room for `count` objects of T; returns the piece's offset.
  template <class T>
  std::size_t add(std::size_t count) {
    const std::size_t offset = bytes_;
    bytes_ += (count * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    return offset;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};

class temporary_buffer {
 public:
  temporary_buffer(std::size_t bytes, cudaStream_t stream)
      : stream_(stream), bytes_(bytes), memory_(current_memory()) {
    if (bytes == 0) return;
    ptr_ = allocate_temporary(bytes, stream);
  }
  ~temporary_buffer() {
    if (ptr_ == nullptr) return;
    // The resource it came from, whatever scope the destructor runs in.
    memory_scope scope(memory_);
    free_temporary(ptr_, bytes_, stream_);
  }
  temporary_buffer(const temporary_buffer&) = delete;
  temporary_buffer& operator=(const temporary_buffer&) = delete;

  template <class T>
  T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<char*>(ptr_) + offset);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
  std::size_t bytes_;
  const memory_ref* memory_;
};

}  // namespace cascade::detail
