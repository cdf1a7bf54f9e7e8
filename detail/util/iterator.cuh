#pragma once
// Iterator facts the layers below need: value and accumulator types, the raw
// pointer behind a contiguous iterator (device_ptr, device_vector iterators),
// and the checks made before any work: a sane range, and device memory behind
// raw pointers handed to a GPU policy.

#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/context.cuh>

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <cuda.h>
#include <cuda/std/iterator>
#include <cuda/std/type_traits>
#include <cuda/std/version>

// libcu++'s own iterators (cuda/iterator), where this CCCL has them.
#if __has_include(<cuda/iterator>)
#include <cuda/iterator>
#define CASCADE_HAS_CUDA_ITERATORS 1
#else
#define CASCADE_HAS_CUDA_ITERATORS 0
#endif
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace cascade::detail {

using offset_t = std::int64_t;

// An iterator's value type: std::iterator_traits' where it has one, else
// libcu++'s. C++17's std::iterator_traits is empty for an iterator without
// all five nested types, as libcu++'s cuda::permutation_iterator (CCCL 3.6)
// is; cuda::std::iterator_traits follows C++20 and finds its value type.
template <class It, class = void>
struct value_of {
  using type = typename ::cuda::std::iterator_traits<It>::value_type;
};
template <class It>
struct value_of<It, std::void_t<typename std::iterator_traits<It>::value_type>> {
  using type = typename std::iterator_traits<It>::value_type;
};
template <class It>
using value_t = typename value_of<It>::type;

// The decayed type of op(a, b). It is not the scans' accumulator: that is
// the input's value type without init and init's type with it (P0571 as
// include/cascade/scan.cuh applies it), whatever op returns.
template <class Op, class A, class B>
using op_result_t = ::cuda::std::decay_t<::cuda::std::invoke_result_t<Op&, A, B>>;

template <class It>
auto unwrap(It it) {
  return thrust::try_unwrap_contiguous_iterator(it);
}
template <class It>
using unwrapped_t = decltype(unwrap(std::declval<It>()));

// Iterators that compute their values instead of reading memory: counting,
// constant, and transforms of them. Reading them costs no memory traffic, so
// coalescing does not matter and each thread may take its own run of items.
// Thrust's and libcu++'s (cuda::counting_iterator, cuda::constant_iterator,
// cuda::transform_iterator: CCCL 3.1 and later) alike.
template <class It>
struct computed_iterator : std::false_type {};
template <class T, class S, class Tr, class D>
struct computed_iterator<thrust::counting_iterator<T, S, Tr, D>> : std::true_type {};
#if defined(_CCCL_SUPPRESS_DEPRECATED_PUSH)
_CCCL_SUPPRESS_DEPRECATED_PUSH  // thrust::constant_iterator is deprecated in CCCL 3.6, still accepted
#endif
template <class T, class I, class S>
struct computed_iterator<thrust::constant_iterator<T, I, S>> : std::true_type {};
#if defined(_CCCL_SUPPRESS_DEPRECATED_POP)
_CCCL_SUPPRESS_DEPRECATED_POP
#endif
template <class F, class It, class R, class V>
struct computed_iterator<thrust::transform_iterator<F, It, R, V>> : computed_iterator<It> {};
#if CASCADE_HAS_CUDA_ITERATORS
// counting_iterator has three more (defaulted) template parameters in C++17
// builds than in C++20 ones, where a pack for them does not compile; naming
// the first two matches both.
template <class S, class D>
std::true_type is_cuda_counting(const ::cuda::counting_iterator<S, D>*);
std::false_type is_cuda_counting(const void*);
template <class It>
struct computed_iterator_cuda : decltype(is_cuda_counting(static_cast<const It*>(nullptr))) {};
template <class T, class I>
struct computed_iterator_cuda<::cuda::constant_iterator<T, I>> : std::true_type {};
template <class F, class It>
struct computed_iterator_cuda<::cuda::transform_iterator<F, It>>
    : std::bool_constant<computed_iterator<It>::value || computed_iterator_cuda<It>::value> {};
template <class F, class It, class R, class V>
struct computed_iterator_cuda<thrust::transform_iterator<F, It, R, V>> : computed_iterator_cuda<It> {};
template <class It>
inline constexpr bool computed_iterator_v = computed_iterator<It>::value || computed_iterator_cuda<It>::value;
#else
template <class It>
inline constexpr bool computed_iterator_v = computed_iterator<It>::value;
#endif

// The one array an iterator reads or writes, where it can say: a pointer, a
// computed iterator (none), Thrust's transform_iterator over one, or an
// iterator or output policy that names its array (array(): the masked scan's
// outputs, segmented/masked_scan.cuh): what the look-back scans compare to
// tell whether they run in place (decoupled_lookback.cuh: may_overlap).
struct array_address {
  const void* p;  // nullptr: no memory
  bool known;
};
template <class It, class = void>
struct names_array : std::false_type {};
template <class It>
struct names_array<It, std::void_t<decltype(std::declval<const It&>().array())>> : std::true_type {};
template <class It>
struct is_thrust_transform : std::false_type {};
template <class F, class It, class R, class V>
struct is_thrust_transform<thrust::transform_iterator<F, It, R, V>> : std::true_type {};

// Transform iterators (Thrust's and libcu++'s), whose values are f(base[i]):
// one value an item of the iterator they transform.
template <class It>
struct is_transform : is_thrust_transform<It> {};
#if CASCADE_HAS_CUDA_ITERATORS
template <class F, class It>
struct is_transform<::cuda::transform_iterator<F, It>> : std::true_type {};
#endif

template <class It>
__device__ __forceinline__ array_address array_of(const It& it) {
  if constexpr (std::is_pointer_v<It>) return {static_cast<const void*>(it), true};
  else if constexpr (computed_iterator_v<It>) return {nullptr, true};
  else if constexpr (is_thrust_transform<It>::value) return array_of(it.base());
  else if constexpr (names_array<It>::value) return array_of(it.array());
  else return {nullptr, false};
}

// Every policy indexes its ranges (a chunk or a tile from its offset).
template <class It, class = void>
struct is_random_access : std::false_type {};
template <class It>
struct is_random_access<It, std::void_t<decltype(std::declval<const It&>() - std::declval<const It&>()),
                                        decltype(std::declval<const It&>() + offset_t(1)),
                                        decltype(std::declval<const It&>()[offset_t(1)])>> : std::true_type {};

template <class It>
offset_t checked_distance(It first, It last, const char* algorithm) {
  if constexpr (!is_random_access<It>::value) {
    static_assert(is_random_access<It>::value,
                  "cascade: the iterators must be random access (first + i, first[i], last - first), as those of "
                  "std::vector, arrays, device vectors and Thrust's fancy iterators are; std::list's are not");
    return 0;
  } else {
    const auto n = static_cast<offset_t>(last - first);
    if (n < 0) throw std::invalid_argument(std::string(algorithm) + ": last precedes first (negative range)");
    return n;
  }
}

// Whether the driver knows `p` as part of a CUDA allocation (device, managed
// or page-locked host memory), in one query of one attribute, through the
// entry point the runtime hands out (no link to the driver library). A
// call's host time before its launch is part of its time (the GPU waits for
// it), and cudaPointerGetAttributes, which fills a whole record, costs more:
// H100 host, after a stream synchronisation, 0.13 / 0.12 us per pointer
// against 0.09 / 0.08; within a call, 0.23 against 0.15.
inline bool driver_knows_pointer(const void* p) {
  using query_t = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
  // Looked up outside any capture's restrictions (util/context.cuh): the
  // process's first call may be made inside a global-mode capture.
  static const query_t query = driver_entry<query_t>("cuPointerGetAttribute");
  if (query == nullptr) return false;
  unsigned type = 0;
  return query(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS;
}

// How many values fit from p to the end of the memory that holds it (device,
// managed or page-locked), a bound on any array that begins at p; 0 where
// the driver knows none. One query of the pointer's range, the mapping under
// it and its pool: for an allocation (cudaMalloc, a pool, managed or
// page-locked memory) the range is the allocation. Memory mapped through
// the virtual memory API (cuMemMap: PyTorch's expandable segments,
// allocators that grow in place) reports the whole reserved range instead,
// of which only some pieces may be mapped, each a mapping of its own
// (cuMemGetAddressRange reports that piece alone, which bounded an array
// over several pieces short: the segmented forms then wrote nothing). There
// the bound runs through the pieces mapped and readable one after another
// from p, a query each (about 0.2 us), until it holds `enough` items. A pool's
// allocation may span several of the pool's mappings (32 MB each, H200) but
// is all the pool's: its range is the bound, without a walk.
template <class T>
offset_t items_to_allocation_end(const T* p, offset_t enough = std::numeric_limits<offset_t>::max()) {
  using attributes_t = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
  static const attributes_t attributes = driver_entry<attributes_t>("cuPointerGetAttributes");
  if (attributes == nullptr) return 0;
  // Unknown pointers give zeros, not an error.
  CUdeviceptr start = 0, piece = 0;
  std::size_t bytes = 0, piece_bytes = 0;
  void* pool = nullptr;
  CUpointer_attribute range_asked[] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                       CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, CU_POINTER_ATTRIBUTE_MAPPING_SIZE,
                                       CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
  void* range_got[] = {&start, &bytes, &piece, &piece_bytes, &pool};
  const auto at = reinterpret_cast<CUdeviceptr>(p);
  if (attributes(5, range_asked, range_got, at) != CUDA_SUCCESS || at < start || at >= start + bytes ||
      piece_bytes == 0) {
    return 0;
  }
  const CUdeviceptr range_end = start + bytes;
  CUdeviceptr end = pool != nullptr ? range_end : piece + piece_bytes;
  while (end < range_end && static_cast<offset_t>((end - at) / sizeof(T)) < enough) {
    int mapped = 0;
    unsigned access = 0;
    piece = 0;
    piece_bytes = 0;
    CUpointer_attribute piece_asked[] = {CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
                                         CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, CU_POINTER_ATTRIBUTE_MAPPING_SIZE};
    void* piece_got[] = {&mapped, &access, &piece, &piece_bytes};
    if (attributes(4, piece_asked, piece_got, end) != CUDA_SUCCESS || !mapped ||
        (access & CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ) == 0 || piece != end || piece_bytes == 0) {
      break;
    }
    end += piece_bytes;
  }
  return static_cast<offset_t>((std::min(end, range_end) - at) / sizeof(T));
}
// Whether an iterator reads one array, value i at item i: a pointer, or a
// transform iterator over one.
template <class It>
constexpr bool reads_an_array() {
  using raw_t = unwrapped_t<It>;
  if constexpr (is_transform<raw_t>::value) return reads_an_array<std::decay_t<decltype(std::declval<raw_t>().base())>>();
  else return std::is_pointer_v<raw_t>;
}
// The same bound for such an iterator (0 for others).
template <class It>
offset_t items_to_allocation_end_of(It it, offset_t enough = std::numeric_limits<offset_t>::max()) {
  auto raw = unwrap(it);
  if constexpr (is_transform<decltype(raw)>::value) return items_to_allocation_end_of(raw.base(), enough);
  else if constexpr (std::is_pointer_v<decltype(raw)>) return items_to_allocation_end(raw, enough);
  else return 0;
}

// Whether the current device reads pageable host memory itself (HMM on
// Linux, or address translation services on Grace Hopper): there malloc'd
// memory is as good an input as device memory. Asked only of memory the
// driver does not know.
inline bool device_reads_pageable_memory() {
  int device = 0, pageable = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device), "cudaDeviceGetAttribute");
  return pageable != 0;
}

// A raw pointer handed to a GPU policy, or one under a transform iterator,
// must point to memory the device can reach: device, managed, or page-locked
// host memory, or any host memory where the device reads pageable memory.
// Elsewhere pageable host memory would make the kernel fault; say so
// instead. Other fancy iterators are not checked.
template <class It>
void check_device_accessible(It it, const char* algorithm, const char* what) {
  auto raw = unwrap(it);
  if constexpr (is_transform<decltype(raw)>::value) {
    check_device_accessible(raw.base(), algorithm, what);
  } else if constexpr (std::is_pointer_v<decltype(raw)>) {
    if (raw == nullptr) throw std::invalid_argument(std::string(algorithm) + ": " + what + " is a null pointer");
    if (driver_knows_pointer(static_cast<const void*>(raw))) return;
    // Not known to the driver (or no entry point): the runtime's answer,
    // and its error where there is one.
    cudaPointerAttributes attributes{};
    check(cudaPointerGetAttributes(&attributes, static_cast<const void*>(raw)), "cudaPointerGetAttributes");
    if (attributes.type == cudaMemoryTypeUnregistered && !device_reads_pageable_memory()) {
      throw std::invalid_argument(std::string(algorithm) + ": " + what +
                                  " is host memory, which a cascade::cuda policy cannot read; copy it "
                                  "to the device (e.g. thrust::device_vector) or use cascade::seq / "
                                  "cascade::par");
    }
  }
}

}  // namespace cascade::detail
