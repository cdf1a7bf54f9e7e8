#pragma once
// A tile that stays in shared memory for the whole of its scan, moved in and
// out by bulk copies (sm_90's cp.async.bulk, the tensor memory accelerator):
// no registers hold it while its block waits for its prefix, so an SM holds
// more tiles and more bytes are in flight, and one thread's instruction
// moves what 128 threads' loads would. Before sm_90 (the portable path) the
// block's threads move the same 16-byte units themselves: the same tile in
// the same place, so the scan around it is one code path.
//
// Thread t owns the Items consecutive values from t * Items, read and written
// as 16-byte vectors. Those vectors sit at a stride of Items * sizeof(T) / 16
// between lanes; where that stride is 2 past a multiple of 4, eight lanes
// (one shared-memory wavefront of 16-byte accesses) would hit four of the
// eight 16-byte bank groups twice, so lanes of odd quarter-warps take each
// pair of vectors in the other order, which spreads the eight over all eight.

#include <cascade/detail/primitives/shuffle.cuh>
#include <cascade/detail/primitives/uninitialized.cuh>
#include <cascade/detail/util/math.cuh>

#include <cuda/ptx>
#include <nv/target>
#include <cuda/std/cstdint>

namespace cascade::detail {

template <class T, int Items>
inline constexpr bool shared_tile_fits =
    (Items * sizeof(T)) % 16 == 0 && (Items * sizeof(T) / 16) % 4 == 2 && 16 % sizeof(T) == 0;

template <int Threads, int Items, class T>
struct shared_tile {
  static_assert(shared_tile_fits<T, Items>, "shared_tile: a thread's items must be 4k + 2 whole 16-byte vectors");
  static constexpr int tile_items = Threads * Items;
  static constexpr int warp_items = kWarpThreads * Items;
  static constexpr int vector_items = int(16 / sizeof(T));
  static constexpr int pairs = Items / vector_items / 2;
  struct alignas(16) vector_t {
    T v[vector_items];
  };

  alignas(128) uninitialized_array<T, tile_items> items;
  ::cuda::std::uint64_t landed;  // mbarrier: the tile's bytes have arrived

  // The tile's first `count` values from `from` (16-byte aligned), and
  // copies of from[0] past them (a partial tile's missing items, never
  // stored; see scan_tile). On sm_90 one thread (start_load) starts a bulk
  // copy of the whole 16-byte units and arms `landed`; before, every thread
  // copies its share of them (copy_in). Every thread (load_rest) then reads
  // the few values after those, and writes the fillers. The caller makes
  // all of it visible to the block (__syncthreads) before wait_loaded.
  __device__ void start_load(const T* from, int count) {
    const unsigned bytes = bulk_bytes(count);
    ::cuda::ptx::mbarrier_init(&landed, 1);
    ::cuda::ptx::fence_mbarrier_init(::cuda::ptx::sem_release, ::cuda::ptx::scope_cluster);
    ::cuda::ptx::mbarrier_arrive_expect_tx(::cuda::ptx::sem_release, ::cuda::ptx::scope_cta, ::cuda::ptx::space_shared,
                                           &landed, bytes);
    if (bytes > 0) {
      ::cuda::ptx::cp_async_bulk(::cuda::ptx::space_cluster, ::cuda::ptx::space_global, &items[0], from, bytes,
                                 &landed);
    }
  }
  __device__ void copy_in(const T* from, int count) {
    const vector_t* source = reinterpret_cast<const vector_t*>(from);
    vector_t* target = reinterpret_cast<vector_t*>(&items[0]);
    constexpr int tile_vectors = tile_items / vector_items;
    if (count == tile_items && tile_vectors % Threads == 0) {
      // A whole tile: every load in flight before the first store.
      vector_t x[tile_vectors / Threads];
#pragma unroll
      for (int j = 0; j < tile_vectors / Threads; ++j) x[j] = source[j * Threads + threadIdx.x];
#pragma unroll
      for (int j = 0; j < tile_vectors / Threads; ++j) target[j * Threads + threadIdx.x] = x[j];
      return;
    }
    const int vectors = int(bulk_bytes(count) / 16);
    for (int v = int(threadIdx.x); v < vectors; v += Threads) target[v] = source[v];
  }
  __device__ void load_rest(const T* from, int count) {
    if (count == tile_items) return;
    for (int i = bulk_bytes(count) / int(sizeof(T)) + int(threadIdx.x); i < tile_items; i += Threads) {
      items[i] = from[i < count ? i : 0];
    }
  }
  __device__ void wait_loaded() {
    NV_IF_TARGET(NV_PROVIDES_SM_90, (while (!::cuda::ptx::mbarrier_try_wait_parity(&landed, 0)) {}))
  }

  // This thread's items, in order.
  __device__ void read(T (&x)[Items]) {
    const int swap = (lane_id() >> 2) & 1;
    const vector_t* mine = reinterpret_cast<const vector_t*>(&items[0]) + threadIdx.x * (2 * pairs);
#pragma unroll
    for (int p = 0; p < pairs; ++p) {
      const vector_t a = mine[2 * p + swap], b = mine[2 * p + 1 - swap];
#pragma unroll
      for (int c = 0; c < vector_items; ++c) {
        x[2 * p * vector_items + c] = swap ? b.v[c] : a.v[c];
        x[(2 * p + 1) * vector_items + c] = swap ? a.v[c] : b.v[c];
      }
    }
  }
  __device__ void write(const T (&x)[Items]) {
    const int swap = (lane_id() >> 2) & 1;
    vector_t* mine = reinterpret_cast<vector_t*>(&items[0]) + threadIdx.x * (2 * pairs);
#pragma unroll
    for (int p = 0; p < pairs; ++p) {
      vector_t a, b;
#pragma unroll
      for (int c = 0; c < vector_items; ++c) {
        a.v[c] = swap ? x[(2 * p + 1) * vector_items + c] : x[2 * p * vector_items + c];
        b.v[c] = swap ? x[2 * p * vector_items + c] : x[(2 * p + 1) * vector_items + c];
      }
      mine[2 * p + swap] = a;
      mine[2 * p + 1 - swap] = b;
    }
  }

  // Each warp copies its own segment's first `count` - segment start values
  // out once its lanes have written them (no block barrier): whole 16-byte
  // units by a bulk copy, which it waits for until it has read shared memory
  // (which must outlive it), or before sm_90 by its lanes, and the few
  // values after them by lanes.
  __device__ void store_warp_segment(T* to, int count) {
    const int first = warp_id() * warp_items;
    const int valid = clamp_to(count - first, 0, warp_items);
    const unsigned bytes = bulk_bytes(valid);
    const int lane = lane_id();
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (
      ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);  // this thread's writes, to the copy engine
      __syncwarp();
      if (lane == 0 && bytes > 0) {
        ::cuda::ptx::cp_async_bulk(::cuda::ptx::space_global, ::cuda::ptx::space_shared, to + first, &items[first],
                                   bytes);
        ::cuda::ptx::cp_async_bulk_commit_group();
      }
    ), (
      __syncwarp();
      const vector_t* source = reinterpret_cast<const vector_t*>(&items[first]);
      vector_t* target = reinterpret_cast<vector_t*>(to + first);
      for (int v = lane; v < int(bytes / 16); v += kWarpThreads) target[v] = source[v];
    ))
    const int rest = int(bytes / sizeof(T)) + lane;
    if (rest < valid) to[first + rest] = items[first + rest];  // fewer than 16 / sizeof(T) of them
    NV_IF_TARGET(NV_PROVIDES_SM_90, (
      if (lane == 0 && bytes > 0) ::cuda::ptx::cp_async_bulk_wait_group_read(::cuda::ptx::n32_t<0>{});
    ))
  }

 private:
  static __device__ unsigned bulk_bytes(int count) { return unsigned(count * sizeof(T)) / 16 * 16; }
};

}  // namespace cascade::detail
