#pragma once
// The strategy reproducible_lookback: the decoupled look-back engine
// (decoupled_lookback.cuh) with a prefix rule that makes every tile's prefix a
// function of the tile's index only, so that the bits of every output depend
// on the input and N alone: not on timing, grid, SM count, load or
// architecture. The automatic scan of non-integral values and the keyed and
// segmented algorithms run on it.
//
// Tiles form groups of 32 (one warp's lanes). Every tile publishes only its
// aggregate A(t), which is never overwritten; each group g has two words of
// its own, its total G(g) and its inclusive prefix P(g). The association is
// fixed as
//   S_g(l)       = the warp inclusive scan of A(32g) .. A(32g + l), lane l
//   G(g)         = S_g(31)
//   P(g)         = P(g - 1) op G(g), with P(-1) = init (or nothing)
//   exclusive(t) = P(g - 1) op S_g(t - 32g - 1)  (P(g - 1) alone for lane 0)
// The warp scan (Kogge-Stone) gives lane l a fixed tree over lanes 0..l, so
// S_g(l) is the same whoever computes it and however many lanes after l hold
// values. P is a left fold of group totals: a tile that finds the nearest
// published P(h) and folds G(h + 1) .. G(g - 1) onto it, in order, makes the
// very operations that define P(g - 1), however far back it had to look.
//
// So the look-back is the textbook's, one level up. One round trip polls the
// tile's own group's aggregates and the total and prefix of the group (or
// Tuning::group_window groups) before it; a total not yet published is
// computed from its group's aggregates (a few groups per round trip), and a
// group's first and last tiles publish every total and prefix they compute,
// so the published frontier moves many groups at a time. (When only a
// group's last tile published P(g), the frontier moved one group per L2
// round trip: 1.6-1.9x the textbook rule's time on the H200.) A group's last
// tile publishes G(g) as soon as its group's aggregates are in, before it
// looks further back.
// On grids of one wave the whole block computes P(g - 1) from the
// aggregates alone, the same operations without the chain of group words
// (block_exclusive_prefix).
// Aggregates come with the silent-tile fallback: a tile's aggregate
// recomputed with its own tree.
//
// Segmented pairs add a shortcut that keeps every bit: a tile whose
// aggregate absorbs what precedes it (op(x, A) == A: it holds a segment
// start; segmented/pairs.cuh) publishes it as such (tile_absorbing). Every
// combination of a range that includes an absorbing A is then the same
// whatever lies before A, so a window needs only its lanes from the nearest
// absorbing one on (those before stand in as AccT{}); a tile whose own
// group's scan absorbs takes it as its prefix without P(g - 1); and a group
// total that absorbs is that group's prefix too. A keyed scan's tile then
// waits for its nearest predecessors only, not for every tile before it.
//
// What it costs is set by L2 traffic more than by round trips: the group
// words are read by every tile of the next groups, so they sit on cache
// lines of their own, few groups are polled, and few tiles write them (see
// group_prefix; H100, float inclusive sum at 2^28, time against the
// textbook rule's in the same run: words packed, 32 groups polled, every
// tile publishing 3.5x; words apart 1.84x; 8 groups polled 1.37x; first and
// last tiles publishing 1.09x; later 1.02x; the group before only, 1.00x,
// and on the H200 1.00x against 1.07x with 8).

#include <cascade/detail/scan/decoupled_lookback.cuh>

namespace cascade::detail::decoupled_lookback {

// Up to 32 consecutive status words, lane j holding word first + j
// (j < count): polled once, and for tile aggregates waited for; a tile still
// silent after Tuning::polls_before_fallback polls has its aggregate
// recomputed from its inputs (it may not be running).
template <class AccT>
struct status_window {
  offset_t first;
  int count;
  AccT value{};
  tile_state state = tile_invalid;

  __device__ bool mine_pending() const { return lane_id() < count && state == tile_invalid; }
  // Whether a lane holds an aggregate that absorbs what precedes it.
  __device__ bool absorbs() const { return __any_sync(kFullMask, lane_id() < count && state == tile_absorbing); }
  // The first lane a combination of the window needs: the nearest absorbing
  // one (0 without one, or where the operator cannot absorb).
  template <bool Absorbing>
  __device__ int first_needed() const {
    if constexpr (!Absorbing) return 0;
    const unsigned absorbing = __ballot_sync(kFullMask, lane_id() < count && state == tile_absorbing);
    return absorbing ? 31 - __clz(absorbing) : 0;
  }
  template <class Status>
  __device__ void poll(const Status& words) {
    if (mine_pending()) state = words.peek(first + lane_id(), value);
  }
  // Tile aggregates, after a first poll; every lane returns its own, those
  // before the nearest absorbing one (Absorbing) AccT{} instead.
  template <class Tuning, bool Absorbing, class Status, class Recompute>
  __device__ AccT wait(const Status& tiles, Recompute aggregate_of) {
    int from = first_needed<Absorbing>();
    auto pending = [&] { return lane_id() >= from && mine_pending(); };
    for (int polls = 1; __any_sync(kFullMask, pending()) && polls < Tuning::polls_before_fallback; ++polls) {
      __nanosleep(spin_nanoseconds<Tuning>());
      poll(tiles);
      from = first_needed<Absorbing>();
    }
    for (unsigned silent = __ballot_sync(kFullMask, pending()); silent; silent &= silent - 1) {
      const int l = __ffs(silent) - 1;
      tile_state found = tile_aggregate;  // tiles here hold aggregates only
      const AccT recomputed = aggregate_of(first + l, found);
      if (lane_id() == l) value = recomputed, state = found;
    }
    if constexpr (Absorbing) {
      if (lane_id() < from) value = AccT{};
    }
    return value;
  }
};

// Status words of one kind per group, `stride` words apart (see
// group_prefix::word_stride).
template <class Status>
struct strided_words {
  Status words;
  offset_t stride;
  template <class AccT>
  __device__ tile_state peek(offset_t i, AccT& value) const { return words.peek(i * stride, value); }
  template <class AccT>
  __device__ void publish(offset_t i, tile_state state, const AccT& value) const {
    words.publish(i * stride, state, value);
  }
};

struct group_prefix {
  static constexpr int group_tiles = kWarpThreads;
  static constexpr offset_t groups(offset_t tiles) { return (tiles + group_tiles - 1) / group_tiles; }
  // Group words are read by every tile of the next Tuning::group_window
  // groups: packed side by side, a few cache lines took the polls of the
  // whole GPU, and the L2 slices holding them slowed every tile's loads
  // (traced: a tile's bulk load took 16 us at p90, against 4.6 us with the
  // textbook rule). 16 or 32 words apart measured the same.
  static constexpr offset_t word_stride = 16;
  // The tiles' aggregates, then each group's total and prefix, apart.
  static constexpr offset_t status_words(offset_t tiles) { return tiles + 2 * word_stride * groups(tiles); }
  // A single block carries its prefix tile to tile (a left fold of tile
  // aggregates, another association), so at most a single tile takes it.
  template <class Tuning>
  static constexpr offset_t single_block_tiles = Tuning::single_block_tiles < 1 ? Tuning::single_block_tiles : 1;

  // Gives lanes lo .. totals.count - 1 of `totals` (group totals, polled
  // once) the totals not yet published, each from its group's aggregates,
  // Tuning::group_batch groups per round trip; publishes them if `publish`.
  template <class Tuning, class Status, class Words, class AccT, class Op, class Recompute>
  __device__ static void complete_totals(status_window<AccT>& totals, int lo, const Status& tiles,
                                         const Words& total_words, bool publish, Op op, Recompute aggregate_of) {
    constexpr int batch = Tuning::group_batch;
    constexpr bool absorbing = can_absorb<Op, AccT>;
    const int lane = lane_id();
    unsigned missing = __ballot_sync(kFullMask, lane >= lo && lane < totals.count && totals.state == tile_invalid);
    while (missing) {
      int which[batch];
      status_window<AccT> aggregates[batch];
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        which[b] = missing ? __ffs(missing) - 1 : -1;
        missing &= missing - 1;
        aggregates[b] = {(totals.first + which[b]) * group_tiles, which[b] < 0 ? 0 : group_tiles};
        aggregates[b].poll(tiles);
      }
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        if (which[b] < 0) break;
        const AccT a = aggregates[b].template wait<Tuning, absorbing>(tiles, aggregate_of);
        const AccT total = shuffle_idx(warp_inclusive_scan(a, op), group_tiles - 1);
        const tile_state state = absorbing && aggregates[b].absorbs() ? tile_absorbing : tile_aggregate;
        if (lane == which[b]) totals.value = total, totals.state = state;
        if (publish && lane == 0) total_words.publish(totals.first + which[b], state, total);
      }
    }
  }

  // Folds the totals of lanes lo .. totals.count - 1 onto `prefix`, in
  // order; publishes each prefix it makes if `publish`.
  template <class Tuning, class Status, class Words, class AccT, class Op, class Recompute>
  __device__ static void fold(maybe<AccT>& prefix, status_window<AccT>& totals, int lo, const Status& tiles,
                              const Words& total_words, const Words& prefix_words, bool publish, Op op,
                              Recompute aggregate_of) {
    complete_totals<Tuning>(totals, lo, tiles, total_words, publish, op, aggregate_of);
    const int lane = lane_id();
    AccT made{};
    for (int l = lo; l < totals.count; ++l) {
      prefix = then(prefix, shuffle_idx(totals.value, l), op);
      if (lane == l) made = prefix.value;
    }
    if (publish && lane >= lo && lane < totals.count) prefix_words.publish(totals.first + lane, tile_prefix, made);
  }

  // P(group - 1); every lane returns it. `totals` and `prefixes` hold the
  // groups [first, group), polled once.
  template <class Tuning, class Status, class Words, class AccT, class Op, class Recompute>
  __device__ static maybe<AccT> groups_before(const Status& tiles, const Words& total_words,
                                              const Words& prefix_words, offset_t group, status_window<AccT>& totals,
                                              status_window<AccT> prefixes, bool publish, const maybe<AccT>& init,
                                              Op op, Recompute aggregate_of) {
    if (group == 0) return init;
    // The nearest published prefix: in the polled window, else further back
    // (one poll per 32 groups, no waiting: an unpublished one is folded past).
    // A polled total that absorbs is its group's prefix too (P(h) = P(h - 1)
    // op G(h) = G(h)), and ends the search where it is nearer.
    maybe<AccT> prefix = init;
    offset_t from = 0;  // the first group to fold
    const unsigned absorbing = __ballot_sync(kFullMask, lane_id() < totals.count && totals.state == tile_absorbing);
    const unsigned published = __ballot_sync(kFullMask, prefixes.state == tile_prefix);
    if (absorbing && absorbing >= published) {  // (the highest set bit decides)
      const int nearest = 31 - __clz(absorbing);
      prefix = {shuffle_idx(totals.value, nearest), true};
      from = totals.first + nearest + 1;
    } else {
      for (;;) {
        if (const unsigned found = __ballot_sync(kFullMask, prefixes.state == tile_prefix)) {
          const int nearest = 31 - __clz(found);
          prefix = {shuffle_idx(prefixes.value, nearest), true};
          from = prefixes.first + nearest + 1;
          break;
        }
        if (prefixes.first == 0) break;
        prefixes = {max_of<offset_t>(0, prefixes.first - group_tiles),
                    static_cast<int>(min_of<offset_t>(group_tiles, prefixes.first))};
        prefixes.poll(prefix_words);
      }
    }
    // The totals from there on, 32 groups per round trip; the last window's are polled already.
    while (from < totals.first) {
      status_window<AccT> earlier{from, static_cast<int>(min_of<offset_t>(group_tiles, totals.first - from))};
      earlier.poll(total_words);
      fold<Tuning>(prefix, earlier, 0, tiles, total_words, prefix_words, publish, op, aggregate_of);
      from += earlier.count;
    }
    fold<Tuning>(prefix, totals, static_cast<int>(from - totals.first), tiles, total_words, prefix_words, publish,
                 op, aggregate_of);
    return prefix;
  }

  // Grids of one wave (fewer than Tuning::whole_block_grid tiles, all
  // running at once, their aggregates out at about the same time) find
  // every prefix from the aggregates alone, with the whole block: each warp
  // computes some earlier groups' totals (the same warp scan), all polled in
  // one round trip, and the first thread folds them in order. No tile then
  // waits for another tile's total or prefix, a chain of round trips one
  // group long. Values that absorb keep the first warp's rule (their tiles
  // stop early), as do values past 16 bytes (their totals would take too
  // much shared memory).
  static constexpr int whole_block_max_groups = 16;
  template <class Tuning, class AccT, class Op>
  static constexpr bool whole_block_fits = !can_absorb<Op, AccT> && sizeof(AccT) <= 16 &&
                                           Tuning::whole_block_grid > 0 &&
                                           Tuning::whole_block_grid <= whole_block_max_groups * group_tiles;
  // A tile of the first group needs no earlier group: its first warp alone,
  // without the whole block's barrier.
  template <class Tuning>
  __device__ static bool whole_block(offset_t tile) {
    return gridDim.x < Tuning::whole_block_grid && tile >= group_tiles;
  }

  // The whole block: publishes the tile's aggregate and leaves its
  // exclusive prefix in `slot` (the caller's barrier makes it visible).
  template <class Tuning, class Status, class AccT, class Op, class Recompute>
  __device__ static void block_exclusive_prefix(const Status& tiles, offset_t tile, const AccT& aggregate,
                                                const maybe<AccT>& init, Op op, Recompute aggregate_of,
                                                maybe<AccT>& slot) {
    constexpr int warps = Tuning::block_threads / kWarpThreads;
    constexpr int per_warp = (whole_block_max_groups + warps - 1) / warps;
    __shared__ uninitialized_array<AccT, whole_block_max_groups> totals;
    const int warp = static_cast<int>(threadIdx.x) / kWarpThreads;
    const offset_t group = tile / group_tiles;
    const int position = static_cast<int>(tile % group_tiles);
    if (threadIdx.x == 0) tiles.publish(tile, tile_aggregate, aggregate);
    // Warp w: groups w, w + warps, ... before this one; the first warp also
    // this group's tiles before this one.
    status_window<AccT> own{group * group_tiles, warp == 0 ? position : 0};
    status_window<AccT> earlier[per_warp];
#pragma unroll
    for (int k = 0; k < per_warp; ++k) {
      const offset_t g = warp + offset_t(k) * warps;
      earlier[k] = {g * group_tiles, g < group ? group_tiles : 0};
      earlier[k].poll(tiles);
    }
    own.poll(tiles);
#pragma unroll
    for (int k = 0; k < per_warp; ++k) {
      const offset_t g = warp + offset_t(k) * warps;
      if (g >= group) break;
      const AccT a = earlier[k].template wait<Tuning, false>(tiles, aggregate_of);
      const AccT total = shuffle_idx(warp_inclusive_scan(a, op), group_tiles - 1);
      if (lane_id() == 0) totals[static_cast<int>(g)] = total;
    }
    const AccT a = own.template wait<Tuning, false>(tiles, aggregate_of);
    // S_g(position - 1), lane 0's (a shuffle names every lane).
    const AccT in_group = shuffle_idx(warp_inclusive_scan(a, op, position), position > 0 ? position - 1 : 0);
    __syncthreads();
    if (threadIdx.x == 0) {
      maybe<AccT> prefix = init;
      for (int g = 0; g < group; ++g) prefix = then(prefix, totals[g], op);
      slot = position > 0 ? then(prefix, in_group, op) : prefix;
    }
  }

  // Called by the tile's first warp; returns the tile's exclusive prefix
  // (init included; none for tile 0 without init). `absorbing`: whether the
  // tile's aggregate absorbs what precedes it. `needed`: false where no
  // output of the tile depends on its prefix (its first item absorbs it,
  // a segmented scan's tile that begins with a segment): the tile then
  // publishes and returns nothing, without waiting for its predecessors.
  template <class Tuning, class Status, class AccT, class Op, class Recompute>
  __device__ static maybe<AccT> exclusive_prefix(const Status& tiles, offset_t tile, const AccT& aggregate,
                                                 bool absorbing, const maybe<AccT>& init, Op op,
                                                 Recompute aggregate_of, bool needed = true) {
    constexpr bool can = can_absorb<Op, AccT>;
    const int lane = lane_id();
    const offset_t group = tile / group_tiles;
    const int position = static_cast<int>(tile % group_tiles);
    const bool last = position == group_tiles - 1;
    const strided_words<Status> total_words{tiles.after(offset_t(gridDim.x)), 2 * word_stride};
    const strided_words<Status> prefix_words{tiles.after(offset_t(gridDim.x) + word_stride), 2 * word_stride};
    if (lane == 0) tiles.publish(tile, absorbing ? tile_absorbing : tile_aggregate, aggregate);
    if (!needed && absorbing) {
      // S_g(position) is the aggregate itself (an absorbing lane ends every
      // scan over it): a group's last tile has its total and prefix at once.
      if (last && lane == 0) {
        total_words.publish(group, tile_absorbing, aggregate);
        prefix_words.publish(group, tile_prefix, aggregate);
      }
      return {AccT{}, false};
    }
    pace_first_poll<Tuning>(tile);
    // One round trip asks for this group's tiles before this one and the
    // totals and prefixes of the Tuning::group_window groups before this one.
    const offset_t first = max_of<offset_t>(0, group - Tuning::group_window);
    status_window<AccT> own{group * group_tiles, position};
    status_window<AccT> totals{first, static_cast<int>(group - first)};
    status_window<AccT> prefixes = totals;
    own.poll(tiles);
    totals.poll(total_words);
    prefixes.poll(prefix_words);
    // This group first: its last tile publishes the total before it may
    // wait for earlier groups.
    AccT a = own.template wait<Tuning, can>(tiles, aggregate_of);
    const bool own_absorbs = can && own.absorbs();  // S_g(position - 1) absorbs P(g - 1)
    const bool total_absorbs = own_absorbs || absorbing;
    if (lane == position) a = aggregate;
    const AccT scanned = warp_inclusive_scan(a, op, position + 1);
    const AccT total = shuffle_idx(scanned, position);  // the whole warp: a shuffle names every lane
    if (last && lane == 0) {
      total_words.publish(group, total_absorbs ? tile_absorbing : tile_aggregate, total);
      if (total_absorbs) prefix_words.publish(group, tile_prefix, total);
    }
    if (own_absorbs) return {shuffle_idx(scanned, position - 1), true};
    // Only a group's first and last tiles publish what they compute on the
    // way: the same words written by all 32 tiles were as hot as the polls.
    const maybe<AccT> before = groups_before<Tuning>(tiles, total_words, prefix_words, group, totals, prefixes,
                                                     position == 0 || last, init, op, aggregate_of);
    if (last && !total_absorbs && lane == 0) prefix_words.publish(group, tile_prefix, then(before, total, op).value);
    if (position == 0) return before;
    return then(before, shuffle_idx(scanned, position - 1), op);
  }
};

// The automatic scan's rule for integral accumulators: an associative
// operator gives the same integers under every association, so both rules'
// bits are right, and each path takes the cheaper. The textbook's, except on
// the portable path (no bulk copies) from Tuning::portable_group_rule_items
// items, where the reproducible rule measured faster (tuning/scan.cuh). The
// choice is made in the kernel (the architecture when it is compiled, the
// grid when it runs), so the status holds the reproducible rule's words, the
// textbook's being the first of them.
struct exact_prefix {
  static constexpr offset_t status_words(offset_t tiles) { return group_prefix::status_words(tiles); }
  template <class Tuning>
  static constexpr offset_t single_block_tiles = nearest_prefix::single_block_tiles<Tuning>;

  template <class Tuning>
  __device__ static bool by_groups() {
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (return false;), (
      constexpr long long items = Tuning::portable_group_rule_items;
      constexpr long long tile_items = static_cast<long long>(Tuning::block_threads) * Tuning::items_per_thread;
      return items > 0 && gridDim.x >= (items + tile_items - 1) / tile_items;
    ))
  }

  template <class Tuning, class Status, class AccT, class Op, class Recompute>
  __device__ static maybe<AccT> exclusive_prefix(const Status& status, offset_t tile, const AccT& aggregate,
                                                 bool absorbing, const maybe<AccT>& init, Op op,
                                                 Recompute aggregate_of) {
    if (by_groups<Tuning>()) {
      return group_prefix::exclusive_prefix<Tuning>(status, tile, aggregate, absorbing, init, op, aggregate_of);
    }
    return nearest_prefix::exclusive_prefix<Tuning>(status, tile, aggregate, absorbing, init, op, aggregate_of);
  }
};

template <class Tuning, class AccT, class Op>
inline constexpr bool has_whole_block_rule<group_prefix, Tuning, AccT, Op> =
    group_prefix::whole_block_fits<Tuning, AccT, Op>;

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

// The automatic scan: the reproducible rule (group_prefix), except for
// integral accumulators, whose bits are fixed under either rule: they take
// the cheaper (exact_prefix), mostly the textbook's (H100, inclusive sum,
// reproducible / textbook time: int64 1.07-1.08x at 2^24..2^30, int32
// 1.01-1.09x; float 1.01-1.02x and double 1.04-1.07x from 2^24, up to 1.18x
// at 2^20).
template <>
struct scan_algorithm<strategy::automatic_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::automatic_t, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    if constexpr (::cuda::std::is_integral_v<AccT>) {
      decoupled_lookback::run<decoupled_lookback::exact_prefix>(in, n, out, mode, op, stream);
    } else {
      decoupled_lookback::run<decoupled_lookback::group_prefix>(in, n, out, mode, op, stream);
    }
  }
};

}  // namespace cascade::detail
