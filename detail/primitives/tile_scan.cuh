#pragma once
// Scanning one tile of a block: load, scan each thread's items, scan the
// thread totals across the block, ask for the tile's prefix, apply it, store.
// A partial tile's missing items are copies of one of its inputs (see scan_tile).
// The caller supplies the tile's prefix through a functor, called by every
// thread with the tile's aggregate: decoupled look-back, or a carried value.

#include <cascade/detail/util/math.cuh>

#include <cascade/detail/primitives/block_scan.cuh>
#include <cascade/detail/primitives/shuffle.cuh>
#include <cascade/detail/primitives/warp_scan.cuh>
#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/primitives/load.cuh>
#include <cascade/detail/primitives/shared_tile.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <type_traits>

namespace cascade::detail {

// What to compute: inclusive or exclusive, with or without an initial value
// (an exclusive scan always has one).
template <class AccT>
struct scan_mode {
  AccT init;
  bool has_init;
  bool exclusive;
};

// A value that may be absent (no identity is ever needed to stand for "none").
template <class T>
struct maybe {
  T value;
  bool has;
};

template <class T, class Op>
__device__ __forceinline__ maybe<T> then(maybe<T> a, const T& b, Op op) {
  return {a.has ? static_cast<T>(op(a.value, b)) : b, true};
}

// How a tile reaches the blocked arrangement (each thread owning `Items`
// consecutive items): read directly (16-byte vectors where the pointers are
// aligned), or read coalesced by each warp and transposed through the warp's
// own shared memory (no block-wide barrier either way).
enum class tile_io { direct, warp_transpose };

template <int BlockThreads, int Items, class AccT, tile_io Io = tile_io::direct>
struct tile_scan_storage {
  static constexpr int warp_items = kWarpThreads * Items;
  static constexpr int warp_slots = Io == tile_io::warp_transpose ? warp_items + warp_items / 32 : 0;
  // One padding slot per 32 items keeps the transposed accesses free of bank conflicts.
  __host__ __device__ static constexpr int padded(int i) { return i + i / 32; }
  // Where a lane's blocked items start: when Items divides 32 they never
  // cross a padding slot, so item k sits at a constant offset k from there.
  __device__ static AccT* blocked(AccT* warp_slots, int lane) {
    return warp_slots + (32 % Items == 0 ? padded(lane * Items) : 0);
  }
  __host__ __device__ static constexpr int blocked_offset(int lane, int k) {
    return 32 % Items == 0 ? k : padded(lane * Items + k);
  }
  // Whether blocked() + blocked_offset() reach each lane's item k at
  // padded(lane * Items + k), where a position-based index puts it (kernels
  // use both ways on one exchange: segmented/tile_totals.cuh).
  __host__ __device__ static constexpr bool blocked_is_padded() {
    for (int lane = 0; lane < kWarpThreads; ++lane) {
      for (int k = 0; k < Items; ++k) {
        if ((32 % Items == 0 ? padded(lane * Items) : 0) + blocked_offset(lane, k) != padded(lane * Items + k)) return false;
      }
    }
    return true;
  }

  // 16-byte vectors of items: whole tiles between aligned pointers of AccT
  // itself move as vectors, each warp's exchange being a whole number of them.
  static constexpr int vector_items = 16 % sizeof(AccT) == 0 && sizeof(AccT) < 16 ? int(16 / sizeof(AccT)) : 1;
  static constexpr bool vectorizable = vector_items > 1 && Items % vector_items == 0 &&
                                       (warp_slots * sizeof(AccT)) % 16 == 0;
  struct alignas(16) vector_t {
    AccT v[vector_items];
  };
  // Vector v of a warp's segment sits at v ^ ((v / 8) % 8): a lane's vectors
  // (read by 8-lane phases at a stride of Items / vector_items) and the
  // warp's coalesced vectors both spread over all eight 16-byte bank groups.
  __host__ __device__ static constexpr int swizzled(int v) { return v ^ ((v >> 3) & 7); }
  static constexpr int vectors_per_thread = Items / vector_items;
  __device__ static vector_t* vector_slots(AccT* warp_slots) { return reinterpret_cast<vector_t*>(warp_slots); }

  block_scan_storage<BlockThreads / 32, AccT> scan;
  uninitialized_array<maybe<AccT>, 1> prefix;
  alignas(16) uninitialized_array<AccT, (BlockThreads / 32) * warp_slots + 1> exchange;
};

// Whether a tile can move between `It` and registers as 16-byte vectors
// (a pointer to AccT itself; aligned16 decides at run time).
template <class Storage, class AccT, class It>
inline constexpr bool vector_io_v =
    Storage::vectorizable && std::is_pointer_v<It> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<It>>, AccT>;

// A thread's items q * vector_items .. as one 16-byte vector, and back. The
// vector comes by value: bound to a reference into memory, its items were
// read one by one (four 4-byte loads where one 16-byte load would do).
template <class Storage, class AccT, int Items>
__device__ __forceinline__ typename Storage::vector_t vector_at(const AccT (&items)[Items], int q) {
  typename Storage::vector_t v;
#pragma unroll
  for (int c = 0; c < Storage::vector_items; ++c) v.v[c] = items[q * Storage::vector_items + c];
  return v;
}
template <class Storage, class AccT, int Items>
__device__ __forceinline__ void set_vector_at(AccT (&items)[Items], int q, const typename Storage::vector_t v) {
#pragma unroll
  for (int c = 0; c < Storage::vector_items; ++c) items[q * Storage::vector_items + c] = v.v[c];
}

// Whether fill_exchange moves a tile of `in` as 16-byte vectors (and so
// where read_blocked must find the items): whole tiles between aligned arrays.
template <bool Full, class Storage, class AccT, class InIt>
__device__ __forceinline__ bool exchange_vectors(InIt in) {
  if constexpr (Full && vector_io_v<Storage, AccT, InIt>) return aligned16(in);
  else return false;
}

// The warp_transpose path's two halves. fill_exchange moves the warp's
// segment of a tile from memory into the warp's exchange slots, coalesced
// (16-byte vectors, swizzled, where whole tiles lie between aligned arrays of
// AccT; it returns whether it used them); read_blocked then gives each thread
// its `Items` consecutive items. Loading converts to AccT; items past the end
// of a partial tile are `filler` (an input).
//
// fill_exchange is load_exchange, which issues the warp's loads into
// registers (x: what the lane's slots will hold), then store_exchange, which
// puts them in the slots: a kernel with other waits (a segment search) can
// make them between the two, with its loads in flight.
template <bool Full, int Items, class Storage, class AccT, class InIt>
__device__ __forceinline__ bool load_exchange(InIt in, offset_t warp_first, int warp_valid, const AccT& filler,
                                              AccT (&x)[Items]) {
  const int lane = lane_id();
  if constexpr (Full && vector_io_v<Storage, AccT, InIt>) {
    if (exchange_vectors<Full, Storage, AccT>(in)) {
      using vector_t = typename Storage::vector_t;
      const vector_t* from = reinterpret_cast<const vector_t*>(in + warp_first) + lane;
#pragma unroll
      for (int j = 0; j < Storage::vectors_per_thread; ++j) set_vector_at<Storage>(x, j, from[j * kWarpThreads]);
      return true;
    }
  }
  const InIt from = in + (warp_first + lane);
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    x[k] = Full || k * kWarpThreads + lane < warp_valid ? static_cast<AccT>(from[k * kWarpThreads]) : filler;
  }
  return false;
}

template <int Items, class Storage, class AccT>
__device__ __forceinline__ void store_exchange(bool vectors, const AccT (&x)[Items], Storage& storage) {
  const int lane = lane_id();
  AccT* ex = &storage.exchange[warp_id() * Storage::warp_slots];
  if constexpr (Storage::vectorizable) {
    if (vectors) {
      using vector_t = typename Storage::vector_t;
      vector_t* slots = Storage::vector_slots(ex);
#pragma unroll
      for (int j = 0; j < Storage::vectors_per_thread; ++j) {
        slots[Storage::swizzled(j * kWarpThreads + lane)] = vector_at<Storage>(x, j);
      }
      __syncwarp();
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) ex[Storage::padded(k * kWarpThreads + lane)] = x[k];
  __syncwarp();
}

template <bool Full, int Items, class Storage, class AccT, class InIt>
__device__ __forceinline__ bool fill_exchange(InIt in, offset_t warp_first, int warp_valid, const AccT& filler,
                                              Storage& storage) {
  AccT x[Items];
  const bool vectors = load_exchange<Full, Items, Storage>(in, warp_first, warp_valid, filler, x);
  store_exchange(vectors, x, storage);
  return vectors;
}

// fill_exchange's vector path by asynchronous copies (sm_80's cp.async),
// where it applies (a whole tile between aligned arrays of AccT; returns
// whether it did): each lane's 16-byte vectors go from memory straight to
// its slots, so a kernel that waits on something else first (a segment
// search) keeps its tile in flight through that wait without registers
// holding it (and so without giving up blocks per SM for them).
// finish_exchange_copies waits for the lane's copies and shows the warp's
// slots to all its lanes. Before sm_80 the copies are plain loads and
// stores, done when started.
template <bool Full, class AccT, class Storage, class InIt>
__device__ __forceinline__ bool start_exchange_copies_if(InIt in, offset_t warp_first, Storage& storage) {
  if constexpr (Full && vector_io_v<Storage, AccT, InIt>) {
    if (exchange_vectors<Full, Storage, AccT>(in)) {
      using vector_t = typename Storage::vector_t;
      const int lane = lane_id();
      const vector_t* from = reinterpret_cast<const vector_t*>(in + warp_first) + lane;
      vector_t* slots = Storage::vector_slots(&storage.exchange[warp_id() * Storage::warp_slots]);
#pragma unroll
      for (int j = 0; j < Storage::vectors_per_thread; ++j) {
        copy_16_async(&slots[Storage::swizzled(j * kWarpThreads + lane)], from + j * kWarpThreads);
      }
      return true;
    }
  }
  return false;
}
__device__ __forceinline__ void finish_exchange_copies() {
  wait_copies_async();
  __syncwarp();
}

template <int Items, class Storage, class AccT>
__device__ __forceinline__ void read_blocked(bool vectors, Storage& storage, AccT (&items)[Items]) {
  const int lane = lane_id();
  AccT* ex = &storage.exchange[warp_id() * Storage::warp_slots];
  if constexpr (Storage::vectorizable) {
    if (vectors) {
      const typename Storage::vector_t* slots = Storage::vector_slots(ex);
#pragma unroll
      for (int q = 0; q < Storage::vectors_per_thread; ++q) {
        set_vector_at<Storage>(items, q, slots[Storage::swizzled(lane * Storage::vectors_per_thread + q)]);
      }
      return;
    }
  }
  const AccT* mine = Storage::blocked(ex, lane);
#pragma unroll
  for (int k = 0; k < Items; ++k) items[k] = mine[Storage::blocked_offset(lane, k)];
}

// Moves a warp's segment of a tile from the threads' blocked registers to
// memory, converting to the output's type: `count` is this thread's number
// of valid items, `warp_valid` the warp's; `Full` (a whole tile) drops the
// bound checks, so that the stores use constant offsets from one address.

template <bool Full, int Items, tile_io Io, class Storage, class AccT, class OutIt>
__device__ __forceinline__ void store_tile(OutIt out, offset_t first, offset_t warp_first, int count, int warp_valid,
                                           Storage& storage, const AccT (&items)[Items]) {
  if constexpr (Io == tile_io::direct) {
    store_blocked(out, first, Full ? Items : count, Full && aligned16(out), items);
  } else {
    const int lane = lane_id();
    AccT* ex = &storage.exchange[warp_id() * Storage::warp_slots];
    if constexpr (Full && vector_io_v<Storage, AccT, OutIt>) {
      if (aligned16(out)) {
        using vector_t = typename Storage::vector_t;
        vector_t* slots = Storage::vector_slots(ex);
#pragma unroll
        for (int q = 0; q < Storage::vectors_per_thread; ++q) {
          slots[Storage::swizzled(lane * Storage::vectors_per_thread + q)] = vector_at<Storage>(items, q);
        }
        __syncwarp();
        vector_t* to = reinterpret_cast<vector_t*>(out + warp_first) + lane;
#pragma unroll
        for (int j = 0; j < Storage::vectors_per_thread; ++j) {
          to[j * kWarpThreads] = slots[Storage::swizzled(j * kWarpThreads + lane)];
        }
        __syncwarp();
        return;
      }
    }
    AccT* mine = Storage::blocked(ex, lane);
#pragma unroll
    for (int k = 0; k < Items; ++k) mine[Storage::blocked_offset(lane, k)] = items[k];
    __syncwarp();
    const OutIt to = out + (warp_first + lane);
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (Full || k * kWarpThreads + lane < warp_valid) to[k * kWarpThreads] = ex[Storage::padded(k * kWarpThreads + lane)];
    }
    __syncwarp();
  }
}

// The aggregate of the full tile at `base`, computed by one warp with the
// combination tree scan_tile uses (each thread's items left to right, the
// warp scan's last lane, the warps' totals in order), so its bits equal the
// aggregate the tile's own block computes. Every lane returns it.
template <int BlockThreads, int Items, class AccT, class InIt, class Op>
__device__ AccT warp_tile_aggregate(InIt in, offset_t base, Op op) {
  maybe<AccT> aggregate{};
  aggregate.has = false;
  for (int warp = 0; warp < BlockThreads / kWarpThreads; ++warp) {
    const offset_t first = base + (offset_t(warp) * kWarpThreads + lane_id()) * Items;
    AccT total = static_cast<AccT>(in[first]);
    for (int k = 1; k < Items; ++k) total = op(total, static_cast<AccT>(in[first + k]));
    const AccT warp_total = shuffle_idx(warp_inclusive_scan(total, op), kWarpThreads - 1);
    aggregate = then(aggregate, warp_total, op);
  }
  return aggregate.value;
}

// Each thread's items become their running combination, left to right; the
// last one, the thread's total, is returned.
template <int Items, class AccT, class Op>
__device__ __forceinline__ AccT scan_items(AccT (&items)[Items], Op op) {
  AccT total = items[0];
#pragma unroll
  for (int k = 1; k < Items; ++k) items[k] = total = op(total, items[k]);
  return total;
}

// Everything before this thread's items: the tile's prefix (init included),
// then the threads before it in the block.
template <class AccT, class Op>
__device__ __forceinline__ maybe<AccT> thread_prefix(const maybe<AccT>& tile_prefix,
                                                     const block_scan_result<AccT>& block, Op op) {
  return threadIdx.x > 0 ? then(tile_prefix, block.exclusive, op) : tile_prefix;
}

// A thread's scanned items (scan_items) become its outputs, given the prefix
// of everything before them (an exclusive scan always has one: init).
template <int Items, class AccT, class Op>
__device__ __forceinline__ void apply_prefix(AccT (&items)[Items], const maybe<AccT>& running,
                                             const scan_mode<AccT>& mode, Op op) {
  if (mode.exclusive) {
#pragma unroll
    for (int k = Items - 1; k > 0; --k) items[k] = op(running.value, items[k - 1]);
    items[0] = running.value;
  } else if (running.has) {
#pragma unroll
    for (int k = 0; k < Items; ++k) items[k] = op(running.value, items[k]);
  }
}

// Scans the tile [base, base + valid) with one barrier (the block scan's) and
// the prefix functor's: a tile's latency is what limits a single-pass scan.
template <bool Full, int BlockThreads, int Items, tile_io Io, class AccT, class InIt, class OutIt, class Op,
          class PrefixFn>
__device__ __forceinline__ AccT scan_tile_shaped(InIt in, OutIt out, offset_t base, int valid,
                                                 const scan_mode<AccT>& mode, Op op,
                                                 tile_scan_storage<BlockThreads, Items, AccT, Io>& storage,
                                                 PrefixFn tile_prefix) {
  const int tid = threadIdx.x;
  const int count = Full ? Items : clamp_to(valid - tid * Items, 0, Items);
  const offset_t first = base + offset_t(tid) * Items;
  constexpr int warp_items = kWarpThreads * Items;
  const offset_t warp_first = base + offset_t(warp_id()) * warp_items;
  const int warp_valid = Full ? warp_items : clamp_to(valid - warp_id() * warp_items, 0, warp_items);
  AccT items[Items];
  const AccT filler = Full ? AccT{} : static_cast<AccT>(in[base]);
  block_scan_result<AccT> block;
  if constexpr (Io == tile_io::warp_transpose) {
    // The tile waits for its prefix in the warps' exchange slots, not in
    // registers: each thread folds its items, then reads and scans them again
    // once the prefix is known (the same operations, so the same bits). The
    // look-back, which needs many registers, then shares them with nothing:
    // the keyed scans' kernels stopped spilling at 4 blocks per SM (H100,
    // float over a transform iterator at 2^26: 228 -> 219 us).
    const bool vectors = fill_exchange<Full, Items>(in, warp_first, warp_valid, filler, storage);
    read_blocked(vectors, storage, items);
    block = block_scan(scan_items(items, op), op, BlockThreads, storage.scan);
    const maybe<AccT> running = thread_prefix(tile_prefix(block.aggregate, storage), block, op);
    read_blocked(vectors, storage, items);
    __syncwarp();  // every lane has its items before store_tile reuses the slots
    scan_items(items, op);
    apply_prefix(items, running, mode, op);
  } else {
    load_blocked(in, first, Full ? Items : count, Full && aligned16(in), items);
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (!Full && k >= count) items[k] = filler;
    }
    block = block_scan(scan_items(items, op), op, BlockThreads, storage.scan);
    apply_prefix(items, thread_prefix(tile_prefix(block.aggregate, storage), block, op), mode, op);
  }
  store_tile<Full, Items, Io>(out, first, warp_first, count, warp_valid, storage, items);
  __syncthreads();  // the storage is free for the next tile
  return block.aggregate;
}

// A block's storage for scanning tiles kept in shared memory (shared_tile.cuh).
template <int BlockThreads, int Items, class AccT>
struct shared_tile_scan_storage {
  block_scan_storage<BlockThreads / 32, AccT> scan;
  uninitialized_array<maybe<AccT>, 1> prefix;
  shared_tile<BlockThreads, Items, AccT> tile;
};

// Scans the tile that storage.tile is loading (start_load, load_rest) into
// `out`, its first output (16-byte aligned), writing `valid` outputs (a
// partial tile's aggregate is not the tile's; see scan_tile). Each thread
// folds its items, the block scans the thread totals and asks for the tile's
// prefix; then each thread reads its items again, scans them with its prefix
// and writes them back, and each warp copies its segment out. Nothing of the
// tile lives in registers across the prefix wait. The same combination tree
// as scan_tile.
template <int BlockThreads, int Items, class AccT, class OutT, class Op, class PrefixFn>
__device__ __forceinline__ AccT scan_shared_tile(OutT* out, int valid, const scan_mode<AccT>& mode, Op op,
                                                 shared_tile_scan_storage<BlockThreads, Items, AccT>& storage,
                                                 PrefixFn tile_prefix) {
  static_assert(std::is_same_v<OutT, AccT>, "bulk copies move the accumulator's bytes unchanged");
  storage.tile.wait_loaded();
  AccT items[Items];
  storage.tile.read(items);
  const block_scan_result<AccT> block = block_scan(scan_items(items, op), op, BlockThreads, storage.scan);
  const maybe<AccT> running = thread_prefix(tile_prefix(block.aggregate, storage), block, op);
  storage.tile.read(items);
  scan_items(items, op);
  apply_prefix(items, running, mode, op);
  storage.tile.write(items);
  storage.tile.store_warp_segment(out, valid);
  return block.aggregate;
}

// The same for any tile: whole tiles (all but the last) take the unchecked
// path. A partial tile is scanned whole, its missing items standing in as
// copies of an input: outputs past the end are never stored, and outputs
// before it do not depend on later items. Its aggregate is then not the
// tile's, which is why only the last tile may be partial and why callers
// never use the last tile's aggregate.
template <int BlockThreads, int Items, tile_io Io, class AccT, class InIt, class OutIt, class Op, class PrefixFn>
__device__ __forceinline__ AccT scan_tile(InIt in, OutIt out, offset_t base, int valid, const scan_mode<AccT>& mode,
                                          Op op, tile_scan_storage<BlockThreads, Items, AccT, Io>& storage,
                                          PrefixFn tile_prefix) {
  if (valid == BlockThreads * Items) {
    return scan_tile_shaped<true>(in, out, base, valid, mode, op, storage, tile_prefix);
  }
  return scan_tile_shaped<false>(in, out, base, valid, mode, op, storage, tile_prefix);
}

}  // namespace cascade::detail
