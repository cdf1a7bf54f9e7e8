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
#include <cascade/detail/util/context.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
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

// What one stream keeps on one device, in one context. Its destructor makes
// no CUDA call (the context may be gone, or the process exiting): release()
// gives the memory and graphs back where the context is known to be alive.
struct workspace {
  // Held from a call's first use of its status words until its kernel is
  // launched: two host threads sharing a stream would otherwise race on the
  // regions, and one could free (in stream order) a region the other's
  // kernel, launched later, still reads.
  std::mutex mutex;
  status_region status[kStatusLayouts];   // fresh_epoch
  status_region cleared[kStatusLayouts];  // cleared_by_reader
  // Graphs are made and launched only while the stream's own context is
  // current: one made with another current (a green context's stream used
  // while the primary context is current, or the reverse) fails to update
  // (cudaGraphExecKernelNodeSetParams: invalid argument, H200). `home` is
  // that context, asked once.
  graph_launches graphs;
  CUcontext home = nullptr;
  device_context made_in{-1, 0};  // the device and context that own it
  std::uint64_t last_use = 0;  // for the least recently used eviction (registry's lock)

  // Stream-ordered on `stream`; the device must be idle as far as this
  // workspace goes (the registry synchronises it first).
  void release(cudaStream_t stream) {
    for (status_region* regions : {status, cleared}) {
      for (int i = 0; i < kStatusLayouts; ++i) {
        for (growable* g : {&regions[i].words, &regions[i].values}) {
          if (g->ptr != nullptr) (void)cudaFreeAsync(g->ptr, stream);
          *g = growable{};
        }
      }
    }
    for (auto& [key, e] : graphs.entries) {
      if (e.exec != nullptr) (void)cudaGraphExecDestroy(e.exec);
      if (e.graph != nullptr) (void)cudaGraphDestroy(e.graph);
    }
    graphs.entries.clear();
  }
  std::size_t device_bytes() const {
    std::size_t bytes = 0;
    for (const status_region* regions : {status, cleared}) {
      for (int i = 0; i < kStatusLayouts; ++i) bytes += regions[i].words.bytes + regions[i].values.bytes;
    }
    return bytes;
  }
};

// Makes each region at least its size, zeroed when (re)allocated; all or
// nothing: if an allocation fails, the regions are as they were. Stream order
// frees the old memory after the kernels that use it (the caller holds the
// workspace's lock, so no kernel using it is launched after the free).
inline void grow(std::initializer_list<std::pair<growable*, std::size_t>> wanted, const device_context& at,
                 cudaStream_t stream) {
  std::vector<std::pair<growable*, growable>> fresh;
  try {
    for (const auto& [g, bytes] : wanted) {
      if (g->bytes >= bytes) continue;
      growable n;
      n.bytes = bytes + bytes / 2;
      check(cudaMallocFromPoolAsync(&n.ptr, n.bytes, temporary_pool(at), stream), "cudaMallocFromPoolAsync");
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

// Streams whose workspaces a context keeps; beyond, the least recently used
// half is released (one context synchronisation per kStreamsKept / 2 new
// streams), so that a server making a stream per request keeps a bounded
// amount. Each workspace holds its status regions (1.5x the largest call's
// status words: 8 or 16 bytes per tile or chunk, e.g. about 0.6 MB for an int32
// scan of 2^28 items) and up to kGraphsPerStream one-kernel graphs.
inline constexpr std::size_t kStreamsKept = 64;

// Every workspace, by (device, context, stream, thread), the stream by its
// id: a stream destroyed with work still queued gives its handle to the next
// stream created, whose work runs beside that work, not after it, so two
// kernels would share one workspace's status words (H200: a reduce on the
// new stream and one still running on the old one both read each other's
// partials, wrong sums). Never destroyed: at exit nothing calls into the
// runtime.
struct workspace_registry {
  using key_t = std::tuple<int, std::uint64_t, unsigned long long, std::thread::id>;
  std::mutex mutex;
  std::map<key_t, std::shared_ptr<workspace>> spaces;
  std::vector<std::shared_ptr<workspace>> retired;  // evicted, maybe still in use by a call
  std::uint64_t uses = 0;
  // Bumped whenever an entry leaves `spaces`: threads' shortcuts recheck.
  std::atomic<std::uint64_t> version{0};

  static workspace_registry& get() {
    static workspace_registry* r = new workspace_registry;
    return *r;
  }

  // Releases the retired workspaces of `at` (the current device and
  // context) that no call holds, after the device has finished with them;
  // those of dead contexts are forgotten, those of other live ones wait for
  // their context's next eviction. Registry lock held.
  void sweep(const device_context& at) {
    std::vector<std::shared_ptr<workspace>> idle;
    for (auto it = retired.begin(); it != retired.end();) {
      const bool ours = (*it)->made_in.same_context(at);
      if ((ours && it->use_count() == 1) || (!ours && !(*it)->made_in.alive())) {
        if (ours) idle.push_back(std::move(*it));
        it = retired.erase(it);
      } else {
        ++it;
      }
    }
    if (idle.empty()) return;
    relaxed_capture_mode relaxed;
    // Under the owner context where a green one is current: the primary
    // context's synchronisation waits for its green contexts' work too
    // (cuCtxSynchronize), and a green context has no per-thread stream.
    const keep_current_context keep;
    if (!synchronize_owner(at)) {
      // e.g. another thread's capture in progress: try again at the next eviction.
      for (auto& w : idle) retired.push_back(std::move(w));
      return;
    }
    for (auto& w : idle) w->release(cudaStreamPerThread);
  }

  // Drops the workspaces of contexts that have died (a reset's, or one the
  // program destroyed): their memory and graphs went with their context.
  // Entries of one context are adjacent (the key's order): one query each.
  // Registry lock held.
  void forget_dead_contexts(const device_context& at) {
    bool dropped = false;
    device_context checked{-1, 0};
    bool alive = true;
    for (auto it = spaces.begin(); it != spaces.end();) {
      const device_context made_in = it->second->made_in;
      if (!made_in.same_context(at) && !made_in.same_context(checked)) {
        checked = made_in;
        alive = made_in.alive();
      }
      if (made_in.same_context(at) || alive) {
        ++it;
      } else {
        it = spaces.erase(it);
        dropped = true;
      }
    }
    if (dropped) version.fetch_add(1);
  }

  // Keeps at most kStreamsKept workspaces of the current context (each
  // context the program calls in keeps its own). Registry lock held.
  void evict(const device_context& at) {
    std::vector<std::pair<std::uint64_t, key_t>> ages;
    for (const auto& [key, w] : spaces) {
      if (w->made_in.same_context(at)) ages.emplace_back(w->last_use, key);
    }
    if (ages.size() <= kStreamsKept) return;
    std::sort(ages.begin(), ages.end());
    for (std::size_t i = 0; i < ages.size() - kStreamsKept / 2; ++i) {
      auto it = spaces.find(ages[i].second);
      retired.push_back(std::move(it->second));
      spaces.erase(it);
    }
    version.fetch_add(1);
    sweep(at);
  }
};

// The workspace of `stream` on the current device and context.
inline std::shared_ptr<workspace> stream_workspace(cudaStream_t stream, const device_context& at) {
  // The legacy and per-thread default streams are one handle for many
  // threads; per-thread streams differ by thread, so the thread is part of the key.
  const bool shared_handle = stream == nullptr || stream == cudaStreamPerThread || stream == cudaStreamLegacy;
  unsigned long long id = 0;
  check(cudaStreamGetId(stream, &id), "cudaStreamGetId");
  using key_t = workspace_registry::key_t;
  const key_t key{at.device, at.context, id, shared_handle ? std::this_thread::get_id() : std::thread::id{}};
  workspace_registry& r = workspace_registry::get();
  // A thread's calls on one stream in a row find its workspace without the
  // lock, while no workspace has left the registry since.
  thread_local key_t last_key{-1, 0, 0, std::thread::id{}};
  thread_local std::uint64_t last_version = 0;
  thread_local std::shared_ptr<workspace> last;
  const std::uint64_t version = r.version.load(std::memory_order_acquire);
  if (last != nullptr && last_key == key && last_version == version) return last;
  last = nullptr;  // no shortcut keeps an evicted workspace in use
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.spaces.find(key);
  if (it == r.spaces.end()) {
    r.forget_dead_contexts(at);  // a new workspace: first drop those whose context died
    context_tokens::get().enroll(at);
    auto fresh = std::make_shared<workspace>();
    if (stream_home_context(reinterpret_cast<CUstream>(stream), &fresh->home) != CUDA_SUCCESS) fresh->home = nullptr;
    fresh->made_in = at;
    it = r.spaces.emplace(key, std::move(fresh)).first;
  }
  std::shared_ptr<workspace>& w = it->second;
  w->last_use = ++r.uses;
  std::shared_ptr<workspace> found = w;
  r.evict(at);  // never `found`: it is the most recently used
  last_key = key;
  last_version = r.version.load(std::memory_order_acquire);
  last = found;
  return found;
}

// Releases every workspace of a live context, each under its context after
// the context is synchronised (release_resources; the caller keeps its
// current context); workspaces of dead contexts are forgotten.
inline void release_workspaces() {
  workspace_registry& r = workspace_registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::shared_ptr<workspace>> all;
  for (auto& [key, w] : r.spaces) all.push_back(std::move(w));
  for (auto& w : r.retired) {
    if (w.use_count() == 1) all.push_back(std::move(w));
  }
  r.spaces.clear();
  r.retired.clear();
  r.version.fetch_add(1);
  // By context, one synchronisation each.
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return std::pair(a->made_in.device, a->made_in.context) < std::pair(b->made_in.device, b->made_in.context);
  });
  for (std::size_t begin = 0, end = 0; begin < all.size(); begin = end) {
    while (end < all.size() && all[end]->made_in.same_context(all[begin]->made_in)) ++end;
    if (!synchronize_owner(all[begin]->made_in)) continue;
    for (std::size_t i = begin; i < end; ++i) all[i]->release(cudaStreamPerThread);
    (void)cudaStreamSynchronize(cudaStreamPerThread);
  }
}

// The bytes of device memory the workspaces hold (tests, documentation).
inline std::size_t workspace_device_bytes() {
  workspace_registry& r = workspace_registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::size_t bytes = 0;
  for (const auto& [key, w] : r.spaces) bytes += w->device_bytes();
  return bytes;
}
inline std::size_t workspace_count() {
  workspace_registry& r = workspace_registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.spaces.size();
}
// The instantiated one-kernel graphs the workspaces hold.
inline std::size_t workspace_graphs() {
  workspace_registry& r = workspace_registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::size_t graphs = 0;
  for (const auto& [key, w] : r.spaces) {
    std::lock_guard<std::mutex> graphs_lock(w->graphs.mutex);
    for (const auto& [config, e] : w->graphs.entries) graphs += e.exec != nullptr;
  }
  return graphs;
}

// The stream of a call, its device and context, and its workspace, looked up
// once per call. No workspace while the stream is being captured (replays
// would reuse one epoch) or while the call's policy supplies the memory.
struct stream_place {
  cudaStream_t stream;
  device_context where;  // the current device and context
  std::shared_ptr<workspace> space;
  // Whether launches may go through the workspace's graphs.
  bool graphs() const { return space != nullptr && space->home == where.current && where.current != nullptr; }
};
inline stream_place place_of(cudaStream_t stream) {
  const bool capturing = stream_is_capturing(stream);  // first: it makes the context current
  const device_context at = current_device_context();
  stream_place place{stream, at, nullptr};
  if (!capturing && current_memory() == nullptr) place.space = stream_workspace(stream, at);
  return place;
}

// Status words for `count` tiles or chunks of one launch on `at.stream`: the
// stream's own, under a fresh epoch (cleared only when the epoch wraps) or
// under epoch 1 where the reader clears them; or, while the stream is being
// captured (or the policy supplies the memory), temporaries cleared by a
// memset (node), so that every replay starts from zeros with epoch 1. Keep
// it alive until the kernel is launched: it holds the workspace's lock.
// scratch_bytes: untagged memory beside the words for the same launches
// (reduce_by_key's carries), which every launch writes before it reads; in
// the region's value memory, after the layout's own values, so that it
// costs no allocation per call either.
template <class AccT>
class launch_status {
 public:
  using status_t = tile_status<AccT>;

  launch_status(offset_t count, const stream_place& at, status_reuse reuse = status_reuse::fresh_epoch,
                std::size_t scratch_bytes = 0) {
    const std::size_t word_bytes = status_t::word_bytes(count);
    const std::size_t own_value_bytes = status_t::value_bytes(count);
    const std::size_t scratch_at = (own_value_bytes + 255) / 256 * 256;
    const std::size_t value_bytes = scratch_bytes > 0 ? scratch_at + scratch_bytes : own_value_bytes;
    const cudaStream_t stream = at.stream;
    if (workspace* w = at.space.get()) {
      lock_ = std::unique_lock<std::mutex>(w->mutex);
      const int layout = static_cast<int>(status_layout_for<AccT>);
      const bool cleared = reuse == status_reuse::cleared_by_reader;
      status_region& region = cleared ? w->cleared[layout] : w->status[layout];
      grow({{&region.words, word_bytes}, {&region.values, value_bytes}}, at.where, stream);
      unsigned epoch = 1;
      if (!cleared) {
        epoch = static_cast<unsigned>(++region.launches & kEpochMask);
        if (epoch == 0) check(cudaMemsetAsync(region.words.ptr, 0, region.words.bytes, stream), "cudaMemsetAsync");
      }
      words_ = status_t::at(region.words.ptr, region.values.ptr, epoch);
      if (scratch_bytes > 0) scratch_ = static_cast<char*>(region.values.ptr) + scratch_at;
    } else {
      temporary_layout layout;
      const std::size_t words_at = layout.add<char>(word_bytes);
      const std::size_t values_at = layout.add<char>(value_bytes);
      temp_ = std::make_unique<temporary_buffer>(layout.bytes(), stream);
      check(cudaMemsetAsync(temp_->at<char>(words_at), 0, word_bytes, stream), "cudaMemsetAsync");
      words_ = status_t::at(temp_->at<char>(words_at), temp_->at<char>(values_at), 1);
      if (scratch_bytes > 0) scratch_ = temp_->at<char>(values_at) + scratch_at;
    }
  }
  status_t words() const { return words_; }
  void* scratch() const { return scratch_; }

 private:
  status_t words_{};
  void* scratch_ = nullptr;
  std::unique_ptr<temporary_buffer> temp_;
  std::unique_lock<std::mutex> lock_;  // the stream's workspace, until the kernel is launched
};

}  // namespace cascade::detail
