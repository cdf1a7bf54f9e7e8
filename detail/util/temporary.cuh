#pragma once
// Temporary device storage from a stream-ordered pool (cudaMallocFromPoolAsync
// on the call's stream), released with cudaFreeAsync when the call returns,
// also on error paths. The pool is cascade's own, one per device, so that the
// user's default pool keeps its settings; it keeps up to kRetainedBytes of
// freed memory mapped, so that repeated calls do not pay for mapping pages
// (with the default threshold of 0 every synchronisation would unmap them).

#include <cascade/detail/util/check.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace cascade::detail {

inline constexpr std::uint64_t kRetainedBytes = 64ull << 20;

inline cudaMemPool_t temporary_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  std::lock_guard<std::mutex> lock(mutex);
  if (device >= static_cast<int>(pools.size())) pools.resize(device + 1, nullptr);
  if (pools[device] == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    std::uint64_t threshold = kRetainedBytes;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
          "cudaMemPoolSetAttribute");
    pools[device] = pool;
  }
  return pools[device];
}

inline int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

// Carves aligned pieces out of one allocation: one cudaMallocFromPoolAsync per call.
class temporary_layout {
 public:
  static constexpr std::size_t kAlignment = 256;

  // Reserves room for `count` objects of T; returns the piece's offset.
  template <class T>
  std::size_t add(std::size_t count) {
    const std::size_t offset = bytes_;
    bytes_ += (count * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    return offset;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};

class temporary_buffer {
 public:
  temporary_buffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes == 0) return;
    check(cudaMallocFromPoolAsync(&ptr_, bytes, temporary_pool(current_device()), stream),
          "cudaMallocFromPoolAsync");
  }
  ~temporary_buffer() {
    if (ptr_ != nullptr) (void)cudaFreeAsync(ptr_, stream_);  // a destructor must not throw
  }
  temporary_buffer(const temporary_buffer&) = delete;
  temporary_buffer& operator=(const temporary_buffer&) = delete;

  template <class T>
  T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<char*>(ptr_) + offset);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace cascade::detail
