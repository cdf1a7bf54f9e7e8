#pragma once
// How many blocks of a kernel the current device (`device`, which the caller
// has read already) holds at once, read once per (device, kernel, block size)
// and cached. Grid sizes come from this; no result ever depends on it (the
// combination trees depend on N only).

#include <cascade/detail/primitives/dynamic_shared.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/context.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace cascade::detail {

template <class Kernel>
int resident_blocks(Kernel kernel, int threads, int device, std::size_t smem = 0) {
  using key_t = std::tuple<int, const void*, int, std::size_t>;
  const key_t key{device, reinterpret_cast<const void*>(kernel), threads, smem};
  // A thread asking again for the same kernel skips the lock.
  thread_local key_t last_key{-1, nullptr, 0, 0};
  thread_local int last = 0;
  if (last > 0 && last_key == key) return last;
  static std::mutex mutex;
  static std::map<key_t, int> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) {
    last_key = key;
    last = it->second;
    return last;
  }
  relaxed_capture_mode relaxed;  // a call inside a capture may be the first to ask
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const int blocks = (per_sm > 0 ? per_sm : 1) * sms;
  cache.emplace(key, blocks);
  return blocks;
}

// The virtual architecture `kernel`'s code was compiled for, as the device
// loaded it (e.g. 80 for a binary holding only compute_80 PTX, even on an
// H100), read once per (device, kernel). Paths whose kernel bodies exist only
// on some architectures (NV_IF_TARGET) are chosen from this, never from the
// device alone: a binary built for sm_80 and run on an sm_90 GPU must not
// route to a body that was compiled out.
template <class Kernel>
int compiled_arch(Kernel kernel, int device) {
  using key_t = std::pair<int, const void*>;
  const key_t key{device, reinterpret_cast<const void*>(kernel)};
  // One kernel per instantiation: a thread asking again skips the lock.
  thread_local key_t last_key{-1, nullptr};
  thread_local int last = 0;
  if (last_key == key) return last;
  static std::mutex mutex;
  static std::map<key_t, int> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    relaxed_capture_mode relaxed;
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
    it = cache.emplace(key, attributes.ptxVersion).first;
  }
  last_key = key;
  last = it->second;
  return last;
}

// Kernels may use more than 48 KB of dynamic shared memory only after
// asking, once in each context (a device reset makes a new one): a
// repeated launch does not ask again.
template <class Kernel>
void allow_dynamic_shared(Kernel kernel, std::size_t bytes) {
  if (bytes <= kStaticSharedMax) return;
  using key_t = std::pair<const void*, std::uint64_t>;
  const key_t key{reinterpret_cast<const void*>(kernel), current_context_id_or_zero()};
  thread_local key_t last{nullptr, 0};
  if (last == key) return;
  static std::mutex mutex;
  static std::set<key_t> allowed;
  std::lock_guard<std::mutex> lock(mutex);
  if (allowed.count(key) == 0) {
    relaxed_capture_mode relaxed;
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "cudaFuncSetAttribute");
    allowed.insert(key);
  }
  last = key;
}

}  // namespace cascade::detail
