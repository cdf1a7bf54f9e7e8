#pragma once
// reduce_by_key's second launch (masked_scan.cuh): the runs its tiles left
// for later. A tile whose runs fit its slots (the sparse tiles: most of them
// but where runs are shorter than 16 items) does not wait for the number of
// runs begun before it: it leaves its runs' keys and totals in its slots
// and goes. This launch, one block per group of 32 tiles, numbers them
// (the runs before the group: the nearest tile before it that looked back,
// or the groups before it, each block's count of its own group or, where
// that is not out yet, its tiles' counts: no block waits for another),
// copies them to their places, and joins the runs that span tiles:
// the last piece of the tile a run began in, then the first piece of each
// tile after, lane l folding a run of consecutive pieces and the warp
// combining the runs in lane order (a tree that depends on the number of
// pieces only, so the bits depend on the items and the runs, never on
// timing).

#include <cascade/detail/primitives/shuffle.cuh>
#include <cascade/detail/primitives/tile_status.cuh>
#include <cascade/detail/primitives/warp_reduce.cuh>
#include <cascade/detail/primitives/warp_scan.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/launch.cuh>
#include <cascade/detail/util/math.cuh>

#include <cuda/std/functional>

namespace cascade::detail {

// What each tile leaves for the runs that cross its edges.
template <class T>
struct carries {
  T* first;     // its piece of its first run, where that one began in an earlier tile
  T* last;      // its piece of its last run, where that one goes on past the tile
  bool* closes; // whether a run begun in an earlier tile ends in it
};

// What each tile leaves for its runs: the carries, and where it did not
// write its runs itself, its runs' keys and totals in its slots.
template <class K, class T>
struct run_carries {
  carries<T> pieces;
  offset_t tiles;       // (the first launch's grid)
  int* stashed;         // per tile: the totals in its slots, or -1 (it wrote its runs itself)
  K* keys;              // tile t's slots: from t * slots
  T* totals;
  int slots;
  offset_t* last_runs;  // the runs of the input's last tile up to its last item, where stashed
};

// The status words of reduce_by_key's tiles: each tile's word (its run
// count, then, where it looked back, the runs up to its end), each tile's
// count again (never overwritten), and each group's count of 32 tiles (the
// second launch's).
template <class C>
struct run_count_words {
  tile_status<C> tiles;
  tile_status<C> counts;
  tile_status<C> groups;
  static constexpr offset_t group_tiles = kWarpThreads;
  __host__ __device__ static constexpr offset_t words(offset_t tiles) {
    return 2 * tiles + (tiles + group_tiles - 1) / group_tiles;
  }
  __host__ __device__ static run_count_words at(const tile_status<C>& w, offset_t tiles) {
    return {w, w.after(tiles), w.after(2 * tiles)};
  }
};

// reduce_by_key's run counts, chased (block 0 of the tiles kernel): walks
// the tiles' counts in order as they come out and publishes each tile's
// inclusive count in its word, so that a tile's look-back finds one beside
// it instead of waiting for the chain of its predecessors' own look-backs
// (which advanced 32 tiles a round trip, slower than tiles start). Each
// round trip the block polls Windows x 32 counts at once, a window of 32
// per warp at a time (few registers: the kernel is the tiles'), and
// publishes them up to the first one missing. Integers: any writer of a
// tile's inclusive count writes the same value. No tile waits for the
// chaser, so the look-back's progress guarantee stands.
template <int Windows, int Threads, class C>
__device__ void chase_run_counts(const run_count_words<C>& w, offset_t tiles, unsigned spin_ns) {
  constexpr int warps = Threads / kWarpThreads, per_warp = Windows / warps;
  static_assert(Windows <= kWarpThreads && Windows % warps == 0);
  __shared__ C window_total[Windows], window_before[Windows];
  __shared__ int window_run[Windows];
  __shared__ offset_t advanced;
  __shared__ C advanced_runs;
  const int lane = lane_id(), warp = warp_id();
  C running = C(0);  // the runs before `from`
  for (offset_t from = 0; from < tiles;) {
    C count[per_warp];
    bool out[per_warp];
#pragma unroll
    for (int j = 0; j < per_warp; ++j) {  // (all polls in flight at once)
      const offset_t t = from + offset_t(warp + j * warps) * kWarpThreads + lane;
      count[j] = C(0);
      out[j] = t < tiles && w.counts.peek(t, count[j]) != tile_invalid;
    }
    int run[per_warp];
    C inclusive[per_warp];
#pragma unroll
    for (int j = 0; j < per_warp; ++j) {
      const unsigned ready = __ballot_sync(kFullMask, out[j]);
      run[j] = ready == kFullMask ? kWarpThreads : __ffs(~ready) - 1;  // counts out in a row
      inclusive[j] = warp_inclusive_scan(lane < run[j] ? count[j] : C(0), ::cuda::std::plus<C>{});
      const int k = warp + j * warps;
      if (lane == kWarpThreads - 1) window_total[k] = inclusive[j];
      if (lane == 0) window_run[k] = run[j];
    }
    __syncthreads();
    if (warp == 0) {
      // Windows up to the first that is not full are published.
      const int k = lane;
      const unsigned full = __ballot_sync(kFullMask, k < Windows && window_run[k] == kWarpThreads);
      const int partial = full == kFullMask ? kWarpThreads : __ffs(~full) - 1;
      const C total = k < Windows && k <= partial ? window_total[k] : C(0);
      const C through = warp_inclusive_scan(total, ::cuda::std::plus<C>{});
      if (k < Windows) window_before[k] = through - total;
      if (lane == kWarpThreads - 1) {
        advanced_runs = through;
        advanced = partial >= Windows ? offset_t(Windows) * kWarpThreads
                                      : offset_t(partial) * kWarpThreads + window_run[partial];
      }
    }
    __syncthreads();
    const offset_t step = advanced;
#pragma unroll
    for (int j = 0; j < per_warp; ++j) {
      const int k = warp + j * warps;
      const offset_t t = from + offset_t(k) * kWarpThreads + lane;
      if (t < from + step && lane < run[j]) w.tiles.publish(t, tile_prefix, running + window_before[k] + inclusive[j]);
    }
    running += advanced_runs;
    from += step;
    __syncthreads();  // (the shared words read before the next round writes them)
    if (step < offset_t(Windows) * kWarpThreads) __nanosleep(spin_ns);
  }
}

// The pieces of a run from tile `from` (its last piece) to tile `to` (its
// first), joined by the warp; the result in lane 0.
template <class T, class Op>
__device__ T join_pieces(const carries<T>& carry, offset_t from, offset_t to, Op op) {
  const offset_t pieces = to - from + 1;
  const offset_t run = (pieces + kWarpThreads - 1) / kWarpThreads;
  const offset_t p = lane_id() * run;
  const int lanes = static_cast<int>((pieces + run - 1) / run);
  T acc{};
  if (p < pieces) {
    auto piece_at = [&](offset_t q) { return q == 0 ? carry.last[from] : carry.first[from + q]; };
    acc = piece_at(p);
    const offset_t end = min_of(p + run, pieces);
#pragma unroll 4
    for (offset_t q = p + 1; q < end; ++q) acc = static_cast<T>(op(acc, piece_at(q)));
  }
  return warp_reduce(acc, op, 0, lanes);
}

// The value published in word i (every word is, once the first launch is
// done).
template <class C>
__device__ __forceinline__ C published(const tile_status<C>& words, offset_t i) {
  C value{};
  while (words.peek(i, value) == tile_invalid) {
  }
  return value;
}

// Group h's run count (h a whole group before the caller's): its word,
// where its block has published it, else its tiles' counts summed here.
// The first launch's words are all out, so no block waits for another.
template <class C>
__device__ C group_runs(const run_count_words<C>& w, offset_t h) {
  constexpr offset_t g = run_count_words<C>::group_tiles;
  C runs{};
  if (w.groups.peek(h, runs) != tile_invalid) return runs;
  runs = C(0);
#pragma unroll  // (the loads in flight together: the counts are all out)
  for (int k = 0; k < g; ++k) {
    C count{};
    w.counts.peek(h * g + k, count);
    runs += count;
  }
  return runs;
}

// The tile before `tile` where the last run begun before it began: the last
// one with runs (warp-collective). The tiles of the group before and this
// one's are probed one by one, then whole groups, 32 at a time.
template <class C>
__device__ offset_t run_start_tile(const run_count_words<C>& w, offset_t tile) {
  constexpr offset_t g = run_count_words<C>::group_tiles;
  const offset_t near = max_of<offset_t>(0, (tile / g - 1) * g);
  for (offset_t hi = tile; hi > near; hi -= kWarpThreads) {
    const offset_t t = hi - 1 - lane_id();
    const unsigned has = __ballot_sync(kFullMask, t >= near && published(w.counts, t) > 0);
    if (has) return hi - 1 - (__ffs(has) - 1);
  }
  for (offset_t hi = near / g; hi > 0; hi -= kWarpThreads) {
    const offset_t group = hi - 1 - lane_id();
    const unsigned has = __ballot_sync(kFullMask, group >= 0 && group_runs(w, group) > 0);
    if (has) {
      const offset_t found = hi - 1 - (__ffs(has) - 1);
      const offset_t t = found * g + g - 1 - lane_id();
      return found * g + g - 1 - (__ffs(__ballot_sync(kFullMask, published(w.counts, t) > 0)) - 1);
    }
  }
  return 0;  // (not reached: the run began somewhere)
}

// The runs begun before group `group` (block-wide; it ends at a barrier,
// its shared words read): where one of the 32 tiles before it looked back
// (a tile of many runs), its word's runs up to its end and the counts after
// it; else the earlier groups' counts.
template <int BlockThreads, class C>
__device__ C runs_before_group(const run_count_words<C>& w, offset_t group) {
  constexpr offset_t g = run_count_words<C>::group_tiles;
  __shared__ C partial[BlockThreads / kWarpThreads];
  __shared__ bool found;
  if (warp_id() == 0) {
    C runs{};
    const tile_state state = group > 0 ? w.tiles.peek(group * g - 1 - lane_id(), runs) : tile_invalid;
    const unsigned looked = __ballot_sync(kFullMask, state == tile_prefix);
    const int nearest = looked ? __ffs(looked) - 1 : kWarpThreads;  // (lane l: tile l + 1 back)
    const C after = shuffle_idx(warp_inclusive_scan(lane_id() < nearest ? runs : C(0), ::cuda::std::plus<C>{}),
                                kWarpThreads - 1);
    const C upto = shuffle_idx(runs, nearest & (kWarpThreads - 1));
    if (lane_id() == 0) {
      found = group == 0 || looked != 0;
      partial[0] = group == 0 ? C(0) : upto + after;
    }
  }
  __syncthreads();
  C runs = partial[0];
  if (!found) {
    __syncthreads();  // (partial[0] read)
    C mine{};
    for (offset_t h = threadIdx.x; h < group; h += BlockThreads) mine += group_runs(w, h);
    mine = shuffle_idx(warp_inclusive_scan(mine, ::cuda::std::plus<C>{}), kWarpThreads - 1);
    if (lane_id() == 0) partial[warp_id()] = mine;
    __syncthreads();
    runs = C(0);
    for (int k = 0; k < BlockThreads / kWarpThreads; ++k) runs += partial[k];
  }
  __syncthreads();  // (the caller's shared words may lie beside these, under one vector load)
  return runs;
}

// One block per group of 32 tiles: their stashed runs to their places, the
// runs that end in them joined, and the run count where the input ends.
template <int BlockThreads, class C, class K, class T, class KeysOut, class ValuesOut, class CountOut, class Op>
__global__ void __launch_bounds__(BlockThreads)
    stashed_runs_kernel(run_count_words<C> w, run_carries<K, T> carry, KeysOut keys_out, ValuesOut values_out,
                        CountOut runs_out, Op op) {
  constexpr offset_t g = run_count_words<C>::group_tiles;
  __shared__ offset_t before[g];  // the runs begun before each tile of the group
  __shared__ int stashed[g];
  __shared__ int stashed_before[g + 1];  // the runs in the slots of the group's tiles before each, and in all
  const offset_t group = blockIdx.x, first = group * g;
  const int tiles = static_cast<int>(min_of<offset_t>(g, carry.tiles - first));
  wait_for_prior_grid();  // the tiles' words, slots and carries (a dependent launch)
  C count{};  // (warp 0: lane l's tile's run count)
  if (warp_id() == 0) {  // the group's count out first (run_start_tile, later blocks)
    count = lane_id() < tiles ? published(w.counts, first + lane_id()) : C(0);
    const C total = shuffle_idx(warp_inclusive_scan(count, ::cuda::std::plus<C>{}), kWarpThreads - 1);
    if (lane_id() == 0) w.groups.publish(group, tile_aggregate, total);
  }
  const C prefix = runs_before_group<BlockThreads>(w, group);
  if (warp_id() == 0) {
    const int l = lane_id();
    before[l] = static_cast<offset_t>(prefix + warp_inclusive_scan(count, ::cuda::std::plus<C>{}) - count);
    const int mine = l < tiles ? carry.stashed[first + l] : -1;
    stashed[l] = mine;
    const int runs = mine >= 0 ? static_cast<int>(count) : 0;
    const int upto = warp_inclusive_scan(runs, ::cuda::std::plus<int>{});
    stashed_before[l] = upto - runs;
    if (l == kWarpThreads - 1) stashed_before[g] = upto;
  }
  __syncthreads();
  // The runs in the slots, the group's in order: the k-th of them is run s
  // of tile l, at before[l] + s. A thread's loads of a batch in flight
  // together, then its stores. (16 runs a batch instead of 8: H200, 2^26,
  // 1.01-1.09x the time, runs of 16 1.08-1.09x;
  // h200-segmented-rbk-early-publication.json.)
  constexpr int batch = clamp_to(int(64 / (sizeof(K) + sizeof(T))), 1, 8);
  const int runs = stashed_before[g];
  for (int k0 = threadIdx.x; k0 < runs; k0 += BlockThreads * batch) {
    K key[batch];
    T total[batch];
    offset_t at[batch];
    int totals = 0;  // bit b: run b has its total in the slots
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const int k = k0 + b * BlockThreads;
      if (k >= runs) break;
      int l = 0;
      for (int step = 16; step > 0; step /= 2) {
        if (l + step < tiles && stashed_before[l + step] <= k) l += step;
      }
      const int s = k - stashed_before[l];
      const offset_t slot = (first + l) * carry.slots + s;
      at[b] = before[l] + s;
      key[b] = carry.keys[slot];
      if (s < stashed[l]) total[b] = carry.totals[slot], totals |= 1 << b;
    }
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      if (k0 + b * BlockThreads >= runs) break;
      keys_out[at[b]] = key[b];
      if ((totals >> b) & 1) values_out[at[b]] = total[b];
    }
  }
  // The runs that end here after beginning in an earlier tile: a warp each.
  for (int l = warp_id(); l < tiles; l += BlockThreads / kWarpThreads) {
    const offset_t tile = first + l;
    if (!carry.pieces.closes[tile]) continue;
    const offset_t from = run_start_tile(w, tile);
    const T total = join_pieces(carry.pieces, from, tile, op);
    if (lane_id() == 0) values_out[before[l] - 1] = total;
  }
  if (threadIdx.x == 0 && first + tiles == carry.tiles && stashed[tiles - 1] >= 0) {
    *runs_out = before[tiles - 1] + *carry.last_runs;
  }
}

// The second launch over the `tiles` tiles of the kernel before it (one
// block per tile, which calls let_dependents_launch).
template <int BlockThreads, class C, class K, class T, class KeysOut, class ValuesOut, class CountOut, class Op>
void launch_stashed_runs(const stream_place& at, const run_count_words<C>& w, const run_carries<K, T>& carry,
                         KeysOut keys_out, ValuesOut values_out, CountOut runs_out, Op op) {
  constexpr offset_t g = run_count_words<C>::group_tiles;
  launch_after_prior(at, static_cast<unsigned>(carry.tiles),
                     stashed_runs_kernel<BlockThreads, C, K, T, KeysOut, ValuesOut, CountOut, Op>,
                     static_cast<unsigned>((carry.tiles + g - 1) / g), BlockThreads,
                     "cascade reduce_by_key stashed runs kernel", w, carry, keys_out, values_out, runs_out, op);
}

}  // namespace cascade::detail
