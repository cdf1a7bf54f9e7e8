#pragma once
// The implementations under test, as runners (see harness.cuh). All of them
// compute a sum (plus) with the value type as accumulator and T{} as init.
//
//   cascade_runner{policy}       cascade::reduce_into / inclusive_scan / exclusive_scan
//                                with any cascade policy: cascade::cuda (and .with(strategy))
//                                on the benchmark stream, or cascade::seq / cascade::par
//                                on the host copy of the input
//   cascade_host_runner{policy}  cascade::reduce, which returns the value on the host
//   cub_runner                   cub::DeviceReduce::Sum, cub::DeviceScan::Inclusive/ExclusiveSum,
//                                temporary storage allocated once, outside the timed call
//   thrust_runner                thrust::reduce / inclusive_scan / exclusive_scan with
//                                thrust::cuda::par.on(stream) (thrust allocates its own
//                                temporaries and waits for the stream, as its users see it)

#include "harness.cuh"

#include <cascade/cascade.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include <cuda/std/functional>

namespace bench {

// A cascade policy bound to the benchmark stream; host policies have none.
template <class S>
cascade::cuda_policy<S> on_stream(const cascade::cuda_policy<S>& policy, cudaStream_t stream) {
  return policy.on(stream);
}
template <class Policy>
Policy on_stream(const Policy& policy, cudaStream_t) {
  return policy;
}

template <class Policy, class T>
void cascade_call(reduce_t, const Policy& p, io<T> io) {
  cascade::reduce_into(p, io.in, io.in + io.n, io.out, T{}, ::cuda::std::plus<>{});
}
template <class Policy, class T>
void cascade_call(inclusive_scan_t, const Policy& p, io<T> io) {
  cascade::inclusive_scan(p, io.in, io.in + io.n, io.out);
}
template <class Policy, class T>
void cascade_call(exclusive_scan_t, const Policy& p, io<T> io) {
  cascade::exclusive_scan(p, io.in, io.in + io.n, io.out, T{});
}

template <class Policy>
struct cascade_runner {
  static constexpr memory where = cascade::is_host_policy_v<Policy> ? memory::host : memory::device;
  Policy policy;

  template <class Algorithm, class T>
  auto bind(Algorithm, io<T> io) const {
    return [p = on_stream(policy, io.stream), io] { cascade_call(Algorithm{}, p, io); };
  }
};
template <class Policy>
cascade_runner(Policy) -> cascade_runner<Policy>;

template <class Policy>
struct cascade_host_runner {
  static constexpr memory where = memory::device;
  Policy policy;

  template <class T>
  auto bind(reduce_t, io<T> io) const {
    return [p = policy.on(io.stream), io] {
      benchmark::DoNotOptimize(cascade::reduce(p, io.in, io.in + io.n, T{}, ::cuda::std::plus<>{}));
    };
  }
};
template <class Policy>
cascade_host_runner(Policy) -> cascade_host_runner<Policy>;

// One CUB call; with temp == nullptr it only sizes the temporary storage.
template <class T>
void cub_call(reduce_t, void* temp, std::size_t& bytes, io<T> io) {
  check(cub::DeviceReduce::Sum(temp, bytes, io.in, io.out, io.n, io.stream), "cub::DeviceReduce::Sum");
}
template <class T>
void cub_call(inclusive_scan_t, void* temp, std::size_t& bytes, io<T> io) {
  check(cub::DeviceScan::InclusiveSum(temp, bytes, io.in, io.out, io.n, io.stream), "cub::DeviceScan::InclusiveSum");
}
template <class T>
void cub_call(exclusive_scan_t, void* temp, std::size_t& bytes, io<T> io) {
  check(cub::DeviceScan::ExclusiveSum(temp, bytes, io.in, io.out, io.n, io.stream), "cub::DeviceScan::ExclusiveSum");
}

struct cub_runner {
  static constexpr memory where = memory::device;

  template <class Algorithm, class T>
  auto bind(Algorithm, io<T> io) const {
    std::size_t bytes = 0;
    cub_call(Algorithm{}, nullptr, bytes, io);
    return [temp = device_alloc(bytes), bytes, io]() mutable { cub_call(Algorithm{}, temp.get(), bytes, io); };
  }
};

template <class T>
void thrust_call(reduce_t, io<T> io) {
  benchmark::DoNotOptimize(thrust::reduce(thrust::cuda::par.on(io.stream), io.in, io.in + io.n));
}
template <class T>
void thrust_call(inclusive_scan_t, io<T> io) {
  thrust::inclusive_scan(thrust::cuda::par.on(io.stream), io.in, io.in + io.n, io.out);
}
template <class T>
void thrust_call(exclusive_scan_t, io<T> io) {
  thrust::exclusive_scan(thrust::cuda::par.on(io.stream), io.in, io.in + io.n, io.out);
}

struct thrust_runner {
  static constexpr memory where = memory::device;

  template <class Algorithm, class T>
  auto bind(Algorithm, io<T> io) const {
    return [io] { thrust_call(Algorithm{}, io); };
  }
};

}  // namespace bench
