#pragma once
// Every CUDA call goes through check(); every launch is followed by
// check_launch(). A failure becomes cascade::cuda_error naming the call.

#include <cascade/error.cuh>

#include <cuda_runtime_api.h>

#include <string>

namespace cascade::detail {

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so the caller can go on
    throw cuda_error(status, call);
  }
}

inline void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw cuda_error(status, std::string("launch of ") + kernel);
}

}  // namespace cascade::detail
