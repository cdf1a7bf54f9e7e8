#pragma once
// What the scan engine reads for item i of a segmented algorithm: the value,
// converted to the accumulator, paired with where segments start (pairs.cuh).

#include <cascade/detail/segmented/pairs.cuh>
#include <cascade/detail/segmented/segmentations.cuh>

namespace cascade::detail {

// (is i a run head, value) for the keyed algorithms; C counts heads.
template <class Runs, class ValueIt, class C, class V>
struct keyed_items {
  using result_type = headed<C, V>;
  Runs runs;
  ValueIt values;
  __device__ result_type operator()(offset_t i) const { return {C(runs.head(i)), static_cast<V>(values[i])}; }
};

// (segment of i, value) for numbered segments; `values` starts at the first item.
template <class Segments, class Id, class ValueIt, class V>
struct numbered_items {
  using result_type = tagged<Id, V>;
  Segments segments;
  ValueIt values;
  __device__ result_type operator()(offset_t i) const { return {segments.segment_of(i), static_cast<V>(values[i])}; }
};

}  // namespace cascade::detail
