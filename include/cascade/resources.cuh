#pragma once
// What cascade keeps between GPU calls, and how to give it back.
//
//   cascade::release_resources();           // everything, on every device
//   cascade::kept_resources()                // what is kept now
//
// Kept (see the README): per device, a stream-ordered memory pool holding up
// to 64 MiB of freed temporaries; per (device, stream) used by the automatic
// algorithms, a workspace of status words and up to 1024 one-kernel graphs,
// for at most 64 streams per device (the least recently used half is released
// beyond); per host thread that called reduce, a 256-byte page-locked result
// slot; per kernel, a few cached attributes. All of it belongs to the device's
// context: after cudaDeviceReset the next call rebuilds it.
//
// release_resources() synchronises each device that has state and frees it;
// later calls rebuild what they need. It must not run while another thread
// is inside a cascade call.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/detail/util/context.cuh>
#include <cascade/detail/util/result_slot.cuh>
#include <cascade/detail/util/temporary.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cascade {

inline void release_resources() {
  // Each device is made current in turn; the caller's context (a green one
  // included, which cudaSetDevice would not give back) is current again after.
  const detail::keep_current_context keep;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  (void)cudaGetLastError();
  for (int d = 0; d < devices && d < detail::kMaxDevices; ++d) detail::refresh_live_context(d);
  detail::release_workspaces();
  detail::result_slot::release_all();
  detail::release_pools();
  (void)cudaGetLastError();
}

struct resource_usage {
  std::size_t streams;       // workspaces kept, over all devices
  std::size_t device_bytes;  // their status regions
  std::size_t graphs;        // their instantiated one-kernel graphs
};
inline resource_usage kept_resources() {
  return {detail::workspace_count(), detail::workspace_device_bytes(), detail::workspace_graphs()};
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
