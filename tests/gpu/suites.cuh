#pragma once
// What the typed test patterns share: the tile edges per strategy, operator
// names, and the automatic strategy's (type, operator) matrix.

#include "harness.cuh"

#include <cascade/detail/reduce/single_pass.cuh>
#include <cascade/detail/scan/decoupled_lookback.cuh>

namespace cascade_test {

// The tile edges worth probing for a strategy and type.
template <class Strategy, class T>
struct tile_of;
template <class T>
struct tile_of<cascade::strategy::automatic_t, T> {
  // The largest input of the single-block kernel (above: the chunk kernel).
  static std::int64_t reduce() {
    using namespace cascade::detail;
    return single_pass::shape<single_pass_reduce_small_tuning<T>>::block_step;
  }
  // The tile of the shape small inputs take (the boundary sizes are small).
  static std::int64_t scan() {
    using namespace cascade::detail;
    using small = lookback_scan_small_tuning<T>;
    using tuning = std::conditional_t<(small::max_items > 0), small, lookback_scan_tuning<T>>;
    return std::int64_t(tuning::block_threads) * tuning::items_per_thread;
  }
};
template <class T>
struct tile_of<cascade::strategy::decoupled_lookback_t, T> : tile_of<cascade::strategy::automatic_t, T> {};

using plus = cuda::std::plus<>;
using multiplies = cuda::std::multiplies<>;
using bit_xor = cuda::std::bit_xor<>;
using minimum = cuda::minimum<>;
using maximum = cuda::maximum<>;

// The five operators on one integer type, for strategy S.
template <class T, class S = cascade::strategy::automatic_t>
using integer_ops = ::testing::Types<combo<T, plus, S>, combo<T, minimum, S>, combo<T, maximum, S>,
                                     combo<T, multiplies, S>, combo<T, bit_xor, S>>;

// The automatic strategy's matrix: signed integers x five operators (CUB
// reference); unsigned integers (CUB), float and double (float64 reference),
// a 12-byte struct and non-commutative operators on 8 and 4 bytes (host fold).
using signed_combos = ::testing::Types<
    combo<std::int8_t, plus>, combo<std::int8_t, minimum>, combo<std::int8_t, maximum>, combo<std::int8_t, multiplies>,
    combo<std::int8_t, bit_xor>, combo<std::int16_t, plus>, combo<std::int16_t, minimum>, combo<std::int16_t, maximum>,
    combo<std::int16_t, multiplies>, combo<std::int16_t, bit_xor>, combo<std::int32_t, plus>, combo<std::int32_t, minimum>,
    combo<std::int32_t, maximum>, combo<std::int32_t, multiplies>, combo<std::int32_t, bit_xor>, combo<std::int64_t, plus>,
    combo<std::int64_t, minimum>, combo<std::int64_t, maximum>, combo<std::int64_t, multiplies>, combo<std::int64_t, bit_xor>>;
using other_combos = ::testing::Types<
    combo<std::uint32_t, plus>, combo<std::uint32_t, minimum>, combo<std::uint32_t, maximum>,
    combo<std::uint32_t, multiplies>, combo<std::uint32_t, bit_xor>, combo<std::uint64_t, plus>,
    combo<std::uint64_t, minimum>, combo<std::uint64_t, maximum>, combo<std::uint64_t, multiplies>,
    combo<std::uint64_t, bit_xor>, combo<float, plus>, combo<float, minimum>, combo<float, maximum>,
    combo<float, multiplies>, combo<double, plus>, combo<double, minimum>, combo<double, maximum>,
    combo<double, multiplies>, combo<affine, compose>, combo<affine16, compose16>, combo<triple, triple_plus>>;
}  // namespace cascade_test
