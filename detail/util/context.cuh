#pragma once
// Which CUDA context a call runs in, and how to make calls that a stream
// capture would otherwise forbid.
//
// Everything cascade keeps between calls (pool, workspaces, graphs, result
// slots, cached attributes) belongs to a context: the one current when it was
// made, or for a green context its device's primary context (owning_context).
// Contexts die: cudaDeviceReset destroys the primary context (the next
// runtime call makes a new one), a program destroys its own (cuCtxDestroy),
// and every handle made in them goes too. So each piece of kept state
// records its context's handle and id (cuCtxGetId: unique for the life of
// the process, never reused), is used only by calls in a context of that id,
// and is freed only while the context lives (context_tokens); the state of a
// dead context is forgotten, never touched. Each live context keeps its own
// state, so a program that switches between contexts makes it once each.
//
// The driver's entry points come through the runtime (no link to the driver
// library), as in util/iterator.cuh.

#include <cascade/detail/util/check.cuh>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace cascade::detail {

// For the calls a capture in global or thread-local mode forbids (creating a
// pool, setting a function attribute, allocating page-locked memory): this
// thread's capture mode is relaxed while the object lives. Such calls are
// made eagerly and once; they never belong in the captured graph.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~relaxed_capture_mode() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// A driver entry point by name, as of CUDA `version` (the signature the
// name had then), or nullptr where the driver has none.
template <class Fn>
Fn driver_entry(const char* name, unsigned version = 12000) {
  relaxed_capture_mode relaxed;  // the process's first call may be made inside a capture
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t status = cudaGetDriverEntryPointByVersion(name, &entry, version, cudaEnableDefault, &found);
#else
  if (version > 12000) return nullptr;
  const cudaError_t status = cudaGetDriverEntryPoint(name, &entry, cudaEnableDefault, &found);
#endif
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(entry);
}

// The context a stream's work runs in as the driver names it to launches
// (cuStreamGetCtx): a green context's stream gives the green context (as
// cuCtxFromGreenCtx converts it). CUDA_ERROR_NOT_SUPPORTED: no entry point.
inline CUresult stream_home_context(CUstream stream, CUcontext* home) {
  using plain_t = CUresult (*)(CUstream, CUcontext*);
  static const plain_t plain = driver_entry<plain_t>("cuStreamGetCtx");
  return plain != nullptr ? plain(stream, home) : CUDA_ERROR_NOT_SUPPORTED;
}

// The context a stream's work belongs to, from the driver: the context it
// was made in, or for a stream of a green context (cuGreenCtxStreamCreate, or
// made while one is current) its device's primary context, whose memory and
// modules a green context shares; for the legacy stream, the current
// context's, a green one resolved the same way. cuStreamGetCtx before CUDA
// 12.5 reports the green context instead.
inline CUresult stream_context(CUstream stream, CUcontext* owner) {
#if CUDA_VERSION >= 12050
  using with_green_t = CUresult (*)(CUstream, CUcontext*, CUgreenCtx*);
  static const with_green_t with_green = driver_entry<with_green_t>("cuStreamGetCtx", 12050);
  if (with_green != nullptr) {
    CUgreenCtx green = nullptr;
    return with_green(stream, owner, &green);
  }
#endif
  return stream_home_context(stream, owner);
}

// The calling thread's current context (nullptr: none), and making one current.
inline CUcontext current_context_handle() {
  using get_t = CUresult (*)(CUcontext*);
  static const get_t get = driver_entry<get_t>("cuCtxGetCurrent");
  CUcontext context = nullptr;
  if (get == nullptr || get(&context) != CUDA_SUCCESS) return nullptr;
  return context;
}
inline bool make_context_current(CUcontext context) {
  using set_t = CUresult (*)(CUcontext);
  static const set_t set = driver_entry<set_t>("cuCtxSetCurrent");
  return set != nullptr && set(context) == CUDA_SUCCESS;
}

// The calling thread's current context, and the context that owns its
// state (owning_context); `id` is the owner's, unique for the life of the
// process (0: none).
struct context_ref {
  CUcontext current;
  CUcontext owner;
  std::uint64_t id;
};
inline std::uint64_t context_id_of(CUcontext context) {
  using get_id_t = CUresult (*)(CUcontext, unsigned long long*);
  static const get_id_t get_id = driver_entry<get_id_t>("cuCtxGetId");
  unsigned long long id = 0;
  return get_id != nullptr && get_id(context, &id) == CUDA_SUCCESS ? id : 0;
}

// The context a call's state belongs to (pool, workspaces, cached
// attributes): the calling thread's current context, or where a green
// context is current (cuCtxFromGreenCtx + cuCtxSetCurrent: some of the
// device's SMs), its device's primary context. State kept per green context
// was made again at every switch between it and the primary context, and
// the other's left behind: 34 MB a switch (H200, 40 switches, 1.3 GB).
// All null if no context is current (or it was destroyed). The owner is
// asked of the driver once per current context a thread sees (49 ns); a
// call pays two queries (the current context and its id), as before.
inline context_ref owning_context() {
  const CUcontext current = current_context_handle();
  if (current == nullptr) return {nullptr, nullptr, 0};
  const std::uint64_t id = context_id_of(current);
  if (id == 0) return {nullptr, nullptr, 0};
  thread_local std::uint64_t last_current = 0;
  thread_local context_ref last{nullptr, nullptr, 0};
  if (id == last_current) return last;
  CUcontext owner = nullptr;
  if (stream_context(CU_STREAM_LEGACY, &owner) != CUDA_SUCCESS || owner == nullptr) owner = current;
  const context_ref found{current, owner, owner == current ? id : context_id_of(owner)};
  if (found.id == 0) return {nullptr, nullptr, 0};
  last_current = id;
  last = found;
  return found;
}
inline std::uint64_t current_context_id_or_zero() { return owning_context().id; }

// Puts the calling thread's current context back when it leaves scope: the
// same context where it is still alive (a green one included, which
// cudaSetDevice would replace by the primary), else its device's primary.
class keep_current_context {
 public:
  keep_current_context()
      : restore_device_(cudaGetDevice(&device_) == cudaSuccess), context_(current_context_handle()) {}
  ~keep_current_context() {
    if (context_ != nullptr && make_context_current(context_) && current_context_id_or_zero() != 0) return;
    if (restore_device_) (void)cudaSetDevice(device_);
    (void)cudaGetLastError();
  }
  keep_current_context(const keep_current_context&) = delete;
  keep_current_context& operator=(const keep_current_context&) = delete;

 private:
  int device_ = 0;
  bool restore_device_;
  CUcontext context_;
};

// The current context and its owner, `device`'s primary context made
// current (and created, after a reset) where no context is.
inline context_ref current_context(int device) {
  context_ref at = owning_context();
  if (at.id == 0) {
    // Since CUDA 12, cudaSetDevice initialises the device's primary context.
    check(cudaSetDevice(device), "cudaSetDevice");
    at = owning_context();
    if (at.id == 0) throw cuda_error(cudaErrorContextIsDestroyed, "cuCtxGetCurrent (no current context)");
  }
  return at;
}

// The current device and the context that owns its state; `current`: the
// thread's current context itself (a green context, where one is current).
// Kept state records the device_context it was made in.
struct device_context {
  int device;
  std::uint64_t context;
  CUcontext current = nullptr;
  CUcontext owner = nullptr;  // the context whose id `context` is
  bool alive() const;         // see context_tokens
  bool same_context(const device_context& other) const {
    return device == other.device && context == other.context;
  }
};
inline device_context current_device_context() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const context_ref at = current_context(device);
  return {device, at.id, at.current, at.owner};
}

// Whether a context that was given state still lives. Its handle cannot be
// asked once it is destroyed: the driver may crash on it (H200, driver 580:
// cuCtxGetId over the handles of 60 contexts made and destroyed in turn,
// which it reuses, ended in a segmentation fault in one of two runs;
// cuCtxPushCurrent of one in "free(): invalid pointer"). So each context gets a token where its first state is made: a
// page-locked byte allocated in it, which dies with it (cuCtxDestroy,
// cudaDeviceReset), known by its buffer id (CU_POINTER_ATTRIBUTE_BUFFER_ID,
// unique for the life of the process). Asking the driver about a pointer is
// safe whatever became of its allocation, and a new allocation at the same
// address has another id. Asked only where state of another context than
// the current one is at stake (result slots, eviction, release_resources).
class context_tokens {
 public:
  static context_tokens& get() {
    static context_tokens* t = new context_tokens;  // never destroyed: threads may exit after static destruction
    return *t;
  }

  // Called where state is first made in `at`'s context (current).
  void enroll(const device_context& at) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (tokens_.count(at.context) != 0) return;
    relaxed_capture_mode relaxed;  // a call inside a capture may be the context's first
    // Under the owner context, whose life the token must share (a green
    // context's state belongs to its primary).
    const keep_current_context keep;
    if (at.current != at.owner && !make_context_current(at.owner)) {
      throw cuda_error(cudaErrorContextIsDestroyed, "cuCtxSetCurrent (the green context's primary context)");
    }
    void* ptr = nullptr;
    // Portable: freed under any context (release), as the result slots are.
    check(cudaHostAlloc(&ptr, 1, cudaHostAllocPortable), "cudaHostAlloc");
    unsigned long long buffer = 0;
    if (!buffer_id(ptr, &buffer)) {
      (void)cudaFreeHost(ptr);
      throw cuda_error(cudaErrorInvalidValue, "cuPointerGetAttributes (CU_POINTER_ATTRIBUTE_BUFFER_ID)");
    }
    tokens_.emplace(at.context, token{ptr, buffer});
  }

  bool alive(const device_context& made_in) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tokens_.find(made_in.context);
    if (it == tokens_.end()) return false;
    if (lives(it->second)) return true;
    tokens_.erase(it);  // dead: its token went with it
    return false;
  }

  // release_resources(), after the state the tokens guard: frees the live
  // contexts' tokens and forgets the rest.
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [id, t] : tokens_) {
      if (lives(t)) (void)cudaFreeHost(t.ptr);
    }
    tokens_.clear();
  }

 private:
  struct token {
    void* ptr;
    unsigned long long buffer;
  };
  // The plural query: for a pointer the driver no longer knows it reports
  // id 0 and succeeds, where the singular one fails (an error that the
  // sanitizer would count).
  static bool buffer_id(void* ptr, unsigned long long* buffer) {
    using attributes_t = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
    static const attributes_t get = driver_entry<attributes_t>("cuPointerGetAttributes");
    CUpointer_attribute which = CU_POINTER_ATTRIBUTE_BUFFER_ID;
    void* data[] = {buffer};
    *buffer = 0;
    return get != nullptr && get(1, &which, data, reinterpret_cast<CUdeviceptr>(ptr)) == CUDA_SUCCESS &&
           *buffer != 0;
  }
  // Its allocation is still the one made: the context lives.
  static bool lives(const token& t) {
    unsigned long long buffer = 0;
    return buffer_id(t.ptr, &buffer) && buffer == t.buffer;
  }
  std::mutex mutex_;
  std::map<std::uint64_t, token> tokens_;  // by context id
};
inline bool device_context::alive() const { return context_tokens::get().alive(*this); }

// Makes the context that owns `made_in`'s state current (the caller keeps
// its own: keep_current_context) and waits for its work, a green context's
// included, so that state of it may be freed: false where the context has
// died (its state is then only forgotten) or the wait failed.
inline bool synchronize_owner(const device_context& made_in) {
  if (!made_in.alive() || !make_context_current(made_in.owner)) return false;
  if (cudaDeviceSynchronize() == cudaSuccess) return true;
  (void)cudaGetLastError();
  return false;
}

// Whether `stream` is being captured into a graph. cudaStreamGetCaptureInfo
// is allowed in every capture mode (cudaStreamIsCapturing on the legacy
// stream is not, while another stream captures in global mode).
inline bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check(cudaStreamGetCaptureInfo(stream, &status), "cudaStreamGetCaptureInfo");
  return status != cudaStreamCaptureStatusNone;
}

// A policy's stream must belong to the current device: cascade makes no
// device switch of its own (the work would otherwise run, or fail, far from
// where the caller set it up). `at`: the current device and context.
// Checked on every call (one driver query, 28 ns on the H200's host): a
// check skipped for the handle a thread passed last would let a destroyed
// stream's handle through once the driver gives it to a stream of another
// device. (The stream's id, which would tell the
// two apart, cannot be asked of a stream being captured without ending the
// capture.) The default streams always belong to the current device. A
// green context's stream belongs with its primary context (stream_context):
// the same device, and the same state.
inline void check_stream_device(cudaStream_t stream, const device_context& at, const char* algorithm) {
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  const bool per_thread = stream == nullptr || stream == cudaStreamPerThread;
#else
  const bool per_thread = stream == cudaStreamPerThread;
#endif
  if (per_thread && at.current != at.owner) {
    // The driver has no per-thread stream while a green context is current.
    throw cuda_error(cudaErrorInvalidResourceHandle,
                     std::string(algorithm) + ": the per-thread default stream while a green context is current "
                                              "(CUDA has none there); pass the green context's stream, or its "
                                              "legacy default stream (cudaStreamLegacy)");
  }
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return;
  CUcontext owner = nullptr;
  const CUresult status = stream_context(reinterpret_cast<CUstream>(stream), &owner);
  if (status == CUDA_ERROR_NOT_SUPPORTED) return;  // no entry point to ask
  if (status == CUDA_ERROR_INVALID_HANDLE || status == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
      status == CUDA_ERROR_INVALID_CONTEXT || status == CUDA_ERROR_INVALID_VALUE) {
    // A stream of a destroyed context (made before a cudaDeviceReset), or not a stream.
    throw cuda_error(cudaErrorInvalidResourceHandle,
                     std::string(algorithm) + ": the policy's stream (cuStreamGetCtx; a stream made before a "
                                              "cudaDeviceReset is no longer valid)");
  }
  if (status != CUDA_SUCCESS) {
    // The context's own error, such as an earlier kernel's fault (sticky:
    // CUDA keeps the context unusable until the process ends). The
    // runtime's code of such an error is the driver's.
    throw cuda_error(static_cast<cudaError_t>(status),
                     std::string(algorithm) + ": the policy's stream (cuStreamGetCtx; an error from earlier work in "
                                              "its context)");
  }
  if (owner != at.owner) {
    throw std::invalid_argument(std::string(algorithm) +
                                ": the policy's stream belongs to another device than the current one; call "
                                "cudaSetDevice(the stream's device) first");
  }
}

}  // namespace cascade::detail
