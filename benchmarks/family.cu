// The std family beside CUB, Thrust and the measured limits:
//
//   transform_reduce/<impl>/<type>/<n>          sum of 2x + 1 over the input
//   inner_product/<impl>/<type>/<n>             sum of x[i] * y[i] (two arrays: 2n items read)
//   min_element, max_element, minmax_element/<impl>/<type>/<n>
//   transform_inclusive_scan/<impl>/<type>/<n>  inclusive sum of 2x + 1
//
// impl: cascade (the new entry points); cascade.iterator (cascade::reduce /
// inclusive_scan over the equivalent thrust transform / zip iterator: what the
// entry points must not be slower than); cub (DeviceReduce::TransformReduce,
// ArgMin, ArgMax, ArgMinMax (CCCL 3.6 and later), DeviceScan::InclusiveScan
// over a transform iterator); thrust; read_limit / copy_limit (limits.cuh).
// cascade's transform_reduce and *_element return on the host, as Thrust's
// do; CUB's calls are stream-ordered.

#include "harness.cuh"
#include "limits.cuh"
#include "runners.cuh"

#include <cascade/cascade.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/extrema.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>

#include <cuda/std/functional>
#include <cuda/std/tuple>
#include <cuda/stream_ref>

#include <map>

#if CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 6)
#define CASCADE_BENCH_CUB_ARG_MIN_MAX 1  // ArgMinMax, and the ArgMin / ArgMax that take an environment
#else
#define CASCADE_BENCH_CUB_ARG_MIN_MAX 0
#endif

namespace bench {

struct transform_reduce_t {
  static constexpr const char* name = "transform_reduce";
  static constexpr int passes = 1;
};
struct inner_product_t {
  static constexpr const char* name = "inner_product";
  static constexpr int passes = 2;  // two arrays read
};
struct min_element_t {
  static constexpr const char* name = "min_element";
  static constexpr int passes = 1;
};
struct max_element_t {
  static constexpr const char* name = "max_element";
  static constexpr int passes = 1;
};
struct minmax_element_t {
  static constexpr const char* name = "minmax_element";
  static constexpr int passes = 1;
};
struct transform_inclusive_scan_t {
  static constexpr const char* name = "transform_inclusive_scan";
  static constexpr int passes = 2;
};

namespace {

struct twice_plus_one {
  template <class T>
  __host__ __device__ T operator()(T x) const {
    return x + x + T(1);
  }
};
struct product_of_pair {
  template <class Tuple>
  __host__ __device__ auto operator()(const Tuple& t) const {
    return ::cuda::std::get<0>(t) * ::cuda::std::get<1>(t);  // thrust::tuple is cuda::std::tuple
  }
};

// inner_product's second array: other values of the same kind, made once.
template <class T>
const T* second_input(std::int64_t n) {
  static std::map<std::int64_t, device_buffer> inputs;
  auto it = inputs.find(n);
  if (it == inputs.end()) {
    device_buffer buffer = device_alloc(n * sizeof(T));
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 4096));
    fill_random<<<blocks, 256, 0, stream()>>>(static_cast<T*>(buffer.get()), n, 0x5ec0d000ull + n);
    check_launch("fill_random kernel");
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
    it = inputs.emplace(n, std::move(buffer)).first;
  }
  return static_cast<const T*>(it->second.get());
}

template <class T>
auto pairs_of(io<T> io) {
  return thrust::make_zip_iterator(io.in, second_input<T>(io.n));
}

struct cascade_family_runner {
  static constexpr memory where = memory::device;
  template <class T>
  auto bind(transform_reduce_t, io<T> io) const {
    return [io] {
      benchmark::DoNotOptimize(cascade::transform_reduce(cascade::cuda.on(io.stream), io.in, io.in + io.n, T{},
                                                         ::cuda::std::plus<>{}, twice_plus_one{}));
    };
  }
  template <class T>
  auto bind(inner_product_t, io<T> io) const {
    return [io, y = second_input<T>(io.n)] {
      benchmark::DoNotOptimize(cascade::transform_reduce(cascade::cuda.on(io.stream), io.in, io.in + io.n, y, T{}));
    };
  }
  template <class T>
  auto bind(min_element_t, io<T> io) const {
    return [io] { benchmark::DoNotOptimize(cascade::min_element(cascade::cuda.on(io.stream), io.in, io.in + io.n)); };
  }
  template <class T>
  auto bind(max_element_t, io<T> io) const {
    return [io] { benchmark::DoNotOptimize(cascade::max_element(cascade::cuda.on(io.stream), io.in, io.in + io.n)); };
  }
  template <class T>
  auto bind(minmax_element_t, io<T> io) const {
    return [io] { benchmark::DoNotOptimize(cascade::minmax_element(cascade::cuda.on(io.stream), io.in, io.in + io.n)); };
  }
  template <class T>
  auto bind(transform_inclusive_scan_t, io<T> io) const {
    return [io] {
      cascade::transform_inclusive_scan(cascade::cuda.on(io.stream), io.in, io.in + io.n, io.out, ::cuda::std::plus<>{},
                                        twice_plus_one{});
    };
  }
};

// The flat algorithms over the equivalent iterator.
struct cascade_iterator_runner {
  static constexpr memory where = memory::device;
  template <class T>
  auto bind(transform_reduce_t, io<T> io) const {
    return [io] {
      const auto first = thrust::make_transform_iterator(io.in, twice_plus_one{});
      benchmark::DoNotOptimize(
          cascade::reduce(cascade::cuda.on(io.stream), first, first + io.n, T{}, ::cuda::std::plus<>{}));
    };
  }
  template <class T>
  auto bind(inner_product_t, io<T> io) const {
    return [io, pairs = pairs_of(io)] {
      const auto first = thrust::make_transform_iterator(pairs, product_of_pair{});
      benchmark::DoNotOptimize(
          cascade::reduce(cascade::cuda.on(io.stream), first, first + io.n, T{}, ::cuda::std::plus<>{}));
    };
  }
  template <class T>
  auto bind(transform_inclusive_scan_t, io<T> io) const {
    return [io] {
      const auto first = thrust::make_transform_iterator(io.in, twice_plus_one{});
      cascade::inclusive_scan(cascade::cuda.on(io.stream), first, first + io.n, io.out);
    };
  }
};

// CUB: temporary storage and outputs allocated once, outside the timed call.
struct cub_family_runner {
  static constexpr memory where = memory::device;

  template <class Call>
  static auto sized(Call call) {
    std::size_t bytes = 0;
    call(nullptr, bytes);
    return [temp = device_alloc(bytes), bytes, call]() mutable { call(temp.get(), bytes); };
  }

  template <class T>
  auto bind(transform_reduce_t, io<T> io) const {
    return sized([io](void* temp, std::size_t& bytes) {
      check(cub::DeviceReduce::TransformReduce(temp, bytes, io.in, io.out, io.n, ::cuda::std::plus<>{},
                                               twice_plus_one{}, T{}, io.stream),
            "cub::DeviceReduce::TransformReduce");
    });
  }
  template <class T>
  auto bind(inner_product_t, io<T> io) const {
    return sized([io, pairs = pairs_of(io)](void* temp, std::size_t& bytes) {
      check(cub::DeviceReduce::TransformReduce(temp, bytes, pairs, io.out, io.n, ::cuda::std::plus<>{},
                                               product_of_pair{}, T{}, io.stream),
            "cub::DeviceReduce::TransformReduce");
    });
  }
  template <class T>
  auto bind(min_element_t, io<T> io) const {
    auto index = std::make_shared<device_buffer>(device_alloc(sizeof(std::int64_t)));
    return sized([io, index](void* temp, std::size_t& bytes) {
      auto* at = static_cast<std::int64_t*>(index->get());
#if CASCADE_BENCH_CUB_ARG_MIN_MAX
      check(cub::DeviceReduce::ArgMin(temp, bytes, io.in, io.out, at, io.n, ::cuda::std::less<>{},
                                      ::cuda::stream_ref{io.stream}),
            "cub::DeviceReduce::ArgMin");
#else
      check(cub::DeviceReduce::ArgMin(temp, bytes, io.in, io.out, at, io.n, io.stream), "cub::DeviceReduce::ArgMin");
#endif
    });
  }
  template <class T>
  auto bind(max_element_t, io<T> io) const {
    auto index = std::make_shared<device_buffer>(device_alloc(sizeof(std::int64_t)));
    return sized([io, index](void* temp, std::size_t& bytes) {
      auto* at = static_cast<std::int64_t*>(index->get());
#if CASCADE_BENCH_CUB_ARG_MIN_MAX
      check(cub::DeviceReduce::ArgMax(temp, bytes, io.in, io.out, at, io.n, ::cuda::std::less<>{},
                                      ::cuda::stream_ref{io.stream}),
            "cub::DeviceReduce::ArgMax");
#else
      check(cub::DeviceReduce::ArgMax(temp, bytes, io.in, io.out, at, io.n, io.stream), "cub::DeviceReduce::ArgMax");
#endif
    });
  }
#if CASCADE_BENCH_CUB_ARG_MIN_MAX
  template <class T>
  auto bind(minmax_element_t, io<T> io) const {
    auto outputs = std::make_shared<device_buffer>(device_alloc(2 * sizeof(std::int64_t) + 2 * sizeof(T)));
    return sized([io, outputs](void* temp, std::size_t& bytes) {
      auto* at = static_cast<std::int64_t*>(outputs->get());
      auto* values = reinterpret_cast<T*>(at + 2);
      check(cub::DeviceReduce::ArgMinMax(temp, bytes, io.in, values, at, values + 1, at + 1, io.n,
                                         ::cuda::std::less<>{}, ::cuda::stream_ref{io.stream}),
            "cub::DeviceReduce::ArgMinMax");
    });
  }
#endif
  template <class T>
  auto bind(transform_inclusive_scan_t, io<T> io) const {
    return sized([io](void* temp, std::size_t& bytes) {
      check(cub::DeviceScan::InclusiveScan(temp, bytes, thrust::make_transform_iterator(io.in, twice_plus_one{}), io.out,
                                           ::cuda::std::plus<>{}, io.n, io.stream),
            "cub::DeviceScan::InclusiveScan");
    });
  }
};

struct thrust_family_runner {
  static constexpr memory where = memory::device;
  template <class T>
  auto bind(transform_reduce_t, io<T> io) const {
    return [io] {
      benchmark::DoNotOptimize(thrust::transform_reduce(thrust::cuda::par.on(io.stream), io.in, io.in + io.n,
                                                        twice_plus_one{}, T{}, ::cuda::std::plus<>{}));
    };
  }
  template <class T>
  auto bind(inner_product_t, io<T> io) const {
    return [io, y = second_input<T>(io.n)] {
      benchmark::DoNotOptimize(thrust::inner_product(thrust::cuda::par.on(io.stream), io.in, io.in + io.n, y, T{}));
    };
  }
  template <class T>
  auto bind(min_element_t, io<T> io) const {
    return [io] { benchmark::DoNotOptimize(thrust::min_element(thrust::cuda::par.on(io.stream), io.in, io.in + io.n)); };
  }
  template <class T>
  auto bind(max_element_t, io<T> io) const {
    return [io] { benchmark::DoNotOptimize(thrust::max_element(thrust::cuda::par.on(io.stream), io.in, io.in + io.n)); };
  }
  template <class T>
  auto bind(minmax_element_t, io<T> io) const {
    return [io] {
      benchmark::DoNotOptimize(thrust::minmax_element(thrust::cuda::par.on(io.stream), io.in, io.in + io.n));
    };
  }
  template <class T>
  auto bind(transform_inclusive_scan_t, io<T> io) const {
    return [io] {
      thrust::transform_inclusive_scan(thrust::cuda::par.on(io.stream), io.in, io.in + io.n, io.out, twice_plus_one{},
                                       ::cuda::std::plus<>{});
    };
  }
};

// The limits: one read of every input byte (inner_product: 2n items, the
// size of both arrays), or a copy for the scan.
struct family_limit_runner {
  static constexpr memory where = memory::device;
  template <class Algorithm, class T>
  auto bind(Algorithm, io<T> data) const {
    if constexpr (std::is_same_v<Algorithm, transform_inclusive_scan_t>) {
      return copy_limit_runner{}.bind(inclusive_scan_t{}, data);
    } else if constexpr (std::is_same_v<Algorithm, inner_product_t>) {
      return read_limit_runner{}.bind(reduce_t{}, io<T>{device_input<T>(2 * data.n), data.out, 2 * data.n, data.stream});
    } else {
      return read_limit_runner{}.bind(reduce_t{}, data);
    }
  }
};

}  // namespace

void register_family(const options& opt) {
  const auto cascade_impl = impl("cascade", cascade_family_runner{});
  const auto iterator_impl = impl("cascade.iterator", cascade_iterator_runner{});
  const auto cub_impl = impl("cub", cub_family_runner{});
  const auto thrust_impl = impl("thrust", thrust_family_runner{});
  const auto read_limit = impl("read_limit", family_limit_runner{});
  register_algorithm<transform_reduce_t>(opt, cascade_impl, iterator_impl, cub_impl, thrust_impl, read_limit);
  register_algorithm<inner_product_t>(opt, cascade_impl, iterator_impl, cub_impl, thrust_impl, read_limit);
  register_algorithm<min_element_t>(opt, cascade_impl, cub_impl, thrust_impl, read_limit);
  register_algorithm<max_element_t>(opt, cascade_impl, cub_impl, thrust_impl, read_limit);
#if CASCADE_BENCH_CUB_ARG_MIN_MAX
  register_algorithm<minmax_element_t>(opt, cascade_impl, cub_impl, thrust_impl, read_limit);
#else
  register_algorithm<minmax_element_t>(opt, cascade_impl, thrust_impl, read_limit);
#endif
  register_algorithm<transform_inclusive_scan_t>(opt, cascade_impl, iterator_impl, cub_impl, thrust_impl,
                                                 impl("copy_limit", family_limit_runner{}));
}

}  // namespace bench
