#pragma once
// What cascade keeps between GPU calls, and how to give it back.
//
//   cascade::release_resources();           // everything, on every device
//   cascade::kept_resources()                // what is kept now
//
// Kept (see the README): per device context, a stream-ordered memory pool
// holding up to 64 MiB of freed temporaries; per (context, stream) used by
// the automatic algorithms, a workspace of status words and up to 1024
// one-kernel graphs, for at most 64 streams per context (the least recently
// used half is released beyond); per host thread that called reduce, a 256-byte page-locked result
// slot; per kernel, a few cached attributes. All of it belongs to the context
// the calls ran in, each context its own (a green context shares its
// primary's); state of a context that has died (cudaDeviceReset, cuCtxDestroy)
// is forgotten, and the next call there rebuilds it.
//
// release_resources() synchronises each live context that has state and frees it;
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
  // Each context that has state is made current in turn; the caller's
  // context (a green one included, which cudaSetDevice would not give back)
  // is current again after.
  const detail::keep_current_context keep;
  detail::release_workspaces();
  detail::result_slot::release_all();
  detail::release_pools();
  detail::context_tokens::get().release();
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
