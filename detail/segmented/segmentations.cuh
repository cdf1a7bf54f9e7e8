#pragma once
// Numbered segments (CSR offsets, or a fixed size): which segment an item is
// in and where each one begins. Positions are relative to the first item the
// algorithm covers. (Runs of equal keys: heads.cuh.)

#include <cascade/detail/primitives/prefetch.cuh>
#include <cascade/detail/segmented/tile_segments.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/math.cuh>

#include <cstdint>

namespace cascade::detail {

// CSR offsets: segment j is [offsets[j], offsets[j + 1]) less offsets[0];
// begin(segments) is the number of items. segment_of is a binary search for
// the last segment that begins at or before i (empty segments before it
// begin there too). A tile stages the begins of its segments
// (tile_segments.cuh): one search per tile.
template <class OffsetIt, class Id>
struct csr_segments {
  using id_type = Id;
  static constexpr bool stage_begins = true;
  static constexpr bool one_segment_tiles = false;
  static constexpr bool inside_thread_segments = false;
  OffsetIt offsets;
  Id segments;
  offset_t base;
  offset_t items;  // begin(segments)
  // Whether the tiles kernel of segmented_reduce leaves the joins of
  // segments over more than a round of tiles to a launch of their own
  // (tile_totals.cuh, joins_by_window).
  bool joins_apart = false;
  __device__ offset_t begin(Id j) const { return static_cast<offset_t>(offsets[j]) - base; }
  // Where a search for item i's segment starts: i's share of the items, as
  // a share of the segments (exact where the segments are of one length).
  __device__ Id guess(offset_t i) const { return static_cast<Id>(double(i) / double(items) * double(segments)); }
  // Asks L2 for the offsets that a tile of the items [first, last] searches
  // and stages (its segments' and the 32 around the guesses), where they
  // number at least `fewest` and at most `most` (a hint).
  __device__ void prefetch(offset_t first, offset_t last, offset_t fewest, offset_t most) const {
    if constexpr (std::is_pointer_v<OffsetIt>) {
      const Id lo = clamp_to<Id>(guess(first) - Id(kWarpThreads / 2), Id(0), segments);
      const Id hi = clamp_to<Id>(guess(last) + Id(kWarpThreads / 2), lo, segments);
      const offset_t count = offset_t(hi - lo) + 1;
      if (count >= fewest && count <= most) prefetch_l2(offsets + lo, count);
    }
  }
  // Whether a segment may cross the edge of tiles of that many items.
  bool may_cross(offset_t) const { return true; }
  // The threads a segment spans where every one is whole threads inside a
  // warp, else 0 (never known here).
  __device__ int threads_per_segment(int) const { return 0; }
  __device__ Id segment_of(offset_t i) const {
    Id lo = 0, hi = segments;  // begin(lo) <= i; the answer is in [lo, hi)
    while (hi - lo > 1) {
      const Id mid = lo + (hi - lo) / 2;
      if (begin(mid) <= i) lo = mid;
      else hi = mid;
    }
    return lo;
  }
};

// Where an engine's items lie, as its kernels learn it: from `first`, n of
// them (n < 0: the offsets are invalid, and nothing is written).
struct item_range {
  offset_t first, n;
};

// The items known on the host: the values begin at the first one.
struct items_known {
  offset_t n;
  template <class Segments>
  __device__ item_range resolve(Segments&) const { return {0, n}; }
};

// CSR offsets read by each block (the offsets forms over an array, whose
// allocation bounds the grid; dispatch/segmented.cuh): the items are
// [offsets[0], offsets[segments]) of the values, which must lie within
// `bound`, the items from the values to the end of their allocation.
struct items_from_offsets {
  offset_t bound;
  // Where the host waits for the ends (the first block of segmented_reduce
  // or of a segmented scan writes them, then the ticket;
  // dispatch/segmented.cuh), or none.
  offset_t* report = nullptr;
  offset_t ticket = 0;
  // The ends as read, reported before any check (the host checks them).
  template <class Segments>
  __device__ item_range resolve(Segments& segs) const {
    const offset_t first = static_cast<offset_t>(segs.offsets[0]);
    const offset_t last = static_cast<offset_t>(segs.offsets[segs.segments]);
    if (report != nullptr && blockIdx.x == 0 && threadIdx.x == 0) {
      report[0] = first;
      report[1] = last;
      __threadfence_system();
      *static_cast<volatile offset_t*>(report + 2) = ticket;
    }
    if (first < 0 || last < first || last > bound) return {0, -1};
    segs.base = first;
    segs.items = last - first;
    return {first, last - first};
  }
};

// Segments of `size` items (the last may be shorter): no memory to read, so
// nothing is staged (a division per thread finds its first segment).
template <class Id>
struct fixed_segments {
  using id_type = Id;
  static constexpr bool stage_begins = false;
  static constexpr bool one_segment_tiles = false;
  static constexpr bool inside_thread_segments = false;
  offset_t size;
  Id segments;
  offset_t n;
  // Whether the tiles kernel leaves the joins of segments that span tiles to
  // a launch of their own (segments of many tiles: tile_totals.cuh,
  // joins_kernel).
  bool joins_apart = false;
  __device__ offset_t begin(Id j) const { return min_of(offset_t(j) * size, n); }
  bool may_cross(offset_t tile_items) const { return tile_items % size != 0; }
  // The threads a segment spans where every one is whole threads inside a
  // warp (2, 4, ... 32 threads' items): else 0.
  __device__ int threads_per_segment(int items) const {
    if (size % items != 0) return 0;
    const offset_t threads = size / items;
    return threads >= 2 && threads <= kWarpThreads && (threads & (threads - 1)) == 0 ? int(threads) : 0;
  }
  __device__ Id segment_of(offset_t i) const {
    // 32-bit division where it suffices: a 64-bit one is a long software sequence.
    if (((i | size) >> 32) == 0) return static_cast<Id>(static_cast<std::uint32_t>(i) / static_cast<std::uint32_t>(size));
    return static_cast<Id>(i / size);
  }
};

// Fixed sizes that are whole multiples of the engine's tile: every tile lies
// inside one segment, known at compile time (no segment starts in any).
template <class Id>
struct fixed_tile_multiples : fixed_segments<Id> {
  static constexpr bool one_segment_tiles = true;
};

// Fixed sizes that divide a thread's items (threads start at multiples of
// them): every segment lies inside one thread's items, known at compile time.
template <class Id>
struct fixed_inside_threads : fixed_segments<Id> {
  static constexpr bool inside_thread_segments = true;
};

}  // namespace cascade::detail
