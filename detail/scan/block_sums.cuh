#pragma once
// The multi-block scan that hillis_steele, blelloch and blelloch_conflict_free
// share (seed 003; GPU Gems 3 ch. 39.2.4): every block scans one tile and
// writes the tile's total; the totals are scanned, recursively, by the same
// strategy; then every tile but the first gets the scanned total of the tiles
// before it combined on its left (the uniform add). A strategy brings only its
// tile kernel, through a launcher:
//
//   struct launcher {
//     const char* name;        // the strategy, for errors
//     unsigned block_threads;
//     offset_t tile_items;     // items a block scans
//     template <class InIt, class OutIt>
//     void launch(InIt, OutIt, offset_t n, tile_job<AccT>, Op, offset_t tiles, cudaStream_t) const;
//   };
//
// The tile kernel's block b scans items [b*tile_items, (b+1)*tile_items) of
// [0, n) into the same places of `out`, inclusive or exclusive (the job
// says), with job.seed (init, if any) on the left of block 0's items. The
// first item of an exclusive scan is the seed in block 0 and the uniform
// add's business elsewhere (the kernel may write anything there). Where
// job.sums is set, block b writes its total (block 0: seed included) to
// job.sums[b].
//
// Level 0 scans straight into the output where it holds AccT values, else
// into a temporary copy that the uniform add converts once: an output of a
// narrower type must not round the partial results. Every level's totals sit
// in one temporary allocation; there is no host synchronisation.

#include <cascade/detail/primitives/tile_scan.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/device.cuh>
#include <cascade/detail/util/math.cuh>
#include <cascade/detail/util/temporary.cuh>

#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cascade::detail::block_sums {

template <class AccT>
struct tile_job {
  maybe<AccT> seed;  // init: on the left of block 0's items
  bool exclusive;
  AccT* sums;        // where block b writes its tile's total; nullptr: nowhere
};

// The uniform add over tiles [first, first + gridDim.x): tile t > 0 gets the
// combined totals of tiles [0, t) (scanned_sums[t - 1]) on its left, and in an
// exclusive scan its first item is that carry itself. Tile 0 (only with a
// staged output) is copied.
template <class AccT, class OutIt, class Op>
__global__ void __launch_bounds__(1024)
    add_carries(const AccT* partial, OutIt out, offset_t n, offset_t tile_items, offset_t first,
                const AccT* scanned_sums, bool exclusive, Op op) {
  const offset_t tile = first + blockIdx.x;
  const offset_t begin = tile * tile_items;
  const offset_t end = min_of(begin + tile_items, n);
  const AccT carry = scanned_sums[max_of<offset_t>(tile, 1) - 1];
  for (offset_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    if (tile == 0) out[i] = partial[i];
    else if (exclusive && i == begin) out[i] = carry;
    else out[i] = static_cast<AccT>(op(carry, partial[i]));
  }
}

// Launches a tile kernel with `smem` bytes of dynamic shared memory, opting
// in beyond the default 48 KB where a large value type needs it.
template <class Kernel, class... Args>
void launch_tiles(Kernel kernel, offset_t tiles, unsigned threads, std::size_t smem, cudaStream_t stream,
                  const char* strategy, Args... args) {
  allow_dynamic_shared(kernel, smem);
  kernel<<<static_cast<unsigned>(tiles), threads, smem, stream>>>(args...);
  check_launch(strategy);
}

// How many tile totals all levels of a scan of n items hold together.
inline offset_t sums_needed(offset_t n, offset_t tile_items) {
  offset_t total = 0;
  for (offset_t tiles = ceil_div(n, tile_items); tiles > 1; tiles = ceil_div(tiles, tile_items)) total += tiles;
  return total;
}

// One level: scan the tiles of [in, in + n) into `partial`, their totals into
// `sums`; scan the totals in place (one tile, or another level whose totals
// follow in `sums`); add them back, writing `out`. `staged`: partial is a
// copy, so tile 0 is copied to out too.
template <class Launcher, class InIt, class AccT, class OutIt, class Op>
void scan_level(const Launcher& tiles, InIt in, offset_t n, AccT* partial, bool staged, OutIt out,
                maybe<AccT> seed, bool exclusive, AccT* sums, Op op, cudaStream_t stream) {
  const offset_t count = ceil_div(n, tiles.tile_items);
  tiles.launch(in, partial, n, tile_job<AccT>{seed, exclusive, sums}, op, count, stream);

  const maybe<AccT> none{};
  if (count <= tiles.tile_items) {
    tiles.launch(sums, sums, count, tile_job<AccT>{none, false, nullptr}, op, 1, stream);
  } else {
    scan_level(tiles, sums, count, sums, false, sums, none, false, sums + count, op, stream);
  }

  const offset_t first = staged ? 0 : 1;
  add_carries<<<static_cast<unsigned>(count - first), tiles.block_threads, 0, stream>>>(
      partial, out, n, tiles.tile_items, first, sums, exclusive, op);
  check_launch("cascade block-sums scan: uniform add kernel");
}

template <class Launcher, class InIt, class OutIt, class AccT, class Op>
void scan(const Launcher& tiles, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode, Op op, cudaStream_t stream) {
  const maybe<AccT> seed{mode.init, mode.has_init};
  const offset_t count = ceil_div(n, tiles.tile_items);
  if (count == 1) {
    tiles.launch(in, out, n, tile_job<AccT>{seed, mode.exclusive, nullptr}, op, 1, stream);
    return;
  }
  if (count > INT_MAX) {
    throw std::invalid_argument(std::string(tiles.name) + ": " + std::to_string(n) +
                                " items make more tiles than one grid holds; use a larger block_size");
  }
  constexpr bool direct = std::is_same_v<OutIt, AccT*>;
  temporary_layout layout;
  const std::size_t sums_at = layout.add<AccT>(sums_needed(n, tiles.tile_items));
  const std::size_t staging_at = layout.add<AccT>(direct ? 0 : n);
  temporary_buffer temp(layout.bytes(), stream);
  AccT* partial = nullptr;
  if constexpr (direct) partial = out;
  else partial = temp.at<AccT>(staging_at);
  scan_level(tiles, in, n, partial, !direct, out, seed, mode.exclusive, temp.at<AccT>(sums_at), op, stream);
}

}  // namespace cascade::detail::block_sums
