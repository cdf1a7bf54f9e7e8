#pragma once
// Where cascade::reduce receives its value on the host: a small page-locked,
// device-mapped buffer per host thread, reused by every call. The kernel
// writes the result straight into it, so a reduce costs one launch and one
// stream synchronisation: no allocation, no copy.

#include <cascade/detail/util/check.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cascade::detail {

inline constexpr std::size_t kResultSlotBytes = 256;

// With unified addressing (every 64-bit platform CUDA supports) the mapped
// pointer is the host pointer, for every device.
class result_slot {
 public:
  ~result_slot() {
    if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);  // may run after the runtime is gone; ignore
  }
  template <class T>
  static constexpr bool fits = sizeof(T) <= kResultSlotBytes && alignof(T) <= 256;

  // This thread's slot; the device writes it, the host reads it after a sync.
  template <class T>
  static T* get() {
    static_assert(fits<T>, "result too large for the slot");
    thread_local result_slot slot;
    if (slot.ptr_ == nullptr) {
      check(cudaHostAlloc(&slot.ptr_, kResultSlotBytes, cudaHostAllocMapped | cudaHostAllocPortable),
            "cudaHostAlloc");
    }
    return static_cast<T*>(slot.ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

}  // namespace cascade::detail
