#pragma once
// Where segments start, as the masked scan (masked_scan.cuh) asks for it: a
// thread's segment starts among its consecutive items, as a bit mask
// (thread_starts, tile_segments.cuh).
// - key_heads: item i starts a run where i == 0 or !pred(keys[i - 1],
//   keys[i]). Each warp loads its keys coalesced through its own exchange
//   slots, as the values are loaded (small trivially copyable keys; others
//   are read by each thread), and each thread compares its neighbours.
// - segment_heads: numbered segments (CSR offsets). The block finds and
//   stages the tile's segment begins once (tile_segments.cuh: one search
//   per tile), and each thread walks the begins over its items.
// A source's stage(base, valid, storage) (block-wide) returns the tile's
// view; the view's starts<Full, Items>(...) (warp-collective) the thread's
// mask. head(i) answers for one item (a silent tile's recomputation).

#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/segmented/pairs.cuh>
#include <cascade/detail/segmented/segmentations.cuh>
#include <cascade/detail/segmented/tile_segments.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <type_traits>

namespace cascade::detail {

// Item i as a headed pair: what a silent tile's recomputation reads.
template <class Heads, class ValueIt, class C, class T>
struct headed_items {
  using result_type = headed<C, T>;
  Heads heads;
  ValueIt values;
  __device__ result_type operator()(offset_t i) const { return {C(heads.head(i)), static_cast<T>(values[i])}; }
  // The arrays item i is read from (the L2 prefetch).
  template <class Fn>
  __device__ void each_array(offset_t i, Fn fn) const {
    heads.each_array(i, fn);
    if constexpr (std::is_pointer_v<ValueIt>) fn(values + i);
  }
};

// Item i's head count (1 where it starts a run): what a silent tile's
// recomputation of reduce_by_key's run count reads.
template <class Heads, class C>
struct head_counts {
  using result_type = C;
  Heads heads;
  __device__ C operator()(offset_t i) const { return C(heads.head(i)); }
};

template <class KeyIt, class Pred>
struct key_heads {
  using key_type = value_t<KeyIt>;
  // Keys a thread can hold a batch of go through shared memory, where a
  // tile of them fits in 16 KB beside the values', or they take at most 4
  // bytes an item (as the 4-byte values' exchange: the wide keyed tiles, 32
  // KB); others are read by each thread.
  template <int Threads, int Items>
  static constexpr bool exchanged = std::is_trivially_copyable_v<key_type> && std::is_default_constructible_v<key_type> &&
                                    (sizeof(key_type) * Threads * Items <= 16384 || sizeof(key_type) <= 4);
  struct none {};
  template <int Threads, int Items>
  using storage = std::conditional_t<exchanged<Threads, Items>,
                                     tile_scan_storage<Threads, Items, key_type, tile_io::warp_transpose>, none>;
  KeyIt keys;
  offset_t n;
  Pred pred;
  // Whether a tile's storage has a slot for each of its items' keys.
  template <class Storage>
  static constexpr bool gathers_keys = !std::is_same_v<Storage, none>;

  // Where the items lie (segmentations.cuh: keys are always known on the host).
  __device__ item_range resolve(const items_known& extent) { return extent.resolve(*this); }
  __device__ key_type key(offset_t i) const { return keys[i]; }
  __device__ bool head(offset_t i) const { return i == 0 || !pred(keys[i - 1], keys[i]); }
  template <class Fn>
  __device__ void each_array(offset_t i, Fn fn) const {
    if constexpr (std::is_pointer_v<KeyIt>) fn(keys + i);
  }
  __device__ void prefetch(offset_t, offset_t, offset_t, offset_t) const {}  // (the keys: each_array)
  // Nothing to stage for the block: each warp reads its own keys.
  template <class Storage>
  __device__ const key_heads& stage(offset_t, int, Storage&) const {
    return *this;
  }
  // A thread's own keys again, where starts() left them in `s` (gathers_keys).
  template <bool Full, int Items, class Storage>
  __device__ void thread_keys(key_type (&k)[Items], Storage& s) const {
    read_blocked(exchange_vectors<Full, Storage, key_type>(keys), s, k);
  }
  // Warp-collective: the starts among the `count` items from i0 (the warp's
  // `warp_valid` items from warp_first).
  template <bool Full, int Items, class Storage>
  __device__ thread_starts starts(offset_t i0, int count, offset_t warp_first, int warp_valid, Storage& s) const {
    key_type k[Items];
    key_type before, after;  // the keys of items i0 - 1 and i0 + count, where needed
    if constexpr (!std::is_same_v<Storage, none>) {
      const bool vectors =
          fill_exchange<Full, Items>(keys, warp_first, warp_valid, Full ? key_type{} : key_type(keys[n - 1]), s);
      read_blocked(vectors, s, k);
      // The neighbouring lanes hold them, but at the warp's ends (reading
      // them from memory, 64 bytes apart across the warp, took 13% of the
      // sectors a keyed scan moved).
      const int lane = lane_id();
      before = shuffle_up(k[Items - 1], 1);
      after = shuffle_down(k[0], 1);
      if (lane == 0 && i0 > 0 && count > 0) before = keys[i0 - 1];
      if (lane == kWarpThreads - 1 && i0 + count < n) after = keys[i0 + count];
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        if (Full || j < count) k[j] = keys[i0 + j];
      }
      if (count > 0 && i0 > 0) before = keys[i0 - 1];
      if (count > 0 && i0 + count < n) after = keys[i0 + count];
    }
    thread_starts t{0u, false};
    if (count <= 0) return t;
    t.starts = i0 == 0 || !pred(before, k[0]) ? 1u : 0u;
    key_type last = k[0];
#pragma unroll
    for (int j = 1; j < Items; ++j) {
      if (!Full && j >= count) break;
      if (!pred(k[j - 1], k[j])) t.starts |= 1u << j;
      last = k[j];
    }
    // (A thread short of Items items holds the input's last.)
    t.last_ends = i0 + count == n || !pred(last, after);
    return t;
  }
};

// The tile's view of numbered segments: its staged begins.
template <class View, class Segments>
struct segment_heads_view {
  View view;
  Segments segs;
  template <bool Full, int Items, class Storage>
  __device__ thread_starts starts(offset_t i0, int count, offset_t, int, Storage&) const {
    return segment_starts<Items>(view, segs, i0, count);
  }
};

// Staging: the tuning of the tiles' segment staging (tile_segments.cuh).
template <class Segments, class Staging>
struct segment_heads {
  using id_type = typename Segments::id_type;
  template <int Threads, int Items>
  using storage = segment_begins<id_type, offset_t(Threads) * Items>;

  Segments segs;
  offset_t n;

  // Where the items lie, by `extent` (segmentations.cuh), for the heads too;
  // block 0 reports the offsets' ends where the host waits for them.
  template <class Extent>
  __device__ item_range resolve(const Extent& extent) {
    const item_range range = extent.resolve(segs);
    n = range.n;
    return range;
  }
  // (An empty segment begins where the next one does: the search finds the last.)
  __device__ bool head(offset_t i) const { return segs.begin(segs.segment_of(i)) == i; }
  template <class Fn>
  __device__ void each_array(offset_t, Fn) const {}
  __device__ void prefetch(offset_t first, offset_t last, offset_t fewest, offset_t most) const {
    segs.prefetch(first, last, fewest, most);
  }
  template <offset_t TileItems>
  __device__ auto stage(offset_t base, int valid, segment_begins<id_type, TileItems>& s) const {
    const auto view =
        tile_view<TileItems, Staging::begins_in_flight, Staging::search_over_after_miss>(segs, base, valid, s);
    return segment_heads_view<decltype(view), Segments>{view, segs};
  }
};

// Whether the heads are numbered segments (the segmented scans' tuning).
template <class Heads>
inline constexpr bool numbered_heads_v = false;
template <class Segments, class Staging>
inline constexpr bool numbered_heads_v<segment_heads<Segments, Staging>> = true;

}  // namespace cascade::detail
