#pragma once
// Execution policies and strategy tags.
//
//   cascade::seq                      host, one thread
//   cascade::par                      host, all cores (OpenMP)
//   cascade::device                   GPU, automatic strategy, default stream
//   cascade::device.on(stream)        GPU, stream-ordered on `stream`
//   cascade::device.with(cascade::strategy::unroll_last_warp)
//   cascade::device.with(cascade::strategy::warp_shuffle.block_size(128))
//
// cascade::device is the GPU policy's name (Thrust's word for it);
// cascade::cuda is the same object under its first name. After
// `using namespace cascade;` a bare `cuda` is ambiguous with the namespace
// ::cuda (libcu++), a bare `device` is not.
//
//   cascade::device.on(stream).with_memory(resource)   temporaries from `resource`
//
// .on() takes a cudaStream_t or a cuda::stream_ref (and so a cuda::stream).
// .with_memory(r) takes a stream-ordered memory resource by reference (it must
// outlive the calls): libcu++'s cuda::mr resources of CCCL 3.0 or later, RMM's,
// or any object with allocate(cuda::stream_ref, bytes, alignment) and
// deallocate(cuda::stream_ref, ptr, bytes, alignment) (or CCCL 3.0's
// allocate_async / deallocate_async). Calls with it take every byte of device
// memory they need from it and keep none between calls.

#include <cascade/detail/util/deprecations_quiet_begin.cuh>

#include <cascade/detail/util/memory.cuh>

#include <cuda_runtime_api.h>

#include <cuda/stream_ref>

#include <type_traits>

namespace cascade {

struct sequenced_policy {};
struct parallel_policy {};
inline constexpr sequenced_policy seq{};
inline constexpr parallel_policy par{};

namespace strategy {

// Which algorithm a strategy belongs to.
enum class family { reduce, scan, any };

// Every strategy tag carries an optional block size (0: the strategy's
// measured default), set with .block_size(n).
template <class Tag, family F>
struct tag {
  static constexpr family applies_to = F;
  unsigned block_threads = 0;

  constexpr Tag block_size(unsigned threads) const {
    Tag t{};
    t.block_threads = threads;
    return t;
  }
};

// The fastest strategy for the operation; never needs an identity and never
// assumes commutativity.
struct automatic_t : tag<automatic_t, family::any> {};
inline constexpr automatic_t automatic{};

// Reduce: the seeds' kernels, in their order.
struct interleaved_divergent_t : tag<interleaved_divergent_t, family::reduce> {};         // Harris 1
struct interleaved_strided_t : tag<interleaved_strided_t, family::reduce> {};             // Harris 2
struct sequential_addressing_t : tag<sequential_addressing_t, family::reduce> {};         // Harris 3
struct first_add_during_load_t : tag<first_add_during_load_t, family::reduce> {};         // Harris 4
struct unroll_last_warp_t : tag<unroll_last_warp_t, family::reduce> {};                   // Harris 5
struct complete_unroll_t : tag<complete_unroll_t, family::reduce> {};                     // Harris 6
struct multiple_elements_per_thread_t : tag<multiple_elements_per_thread_t, family::reduce> {};  // Harris 7
struct warp_shuffle_t : tag<warp_shuffle_t, family::reduce> {};                           // seed 001
struct radix4_pyramid_t : tag<radix4_pyramid_t, family::reduce> {};                       // seed 000
inline constexpr interleaved_divergent_t interleaved_divergent{};
inline constexpr interleaved_strided_t interleaved_strided{};
inline constexpr sequential_addressing_t sequential_addressing{};
inline constexpr first_add_during_load_t first_add_during_load{};
inline constexpr unroll_last_warp_t unroll_last_warp{};
inline constexpr complete_unroll_t complete_unroll{};
inline constexpr multiple_elements_per_thread_t multiple_elements_per_thread{};
inline constexpr warp_shuffle_t warp_shuffle{};
inline constexpr radix4_pyramid_t radix4_pyramid{};

// Scan (seed 003 and the literature it cites).
struct hillis_steele_t : tag<hillis_steele_t, family::scan> {};
struct blelloch_t : tag<blelloch_t, family::scan> {};
struct blelloch_conflict_free_t : tag<blelloch_conflict_free_t, family::scan> {};
struct reduce_then_scan_t : tag<reduce_then_scan_t, family::scan> {};
struct decoupled_lookback_t : tag<decoupled_lookback_t, family::scan> {};
// The look-back with a fixed association (docs/scan.md): the same bits every
// run, whatever the schedule; not yet as fast as the textbook look-back.
struct reproducible_lookback_t : tag<reproducible_lookback_t, family::scan> {};
inline constexpr hillis_steele_t hillis_steele{};
inline constexpr blelloch_t blelloch{};
inline constexpr blelloch_conflict_free_t blelloch_conflict_free{};
inline constexpr reduce_then_scan_t reduce_then_scan{};
inline constexpr decoupled_lookback_t decoupled_lookback{};
inline constexpr reproducible_lookback_t reproducible_lookback{};

template <class S, class = void>
struct is_strategy : std::false_type {};
template <class S>
struct is_strategy<S, std::void_t<decltype(S::applies_to)>> : std::true_type {};

template <class S>
inline constexpr bool is_reduce_strategy_v = S::applies_to != family::scan;
template <class S>
inline constexpr bool is_scan_strategy_v = S::applies_to != family::reduce;

}  // namespace strategy

// The GPU policy: a stream and a strategy. Cheap to copy; build it inline.
template <class Strategy = strategy::automatic_t>
class cuda_policy {
 public:
  constexpr cuda_policy() = default;
  constexpr cuda_policy(cudaStream_t stream, Strategy s, detail::memory_ref memory = {})
      : stream_(stream), strategy_(s), memory_(memory) {}

  // The same policy, stream-ordered on `stream`.
  constexpr cuda_policy on(cudaStream_t stream) const { return {stream, strategy_, memory_}; }
  cuda_policy on(::cuda::stream_ref stream) const { return {stream.get(), strategy_, memory_}; }

  // The same policy with a named strategy.
  template <class S>
  constexpr cuda_policy<S> with(S s) const {
    static_assert(strategy::is_strategy<S>::value,
                  "cascade::device.with(s): s must be one of the tags in cascade::strategy");
    return {stream_, s, memory_};
  }

  // The same policy, its temporaries taken from `resource` (see above).
  template <class Resource>
  cuda_policy with_memory(Resource& resource) const {
    return {stream_, strategy_, detail::memory_ref::to(resource)};
  }

  constexpr cudaStream_t stream() const { return stream_; }
  constexpr Strategy strategy() const { return strategy_; }
  // The caller's memory resource, or nullptr for cascade's own pool.
  constexpr const detail::memory_ref* memory() const { return memory_.resource != nullptr ? &memory_ : nullptr; }

 private:
  cudaStream_t stream_ = nullptr;
  Strategy strategy_{};
  detail::memory_ref memory_{};
};

inline constexpr cuda_policy<> device{};
inline constexpr cuda_policy<> cuda{};  // the same policy; see the top of this file

template <class P>
struct is_cuda_policy : std::false_type {};
template <class S>
struct is_cuda_policy<cuda_policy<S>> : std::true_type {};

template <class P>
inline constexpr bool is_host_policy_v =
    std::is_same_v<P, sequenced_policy> || std::is_same_v<P, parallel_policy>;
template <class P>
inline constexpr bool is_execution_policy_v = is_host_policy_v<P> || is_cuda_policy<P>::value;

}  // namespace cascade

#include <cascade/detail/util/deprecations_quiet_end.cuh>
