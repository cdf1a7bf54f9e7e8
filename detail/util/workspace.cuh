#pragma once
// Persistent device memory per (device, stream) for the single-launch
// algorithms, so that a call needs no allocation and no clearing launch:
// tagged status words (see primitives/tile_status.cuh), one region per word
// layout, grown on demand (stream-ordered) and never cleared between calls.
// A launch tags its words with a fresh epoch (the region's launch count), so
// words left by earlier launches read as "not yet"; a region never holds
// anything but words of its layout. Values too large for a word sit in a
// region of their own.
//
// Words that one reader consumes (the reduce's chunk partials, read by its
// finishing block) live in regions of their own, which that reader leaves
// cleared: they always use epoch 1, so back-to-back calls on the same data
// have identical kernel arguments and skip the graph's argument update
// (util/launch.cuh). H100, double sums of 2 / 8 / 32 MB, event-timed: 6.7 /
// 8.1 / 10.6 us with a fresh epoch and an update per call, 5.5 / 6.9 / 10.1
// us for the same kernel's graph launched without an update.
//
// A stream being captured into a graph gets none: replays would reuse one
// epoch. launch_status falls back to per-call temporaries cleared by a memset
// node.

#include <cascade/detail/primitives/tile_status.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>

#include <atomic>
#include <initializer_list>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace cascade::detail {

struct growable {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

// One status layout's words, the launches that used them (the next epoch),
// and the values beside them where the layout needs that.
struct status_region {
  growable words;
  growable values;
  std::atomic<std::uint64_t> launches{0};
};

// The bytes of a launch's arguments, in parameter order: a call's, on its
// stack (a view), and the ones a graph's node holds. Arguments with padding
// make them incomparable: equal values need not have equal bytes.
struct argument_view {
  const unsigned char* data;
  std::size_t size;
  bool comparable;
};
struct argument_bytes {
  std::vector<unsigned char> bytes;
  bool comparable = false;
  bool same_as(argument_view call) const {
    return comparable && call.comparable && bytes.size() == call.size &&
           std::memcmp(bytes.data(), call.data, call.size) == 0;
  }
  void assign(argument_view call) {
    bytes.assign(call.data, call.data + call.size);
    comparable = call.comparable;
  }
};

// One-node graphs of this stream's kernel launches, by (kernel, grid, block);
// see util/launch.cuh. A configuration gets its graph on its second launch.
struct graph_launches {
  struct entry {
    cudaGraph_t graph = nullptr;
    cudaGraphNode_t node = nullptr;
    cudaGraphExec_t exec = nullptr;  // none yet: launched once, directly
    argument_bytes args;             // the arguments the graph's node holds
  };
  std::mutex mutex;  // a parameter update and its launch go together
  std::map<std::tuple<const void*, unsigned, unsigned>, entry> entries;
};

// Whether a launch's status words get a fresh epoch, or are cleared by
// their one reader and so keep epoch 1.
enum class status_reuse { fresh_epoch, cleared_by_reader };

struct workspace {
  status_region status[kStatusLayouts];   // fresh_epoch
  status_region cleared[kStatusLayouts];  // cleared_by_reader
  graph_launches graphs;
};

inline bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
  return status != cudaStreamCaptureStatusNone;
}

// Makes each region at least its size, zeroed when (re)allocated; all or
// nothing: if an allocation fails, the regions are as they were. Stream order
// frees the old memory after the kernels that use it.
inline void grow(std::initializer_list<std::pair<growable*, std::size_t>> wanted, int device, cudaStream_t stream) {
  std::vector<std::pair<growable*, growable>> fresh;
  try {
    for (const auto& [g, bytes] : wanted) {
      if (g->bytes >= bytes) continue;
      growable n;
      n.bytes = bytes + bytes / 2;
      check(cudaMallocFromPoolAsync(&n.ptr, n.bytes, temporary_pool(device), stream), "cudaMallocFromPoolAsync");
      fresh.emplace_back(g, n);
    }
  } catch (...) {
    for (auto& [g, n] : fresh) (void)cudaFreeAsync(n.ptr, stream);
    throw;
  }
  for (auto& [g, n] : fresh) {
    check(cudaMemsetAsync(n.ptr, 0, n.bytes, stream), "cudaMemsetAsync");
    if (g->ptr != nullptr) check(cudaFreeAsync(g->ptr, stream), "cudaFreeAsync");
    *g = n;
  }
}

// The workspace of `stream` on `device` (the current one); nullptr while the
// stream is being captured.
inline workspace* stream_workspace(cudaStream_t stream, int device) {
  if (stream_is_capturing(stream)) return nullptr;
  // The legacy and per-thread default streams are one handle for many
  // threads; per-thread streams differ by thread, so the thread is part of the key.
  const bool shared_handle = stream == nullptr || stream == cudaStreamPerThread || stream == cudaStreamLegacy;
  using key_t = std::tuple<int, cudaStream_t, std::thread::id>;
  const key_t key{device, stream, shared_handle ? std::this_thread::get_id() : std::thread::id{}};
  // A thread's calls on one stream in a row find its workspace without the
  // lock (workspaces are never erased, so the pointer stays valid).
  thread_local key_t last_key{-1, nullptr, std::thread::id{}};
  thread_local workspace* last = nullptr;
  if (last != nullptr && last_key == key) return last;
  static std::mutex mutex;
  static std::map<key_t, workspace> spaces;  // lives for the process, like the pool
  std::lock_guard<std::mutex> lock(mutex);
  last_key = key;
  last = &spaces[key];
  return last;
}

// The workspace of `stream` on the current device, looked up once per call.
struct stream_place {
  cudaStream_t stream;
  int device;
  workspace* space;  // nullptr while the stream is being captured
};
inline stream_place place_of(cudaStream_t stream) {
  const int device = current_device();
  return {stream, device, stream_workspace(stream, device)};
}

// Status words for `count` tiles or chunks of one launch on `at.stream`: the
// stream's own, under a fresh epoch (cleared only when the epoch wraps) or
// under epoch 1 where the reader clears them; or, while the stream is being
// captured, temporaries cleared by a memset node, so that every replay starts
// from zeros with epoch 1. Keep it alive until the kernel is launched.
template <class AccT>
class launch_status {
 public:
  using status_t = tile_status<AccT>;

  launch_status(offset_t count, const stream_place& at, status_reuse reuse = status_reuse::fresh_epoch) {
    const std::size_t word_bytes = status_t::word_bytes(count);
    const std::size_t value_bytes = status_t::value_bytes(count);
    const cudaStream_t stream = at.stream;
    const int device = at.device;
    if (workspace* w = at.space) {
      const int layout = static_cast<int>(status_layout_for<AccT>);
      const bool cleared = reuse == status_reuse::cleared_by_reader;
      status_region& region = cleared ? w->cleared[layout] : w->status[layout];
      grow({{&region.words, word_bytes}, {&region.values, value_bytes}}, device, stream);
      unsigned epoch = 1;
      if (!cleared) {
        epoch = static_cast<unsigned>(++region.launches & kEpochMask);
        if (epoch == 0) check(cudaMemsetAsync(region.words.ptr, 0, region.words.bytes, stream), "cudaMemsetAsync");
      }
      words_ = status_t::at(region.words.ptr, region.values.ptr, epoch);
    } else {
      temporary_layout layout;
      const std::size_t words_at = layout.add<char>(word_bytes);
      const std::size_t values_at = layout.add<char>(value_bytes);
      temp_ = std::make_unique<temporary_buffer>(layout.bytes(), stream);
      check(cudaMemsetAsync(temp_->at<char>(words_at), 0, word_bytes, stream), "cudaMemsetAsync");
      words_ = status_t::at(temp_->at<char>(words_at), temp_->at<char>(values_at), 1);
    }
  }
  status_t words() const { return words_; }

 private:
  status_t words_{};
  std::unique_ptr<temporary_buffer> temp_;
};

}  // namespace cascade::detail
