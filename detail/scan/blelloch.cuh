#pragma once
// Blelloch (1990): seed 003's work-efficient scan (its appendix), GPU Gems 3
// ch. 39.2.2. A tile of two items per thread is reduced up a balanced tree in
// shared memory (up-sweep: each node becomes left op right, the root the
// tile's total); the root is replaced by the tile's carry-in and the tree is
// walked back down (down-sweep: a node's prefix goes to its left child, the
// prefix op the left child's total to its right child). O(tile) work in
// 2 log2(tile) steps, every item's exclusive prefix in its slot at the end.
// Tiles are joined by block_sums.cuh, so any n and any number of tiles work
// (the seed's kernel needed n to be a multiple of the tile).
//
// The tree needs a full power-of-two tile: a partial tile is padded with the
// operator's identity, and the root of every tile is cleared to it (block 0:
// to init, where there is one). That identity is the only value the operator
// sees besides the input's, so both scans need one: cascade::monoid(op, e)
// supplies it where the trait does not.
//
// Slots maps an item's index to its shared-memory slot: dense here, padded
// against bank conflicts in blelloch_conflict_free.cuh.

#include <cascade/detail/scan/algorithm.cuh>
#include <cascade/detail/primitives/dynamic_shared.cuh>
#include <cascade/detail/scan/block_sums.cuh>
#include <cascade/detail/tuning/scan_strategies.cuh>
#include <cascade/functional.cuh>

namespace cascade::detail::blelloch {

using block_sums::tile_job;

// Item i in slot i, as in the seed.
struct dense_slots {
  __host__ __device__ static constexpr int slot(int i) { return i; }
};

template <class Slots, class AccT, class InIt, class OutIt, class Op>
__global__ void __launch_bounds__(1024)
    scan_tiles(InIt in, OutIt out, offset_t n, tile_job<AccT> job, AccT identity, Op op) {
  AccT* s = dynamic_shared<AccT>();
  const int tid = threadIdx.x;
  const int tile = 2 * blockDim.x;
  const offset_t base = offset_t(blockIdx.x) * tile;
  const int valid = static_cast<int>(min_of<offset_t>(tile, n - base));

  // Items tid and tid + blockDim.x: coalesced loads and stores.
  const int ia = tid, ib = tid + blockDim.x;
  const AccT a = ia < valid ? static_cast<AccT>(in[base + ia]) : identity;
  const AccT b = ib < valid ? static_cast<AccT>(in[base + ib]) : identity;
  s[Slots::slot(ia)] = a;
  s[Slots::slot(ib)] = b;

  // Up-sweep: `nodes` pairs at distance `stride`; the right one becomes left op right.
  int stride = 1;
  for (int nodes = tile / 2; nodes > 0; nodes /= 2, stride *= 2) {
    __syncthreads();
    if (tid < nodes) {
      const int left = Slots::slot(stride * (2 * tid + 1) - 1);
      const int right = Slots::slot(stride * (2 * tid + 2) - 1);
      s[right] = static_cast<AccT>(op(s[left], s[right]));
    }
  }
  // The root holds the tile's total: record it, then put the carry-in there.
  maybe<AccT> seed = job.seed;
  seed.has = seed.has && blockIdx.x == 0;
  if (tid == 0) {
    const int root = Slots::slot(tile - 1);
    if (job.sums != nullptr) job.sums[blockIdx.x] = then(seed, s[root], op).value;
    s[root] = seed.has ? seed.value : identity;
  }
  // Down-sweep: left gets the node's prefix P, right gets P op (left's total):
  // the prefix stays on the left, as a non-commutative operator needs.
  for (int nodes = 1; nodes < tile; nodes *= 2) {
    stride /= 2;
    __syncthreads();
    if (tid < nodes) {
      const int left = Slots::slot(stride * (2 * tid + 1) - 1);
      const int right = Slots::slot(stride * (2 * tid + 2) - 1);
      const AccT left_total = s[left];
      const AccT prefix = s[right];
      s[left] = prefix;
      s[right] = static_cast<AccT>(op(prefix, left_total));
    }
  }
  __syncthreads();

  // Exclusive prefixes are in the slots; inclusive ones add the item itself.
  const AccT pa = s[Slots::slot(ia)], pb = s[Slots::slot(ib)];
  if (ia < valid) out[base + ia] = job.exclusive ? pa : static_cast<AccT>(op(pa, a));
  if (ib < valid) out[base + ib] = job.exclusive ? pb : static_cast<AccT>(op(pb, b));
}

template <class Slots, class AccT, class Op>
struct launcher {
  const char* name;
  unsigned block_threads;
  offset_t tile_items;
  AccT identity;

  template <class InIt, class OutIt>
  void launch(InIt in, OutIt out, offset_t n, tile_job<AccT> job, Op op, offset_t tiles, cudaStream_t stream) const {
    const std::size_t slots = Slots::slot(static_cast<int>(tile_items) - 1) + 1;
    block_sums::launch_tiles(scan_tiles<Slots, AccT, InIt, OutIt, Op>, tiles, block_threads, slots * sizeof(AccT),
                             stream, name, in, out, n, job, identity, op);
  }
};

// Both Blelloch strategies, with their slot layout.
template <class Slots, class InIt, class OutIt, class AccT, class Op>
void run(const char* name, unsigned threads, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
         cudaStream_t stream) {
  static_assert(has_identity_v<Op, AccT>,
                "cascade::strategy::blelloch and blelloch_conflict_free pad partial tiles and clear the tree's "
                "root with the operator's identity element, and none is known for this operator and "
                "accumulator type: pass cascade::monoid(op, identity) (or specialise "
                "cascade::identity_element<Op, T>), or use a strategy that needs none (hillis_steele, "
                "reduce_then_scan, decoupled_lookback)");
  if constexpr (has_identity_v<Op, AccT>) {
    const launcher<Slots, AccT, Op> tiles{name, threads, 2 * offset_t(threads), identity_of<AccT>(op)};
    block_sums::scan(tiles, in, n, out, mode, op, stream);
  }
}

}  // namespace cascade::detail::blelloch

namespace cascade::detail {

template <>
struct scan_algorithm<strategy::blelloch_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::blelloch_t tag, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op,
                  cudaStream_t stream) {
    blelloch::run<blelloch::dense_slots>("cascade::strategy::blelloch", scan_block_threads_for(tag, "blelloch", true),
                                         in, n, out, mode, op, stream);
  }
};

}  // namespace cascade::detail
