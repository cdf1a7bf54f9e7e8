#pragma once
// Which CUDA context a call runs in, and how to make calls that a stream
// capture would otherwise forbid.
//
// Everything cascade keeps between calls (pool, workspaces, graphs, result
// slots, cached attributes) belongs to the current device's primary context.
// cudaDeviceReset() destroys that context and every handle made in it; the
// next runtime call makes a new one. So each piece of kept state records the
// id of the context it was made in (cuCtxGetId: unique for the life of the
// process, never reused), and a call whose context has another id rebuilds
// that state instead of using, or freeing, handles that no longer exist.
//
// The driver's entry points come through the runtime (no link to the driver
// library), as in util/iterator.cuh.

#include <cascade/detail/util/check.cuh>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
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

// A driver entry point by name, or nullptr where the driver has none.
template <class Fn>
Fn driver_entry(const char* name) {
  relaxed_capture_mode relaxed;  // the process's first call may be made inside a capture
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t status = cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t status = cudaGetDriverEntryPoint(name, &entry, cudaEnableDefault, &found);
#endif
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(entry);
}

// The id of the calling thread's current context; 0 if it has none (or it
// was destroyed).
inline std::uint64_t current_context_id_or_zero() {
  using get_current_t = CUresult (*)(CUcontext*);
  static const get_current_t get_current = driver_entry<get_current_t>("cuCtxGetCurrent");
  if (get_current == nullptr) return 0;
  CUcontext context = nullptr;
  if (get_current(&context) != CUDA_SUCCESS || context == nullptr) return 0;
#if CUDA_VERSION >= 12000
  using get_id_t = CUresult (*)(CUcontext, unsigned long long*);
  static const get_id_t get_id = driver_entry<get_id_t>("cuCtxGetId");
  if (get_id != nullptr) {
    unsigned long long id = 0;
    return get_id(context, &id) == CUDA_SUCCESS ? id : 0;
  }
#endif
  // No context ids (CUDA 11): the handle itself, which a new context may reuse.
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(context));
}

// The id of `device`'s primary context, made current (and created, after a
// reset) where it is not yet.
inline std::uint64_t current_context_id(int device) {
  std::uint64_t id = current_context_id_or_zero();
  if (id == 0) {
    // Since CUDA 12, cudaSetDevice initialises the device's primary context.
    check(cudaSetDevice(device), "cudaSetDevice");
    id = current_context_id_or_zero();
    if (id == 0) throw cuda_error(cudaErrorContextIsDestroyed, "cuCtxGetCurrent (no current context)");
  }
  return id;
}

// The newest context id seen per device, so that state made in an older one
// is dropped without a call into its handles (see the destructors that read
// it). Devices beyond kMaxDevices keep no state across contexts: their ids
// are still compared, only never recorded here.
inline constexpr int kMaxDevices = 64;
inline std::atomic<std::uint64_t>& live_context(int device) {
  static std::atomic<std::uint64_t> ids[kMaxDevices];
  static std::atomic<std::uint64_t> none{0};
  return device >= 0 && device < kMaxDevices ? ids[device] : none;
}

// The current device and its context, recorded as its live one.
struct device_context {
  int device;
  std::uint64_t context;
};
inline device_context current_device_context() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const std::uint64_t id = current_context_id(device);
  live_context(device).store(id, std::memory_order_relaxed);
  return {device, id};
}

// Before release_resources() touches `device`'s state: records its primary
// context's id if the context is alive (cudaDeviceReset may have destroyed
// it since the last call), else 0, so that nothing of a dead context is freed.
// Creates no context. Leaves `device` current where its context is alive.
inline void refresh_live_context(int device) {
  using device_get_t = CUresult (*)(CUdevice*, int);
  using state_t = CUresult (*)(CUdevice, unsigned*, int*);
  static const device_get_t device_get = driver_entry<device_get_t>("cuDeviceGet");
  static const state_t primary_state = driver_entry<state_t>("cuDevicePrimaryCtxGetState");
  CUdevice handle = 0;
  unsigned flags = 0;
  int active = 0;
  if (device_get == nullptr || primary_state == nullptr || device_get(&handle, device) != CUDA_SUCCESS ||
      primary_state(handle, &flags, &active) != CUDA_SUCCESS || !active || cudaSetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    live_context(device).store(0);
    return;
  }
  live_context(device).store(current_context_id_or_zero());
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
// where the caller set it up). Checked on every call (two driver queries,
// 23 ns on the H200's host): a check skipped for the handle a thread passed
// last would let a destroyed stream's handle through once the driver gives
// it to a stream of another device. (The stream's id, which would tell the
// two apart, cannot be asked of a stream being captured without ending the
// capture.) The default streams always belong to the current device.
inline void check_stream_device(cudaStream_t stream, const char* algorithm) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return;
  using stream_context_t = CUresult (*)(CUstream, CUcontext*);
  static const stream_context_t stream_context = driver_entry<stream_context_t>("cuStreamGetCtx");
  using get_current_t = CUresult (*)(CUcontext*);
  static const get_current_t get_current = driver_entry<get_current_t>("cuCtxGetCurrent");
  if (stream_context == nullptr || get_current == nullptr) return;
  CUcontext owner = nullptr, current = nullptr;
  const CUresult status = stream_context(reinterpret_cast<CUstream>(stream), &owner);
  if (status != CUDA_SUCCESS) {
    // A stream of a destroyed context (made before a cudaDeviceReset), or not a stream.
    throw cuda_error(cudaErrorInvalidResourceHandle,
                     std::string(algorithm) + ": the policy's stream (cuStreamGetCtx; a stream made before a "
                                              "cudaDeviceReset is no longer valid)");
  }
  if (get_current(&current) != CUDA_SUCCESS || owner != current) {
    throw std::invalid_argument(std::string(algorithm) +
                                ": the policy's stream belongs to another device than the current one; call "
                                "cudaSetDevice(the stream's device) first");
  }
}

}  // namespace cascade::detail
