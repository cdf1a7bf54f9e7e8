#pragma once
// Output policies: what a keyed or segmented scan writes when the scan
// engine stores the scanned pair of item i (index_output). The scans write
// every item; reduce_by_key writes only at run ends, where the pair holds the
// whole run and the run's index (segmented_reduce has an engine of its own:
// tile_totals.cuh). Policies that test segment starts or ends read what the
// tile's input staged (view: the keys, or the segments and their begins)
// rather than the keys or offsets.

#include <cascade/detail/segmented/pairs.cuh>
#include <cascade/detail/segmented/segmentations.cuh>
#include <cascade/detail/primitives/tile_scan.cuh>

namespace cascade::detail {

// Inclusive scans: x holds item i's segment up to i; init, where given,
// enters each segment once, first.
template <class OutIt, class T, class Op>
struct inclusive_values {
  OutIt out;
  maybe<T> init;
  Op op;
  template <class Pair>
  __device__ void operator()(offset_t i, const Pair& x) const {
    out[i] = init.has ? static_cast<T>(op(init.value, x.value)) : x.value;
  }
};

// Exclusive scans: x holds everything before i (the engine's exclusive
// mode), whose value is i's segment before i unless i starts a segment.
// Runs of keys say that directly; numbered segments: x is tagged with the
// segment of i - 1, and i starts a new one where that one ends.
template <class OutIt, class Runs, class T, class Op>
struct exclusive_run_values {
  OutIt out;
  Runs runs;
  T init;
  Op op;
  template <class C>
  __device__ void operator()(offset_t i, const headed<C, T>& x) const {
    out[i] = runs.head(i) ? init : static_cast<T>(op(init, x.value));
  }
  template <class K, offset_t N>
  __device__ auto view(const key_tile<K, N>& s) const {
    return exclusive_run_values<OutIt, staged_runs<Runs, N>, T, Op>{out, staged_runs<Runs, N>::of(runs, s), init, op};
  }
};
template <class OutIt, class Segments, class T, class Op>
struct exclusive_segment_values {
  OutIt out;
  Segments segments;
  T init;
  Op op;
  template <class Id>
  __device__ void operator()(offset_t i, const tagged<Id, T>& x) const {
    const bool head = i == 0 || i >= segments.begin(x.segment + 1);
    out[i] = head ? init : static_cast<T>(op(init, x.value));
  }
  template <class Id, offset_t N>
  __device__ auto view(const segment_tile<Id, N>& s) const {
    return exclusive_segment_values<OutIt, staged_segments<Segments, N>, T, Op>{out, staged_segments<Segments, N>::of(segments, s),
                                                                              init, op};
  }
};

// reduce_by_key: at a run's head its key, at its last item its total; the
// count of heads so far is the run's index + 1; the last item writes the
// number of runs.
template <class Runs, class KeysOut, class ValuesOut, class CountOut>
struct run_totals {
  Runs runs;
  KeysOut keys_out;
  ValuesOut values_out;
  CountOut runs_out;
  template <class C, class V>
  __device__ void operator()(offset_t i, const headed<C, V>& x) const {
    const offset_t run = static_cast<offset_t>(x.heads) - 1;
    if (runs.head(i)) keys_out[run] = runs.key(i);
    if (runs.last(i)) {
      values_out[run] = x.value;
      if (i == runs.n - 1) *runs_out = run + 1;
    }
  }
  template <class K, offset_t N>
  __device__ auto view(const key_tile<K, N>& s) const {
    return run_totals<staged_runs<Runs, N>, KeysOut, ValuesOut, CountOut>{staged_runs<Runs, N>::of(runs, s), keys_out, values_out,
                                                                          runs_out};
  }
};

}  // namespace cascade::detail
