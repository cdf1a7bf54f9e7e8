#pragma once
// Tuning of the named reduce strategies (the seeds' kernels), as plain data.
// A tag's .block_size(n) overrides the default block size at run time.

#include <cascade/execution.cuh>

namespace cascade::detail {

// Default block size per strategy: the fastest of 64..1024 threads on the
// H100 for an int32 sum of 2^28 items (cascade.<strategy>.b<threads> in
// cascade_bench; the table is in docs/reduce.md).
template <class Strategy>
inline constexpr unsigned reduce_block_threads = 0;  // every strategy has its own, below
template <>
inline constexpr unsigned reduce_block_threads<strategy::interleaved_divergent_t> = 128;
template <>
inline constexpr unsigned reduce_block_threads<strategy::interleaved_strided_t> = 128;
template <>
inline constexpr unsigned reduce_block_threads<strategy::sequential_addressing_t> = 256;
template <>
inline constexpr unsigned reduce_block_threads<strategy::first_add_during_load_t> = 128;
template <>
inline constexpr unsigned reduce_block_threads<strategy::unroll_last_warp_t> = 256;
template <>
inline constexpr unsigned reduce_block_threads<strategy::complete_unroll_t> = 256;
template <>
inline constexpr unsigned reduce_block_threads<strategy::multiple_elements_per_thread_t> = 512;
template <>
inline constexpr unsigned reduce_block_threads<strategy::warp_shuffle_t> = 256;
template <>
inline constexpr unsigned reduce_block_threads<strategy::radix4_pyramid_t> = 256;

// multiple_elements_per_thread (Harris 7): the grid holds at most this many
// threads, whatever the block size, so that each thread adds n / 2^19 pairs.
// 2^18 is about one full H100 (132 SMs x 2048 threads); Harris found 64-256
// blocks of 128 threads best on the G80's 16 SMs. A constant, not the
// device's occupancy, so that the combination tree depends on n only.
inline constexpr long long grid_stride_reduce_threads = 1ll << 18;

}  // namespace cascade::detail
