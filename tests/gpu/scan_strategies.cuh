#pragma once
// What the tests of the named scan strategies share: their tile edges, a
// non-commutative operator with an identity (for the Blelloch strategies,
// which pad), and the (type, operator) matrix each strategy runs. The typed
// suites are instantiated with the strategy as prefix, e.g.
// Blelloch/ScanSuite/7.MatchesReferenceAtEveryBoundary, where the number is
// the position in strategy_matrix below.

#include "suites.cuh"

#include <cascade/detail/scan/strategies.cuh>

namespace cascade_test {

namespace s = cascade::strategy;

// The tile edges: a block's items (where one launch becomes several), and
// for reduce_then_scan the largest input it scans in one block.
template <class S>
std::int64_t default_block_threads() {
  return cascade::detail::scan_block_threads<S>;
}
template <class T>
struct tile_of<s::hillis_steele_t, T> {
  static std::int64_t scan() { return default_block_threads<s::hillis_steele_t>(); }
};
template <class T>
struct tile_of<s::blelloch_t, T> {
  static std::int64_t scan() { return 2 * default_block_threads<s::blelloch_t>(); }
};
template <class T>
struct tile_of<s::blelloch_conflict_free_t, T> {
  static std::int64_t scan() { return 2 * default_block_threads<s::blelloch_conflict_free_t>(); }
};
template <class T>
struct tile_of<s::reduce_then_scan_t, T> {
  static std::int64_t scan() { return cascade::detail::reduce_then_scan_tuning<T>::single_block_items; }
};

// The non-commutative operator a strategy is tested with: the Blelloch
// strategies pad, so they get the composition with its identity; the others
// need none and get the plain one.
template <class S>
using compose_for = std::conditional_t<std::is_same_v<S, s::blelloch_t> || std::is_same_v<S, s::blelloch_conflict_free_t>,
                                       compose_with_identity, compose>;

// Per strategy: integers of 8 to 64 bits against CUB (0-4), float and double
// sums against float64 (5, 6), and affine-map composition, which does not
// commute, against a sequential host scan (7).
template <class S>
using strategy_matrix =
    ::testing::Types<combo<std::int32_t, plus, S>, combo<std::int32_t, maximum, S>, combo<std::int8_t, plus, S>,
                     combo<std::uint64_t, bit_xor, S>, combo<std::int64_t, minimum, S>, combo<float, plus, S>,
                     combo<double, plus, S>, combo<affine, compose_for<S>, S>>;

// The strategy's name as cascade::strategy spells it.
inline const char* name_of(s::hillis_steele_t) { return "hillis_steele"; }
inline const char* name_of(s::blelloch_t) { return "blelloch"; }
inline const char* name_of(s::blelloch_conflict_free_t) { return "blelloch_conflict_free"; }
inline const char* name_of(s::reduce_then_scan_t) { return "reduce_then_scan"; }

// Calls f(tag) for every named scan strategy but the look-back one (whose
// own tests are elsewhere).
template <class F>
void for_each_scan_strategy(F f) {
  f(s::hillis_steele);
  f(s::blelloch);
  f(s::blelloch_conflict_free);
  f(s::reduce_then_scan);
}

}  // namespace cascade_test
