#pragma once
// Launching the automatic algorithms' kernels. A kernel launch costs the
// calling thread about 4 us, most of a small call. Launching an instantiated
// one-kernel graph after updating its node's arguments costs less, and the
// kernel starts sooner; updating the grid as well costs as much as a launch.
// So each stream keeps a graph per (kernel, grid, block) it has launched
// before, and launches that with the call's arguments. H100, a small kernel:
// 6.0 us between events around a launch, 4.6 us around an update and a
// graph launch. Through the API, int32, direct launches -> graphs: scan 2^12
// 9.0 -> 5.8 us, 2^16 9.6 -> 6.6 us; reduce 2^16 10.0 -> 6.2 us, 2^20 10.7
// -> 6.7 us; the caller's thread 5.4-5.9 -> 2.2-2.3 us per call.
//
// A launch whose arguments equal the graph's last ones skips the update
// (calls repeated on the same data; see util/workspace.cuh for the status
// words that make that possible).
//
// The first launch of a configuration, grids above kGraphMaxGrid (kernels
// long enough that the launch does not matter, whose grids vary with N),
// configurations past kGraphsPerStream, and streams being captured into a
// graph launch directly.

#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/launch_members.cuh>
#include <cascade/detail/util/workspace.cuh>

#include <cuda_runtime_api.h>
#include <nv/target>

#include <cstddef>
#include <cstring>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>

namespace cascade::detail {

inline constexpr unsigned kGraphMaxGrid = 4096;
// Configurations per stream with a graph; beyond, direct launches. The
// benchmark sweep (4 types, 2^10..2^30, every algorithm on one stream) uses a
// few hundred; 64 left the cases registered last launching directly.
inline constexpr std::size_t kGraphsPerStream = 1024;

// Launches `node`'s graph with new arguments (`args`: their bytes, to tell
// whether they changed), making it on the configuration's second launch.
// False when the launch should go direct instead.
inline bool launch_graph(graph_launches& graphs, const cudaKernelNodeParams& node, argument_view args,
                         cudaStream_t stream) {
  const auto key = std::make_tuple(node.func, node.gridDim.x, node.blockDim.x);
  std::lock_guard<std::mutex> lock(graphs.mutex);
  auto it = graphs.entries.find(key);
  if (it == graphs.entries.end()) {
    if (graphs.entries.size() < kGraphsPerStream) graphs.entries.emplace(key, graph_launches::entry{});
    return false;
  }
  graph_launches::entry& e = it->second;
  if (e.exec == nullptr) {
    cudaGraph_t graph = nullptr;
    check(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
    cudaGraphNode_t kernel_node = nullptr;
    cudaGraphExec_t exec = nullptr;
    const char* call = "cudaGraphAddKernelNode";
    cudaError_t status = cudaGraphAddKernelNode(&kernel_node, graph, nullptr, 0, &node);
    if (status == cudaSuccess) {
      call = "cudaGraphInstantiate";
      status = cudaGraphInstantiate(&exec, graph, 0);
    }
    if (status != cudaSuccess) {
      (void)cudaGraphDestroy(graph);
      check(status, call);
    }
    e.graph = graph;
    e.node = kernel_node;
    e.exec = exec;
    e.args.assign(args);
  } else if (!e.args.same_as(args)) {
    e.args.comparable = false;  // until the update has succeeded
    check(cudaGraphExecKernelNodeSetParams(e.exec, e.node, &node), "cudaGraphExecKernelNodeSetParams");
    e.args.assign(args);
  }
  check(cudaGraphLaunch(e.exec, stream), "cudaGraphLaunch");
  return true;
}

template <class T, class Buffer, class = void>
struct has_append_members : std::false_type {};
template <class T, class Buffer>
struct has_append_members<T, Buffer, std::void_t<decltype(std::declval<const T&>().append_members(std::declval<Buffer&>()))>>
    : std::true_type {};

// A launch's argument bytes, on the caller's stack (no allocation per call):
// the host time a call takes before its launch is part of its time, since
// the GPU waits for it (H100, 32 MB int64 reduce, event-timed: 0.5-0.75 us
// more than launching the same graph alone, the pointer checks 0.3-0.5 of it).
template <std::size_t Capacity>
struct argument_buffer {
  unsigned char data[Capacity + 1];  // + 1: no array of size 0
  std::size_t size = 0;
  bool comparable = true;

  // An empty argument (a stateless functor) has no bytes that mean anything;
  // one with padding makes the launch's bytes incomparable, unless it names
  // its members itself (append_members: the reduce's indexed_transform, whose
  // functor's byte and a tuple made it incomparable, so that every repeated
  // transform_reduce paid a graph update).
  template <class T>
  void append(const T& value) {
    if constexpr (std::is_empty_v<T>) {
      return;
    } else if constexpr (has_append_members<T, argument_buffer>::value) {
      value.append_members(*this);
    } else if constexpr (launch_members<T>::available) {
      launch_members<T>::append(*this, value);  // thrust's fancy iterators (util/launch_members.cuh)
    } else if constexpr (std::is_scalar_v<T> || std::has_unique_object_representations_v<T>) {
      if (size + sizeof(T) > Capacity) {  // members named by hand that outgrow their object
        comparable = false;
        return;
      }
      std::memcpy(data + size, &value, sizeof(T));
      size += sizeof(T);
    } else {
      comparable = false;
    }
  }
  argument_view view() const { return {data, size, comparable}; }
};

// kernel<<<grid, block, shared, at.stream>>>(args...), through the stream's
// graph for this configuration where it has one (`shared`: the bytes of
// dynamic shared memory, the same for every launch of one kernel).
template <class... Params, class... Args>
void launch_shared(const stream_place& at, void (*kernel)(Params...), unsigned grid, unsigned block,
                   std::size_t shared, const char* what, const Args&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "launch: one argument per kernel parameter");
  allow_dynamic_shared(kernel, shared);
  if (at.graphs() && grid <= kGraphMaxGrid) {
    std::tuple<Params...> values(args...);  // the parameters, as the kernel takes them
    void* pointers[sizeof...(Params)];
    argument_buffer<(std::size_t(0) + ... + sizeof(Params))> bytes;
    std::apply([&](auto&... v) {
      int i = 0;
      ((pointers[i++] = static_cast<void*>(&v)), ...);
      (bytes.append(v), ...);
    }, values);
    cudaKernelNodeParams node{};
    node.func = reinterpret_cast<void*>(kernel);
    node.gridDim = dim3(grid);
    node.blockDim = dim3(block);
    node.sharedMemBytes = static_cast<unsigned>(shared);
    node.kernelParams = pointers;
    if (launch_graph(at.space->graphs, node, bytes.view(), at.stream)) return;
  }
  kernel<<<grid, block, shared, at.stream>>>(args...);
  check_launch(what);
}
template <class... Params, class... Args>
void launch(const stream_place& at, void (*kernel)(Params...), unsigned grid, unsigned block, const char* what,
            const Args&... args) {
  launch_shared(at, kernel, grid, block, 0, what, args...);
}

// Programmatic dependent launch (Hopper and later), for a second kernel
// that consumes a first one's writes (the segment pieces the spans launch
// joins): the first lets the second begin once each of its own blocks has
// started, and the second's blocks wait for the first to finish before they
// read. The launch between the two is hidden. Only after grids above
// kGraphMaxGrid (launched directly, long enough to hide it); below, the
// early launch took 1.0-1.3x the time of 2^16-item calls.
// H200, 2^26 floats / int32, three rounds against plain launches
// (h200-segmented-dependent-launch.json): fixed-size segments of 65536 and
// 2^22 0.94-0.97x the time, offsets forms 0.94-1.00x, reduce_by_key
// 0.97-0.99x; at 2^16 within the spread.
// (Only a kernel that a dependent launch follows calls it: any kernel the
// caller launches next, as a dependent launch of its own, would begin early.)
__device__ __forceinline__ void let_dependents_launch() {
  NV_IF_TARGET(NV_PROVIDES_SM_90,
               (if (threadIdx.x == 0 && gridDim.x > kGraphMaxGrid) asm volatile("griddepcontrol.launch_dependents;");))
}
// In a launch_after_prior kernel, before it reads what the stream's
// previous kernel wrote: waits for that kernel to finish (at once after a
// plain launch).
__device__ __forceinline__ void wait_for_prior_grid() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.wait;" ::: "memory");))
}

// launch(), for a kernel that calls wait_for_prior_grid before it reads the
// previous kernel's (grid `prior_grid`, which called let_dependents_launch)
// writes: a dependent launch where that grid is large, this kernel's code is
// Hopper's or later and the stream is not being captured; else a plain one.
template <class... Params, class... Args>
void launch_after_prior(const stream_place& at, unsigned prior_grid, void (*kernel)(Params...), unsigned grid,
                        unsigned block, const char* what, const Args&... args) {
  if (prior_grid > kGraphMaxGrid && at.space != nullptr && compiled_arch(kernel, at.where.device) >= 90) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.stream = at.stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    check(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...), "cudaLaunchKernelEx");
    check_launch(what);
    return;
  }
  launch(at, kernel, grid, block, what, args...);
}

}  // namespace cascade::detail
