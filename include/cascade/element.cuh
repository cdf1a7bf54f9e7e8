#pragma once
// cascade::min_element, max_element and minmax_element, like their std::
// namesakes (std signatures after the policy).
//
//   It           min_element(policy, first, last [, comp]);      // the first smallest
//   It           max_element(policy, first, last [, comp]);      // the first largest
//   pair<It, It> minmax_element(policy, first, last [, comp]);   // the first smallest, the LAST largest
//
// comp defaults to cuda::std::less<>. Ties and NaN come out as the standard
// library gives them with the same comparator (minmax_element: libstdc++'s
// pairwise loop). An empty range gives last ({last, last}). On a GPU policy
// the call waits for its stream and returns iterators into the range.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/detail/dispatch/element.cuh>

#include <cuda/std/functional>

#include <utility>

namespace cascade {

template <class Policy, class It, class Comp>
It min_element(const Policy& policy, It first, It last, Comp comp) {
  static_assert(is_execution_policy_v<Policy>, "cascade::min_element: the first argument must be a cascade policy");
  return detail::select_element<false>(policy, first, last, detail::device_operator(comp), "cascade::min_element");
}
template <class Policy, class It>
It min_element(const Policy& policy, It first, It last) {
  return cascade::min_element(policy, first, last, ::cuda::std::less<>{});
}

template <class Policy, class It, class Comp>
It max_element(const Policy& policy, It first, It last, Comp comp) {
  static_assert(is_execution_policy_v<Policy>, "cascade::max_element: the first argument must be a cascade policy");
  return detail::select_element<true>(policy, first, last, detail::device_operator(comp), "cascade::max_element");
}
template <class Policy, class It>
It max_element(const Policy& policy, It first, It last) {
  return cascade::max_element(policy, first, last, ::cuda::std::less<>{});
}

template <class Policy, class It, class Comp>
std::pair<It, It> minmax_element(const Policy& policy, It first, It last, Comp comp) {
  static_assert(is_execution_policy_v<Policy>, "cascade::minmax_element: the first argument must be a cascade policy");
  return detail::minmax_element(policy, first, last, detail::device_operator(comp));
}
template <class Policy, class It>
std::pair<It, It> minmax_element(const Policy& policy, It first, It last) {
  return cascade::minmax_element(policy, first, last, ::cuda::std::less<>{});
}

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
