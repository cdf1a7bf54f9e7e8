#pragma once
// Blelloch's scan with shared-memory slots padded against bank conflicts
// (GPU Gems 3 ch. 39.2.3, CONFLICT_FREE_OFFSET). The tree's accesses stride
// by powers of two, so with dense slots the threads of a warp pile onto a
// few banks (up to 32-way at the deep levels). A bank's width of empty
// slots after every `row` items, and again after every row * row, spreads
// them over all banks: i -> i + pad * (i / row + i / row^2).
//
// A bank row is 32 banks x 4 bytes = 128 bytes, and a warp's access of
// values wider than 4 bytes is served in 128-byte phases, so `row` is the
// number of values in 128 bytes (32 ints, 16 doubles) and `pad` is one value,
// or the values in one 4-byte bank where they are narrower (4 int8s: threads
// that share a bank word do not conflict). That leaves no conflict in either
// sweep for values of 1 to 8 bytes (a few for 16-byte values in tiles of 2048).
// Values of more than 16 bytes are left dense: each access takes several
// phases whatever the layout. (The chapter's printed macro,
// n >> NUM_BANKS + n >> (2 * LOG_NUM_BANKS), means
// (n >> LOG_NUM_BANKS) + (n >> (2 * LOG_NUM_BANKS)), and assumed 16 banks.)

#include <cascade/detail/scan/blelloch.cuh>

namespace cascade::detail::blelloch {

template <class AccT>
struct padded_slots {
  static constexpr int row_bytes = 128;
  static constexpr bool padded = sizeof(AccT) <= 16 && row_bytes % sizeof(AccT) == 0;
  static constexpr int pad = sizeof(AccT) < 4 ? int(4 / sizeof(AccT)) : 1;
  static constexpr int log2_row = [] {
    int log = 0;
    while ((std::size_t(2) << log) * sizeof(AccT) <= row_bytes) ++log;
    return log;
  }();

  __host__ __device__ static constexpr int slot(int i) {
    return padded ? i + pad * ((i >> log2_row) + (i >> (2 * log2_row))) : i;
  }
};

}  // namespace cascade::detail::blelloch

namespace cascade::detail {

template <>
struct scan_algorithm<strategy::blelloch_conflict_free_t> {
  template <class InIt, class OutIt, class AccT, class Op>
  static void run(strategy::blelloch_conflict_free_t tag, InIt in, offset_t n, OutIt out, scan_mode<AccT> mode,
                  Op op, cudaStream_t stream) {
    blelloch::run<blelloch::padded_slots<AccT>>("cascade::strategy::blelloch_conflict_free",
                                                scan_block_threads_for(tag, "blelloch_conflict_free", true), in, n,
                                                out, mode, op, stream);
  }
};

}  // namespace cascade::detail
