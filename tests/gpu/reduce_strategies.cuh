#pragma once
// What the tests of the seeds' reduce strategies share: their tile edges,
// the operators the matrix adds (a non-commutative one with an identity, a
// struct operator declared commutative), the matrix itself (strategies x
// (type, operator) pairs), and readable test names, e.g.
// Strategies/ReduceSuite/sequential_addressing_int32_plus, for filters.

#include "suites.cuh"

#include <cascade/detail/reduce/strategies.cuh>

#include <string>
#include <tuple>

// ----------------------------------------------------------- operators ------
namespace cascade_test {
// Component-wise plus on the 12-byte struct, with its identity declared but
// not its commutativity: the matrix passes it as cascade::commutative(op).
struct triple_sum : triple_plus {};
using commutative_triple_sum = cascade::commutative_t<triple_sum>;
}  // namespace cascade_test

template <>
struct cascade::identity_element<cascade_test::triple_sum, cascade_test::triple> {
  __host__ __device__ static constexpr cascade_test::triple value() { return {0, 0, 0}; }
};

namespace cascade_test {

namespace s = cascade::strategy;

template <class S>
using strategy_algorithm = cascade::detail::reduce_algorithm<S>;

// The strategy's name without "cascade::strategy::".
template <class S>
std::string strategy_name() {
  return std::string(strategy_algorithm<S>::name).substr(sizeof("cascade::strategy::") - 1);
}

// The items one block reduces in the first level at the default block size:
// a tile; for the grid-stride kernel, one round of its loop.
template <class S>
struct strategy_tile {
  static std::int64_t reduce() {
    return std::int64_t(cascade::detail::reduce_block_threads<S>) * strategy_algorithm<S>::items_per_thread;
  }
};
template <class T>
struct tile_of<s::interleaved_divergent_t, T> : strategy_tile<s::interleaved_divergent_t> {};
template <class T>
struct tile_of<s::interleaved_strided_t, T> : strategy_tile<s::interleaved_strided_t> {};
template <class T>
struct tile_of<s::sequential_addressing_t, T> : strategy_tile<s::sequential_addressing_t> {};
template <class T>
struct tile_of<s::first_add_during_load_t, T> : strategy_tile<s::first_add_during_load_t> {};
template <class T>
struct tile_of<s::unroll_last_warp_t, T> : strategy_tile<s::unroll_last_warp_t> {};
template <class T>
struct tile_of<s::complete_unroll_t, T> : strategy_tile<s::complete_unroll_t> {};
template <class T>
struct tile_of<s::multiple_elements_per_thread_t, T> : strategy_tile<s::multiple_elements_per_thread_t> {};
template <class T>
struct tile_of<s::warp_shuffle_t, T> : strategy_tile<s::warp_shuffle_t> {};
template <class T>
struct tile_of<s::radix4_pyramid_t, T> : strategy_tile<s::radix4_pyramid_t> {};

// The strategies that keep the order of the operands, and those that need a
// commutative operator.
using order_preserving = std::tuple<s::interleaved_divergent_t, s::interleaved_strided_t, s::warp_shuffle_t>;
using commutative_only =
    std::tuple<s::sequential_addressing_t, s::first_add_during_load_t, s::unroll_last_warp_t, s::complete_unroll_t,
               s::multiple_elements_per_thread_t, s::radix4_pyramid_t>;
using all_strategies = decltype(std::tuple_cat(order_preserving{}, commutative_only{}));

// Calls f(S{}) for every strategy S of the tuple.
template <class Strategies, class F>
void for_each_strategy(F f) {
  std::apply([&](auto... strategy) { (f(strategy), ...); }, Strategies{});
}

// ::testing::Types of every strategy of `Strategies` with every (type,
// operator) pair, given as combo<T, Op>: strategy-major.
template <class S, class... Pairs>
using strategy_row = std::tuple<combo<typename Pairs::value_type, typename Pairs::op_type, S>...>;
template <class Strategies, class... Pairs>
struct cross;
template <class... S, class... Pairs>
struct cross<std::tuple<S...>, Pairs...> {
  template <class Tuple>
  struct as_types;
  template <class... C>
  struct as_types<std::tuple<C...>> {
    using type = ::testing::Types<C...>;
  };
  using type = typename as_types<decltype(std::tuple_cat(strategy_row<S, Pairs...>{}...))>::type;
};
template <class Strategies, class... Pairs>
using cross_t = typename cross<Strategies, Pairs...>::type;

// Test names: <strategy>_<type>_<operator>.
template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, affine>) return "affine";
  else if constexpr (std::is_same_v<T, triple>) return "triple";
  else return "other";
}
template <class Op>
std::string op_name() {
  if constexpr (std::is_same_v<Op, plus>) return "plus";
  else if constexpr (std::is_same_v<Op, minimum>) return "minimum";
  else if constexpr (std::is_same_v<Op, maximum>) return "maximum";
  else if constexpr (std::is_same_v<Op, bit_xor>) return "bit_xor";
  else if constexpr (std::is_same_v<Op, compose_with_identity>) return "compose";
  else if constexpr (std::is_same_v<Op, commutative_triple_sum>) return "commutative_sum";
  else return "op";
}
struct combo_name {
  template <class C>
  static std::string GetName(int) {
    return strategy_name<typename C::strategy>() + "_" + type_name<typename C::value_type>() + "_" +
           op_name<typename C::op_type>();
  }
};

}  // namespace cascade_test
