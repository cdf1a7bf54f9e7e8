#pragma once
// The strategy reproducible_lookback: the decoupled look-back engine
// (decoupled_lookback.cuh) with a prefix rule that makes every tile's prefix a
// function of the tile's index only, so that the bits of every output depend
// on the input and N alone: not on timing, grid, SM count, load or
// architecture. The keyed and segmented algorithms run on it. It is not yet
// the automatic scan: on the H200 it takes 1.6-1.9x the textbook rule's time
// from 2^24 (docs/performance.md), where the issue's budget is 1.03x.
//
// Tiles form groups of 32 (one warp's lanes). Every tile publishes only its
// aggregate A(t), which is never overwritten; a group's inclusive prefix
// P(g) has a status word of its own, in a second, 32 times smaller array.
// The association is fixed as
//   G(g)        = the warp inclusive scan of A(32g) .. A(32g + 31), lane 31
//   P(g)        = P(g - 1) op G(g), with P(-1) = init (or nothing)
//   exclusive(t)= P(g - 1) op (the same warp scan, lane t - 32g - 1)
// The warp scan (Kogge-Stone) gives lane l a fixed tree over lanes 0..l, so
// lane l's value is the same whoever computes it and however many lanes
// after l hold values. P(g - 1) is a left fold of group totals: a tile finds
// the nearest published P(g - k) and folds G(g - k + 1) .. G(g - 1) onto it,
// in order, which is P(g - 1) exactly, however far back it had to look. So a
// tile that computed P(g - 1) may publish it for the others, and a group's
// last tile publishes P(g). The silent-predecessor fallback recomputes a
// tile's aggregate with its own tree, as for the textbook rule.

#include <cascade/detail/scan/decoupled_lookback.cuh>

namespace cascade::detail::decoupled_lookback {

// The aggregates of up to 32 consecutive tiles, lane j holding tile first + j
// (j < count): polled, then waited for; a tile still silent after
// Tuning::polls_before_fallback polls has its aggregate recomputed from its
// inputs (it may not be running).
template <class AccT>
struct aggregate_window {
  offset_t first;
  int count;
  AccT value{};
  tile_state state = tile_invalid;

  __device__ bool mine_pending() const { return lane_id() < count && state == tile_invalid; }
  template <class Status>
  __device__ void poll(const Status& tiles) {
    if (mine_pending()) state = tiles.peek(first + lane_id(), value);
  }
  // After a first poll; every lane returns its own aggregate.
  template <class Tuning, class Status, class Recompute>
  __device__ AccT wait(const Status& tiles, Recompute aggregate_of) {
    for (int polls = 1; __any_sync(kFullMask, mine_pending()) && polls < Tuning::polls_before_fallback; ++polls) {
      __nanosleep(spin_nanoseconds<Tuning>());
      poll(tiles);
    }
    for (unsigned silent = __ballot_sync(kFullMask, mine_pending()); silent; silent &= silent - 1) {
      const int l = __ffs(silent) - 1;
      tile_state found = tile_aggregate;  // tiles here hold aggregates only
      const AccT recomputed = aggregate_of(first + l, found);
      if (lane_id() == l) value = recomputed;
    }
    return value;
  }
};

struct group_prefix {
  static constexpr int group_tiles = kWarpThreads;
  // The tiles' aggregates, then one prefix word per group.
  static constexpr offset_t status_words(offset_t tiles) { return tiles + (tiles + group_tiles - 1) / group_tiles; }
  // A single block carries its prefix tile to tile (a left fold of tile
  // aggregates, another association), so at most a single tile takes it.
  template <class Tuning>
  static constexpr offset_t single_block_tiles = Tuning::single_block_tiles < 1 ? Tuning::single_block_tiles : 1;

  // P(group - 1): the nearest published group prefix in windows of 32
  // groups (one poll each, no waiting: an unpublished one is folded past),
  // then the group totals after it folded on in order. `last` is group - 1's
  // window, already polled once. Publishes P(group - 1) when it was not
  // published yet. Every lane returns it.
  template <class Tuning, class Status, class AccT, class Op, class Recompute>
  __device__ static maybe<AccT> groups_before(const Status& tiles, const Status& groups, offset_t group,
                                              const maybe<AccT>& init, Op op, aggregate_window<AccT>& last,
                                              Recompute aggregate_of) {
    if (group == 0) return init;
    const int lane = lane_id();
    maybe<AccT> prefix = init;
    offset_t from = 0;  // the first group to fold
    for (offset_t end = group; end > 0; end -= kWarpThreads) {
      const offset_t g = end - 1 - lane;
      AccT value{};
      const bool published = g >= 0 && groups.peek(g, value) == tile_prefix;
      if (const unsigned found = __ballot_sync(kFullMask, published)) {
        const int nearest = __ffs(found) - 1;
        prefix = {shuffle_idx(value, nearest), true};
        from = end - nearest;
        break;
      }
    }
    for (offset_t g = from; g < group; ++g) {
      aggregate_window<AccT> earlier{g * group_tiles, group_tiles};
      if (g < group - 1) earlier.poll(tiles);
      aggregate_window<AccT>& window = g < group - 1 ? earlier : last;
      const AccT a = window.template wait<Tuning>(tiles, aggregate_of);
      prefix = then(prefix, shuffle_idx(warp_inclusive_scan(a, op), group_tiles - 1), op);
    }
    if (from < group && lane == 0) groups.publish(group - 1, tile_prefix, prefix.value);
    return prefix;
  }

  // Called by the tile's first warp; returns the tile's exclusive prefix
  // (init included; none for tile 0 without init).
  template <class Tuning, class Status, class AccT, class Op, class Recompute>
  __device__ static maybe<AccT> exclusive_prefix(const Status& tiles, offset_t tile, const AccT& aggregate,
                                                 const maybe<AccT>& init, Op op, Recompute aggregate_of) {
    const int lane = lane_id();
    const offset_t group = tile / group_tiles;
    const int position = static_cast<int>(tile % group_tiles);
    const Status groups = tiles.after(offset_t(gridDim.x));
    if (lane == 0) tiles.publish(tile, tile_aggregate, aggregate);
    if (tile > 0) pace_first_poll<Tuning>();
    // One round trip asks for this group's tiles before this one, the
    // previous group's (folded unless its prefix is published already) and
    // the group prefixes; the earlier groups are folded first, then this
    // group's aggregates and this tile's own are scanned.
    aggregate_window<AccT> own{group * group_tiles, position};
    aggregate_window<AccT> previous{(group - 1) * group_tiles, group > 0 ? group_tiles : 0};
    own.poll(tiles);
    previous.poll(tiles);
    const maybe<AccT> before =
        groups_before<Tuning, Status, AccT>(tiles, groups, group, init, op, previous, aggregate_of);
    AccT a = own.template wait<Tuning>(tiles, aggregate_of);
    if (lane == position) a = aggregate;
    const AccT scanned = warp_inclusive_scan(a, op, position + 1);
    if (position == group_tiles - 1) {
      const AccT total = shuffle_idx(scanned, position);  // the whole warp: a shuffle names every lane
      if (lane == 0) groups.publish(group, tile_prefix, then(before, total, op).value);
    }
    if (position == 0) return before;
    return then(before, shuffle_idx(scanned, position - 1), op);
  }
};

}  // namespace cascade::detail::decoupled_lookback

namespace cascade::detail {

// The look-back with the reproducible rule, by name.
template <>
struct scan_algorithm<strategy::reproducible_lookback_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::reproducible_lookback_t, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    decoupled_lookback::run<decoupled_lookback::group_prefix>(in, n, out, mode, op, stream);
  }
};

}  // namespace cascade::detail
