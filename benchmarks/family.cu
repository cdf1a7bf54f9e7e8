// The std family beside CUB, Thrust and the measured limits:
//
//   transform_reduce/<impl>/<type>/<n>          sum of 2x + 1 over the input
//   inner_product/<impl>/<type>/<n>             sum of x[i] * y[i] (two arrays: 2n items read)
//   min_element, max_element, minmax_element/<impl>/<type>/<n>
//   transform_inclusive_scan/<impl>/<type>/<n>  inclusive sum of 2x + 1
//
// impl: cascade (the new entry points); cascade.into (transform_reduce_into,
// stream-ordered); cascade.iterator (cascade::reduce /
// inclusive_scan over the equivalent thrust transform / zip iterator: what the
// entry points must not be slower than); cub (DeviceReduce::TransformReduce,
// ArgMin, ArgMax, ArgMinMax (CCCL 3.6 and later), DeviceScan::InclusiveScan
// over a transform iterator), stream-ordered; cub.host (the same call, its
// result then copied to the host and the stream waited for); thrust;
// read_limit / copy_limit (limits.cuh). cascade's transform_reduce and
// *_element return on the host, as Thrust's do: like for like, they compare
// with cub.host, and cascade.into with cub.

#include "harness.cuh"
#include "limits.cuh"
#include "runners.cuh"

#include <cascade/cascade.cuh>
#include <cascade/detail/reduce/single_pass.cuh>

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

// The stream-ordered forms, timed against CUB's stream-ordered calls.
struct cascade_into_runner {
  static constexpr memory where = memory::device;
  template <class T>
  auto bind(transform_reduce_t, io<T> io) const {
    return [io] {
      cascade::transform_reduce_into(cascade::cuda.on(io.stream), io.in, io.in + io.n, io.out, T{},
                                     ::cuda::std::plus<>{}, twice_plus_one{});
    };
  }
  template <class T>
  auto bind(inner_product_t, io<T> io) const {
    return [io, y = second_input<T>(io.n)] {
      cascade::transform_reduce_into(cascade::cuda.on(io.stream), io.in, io.in + io.n, y, io.out, T{});
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

// The host's copy of a stream-ordered result: page-locked, made once.
inline void* pinned_result() {
  static void* p = [] {
    void* q = nullptr;
    check(cudaMallocHost(&q, 64), "cudaMallocHost");
    return q;
  }();
  return p;
}

// CUB: temporary storage and outputs allocated once, outside the timed call.
// Home = false: the call alone, stream-ordered (what cascade's *_into forms
// are timed against). Home = true: the call, then its result copied to
// page-locked host memory and the stream waited for: what a CUB user does to
// get the answer that cascade::transform_reduce and *_element return.
template <bool Home>
struct cub_family_runner {
  static constexpr memory where = memory::device;

  template <class Call>
  static auto sized(Call call, const void* result, std::size_t result_bytes, cudaStream_t stream) {
    std::size_t bytes = 0;
    call(nullptr, bytes);
    return [temp = device_alloc(bytes), bytes, call, result, result_bytes, stream]() mutable {
      call(temp.get(), bytes);
      if constexpr (Home) {
        check(cudaMemcpyAsync(pinned_result(), result, result_bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      }
    };
  }

  template <class T>
  auto bind(transform_reduce_t, io<T> io) const {
    return sized([io](void* temp, std::size_t& bytes) {
      check(cub::DeviceReduce::TransformReduce(temp, bytes, io.in, io.out, io.n, ::cuda::std::plus<>{},
                                               twice_plus_one{}, T{}, io.stream),
            "cub::DeviceReduce::TransformReduce");
    }, io.out, sizeof(T), io.stream);
  }
  template <class T>
  auto bind(inner_product_t, io<T> io) const {
    return sized([io, pairs = pairs_of(io)](void* temp, std::size_t& bytes) {
      check(cub::DeviceReduce::TransformReduce(temp, bytes, pairs, io.out, io.n, ::cuda::std::plus<>{},
                                               product_of_pair{}, T{}, io.stream),
            "cub::DeviceReduce::TransformReduce");
    }, io.out, sizeof(T), io.stream);
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
    }, index->get(), sizeof(std::int64_t), io.stream);
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
    }, index->get(), sizeof(std::int64_t), io.stream);
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
    }, outputs->get(), 2 * sizeof(std::int64_t), io.stream);
  }
#endif
  template <class T>
  auto bind(transform_inclusive_scan_t, io<T> io) const {
    return sized([io](void* temp, std::size_t& bytes) {
      check(cub::DeviceScan::InclusiveScan(temp, bytes, thrust::make_transform_iterator(io.in, twice_plus_one{}), io.out,
                                           ::cuda::std::plus<>{}, io.n, io.stream),
            "cub::DeviceScan::InclusiveScan");
    }, io.out, 0, io.stream);
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

// --tuning: min_element's reduce of 16-byte runs and minmax_element's of
// aligned pairs under other blocks per SM (which cap their registers), rows
// in flight, most chunks and fewest chunks (0: the automatic path's),
// stream-ordered, against CUB's stream-ordered ArgMin and ArgMinMax (the
// choices in detail/tuning/reduce.cuh).
//   {min_element,minmax_element}/tune[.m<min blocks>.r<rows>][.c<most chunks>][.n<fewest chunks>]/<type>/<n>
template <int MinBlocks, int Rows, long long MaxChunks = 0, long long MinChunks = 0>
struct element_variant_runner {
  static constexpr memory where = memory::device;
  template <class Base>
  struct tuning : Base {
    static constexpr int min_blocks_per_sm = MinBlocks > 0 ? MinBlocks : Base::min_blocks_per_sm;
    static constexpr int rows_in_flight = Rows > 0 ? Rows : Base::rows_in_flight;
    static constexpr long long max_chunks = MaxChunks > 0 ? MaxChunks : Base::max_chunks;
    static constexpr long long min_chunks = MinChunks > 0 ? MinChunks : Base::min_chunks;
  };
  using comp = ::cuda::std::less<>;

  template <class T>
  auto bind(min_element_t, io<T> io) const {
    namespace cd = cascade::detail;
    auto position = std::make_shared<device_buffer>(device_alloc(sizeof(cd::offset_t)));
    return [io, position] {
      // The 16-byte runs of the automatic path (n is a power of two: no tail).
      using run_t = cd::run_of<T>;
      using candidate_t = cd::candidate<T, std::uint32_t>;  // n < 2^32
      const cd::indexed_transform<cd::from_run<comp, false, T, std::uint32_t>, true, const run_t*> runs(
          {}, 0, reinterpret_cast<const run_t*>(io.in));
      candidate_t none{};
      none.index = candidate_t::none;
      const cd::resolved_output<cd::position_of<comp, const T*>, cd::offset_t> out{
          static_cast<cd::offset_t*>(position->get()), {io.in}};
      cd::single_pass::run_tuned<tuning<cd::single_pass_reduce_tuning<run_t>>>(runs, io.n / run_t::size, out, none,
                                                                     cd::select_first<comp, false>{}, io.stream);
    };
  }
  template <class T>
  auto bind(minmax_element_t, io<T> io) const {
    namespace cd = cascade::detail;
    auto positions = std::make_shared<device_buffer>(device_alloc(sizeof(cd::minmax_positions)));
    return [io, positions] {
      const cd::indexed_transform<cd::from_pair<comp, T, std::uint32_t>, true, const cd::pair_of<T>*> items(
          {comp{}}, 0, reinterpret_cast<const cd::pair_of<T>*>(io.in));  // n < 2^32
      const cd::resolved_output<cd::resolve_minmax<comp, const T*>, cd::minmax_positions> out{
          static_cast<cd::minmax_positions*>(positions->get()), {io.in, io.n, {}}};
      cd::single_pass::run_tuned<tuning<cd::single_pass_reduce_tuning<cd::pair_of<T>>>>(
          items, io.n / 2, out, cd::empty_minmax<T, std::uint32_t>(), cd::combine_minmax<comp, true>{}, io.stream);
    };
  }
};

}  // namespace

void register_family(const options& opt) {
  const auto cascade_impl = impl("cascade", cascade_family_runner{});
  const auto into_impl = impl("cascade.into", cascade_into_runner{});
  const auto iterator_impl = impl("cascade.iterator", cascade_iterator_runner{});
  const auto cub_impl = impl("cub", cub_family_runner<false>{});
  const auto cub_host_impl = impl("cub.host", cub_family_runner<true>{});
  const auto thrust_impl = impl("thrust", thrust_family_runner{});
  const auto read_limit = impl("read_limit", family_limit_runner{});
  register_algorithm<transform_reduce_t>(opt, cascade_impl, into_impl, iterator_impl, cub_impl, cub_host_impl,
                                         thrust_impl, read_limit);
  register_algorithm<inner_product_t>(opt, cascade_impl, into_impl, iterator_impl, cub_impl, cub_host_impl,
                                      thrust_impl, read_limit);
  register_algorithm<min_element_t>(opt, cascade_impl, cub_impl, cub_host_impl, thrust_impl, read_limit);
  register_algorithm<max_element_t>(opt, cascade_impl, cub_impl, cub_host_impl, thrust_impl, read_limit);
#if CASCADE_BENCH_CUB_ARG_MIN_MAX
  register_algorithm<minmax_element_t>(opt, cascade_impl, cub_impl, cub_host_impl, thrust_impl, read_limit);
#else
  register_algorithm<minmax_element_t>(opt, cascade_impl, thrust_impl, read_limit);
#endif
  register_algorithm<transform_inclusive_scan_t>(opt, cascade_impl, iterator_impl, cub_impl, thrust_impl,
                                                 impl("copy_limit", family_limit_runner{}));
#if CASCADE_BENCH_CUB_ARG_MIN_MAX
  if (opt.tuning) {
    auto variants = [&](auto type, const char* type_name) {
      using T = decltype(type);
      if (!opt.wants_type(type_name)) return;
      for (int log2 = opt.min_log2; log2 <= opt.max_log2; log2 += opt.log2_step) {
        auto algorithm = [&](auto tag) {
          using A = decltype(tag);
          add_case<A, T>(opt, type_name, log2, cub_impl);
          add_case<A, T>(opt, type_name, log2, impl("tune.m2.r8", element_variant_runner<2, 8>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m4.r4", element_variant_runner<4, 4>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m4.r2", element_variant_runner<4, 2>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m6.r4", element_variant_runner<6, 4>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m6.r2", element_variant_runner<6, 2>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m8.r2", element_variant_runner<8, 2>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m4.r4.c512", element_variant_runner<4, 4, 512>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m4.r4.c2048", element_variant_runner<4, 4, 2048>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.m4.r4.c8192", element_variant_runner<4, 4, 8192>{}));
          // The automatic path's shape with fewer chunks at small N (the trees
          // that end each chunk cost more for candidates than for sums).
          add_case<A, T>(opt, type_name, log2, impl("tune", element_variant_runner<0, 0>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.n256", element_variant_runner<0, 0, 0, 256>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.n128", element_variant_runner<0, 0, 0, 128>{}));
          add_case<A, T>(opt, type_name, log2, impl("tune.n64", element_variant_runner<0, 0, 0, 64>{}));
        };
        algorithm(min_element_t{});
        algorithm(minmax_element_t{});
      }
    };
    variants(std::int32_t{}, "int32");  // the 4- and 8-byte classes, as tuning.cu
    variants(double{}, "double");
  }
#endif
}

}  // namespace bench
