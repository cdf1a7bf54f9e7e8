#pragma once
// Persistent device memory per (device, stream) for the single-launch
// algorithms, so that a call needs no allocation and no clearing launch:
//
//  - counters: words that every kernel using them leaves as it found them
//    (a last-arriving block restores them), so they are valid for the next
//    call on the same stream. Calls on one stream run in order, so one set
//    per stream suffices; different streams never share.
//  - status: the look-back scan's tile status words, grown on demand
//    (stream-ordered) and never cleared between calls: the words carry the
//    epoch of the launch that wrote them, which advances every launch, and
//    this memory never holds anything else.
//  - partials: the reduce's chunk partials, grown on demand.
//
// A stream being captured into a graph gets none: replays would reuse one
// epoch. Callers fall back to per-call temporaries cleared by a memset node.

#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace cascade::detail {

enum workspace_counter : int {
  reduce_done_ticket = 0,  // blocks finished; the last one resets it
  scan_tile_ticket = 2,    // 64-bit: epoch << 32 | next tile (2 words)
  workspace_counters = 4
};

struct growable {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

struct workspace {
  unsigned* counters = nullptr;  // workspace_counters words
  growable status;
  growable partials;
  std::uint64_t scan_launches = 0;  // to clear the status words when the epoch tag wraps
};

inline bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
  return status != cudaStreamCaptureStatusNone;
}

// Makes `g` at least `bytes` large, zeroed when (re)allocated. Stream order
// frees the old memory after the kernels that use it.
inline void grow(growable& g, std::size_t bytes, int device, cudaStream_t stream) {
  if (g.bytes >= bytes) return;
  const std::size_t size = bytes + bytes / 2;
  if (g.ptr != nullptr) check(cudaFreeAsync(g.ptr, stream), "cudaFreeAsync");
  g = growable{};
  check(cudaMallocFromPoolAsync(&g.ptr, size, temporary_pool(device), stream), "cudaMallocFromPoolAsync");
  check(cudaMemsetAsync(g.ptr, 0, size, stream), "cudaMemsetAsync");
  g.bytes = size;
}

// The workspace of `stream` on the current device; nullptr while the stream
// is being captured. The caller grows the region it uses (grow()).
inline workspace* stream_workspace(cudaStream_t stream) {
  if (stream_is_capturing(stream)) return nullptr;
  // The legacy and per-thread default streams are one handle for many
  // threads; per-thread streams differ by thread, so the thread is part of the key.
  const bool shared_handle = stream == nullptr || stream == cudaStreamPerThread || stream == cudaStreamLegacy;
  const int device = current_device();
  using key_t = std::tuple<int, cudaStream_t, std::thread::id>;
  const key_t key{device, stream, shared_handle ? std::this_thread::get_id() : std::thread::id{}};
  static std::mutex mutex;
  static std::map<key_t, workspace> spaces;  // lives for the process, like the pool
  std::lock_guard<std::mutex> lock(mutex);
  workspace& w = spaces[key];
  if (w.counters == nullptr) {
    growable counters;
    grow(counters, workspace_counters * sizeof(unsigned), device, stream);
    w.counters = static_cast<unsigned*>(counters.ptr);
  }
  return &w;
}

}  // namespace cascade::detail
