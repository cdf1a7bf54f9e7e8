#pragma once
// Where cascade::reduce receives its value on the host: a small page-locked,
// device-mapped buffer per host thread, reused by every call. The kernel
// writes the result straight into it, so a reduce costs one launch and one
// stream synchronisation: no allocation, no copy.
//
// A slot belongs to the context it was allocated in (page-locked memory dies
// with it in cudaDeviceReset): a call in another context, or after
// release_resources(), allocates a new one and forgets the old one without
// freeing it twice.

#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/context.cuh>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>

namespace cascade::detail {

inline constexpr std::size_t kResultSlotBytes = 256;

// With unified addressing (every 64-bit platform CUDA supports) the mapped
// pointer is the host pointer, for every device.
class result_slot {
 public:
  // (A thread that exits after a cudaDeviceReset holds a slot of the dead
  // context: the refresh tells, so that it is not freed, which the driver
  // refuses as an invalid argument.)
  ~result_slot() {
    if (ptr_ != nullptr) refresh_live_context(device_);
    drop(true);
  }
  template <class T>
  static constexpr bool fits = sizeof(T) <= kResultSlotBytes && alignof(T) <= 256;

  // This thread's slot; the device writes it, the host reads it after a sync.
  template <class T>
  static T* get(const device_context& at) {
    static_assert(fits<T>, "result too large for the slot");
    thread_local result_slot slot;
    // Portable memory serves every device; it lives as long as the context
    // of the device it was allocated on.
    if (slot.ptr_ == nullptr || (slot.device_ == at.device && slot.context_ != at.context) ||
        slot.context_ != live_context(slot.device_).load() || slot.generation_ != generation().load()) {
      slot.drop(slot.generation_ == generation().load());
      relaxed_capture_mode relaxed;
      void* p = nullptr;
      check(cudaHostAlloc(&p, kResultSlotBytes, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
      slot.ptr_ = p;
      slot.device_ = at.device;
      slot.context_ = at.context;
      slot.generation_ = generation().load();
      std::lock_guard<std::mutex> lock(registry().mutex);
      registry().slots.insert(&slot);
    }
    return static_cast<T*>(slot.ptr_);
  }

  // release_resources(): frees every thread's slot whose context is alive
  // (no call may be running); each thread allocates anew on its next reduce.
  static void release_all() {
    std::lock_guard<std::mutex> lock(registry().mutex);
    for (result_slot* s : registry().slots) {
      if (s->ptr_ != nullptr && s->context_ == live_context(s->device_).load()) (void)cudaFreeHost(s->ptr_);
      s->ptr_ = nullptr;
    }
    registry().slots.clear();
    generation().fetch_add(1);
  }

 private:
  struct slots {
    std::mutex mutex;
    std::set<result_slot*> slots;
  };
  static slots& registry() {
    static slots* r = new slots;  // never destroyed: threads may exit after static destruction
    return *r;
  }
  static std::atomic<std::uint64_t>& generation() {
    static std::atomic<std::uint64_t> g{0};
    return g;
  }
  // Frees the slot if it is still this thread's and its context is alive
  // (`owned`: not already freed by release_all).
  void drop(bool owned) {
    if (ptr_ == nullptr) return;
    std::lock_guard<std::mutex> lock(registry().mutex);
    if (owned && registry().slots.count(this) != 0 && context_ == live_context(device_).load()) {
      (void)cudaFreeHost(ptr_);  // may run after the runtime is gone; ignore
    }
    registry().slots.erase(this);
    ptr_ = nullptr;
  }

  void* ptr_ = nullptr;
  int device_ = -1;
  std::uint64_t context_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace cascade::detail
