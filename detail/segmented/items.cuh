#pragma once
// What the scan engine reads for item i of a segmented algorithm: the value,
// converted to the accumulator, paired with where segments start (pairs.cuh).
// Each tile stages its keys or segments first where they fit in shared
// memory beside the engine's tile (tile_keys.cuh, tile_segments.cuh).

#include <cascade/detail/segmented/pairs.cuh>
#include <cascade/detail/segmented/segmentations.cuh>
#include <cascade/detail/primitives/tile_staging.cuh>

#include <type_traits>

namespace cascade::detail {

template <class AccT, class Storage, offset_t TileItems>
using staged_if_fits = std::enable_if_t<fits_beside_tile<AccT>(sizeof(Storage), TileItems), Storage>;

// (is i a run head, value) for the keyed algorithms; C counts heads.
template <class Runs, class ValueIt, class C, class V>
struct keyed_items {
  using result_type = headed<C, V>;
  template <offset_t TileItems>
  using tile_storage = staged_if_fits<result_type, typename Runs::template tile_storage<TileItems>, TileItems>;
  Runs runs;
  ValueIt values;
  __device__ result_type operator()(offset_t i) const { return {C(runs.head(i)), static_cast<V>(values[i])}; }
  // The tile's items, reading the keys it staged.
  template <offset_t TileItems>
  __device__ auto stage(offset_t base, int valid, tile_storage<TileItems>& s) const {
    const auto view = stage_runs<TileItems>(runs, base, valid, s);
    return keyed_items<decltype(view), ValueIt, C, V>{view, values};
  }
  template <class Fn>
  __device__ void each_array(offset_t i, Fn fn) const {
    if constexpr (std::is_pointer_v<decltype(runs.keys)>) fn(runs.keys + i);
    if constexpr (std::is_pointer_v<ValueIt>) fn(values + i);
  }
};

// (segment of i, value) for numbered segments; `values` starts at the first item.
template <class Segments, class Id, class ValueIt, class V>
struct numbered_items {
  using result_type = tagged<Id, V>;
  template <offset_t TileItems>
  using tile_storage = staged_if_fits<result_type, typename Segments::template tile_storage<TileItems>, TileItems>;
  Segments segments;
  ValueIt values;
  __device__ result_type operator()(offset_t i) const { return {segments.segment_of(i), static_cast<V>(values[i])}; }
  // The tile's items, reading the segments it staged.
  template <offset_t TileItems>
  __device__ auto stage(offset_t base, int valid, tile_storage<TileItems>& s) const {
    const auto view = stage_segments<TileItems>(segments, base, valid, s);
    return numbered_items<decltype(view), Id, ValueIt, V>{view, values};
  }
  template <class Fn>
  __device__ void each_array(offset_t i, Fn fn) const {
    if constexpr (std::is_pointer_v<ValueIt>) fn(values + i);
  }
};

}  // namespace cascade::detail
