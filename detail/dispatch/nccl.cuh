#pragma once
// Dispatch for the NCCL policy (included by <cascade/nccl.cuh>). NCCL's own
// reductions know a few operators on built-in types and fix no combination
// order, so the ranks exchange partials instead and combine them themselves:
//
//  1. local:  the shard's partial, by the single-GPU automatic reduce (N read);
//  2. gather: ncclAllGather of every rank's (partial, has) record, as bytes;
//  3. fold:   one thread folds the records in rank order, after init: all of
//             them for reduce, those of the lower ranks for a scan's carry;
//  4. scan:   the single-GPU scan of the shard with the carry as init
//             (N read, N written).
// Every rank folds the same bytes in the same order, and the local reduce is
// deterministic, so every rank gets the same bits in every run.

#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/reduce.cuh>
#include <cascade/detail/dispatch/scan.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace cascade::detail {

inline void check_nccl(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw nccl_error(status, call);
}

// One rank's contribution: its shard's reduction, absent for an empty shard.
template <class T>
struct partial {
  T value;
  bool has;

  partial() = default;  // value-initialised: absent
  __host__ __device__ partial(const T& v, bool h) : value(v), has(h) {}
  // An input item, as the local reduce without identity reads it (see local_partial).
  template <class U>
  __host__ __device__ explicit partial(const U& item) : value(static_cast<T>(item)), has(true) {}
};

// op on partials: an absent one is skipped, so no identity is ever needed.
template <class Op>
struct skip_absent {
  Op op;

  template <class T>
  __host__ __device__ partial<T> operator()(const partial<T>& a, const partial<T>& b) const {
    if (!a.has) return b;
    if (!b.has) return a;
    return {static_cast<T>(op(a.value, b.value)), true};
  }
};

template <class T, class Op>
__global__ void fold_ranks_kernel(const partial<T>* records, int count, partial<T> init, partial<T>* result,
                                  skip_absent<Op> op) {
  partial<T> acc = init;
  for (int r = 0; r < count; ++r) acc = op(acc, records[r]);
  *result = acc;
}

// Step 1: the shard's reduction in AccT into *out (device memory), stream-ordered.
template <class AccT, class It, class Op>
void local_partial(It first, It last, partial<AccT>* out, Op op, cudaStream_t stream) {
  const auto local = cascade::cuda.on(stream);
  if constexpr (has_identity_v<Op, AccT>) {
    // init = identity leaves the reduction as it is: the plain single-GPU
    // reduce, with its vector loads and AccT shuffles.
    cascade::reduce_into(local, first, last, &out->value, identity_of<AccT>(op), op);
    check(cudaMemsetAsync(&out->has, first != last ? 1 : 0, sizeof(bool), stream), "cudaMemsetAsync");
  } else {
    // No identity to start from: reduce partials, starting from an absent one.
    cascade::reduce_into(local, first, last, out, partial<AccT>{}, skip_absent<Op>{op});
  }
}

// Steps 1-3: the fold, in rank order after `init`, of every rank's partial
// (lower_only: those of the ranks below this one). Waits for the result.
template <class AccT, class It, class Op>
partial<AccT> gather_and_fold(const nccl_policy& policy, It first, It last, Op op, partial<AccT> init,
                              bool lower_only, const char* name) {
  static_assert(std::is_trivially_copyable_v<AccT>,
                "cascade: the nccl policy sends partials as bytes: the accumulator type must be trivially copyable");
  const ncclComm_t comm = policy.comm();
  const cudaStream_t stream = policy.stream();
  int ranks = 0, rank = 0, device = 0;
  check_nccl(ncclCommCount(comm, &ranks), "ncclCommCount");
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank");
  check_nccl(ncclCommCuDevice(comm, &device), "ncclCommCuDevice");
  if (device != current_device()) {
    // Temporaries and kernels go to the current device: NCCL would read the wrong one.
    throw std::invalid_argument(std::string(name) + ": the communicator's GPU " + std::to_string(device) +
                                " is not the current device " + std::to_string(current_device()) +
                                "; call cudaSetDevice first");
  }

  // records[0, ranks): every rank's partial; records[ranks]: the fold.
  using record_t = partial<AccT>;
  temporary_buffer temp(sizeof(record_t) * (ranks + 1), stream);
  record_t* records = temp.at<record_t>(0);
  local_partial(first, last, records + rank, op, stream);
  // In place: this rank's record already sits in its slot of the gathered array.
  check_nccl(ncclAllGather(records + rank, records, sizeof(record_t), ncclUint8, comm, stream), "ncclAllGather");
  fold_ranks_kernel<<<1, 1, 0, stream>>>(records, lower_only ? rank : ranks, init, records + ranks,
                                         skip_absent<Op>{op});
  check_launch("cascade rank-fold kernel");
  record_t result;
  check(cudaMemcpyAsync(&result, records + ranks, sizeof(record_t), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return result;
}

// Every check that can fail on one rank alone comes before any communication.
template <class It>
void check_shard(It first, It last, const char* name) {
  if (checked_distance(first, last, name) > 0) check_device_accessible(first, name, "the input range");
}

template <class It, class T, class Op>
T nccl_reduce(const nccl_policy& policy, It first, It last, T init, Op op) {
  constexpr const char* name = "cascade::reduce";
  check_shard(first, last, name);
  return gather_and_fold(policy, first, last, op, partial<T>{init, true}, false, name).value;
}

template <class It, class OutIt, class AccT, class Op>
OutIt nccl_scan(const nccl_policy& policy, It first, It last, OutIt out, Op op, scan_request<AccT> request,
                const char* name) {
  check_shard(first, last, name);
  if (first != last) check_device_accessible(out, name, "the output range");
  const maybe<AccT> init = on_device(request.init);
  const partial<AccT> carry = gather_and_fold(policy, first, last, op, partial<AccT>{init.value, init.has}, true, name);
  // Without init, rank 0 and ranks whose lower ranks hold nothing have no carry.
  if (carry.has) request.init = carry.value;
  else request.init.reset();
  return scan(cascade::cuda.on(policy.stream()), first, last, out, op, request, name);
}

}  // namespace cascade::detail
