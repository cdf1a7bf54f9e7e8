#pragma once
// Dispatch for transform_reduce and the transform scans: thin layers over the
// automatic reduce and scan. transform_reduce hands the reduce an
// indexed_transform of its input pointers, which the reduce reads with one
// 16-byte vector per input where the inputs share their alignment (else each
// item from its position: a second instantiation, taken only for such
// inputs). The scans
// take a thrust::transform_iterator: the scan's loads are what they are for
// any iterator.

#include <cascade/execution.cuh>
#include <cascade/detail/dispatch/reduce.cuh>
#include <cascade/detail/dispatch/scan.cuh>
#include <cascade/detail/util/indexed_transform.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <type_traits>

namespace cascade::detail {

// f(a[i], b[i]) from the position i (f mutable and the return type declared:
// see ignore_position).
template <class F, class A, class B>
struct gather_apply {
  mutable F f;
  A a;
  B b;
#pragma nv_exec_check_disable
  __host__ __device__ ::cuda::std::invoke_result_t<F&, decltype(a[0]), decltype(b[0])> operator()(offset_t i) const {
    return f(a[i], b[i]);
  }
};

// reduce(first, first + n) over the items f(x1[i], x2[i]...), i in [0, n),
// as the iterator the GPU's reduce reads best for the inputs (the first of
// them checked as a range already).
template <class Policy, class F, class Reduce, class... It>
decltype(auto) reduce_transformed(const Policy&, offset_t n, F f, Reduce&& reduce, const char* name, It... in) {
  using g = ignore_position<F>;
  auto over = [&](auto items) -> decltype(auto) { return reduce(items, items + n); };
  if constexpr (is_host_policy_v<Policy>) {
    return over(indexed_transform<g, false, It...>(g{f}, 0, in...));
  } else {
    if (n > 0) (check_device_accessible(in, name, "an input range"), ...);
    if constexpr (sizeof...(It) == 1) {
      return over(indexed_transform<g, true, unwrapped_t<It>...>(g{f}, 0, unwrap(in)...));
    } else {
      if (aligned_together(unwrap(in)...)) {
        return over(indexed_transform<g, true, unwrapped_t<It>...>(g{f}, 0, unwrap(in)...));
      }
      // Arrays that do not share their alignment: each item computed from its
      // position (the reduce's computed-iterator path: no vector to share).
      return over(thrust::make_transform_iterator(thrust::counting_iterator<offset_t>(0),
                                                  gather_apply<F, unwrapped_t<It>...>{f, unwrap(in)...}));
    }
  }
}

// init op f(x1[0], x2[0]...) op ... op f(x1[n-1], ...), in order, for one or
// two inputs of n items, returned on the host.
template <class Policy, class T, class ReduceOp, class F, class... It>
T transform_reduce(const Policy& policy, offset_t n, T init, ReduceOp reduce_op, F f, It... in) {
  constexpr const char* name = "cascade::transform_reduce";
  if constexpr (is_host_policy_v<Policy>) {
    return reduce_transformed(policy, n, f, [&](auto b, auto e) { return host_reduce(policy, b, e, init, reduce_op); },
                              name, in...);
  } else {
    if (n == 0) return init;
    return reduce_transformed(policy, n, f, [&](auto b, auto e) { return cuda_reduce(policy, b, e, init, reduce_op); },
                              name, in...);
  }
}

// The same, written to *result (stream-ordered on a GPU policy).
template <class Policy, class OutIt, class T, class ReduceOp, class F, class... It>
void transform_reduce_into(const Policy& policy, offset_t n, OutIt result, T init, ReduceOp reduce_op, F f, It... in) {
  constexpr const char* name = "cascade::transform_reduce_into";
  if constexpr (is_host_policy_v<Policy>) {
    *result = detail::transform_reduce(policy, n, init, reduce_op, f, in...);
  } else {
    reduce_transformed(
        policy, n, f, [&](auto b, auto e) { cuda_reduce_into(policy, b, e, result, init, reduce_op, name); }, name,
        in...);
  }
}

// The transform scans: the scan of unary_op(x[i]), in place allowed.
template <class Policy, class It, class OutIt, class Op, class Unary, class AccT>
OutIt transform_scan(const Policy& policy, It first, It last, OutIt out, Op op, Unary unary_op,
                     const scan_request<AccT>& request, const char* name) {
  const offset_t n = checked_distance(first, last, name);
  if constexpr (!is_host_policy_v<Policy>) {
    if (n > 0) check_device_accessible(first, name, "the input range");
  }
  const auto items = thrust::make_transform_iterator(unwrap(first), unary_op);
  return scan(policy, items, items + n, out, op, request, name);
}

}  // namespace cascade::detail
