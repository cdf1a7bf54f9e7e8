#pragma once
// How many blocks of a kernel the current device (`device`, which the caller
// has read already) holds at once, read once per (device, kernel, block size)
// and cached. Grid sizes come from this; no result ever depends on it (the
// combination trees depend on N only).

#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>

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
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const int blocks = (per_sm > 0 ? per_sm : 1) * sms;
  cache.emplace(key, blocks);
  return blocks;
}

// Whether the current device has sm_90's bulk copies (cp.async.bulk), read
// once per device.
inline bool has_bulk_copy() {
  static std::mutex mutex;
  static std::map<int, bool> cache;
  const int device = current_device();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(device); it != cache.end()) return it->second;
  int major = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  return cache.emplace(device, major >= 9).first->second;
}

// Kernels may use more than 48 KB of dynamic shared memory only after asking.
template <class Kernel>
void allow_dynamic_shared(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "cudaFuncSetAttribute");
  }
}

}  // namespace cascade::detail
