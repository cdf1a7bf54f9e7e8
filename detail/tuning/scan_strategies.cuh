#pragma once
// Tuning of the named scan strategies, as plain data, and the check of a
// tag's .block_size(n), which overrides the default block size at run time.

#include <cascade/execution.cuh>

#include <stdexcept>
#include <string>

namespace cascade::detail {

// Default block size per strategy: the fastest of 64..1024 threads on the
// H100 for an int32 inclusive sum of 2^24 and 2^28 items
// (cascade.<strategy>.b<threads> under --tuning; the table is in docs/scan.md).
template <class Strategy>
inline constexpr unsigned scan_block_threads = 0;  // every strategy has its own, below
// One item per thread: 8 steps of the O(n log n) tree per tile of 256.
template <>
inline constexpr unsigned scan_block_threads<strategy::hillis_steele_t> = 256;
// Two items per thread: tiles of 256 (GPU Gems 3 ch. 39 used 512; 128
// threads measured 3320 us against 3438 us for 256 at 2^28).
template <>
inline constexpr unsigned scan_block_threads<strategy::blelloch_t> = 128;
template <>
inline constexpr unsigned scan_block_threads<strategy::blelloch_conflict_free_t> = 128;
// Phases 1 and 3; a span of the input per warp (1024: 1262 us against 1329 us
// for 256 at 2^28).
template <>
inline constexpr unsigned scan_block_threads<strategy::reduce_then_scan_t> = 1024;

template <class AccT>
struct reduce_then_scan_tuning {
  // Rows of 32 items a warp loads before combining them: 32 bytes per lane
  // in flight (8 rows of 4-byte values), from 1 to 16 rows.
  static constexpr int rows_in_flight =
      sizeof(AccT) >= 32 ? 1 : (32 / sizeof(AccT) > 16 ? 16 : int(32 / sizeof(AccT)));
  // The middle phase, and whole inputs of up to single_block_items (one
  // launch instead of three), run on one block of this many threads.
  static constexpr unsigned single_block_threads = 1024;
  static constexpr long long single_block_items = 1 << 14;
};

// The block size a strategy runs with: the tag's .block_size(n), else its
// default. A tree over the tile (Blelloch) needs a power of two; the others
// any whole number of warps.
template <class Strategy>
unsigned scan_block_threads_for(Strategy tag, const char* name, bool power_of_two) {
  const unsigned requested = tag.block_threads;
  if (requested == 0) return scan_block_threads<Strategy>;
  const bool whole_warps = requested >= 32 && requested <= 1024 && requested % 32 == 0;
  if (!whole_warps || (power_of_two && (requested & (requested - 1)) != 0)) {
    throw std::invalid_argument(std::string("cascade::strategy::") + name + ": block size " +
                                std::to_string(requested) + " is not " +
                                (power_of_two ? "a power of two" : "a multiple of 32") + " from 32 to 1024");
  }
  return requested;
}

}  // namespace cascade::detail
