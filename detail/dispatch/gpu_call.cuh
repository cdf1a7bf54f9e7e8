#pragma once
// What every GPU entry point does around its work, in one place: the
// policy's memory resource in scope for the call, the policy's stream
// checked against the current device (a stream of another device is refused
// before anything is enqueued; one destroyed by cudaDeviceReset is refused
// where the driver reports it, its use being undefined in CUDA), and, for
// the algorithms that return a value on the host, the
// wait for it (refused inside a stream capture, which cannot be waited for).

#include <cascade/error.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/context.cuh>
#include <cascade/detail/util/memory.cuh>
#include <cascade/detail/util/result_slot.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <cuda_runtime_api.h>

#include <cstring>
#include <string>
#include <type_traits>

namespace cascade::detail {

// The values a GPU call carries through registers, shuffles and shared
// memory (its accumulator; for *_element, the items): trivially copyable,
// since they move between threads as bytes, and default constructible,
// since a thread's slots are declared before they are filled (CUB's and
// Thrust's device algorithms ask the same). Each GPU dispatch checks them
// first, so that a misuse's first error says what is wrong.
template <class T>
constexpr bool require_gpu_value() {
  static_assert(std::is_trivially_copyable_v<T>,
                "cascade: on a GPU policy, the values and accumulator must be trivially copyable");
  static_assert(std::is_default_constructible_v<T>,
                "cascade: on a GPU policy, the values and accumulator must be default constructible (the host "
                "policies do not need it)");
  return true;
}

class gpu_call {
 public:
  template <class Policy>
  gpu_call(const Policy& policy, const char* name) : memory_(policy.memory()), at_(current_device_context()) {
    check_stream_device(policy.stream(), at_, name);
  }
  const device_context& at() const { return at_; }

 private:
  memory_scope memory_;
  device_context at_;
};

// Before a value-returning call enqueues anything, so that a capture stays valid.
// `instead` names the stream-ordered form to use inside a capture.
inline void require_not_capturing(cudaStream_t stream, const char* name, const char* instead) {
  if (stream_is_capturing(stream)) {
    throw cuda_error(cudaErrorStreamCaptureUnsupported,
                     std::string(name) + " (it returns its value on the host, which means waiting for the stream; "
                                         "a stream being captured cannot be waited for: use " + instead + ")");
  }
}

// Runs `write(out)`, which writes one R to `out` (device-reachable) in stream
// order, and returns that value on the host: through the thread's mapped
// result slot where R fits it (one launch, one synchronisation), else a
// temporary and a copy. The caller has called require_not_capturing.
template <class R, class Write>
R wait_for_value(cudaStream_t stream, const device_context& at, Write write) {
  R value;
  if constexpr (result_slot::fits<R>) {
    R* slot = result_slot::get<R>(at);
    write(slot);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    std::memcpy(&value, slot, sizeof(R));
  } else {
    temporary_buffer temp(sizeof(R), stream);
    write(temp.at<R>(0));
    check(cudaMemcpyAsync(&value, temp.at<R>(0), sizeof(R), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  return value;
}

}  // namespace cascade::detail
