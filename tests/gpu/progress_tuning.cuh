#pragma once
// Look-back scan tunings for the progress tests: small tiles (64 threads),
// far more of them than can be resident, no wait before the first poll and a
// short one between polls, Polls polls of a silent predecessor before its
// tile is recomputed, and (Reversed) block b scanning the last tile but b,
// so that successors start first. Shared: the tile in shared memory.

#include <cascade/detail/tuning/scan.cuh>

namespace cascade_test {

template <class AccT, bool Reversed, int Polls, int Items, bool Shared>
struct small_tile_tuning : cascade::detail::lookback_scan_tuning<AccT> {
  static constexpr int block_threads = 64;
  static constexpr int items_per_thread = Items;
  static constexpr unsigned first_poll_delay_ns = 0;
  static constexpr unsigned spin_nanoseconds = 100;
  static constexpr int polls_before_fallback = Polls;
  static constexpr bool reversed_tiles = Reversed;
  static constexpr bool shared_tiles = Shared;
  // The automatic scan's rule of integers (exact_prefix) groups at every grid
  // on the portable path, so that its branch there meets these schedules.
  static constexpr long long portable_group_rule_items = 1;
};
// Two items per thread, in registers.
template <class AccT, bool Reversed, int Polls>
using small_tiles = small_tile_tuning<AccT, Reversed, Polls, 2, false>;
// Two 16-byte vectors of 4-byte values per thread, in shared memory.
template <class AccT, bool Reversed, int Polls>
using small_shared_tiles = small_tile_tuning<AccT, Reversed, Polls, 8, true>;

}  // namespace cascade_test
