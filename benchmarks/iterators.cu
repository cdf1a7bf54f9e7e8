// reduce over fancy iterators, cascade beside CUB on the same iterator:
//   reduce/cascade.transform/<type>/<n>   a transform_iterator (2x + 1) over the input
//   reduce/cub.transform/<type>/<n>
//   reduce/cascade.counting/<type>/<n>    a counting_iterator: no memory traffic
//   reduce/cub.counting/<type>/<n>

#include "harness.cuh"
#include "runners.cuh"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace bench {
namespace {

struct twice_plus_one {
  template <class T>
  __host__ __device__ T operator()(T x) const {
    return x + x + T(1);
  }
};

enum class source { transform, counting };

template <source S, class T>
auto iterator_over(const T* in) {
  if constexpr (S == source::transform) return thrust::make_transform_iterator(in, twice_plus_one{});
  else return thrust::counting_iterator<T>(T(0));
}

template <source S>
struct cascade_iterator_runner {
  static constexpr memory where = memory::device;
  template <class T>
  auto bind(reduce_t, io<T> io) const {
    return [io] {
      auto first = iterator_over<S>(io.in);
      cascade::reduce_into(cascade::cuda.on(io.stream), first, first + io.n, io.out, T{}, ::cuda::std::plus<>{});
    };
  }
};

template <source S>
struct cub_iterator_runner {
  static constexpr memory where = memory::device;
  template <class T>
  auto bind(reduce_t, io<T> io) const {
    auto first = iterator_over<S>(io.in);
    std::size_t bytes = 0;
    check(cub::DeviceReduce::Sum(nullptr, bytes, first, io.out, io.n, io.stream), "cub::DeviceReduce::Sum");
    return [temp = device_alloc(bytes), bytes, first, io]() mutable {
      check(cub::DeviceReduce::Sum(temp.get(), bytes, first, io.out, io.n, io.stream), "cub::DeviceReduce::Sum");
    };
  }
};

}  // namespace

void register_iterators(const options& opt) {
  register_algorithm<reduce_t>(opt, impl("cascade.transform", cascade_iterator_runner<source::transform>{}),
                               impl("cub.transform", cub_iterator_runner<source::transform>{}),
                               impl("cascade.counting", cascade_iterator_runner<source::counting>{}),
                               impl("cub.counting", cub_iterator_runner<source::counting>{}));
}

}  // namespace bench
