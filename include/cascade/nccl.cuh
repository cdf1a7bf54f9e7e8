#pragma once
// Reduce and scan over an array sharded across GPUs: one NCCL rank per GPU,
// each holding one contiguous piece (its shard) of the array, in rank order.
//
//   cascade::nccl(comm)                  a policy over a user-owned ncclComm_t, default stream
//   cascade::nccl(comm).on(stream)       stream-ordered on `stream`
//
//   T     cascade::reduce(nccl(comm), first, last [, init [, op]]);
//   OutIt cascade::inclusive_scan(nccl(comm), first, last, d_first [, op [, init]]);
//   OutIt cascade::exclusive_scan(nccl(comm), first, last, d_first, init [, op]);
//
// Every rank of the communicator makes the same call with its own shard
// (device iterators on the communicator's GPU, which must be current). reduce
// returns the reduction of the whole array on every rank, init applied once;
// a scan writes the global scan of the rank's shard, the lower ranks' prefix
// carried in. Any associative operator and trivially copyable accumulator;
// results are bitwise identical on every rank and in every run. Both wait on
// the host for the ranks' partials; a scan's own pass is then stream-ordered.
// Keep NVLink multicast off (NCCL_NVLS_ENABLE=0): see docs/distributed.md.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/reduce.cuh>
#include <cascade/scan.cuh>

#include <cuda/std/functional>
#include <cuda/stream_ref>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace cascade {

// An NCCL failure: names the call and keeps the ncclResult_t.
class nccl_error : public std::runtime_error {
 public:
  nccl_error(ncclResult_t code, const std::string& call)
      : std::runtime_error("cascade: " + call + " failed: " + ncclGetErrorString(code) + " (ncclResult_t " +
                           std::to_string(static_cast<int>(code)) + ")"),
        code_(code) {}

  ncclResult_t code() const noexcept { return code_; }

 private:
  ncclResult_t code_;
};

// The distributed policy: a communicator (owned by the caller) and a stream,
// used for the NCCL calls and the local kernels alike.
class nccl_policy {
 public:
  constexpr explicit nccl_policy(ncclComm_t comm, cudaStream_t stream = nullptr) : comm_(comm), stream_(stream) {}

  constexpr nccl_policy on(cudaStream_t stream) const { return nccl_policy(comm_, stream); }
  nccl_policy on(::cuda::stream_ref stream) const { return nccl_policy(comm_, stream.get()); }

  constexpr ncclComm_t comm() const { return comm_; }
  constexpr cudaStream_t stream() const { return stream_; }

 private:
  ncclComm_t comm_;
  cudaStream_t stream_;
};

constexpr nccl_policy nccl(ncclComm_t comm) { return nccl_policy(comm); }

}  // namespace cascade

// The implementation needs nccl_error and nccl_policy above.
#include <cascade/detail/dispatch/nccl.cuh>

namespace cascade {

// These overloads are more specialised than the generic ones in reduce.cuh and
// scan.cuh, so a call with an nccl_policy lands here.

template <class It, class T, class BinaryOp>
T reduce(const nccl_policy& policy, It first, It last, T init, BinaryOp op) {
  return detail::nccl_reduce(policy, first, last, init, op);
}

template <class It, class T>
T reduce(const nccl_policy& policy, It first, It last, T init) {
  return detail::nccl_reduce(policy, first, last, init, ::cuda::std::plus<>{});
}

template <class It>
detail::value_t<It> reduce(const nccl_policy& policy, It first, It last) {
  return detail::nccl_reduce(policy, first, last, detail::value_t<It>{}, ::cuda::std::plus<>{});
}

template <class It, class OutIt, class BinaryOp>
OutIt inclusive_scan(const nccl_policy& policy, It first, It last, OutIt d_first, BinaryOp op) {
  using acc_t = detail::value_t<It>;
  return detail::nccl_scan(policy, first, last, d_first, op, detail::scan_request<acc_t>{std::nullopt, false},
                           "cascade::inclusive_scan");
}

template <class It, class OutIt>
OutIt inclusive_scan(const nccl_policy& policy, It first, It last, OutIt d_first) {
  return cascade::inclusive_scan(policy, first, last, d_first, ::cuda::std::plus<>{});
}

template <class It, class OutIt, class BinaryOp, class T>
OutIt inclusive_scan(const nccl_policy& policy, It first, It last, OutIt d_first, BinaryOp op, T init) {
  return detail::nccl_scan(policy, first, last, d_first, op, detail::scan_request<T>{init, false},
                           "cascade::inclusive_scan");
}

template <class It, class OutIt, class T, class BinaryOp>
OutIt exclusive_scan(const nccl_policy& policy, It first, It last, OutIt d_first, T init, BinaryOp op) {
  return detail::nccl_scan(policy, first, last, d_first, op, detail::scan_request<T>{init, true},
                           "cascade::exclusive_scan");
}

template <class It, class OutIt, class T>
OutIt exclusive_scan(const nccl_policy& policy, It first, It last, OutIt d_first, T init) {
  return cascade::exclusive_scan(policy, first, last, d_first, init, ::cuda::std::plus<>{});
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
