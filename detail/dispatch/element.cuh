#pragma once
// Dispatch for min_element, max_element and minmax_element: order-preserving
// reduces of candidates (util/element_order.cuh) through the reduce's
// dispatch, their answer turned into positions on the device (the comparator
// may be device code), so that one stream synchronisation brings it home.

#include <cascade/execution.cuh>
#include <cascade/detail/dispatch/gpu_call.cuh>
#include <cascade/detail/dispatch/reduce.cuh>
#include <cascade/detail/util/element_order.cuh>
#include <cascade/detail/util/indexed_transform.cuh>
#include <cascade/detail/util/iterator.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace cascade::detail {

// The reduce's output: *it = x stores resolve(x) at out. Its launch bytes are
// its members' (util/launch.cuh): thrust's transform_output_iterator over a
// resolver that holds an empty comparator (one byte of padding) made every
// call's launch incomparable, so each repeated call paid a graph update.
template <class Resolve, class R>
struct resolved_output {
  R* out;
  Resolve resolve;

  struct slot {
    const resolved_output& to;
    template <class X>
    __device__ const slot& operator=(const X& x) const {
      *to.out = to.resolve(x);
      return *this;
    }
  };
  __device__ slot operator*() const { return {*this}; }

  template <class Buffer>
  void append_members(Buffer& b) const {
    b.append(out);
    b.append(resolve);
  }
};

// resolve(init op items[0] op ... op items[n-1]) on the host (n >= 1).
template <class S, class It, class T, class Op, class Resolve>
auto cuda_reduce_resolved(const cuda_policy<S>& policy, It items, offset_t n, T init, Op op, Resolve resolve,
                          const char* name) {
  require_reduce_strategy<S>();
  using R = std::decay_t<std::invoke_result_t<Resolve&, const T&>>;
  const gpu_call call(policy, name);
  require_not_capturing(policy.stream(), name, "a call outside the capture (it has no stream-ordered form)");
  return wait_for_value<R>(policy.stream(), call.at(), [&](R* out) {
    reduce_algorithm<S>::run(policy.strategy(), items, n, resolved_output<Resolve, R>{out, resolve}, init, op,
                             policy.stream());
  });
}

// The first smallest (Max: first largest) item's position; n >= 1.
template <bool Max, class Policy, class It, class Comp>
offset_t select_element_position(const Policy& policy, It first, offset_t n, Comp comp, const char* name) {
  using T = value_t<It>;
  const select_first<Comp, Max> op{comp};
  if constexpr (is_host_policy_v<Policy>) {
    const indexed_transform<to_candidate<Comp, T>, false, It> items({}, 0, first);
    candidate<T> none{};
    none.index = candidate<T>::none;
    return position_of<Comp, It>{first}(host_reduce(policy, items, items + n, none, op));
  } else {
    require_gpu_value<T>();
    check_device_accessible(first, name, "the input range");
    using raw_t = unwrapped_t<It>;
    const raw_t x = unwrap(first);
    return with_index_for(n, [&](auto index) {
      using index_t = decltype(index);
      candidate<T, index_t> none{};
      none.index = candidate<T, index_t>::none;
      if constexpr (std::is_pointer_v<raw_t> && sizeof(T) <= 8 && 16 % sizeof(T) == 0) {
        // Runs of 16 bytes where the array starts on a 16-byte boundary (else
        // item by item below).
        constexpr offset_t run = run_of<T>::size;
        if (reinterpret_cast<std::uintptr_t>(x) % 16 == 0 && n >= run) {
          const indexed_transform<from_run<Comp, Max, T, index_t>, true, const run_of<T>*> runs(
              {comp}, 0, reinterpret_cast<const run_of<T>*>(x));
          return cuda_reduce_resolved(policy, runs, n / run, none, op,
                                      place_tail<Comp, Max, raw_t>{x, n / run * run, n, comp}, name);
        }
      }
      const indexed_transform<to_candidate<Comp, T, index_t>, true, raw_t> items({}, 0, x);
      return cuda_reduce_resolved(policy, items, n, none, op, position_of<Comp, raw_t>{x}, name);
    });
  }
}

// The host policies over items that are not default constructible (the
// candidates hold a value: element_order.cuh) run std's own loop, on one
// thread: the same answer by definition.
template <class Policy, class It>
constexpr bool runs_std_loop_v = is_host_policy_v<Policy> && !std::is_default_constructible_v<value_t<It>>;

template <bool Max, class Policy, class It, class Comp>
It select_element(const Policy& policy, It first, It last, Comp comp, const char* name) {
  const offset_t n = checked_distance(first, last, name);
  if constexpr (runs_std_loop_v<Policy, It>) {
    return Max ? std::max_element(first, last, comp) : std::min_element(first, last, comp);
  } else {
    if (n == 0) return last;
    return first + select_element_position<Max>(policy, first, n, comp, name);
  }
}

// minmax_element's reduce on the GPU: whole pairs, read as pairs where the
// array is aligned to a pair (else item by item), combined Unordered or not
// (util/element_order.cuh).
template <bool Unordered, class Policy, class Raw, class Comp>
minmax_positions cuda_minmax_positions(const Policy& policy, Raw x, offset_t n, Comp comp, const char* name) {
  using T = value_t<Raw>;
  const offset_t pairs = n / 2;  // whole pairs; an odd n's last item is placed by resolve_minmax
  const combine_minmax<Comp, Unordered> op{comp};
  const resolve_minmax<Comp, Raw> resolve{x, n, comp};
  return with_index_for(n, [&](auto index) {
    using index_t = decltype(index);
    if constexpr (std::is_pointer_v<Raw> && loads_as_pairs_v<T> && sizeof(pair_of<T>) == 2 * sizeof(T)) {
      if (reinterpret_cast<std::uintptr_t>(x) % sizeof(pair_of<T>) == 0) {
        const indexed_transform<from_pair<Comp, T, index_t>, true, const pair_of<T>*> items(
            {comp}, 0, reinterpret_cast<const pair_of<T>*>(x));
        return cuda_reduce_resolved(policy, items, pairs, empty_minmax<T, index_t>(), op, resolve, name);
      }
    }
    const indexed_transform<to_minmax_pair<Comp, Raw, index_t>, false> items({x, comp}, 0);
    return cuda_reduce_resolved(policy, items, pairs, empty_minmax<T, index_t>(), op, resolve, name);
  });
}

// libstdc++'s minmax_element: pairs reduced, the lone last item placed at the
// end. On the GPU the unordered reduce first; an input whose NaNs it cannot
// place (floating point under less or greater only) is reduced again in order.
template <class Policy, class It, class Comp>
std::pair<It, It> minmax_element(const Policy& policy, It first, It last, Comp comp) {
  constexpr const char* name = "cascade::minmax_element";
  const offset_t n = checked_distance(first, last, name);
  if constexpr (runs_std_loop_v<Policy, It>) {
    return std::minmax_element(first, last, comp);
  } else {
    if (n == 0) return {last, last};
    if (n == 1) return {first, first};
    using T = value_t<It>;
    minmax_positions p;
    if constexpr (is_host_policy_v<Policy>) {
      const indexed_transform<to_minmax_pair<Comp, It>, false> items({first, comp}, 0);
      p = resolve_minmax<Comp, It>{first, n, comp}(
          host_reduce(policy, items, items + n / 2, empty_minmax<T>(), combine_minmax<Comp>{comp}));
    } else {
      require_gpu_value<T>();
      check_device_accessible(first, name, "the input range");
      p = cuda_minmax_positions<true>(policy, unwrap(first), n, comp, name);
      if constexpr (nan_aware_v<Comp, T>) {
        if (p.nan_max) p = cuda_minmax_positions<false>(policy, unwrap(first), n, comp, name);
      }
    }
    return {first + p.min, first + p.max};
  }
}

}  // namespace cascade::detail
