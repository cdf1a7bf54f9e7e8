#pragma once
// Where cascade::reduce receives its value on the host: a small page-locked,
// device-mapped buffer per host thread, reused by every call. The kernel
// writes the result straight into it, so a reduce costs one launch and one
// stream synchronisation: no allocation, no copy.
//
// A slot belongs to the context it was allocated in (page-locked memory dies
// with it: cudaDeviceReset, cuCtxDestroy). Being portable, it serves calls in
// every context while that one lives (H200: a kernel in a context of the
// program's own writes the primary context's slot, and the reverse); once
// that context is dead, or after release_resources(), a call allocates a new
// one and the old one is forgotten, not freed twice.

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
  // (A thread that exits after its slot's context died leaves it alone: the
  // driver refuses to free it, as an invalid argument.)
  ~result_slot() { drop(true); }
  template <class T>
  static constexpr bool fits = sizeof(T) <= kResultSlotBytes && alignof(T) <= 256;

  // This thread's slot; the device writes it, the host reads it after a sync.
  template <class T>
  static T* get(const device_context& at) {
    static_assert(fits<T>, "result too large for the slot");
    thread_local result_slot slot;
    if (slot.ptr_ == nullptr || slot.generation_ != generation().load() ||
        (!slot.made_in_.same_context(at) && !slot.made_in_.alive())) {
      slot.drop(slot.generation_ == generation().load());
      context_tokens::get().enroll(at);
      relaxed_capture_mode relaxed;
      void* p = nullptr;
      check(cudaHostAlloc(&p, kResultSlotBytes, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
      slot.ptr_ = p;
      slot.made_in_ = at;
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
      if (s->ptr_ != nullptr && s->made_in_.alive()) (void)cudaFreeHost(s->ptr_);
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
    if (owned && registry().slots.count(this) != 0 && made_in_.alive()) {
      (void)cudaFreeHost(ptr_);  // may run after the runtime is gone; ignore
    }
    registry().slots.erase(this);
    ptr_ = nullptr;
  }

  void* ptr_ = nullptr;
  device_context made_in_{-1, 0};
  std::uint64_t generation_ = 0;
};

}  // namespace cascade::detail
