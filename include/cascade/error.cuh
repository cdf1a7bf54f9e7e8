#pragma once
// cascade's exceptions. CUDA failures surface as cascade::cuda_error, which
// names the call that failed and keeps the cudaError_t for programs that
// branch on it.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace cascade {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& call)
      : std::runtime_error("cascade: " + call + " failed: " + cudaGetErrorString(code) + " (" +
                           cudaGetErrorName(code) + ")"),
        code_(code) {}

  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
