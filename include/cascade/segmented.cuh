#pragma once
// Segmented algorithms over CSR offsets: offsets_last - offsets_first =
// segments + 1 ascending offsets, segment j = [offsets[j], offsets[j + 1]) of
// the values (and, for the scans, of the output: out[p] for every p in
// [offsets[0], offsets[segments])).
//
//   void  segmented_reduce(policy, values_first, offsets_first, offsets_last, out, init, op);  // out[j]
//   void  segmented_reduce(policy, values_first, values_last, segment_size, out, init, op);    // fixed size
//   OutIt segmented_inclusive_scan(policy, values_first, offsets_first, offsets_last, d_first [, op [, init]]);
//   OutIt segmented_exclusive_scan(policy, values_first, offsets_first, offsets_last, d_first, init [, op]);
//
// The fixed-size form cuts [values_first, values_last) into segments of
// segment_size items (> 0), the last one shorter where the size does not
// divide the count, and writes ceil(count / segment_size) results.
//
// Accumulators follow the flat API: segmented_reduce accumulates in T, the
// type of init, which enters each segment's result exactly once (an empty
// segment's result is init); the scans accumulate in the values' value type
// without init and in init's type with it, init entering each segment once,
// first. op must be associative; it need not commute, sees the values of
// one segment only, in order, and needs no identity.
//
// The scans return d_first + offsets[segments]. On a GPU policy
// segmented_reduce is stream-ordered: the fixed-size form, and the offsets
// form over values in a device array (up to 2^26 4-byte items of
// allocation) or a transform iterator over one, whose blocks read
// offsets[0] and offsets[segments] themselves. The scans, and
// segmented_reduce over other values, read those two offsets back to the
// host and wait for their stream. Checked: offsets[segments] >= offsets[0]
// >= 0, and within the values' allocation where they are an array (or a
// transform of one): nothing written when they fail, and
// std::invalid_argument where the host reads them (the stream-ordered form
// cannot tell the host). The host policies check that every offset is
// ascending. Scans may run in place (d_first == values_first). GPU results
// are bitwise identical run to run.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/detail/dispatch/segmented.cuh>

#include <cuda/std/functional>

#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cascade {

namespace detail {
// The number of segments; on the host, the whole ascending check.
template <class Policy, class OffsetIt>
offset_t checked_segments(const Policy&, OffsetIt first, OffsetIt last, const char* name) {
  const offset_t count = checked_distance(first, last, name);
  if (count == 0) {
    throw std::invalid_argument(std::string(name) + ": the offsets are empty (segments + 1 offsets are needed)");
  }
  if constexpr (is_host_policy_v<Policy>) {
    for (offset_t j = 0; j < count; ++j) {
      if (static_cast<offset_t>(first[j]) < (j == 0 ? offset_t(0) : static_cast<offset_t>(first[j - 1]))) {
        throw std::invalid_argument(std::string(name) + ": the offsets are not ascending (offset " +
                                    std::to_string(j) + ")");
      }
    }
  }
  return count - 1;
}

template <class Policy, class ValueIt, class OffsetIt, class OutIt, class T, class Op>
OutIt segmented_scan(const Policy& policy, ValueIt values, OffsetIt offsets_first, OffsetIt offsets_last, OutIt out,
                     Op op, const std::optional<T>& init, bool exclusive, const char* name) {
  static_assert(is_execution_policy_v<Policy>, "cascade segmented scans: the first argument must be a cascade policy");
  const offset_t segments = checked_segments(policy, offsets_first, offsets_last, name);
  if constexpr (is_host_policy_v<Policy>) {
    host::for_each_segment<std::is_same_v<Policy, parallel_policy>>(
        segments, [&](offset_t j) { return static_cast<offset_t>(offsets_first[j]); },
        [&](offset_t, offset_t b, offset_t e) {
          if (exclusive) host::exclusive_scan(values + b, e - b, out + b, *init, op);
          else host::inclusive_scan(values + b, e - b, out + b, op, init);
        },
        [&](offset_t, offset_t b, offset_t e) {
          host::parallel_scan(values + b, e - b, out + b, op, init, exclusive);
        });
    return out + static_cast<offset_t>(offsets_first[segments]);
  } else {
    return cuda_segmented_scan<T>(policy, values, offsets_first, segments, out, device_operator(op), init, exclusive,
                                  name);
  }
}
}  // namespace detail

template <class Policy, class ValueIt, class OffsetIt, class OutIt, class T, class Op>
void segmented_reduce(const Policy& policy, ValueIt values_first, OffsetIt offsets_first, OffsetIt offsets_last,
                      OutIt out, T init, Op op) {
  static_assert(is_execution_policy_v<Policy>, "cascade::segmented_reduce: the first argument must be a cascade policy");
  constexpr const char* name = "cascade::segmented_reduce";
  const detail::offset_t segments = detail::checked_segments(policy, offsets_first, offsets_last, name);
  if constexpr (is_host_policy_v<Policy>) {
    detail::host::segment_totals<std::is_same_v<Policy, parallel_policy>>(
        segments, [&](detail::offset_t j) { return static_cast<detail::offset_t>(offsets_first[j]); }, values_first,
        out, init, op);
  } else {
    detail::cuda_segmented_reduce(policy, values_first, offsets_first, segments, out, init,
                                  detail::device_operator(op), name);
  }
}

template <class Policy, class ValueIt, class Size, class OutIt, class T, class Op,
          std::enable_if_t<std::is_integral_v<Size>, int> = 0>
void segmented_reduce(const Policy& policy, ValueIt values_first, ValueIt values_last, Size segment_size, OutIt out,
                      T init, Op op) {
  static_assert(is_execution_policy_v<Policy>, "cascade::segmented_reduce: the first argument must be a cascade policy");
  constexpr const char* name = "cascade::segmented_reduce";
  const detail::offset_t n = detail::checked_distance(values_first, values_last, name);
  const auto size = static_cast<detail::offset_t>(segment_size);
  if (size <= 0) {
    throw std::invalid_argument(std::string(name) + ": segment_size must be positive (got " + std::to_string(size) + ")");
  }
  if constexpr (is_host_policy_v<Policy>) {
    detail::host::segment_totals<std::is_same_v<Policy, parallel_policy>>(
        (n + size - 1) / size, [&](detail::offset_t j) { return j * size < n ? j * size : n; }, values_first, out,
        init, op);
  } else {
    detail::cuda_segmented_reduce_fixed(policy, values_first, n, size, out, init, detail::device_operator(op),
                                        name);
  }
}

template <class Policy, class ValueIt, class OffsetIt, class OutIt, class Op, class T>
OutIt segmented_inclusive_scan(const Policy& policy, ValueIt values_first, OffsetIt offsets_first,
                               OffsetIt offsets_last, OutIt d_first, Op op, T init) {
  return detail::segmented_scan(policy, values_first, offsets_first, offsets_last, d_first, op,
                                std::optional<T>(init), false, "cascade::segmented_inclusive_scan");
}
template <class Policy, class ValueIt, class OffsetIt, class OutIt, class Op>
OutIt segmented_inclusive_scan(const Policy& policy, ValueIt values_first, OffsetIt offsets_first,
                               OffsetIt offsets_last, OutIt d_first, Op op) {
  return detail::segmented_scan(policy, values_first, offsets_first, offsets_last, d_first, op,
                                std::optional<detail::value_t<ValueIt>>(), false, "cascade::segmented_inclusive_scan");
}
template <class Policy, class ValueIt, class OffsetIt, class OutIt>
OutIt segmented_inclusive_scan(const Policy& policy, ValueIt values_first, OffsetIt offsets_first,
                               OffsetIt offsets_last, OutIt d_first) {
  return cascade::segmented_inclusive_scan(policy, values_first, offsets_first, offsets_last, d_first,
                                           ::cuda::std::plus<>{});
}

template <class Policy, class ValueIt, class OffsetIt, class OutIt, class T, class Op>
OutIt segmented_exclusive_scan(const Policy& policy, ValueIt values_first, OffsetIt offsets_first,
                               OffsetIt offsets_last, OutIt d_first, T init, Op op) {
  return detail::segmented_scan(policy, values_first, offsets_first, offsets_last, d_first, op,
                                std::optional<T>(init), true, "cascade::segmented_exclusive_scan");
}
template <class Policy, class ValueIt, class OffsetIt, class OutIt, class T>
OutIt segmented_exclusive_scan(const Policy& policy, ValueIt values_first, OffsetIt offsets_first,
                               OffsetIt offsets_last, OutIt d_first, T init) {
  return cascade::segmented_exclusive_scan(policy, values_first, offsets_first, offsets_last, d_first, init,
                                           ::cuda::std::plus<>{});
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
