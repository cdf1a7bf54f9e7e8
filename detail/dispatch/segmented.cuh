#pragma once
// Dispatch for the keyed and segmented algorithms: validate, choose the
// accumulator and the counting types, then hand an engine the segmentation.
// The scans and reduce_by_key: the masked scan (segmented/masked_scan.cuh),
// fed the segment heads by the keys or by the offsets (segmented/heads.cuh),
// with an output policy. segmented_reduce: the segment totals engine
// (segmented/tile_totals.cuh).

#include <cascade/execution.cuh>
#include <cascade/detail/dispatch/gpu_call.cuh>
#include <cascade/detail/dispatch/reduce.cuh>
#include <cascade/detail/dispatch/scan.cuh>
#include <cascade/detail/host/segmented.cuh>
#include <cascade/detail/segmented/heads.cuh>
#include <cascade/detail/segmented/masked_scan.cuh>
#include <cascade/detail/segmented/segmentations.cuh>
#include <cascade/detail/segmented/tile_totals.cuh>
#include <cascade/detail/util/check.cuh>
#include <cascade/detail/util/iterator.cuh>
#include <cascade/detail/util/launch.cuh>
#include <cascade/detail/util/result_slot.cuh>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

namespace cascade::detail {

template <class S>
constexpr void require_segmented_strategy() {
  static_assert(std::is_same_v<S, strategy::automatic_t>,
                "cascade keyed and segmented algorithms: only cascade::strategy::automatic implements them");
}

// ------------------------------------------------------------- keyed -------

template <class S, class KeyIt, class ValueIt, class OutIt, class Pred, class Op, class T>
void cuda_scan_by_key(const cuda_policy<S>& policy, KeyIt keys, offset_t n, ValueIt values, OutIt out, Pred pred,
                      Op op, const std::optional<T>& init, const char* name) {
  require_gpu_value<T>();
  require_segmented_strategy<S>();
  const gpu_call call(policy, name);
  if (n == 0) return;
  check_device_accessible(keys, name, "the keys");
  check_device_accessible(values, name, "the values");
  check_device_accessible(out, name, "the output range");
  const key_heads<unwrapped_t<KeyIt>, Pred> heads{unwrap(keys), n, pred};
  using out_t = unwrapped_t<OutIt>;
  if (init) {  // exclusive
    masked_scan::run<bool, T>(heads, unwrap(values), n,
                              masked_scan::scanned_values<true, out_t, T, Op>{unwrap(out), on_device(init), op}, op,
                              policy.stream());
  } else {
    masked_scan::run<bool, T>(heads, unwrap(values), n,
                              masked_scan::scanned_values<false, out_t, T, Op>{unwrap(out), on_device(init), op}, op,
                              policy.stream());
  }
}

// Run counts fit 32 bits below 2^32 items: a smaller pair, a packed status word.
template <class V, class S, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class CountOut, class Pred,
          class Op>
void cuda_reduce_by_key_into(const cuda_policy<S>& policy, KeyIt keys, offset_t n, ValueIt values, KeysOut keys_out,
                             ValuesOut values_out, CountOut runs_out, Pred pred, Op op, const char* name) {
  require_gpu_value<V>();
  require_segmented_strategy<S>();
  const gpu_call call(policy, name);
  check_device_accessible(runs_out, name, "the run count");
  if (n == 0) {
    write_value_kernel<<<1, 1, 0, policy.stream()>>>(unwrap(runs_out), 0);
    check_launch("cascade write-count kernel");
    return;
  }
  check_device_accessible(keys, name, "the keys");
  check_device_accessible(values, name, "the values");
  check_device_accessible(keys_out, name, "the keys output");
  check_device_accessible(values_out, name, "the values output");
  const key_heads<unwrapped_t<KeyIt>, Pred> heads{unwrap(keys), n, pred};
  const masked_scan::run_totals<unwrapped_t<KeysOut>, unwrapped_t<ValuesOut>, unwrapped_t<CountOut>, Op> outputs{
      unwrap(keys_out), unwrap(values_out), unwrap(runs_out), op};
  if (n <= offset_t(std::numeric_limits<std::uint32_t>::max())) {
    masked_scan::run<std::uint32_t, V>(heads, unwrap(values), n, outputs, op, policy.stream());
  } else {
    masked_scan::run<std::uint64_t, V>(heads, unwrap(values), n, outputs, op, policy.stream());
  }
}

template <class V, class S, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class Pred, class Op>
std::pair<KeysOut, ValuesOut> cuda_reduce_by_key(const cuda_policy<S>& policy, KeyIt keys, offset_t n,
                                                 ValueIt values, KeysOut keys_out, ValuesOut values_out, Pred pred,
                                                 Op op) {
  if (n == 0) return {keys_out, values_out};
  constexpr const char* name = "cascade::reduce_by_key";
  const gpu_call call(policy, name);
  require_not_capturing(policy.stream(), name, "cascade::reduce_by_key_into");
  const offset_t runs = wait_for_value<offset_t>(policy.stream(), call.at(), [&](offset_t* count) {
    cuda_reduce_by_key_into<V>(policy, keys, n, values, keys_out, values_out, count, pred, op, name);
  });
  return {keys_out + runs, values_out + runs};
}

// ---------------------------------------------------------- segmented ------

// Segment ids fit 32 bits below 2^31 segments (a smaller pair).
template <class Go>
void with_segment_id(offset_t segments, Go go) {
  if (segments < offset_t(std::numeric_limits<std::int32_t>::max())) go(std::int32_t{});
  else go(std::int64_t{});
}

// offsets[0] and offsets[segments] into ends[0] and ends[1], then `ticket`
// into ends[2], after them: the host waits for the ticket alone.
template <class OffsetIt>
__global__ void read_offset_ends_kernel(OffsetIt offsets, offset_t segments, offset_t* ends, offset_t ticket) {
  ends[0] = static_cast<offset_t>(offsets[0]);
  ends[1] = static_cast<offset_t>(offsets[segments]);
  __threadfence_system();
  *static_cast<volatile offset_t*>(ends + 2) = ticket;
}

// Waits until the device has written `ticket` to *flag, or the stream has
// failed (its error, thrown).
inline void wait_for_ticket(const volatile offset_t* flag, offset_t ticket, cudaStream_t stream) {
  for (unsigned spins = 1; *flag != ticket; ++spins) {
    if (spins % 1024 != 0) continue;
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess && *flag != ticket) {
      throw std::logic_error("cascade: the read of the offsets' ends finished without its result");
    }
    if (status != cudaSuccess && status != cudaErrorNotReady) check(status, "cudaStreamQuery");
    std::this_thread::yield();
  }
  std::atomic_thread_fence(std::memory_order_acquire);
}

// offsets[0] and offsets[segments]: the range of items, read back to the
// host (so a stream being captured into a graph is refused before anything
// is enqueued, and its capture goes on). `queue()` enqueues what needs no
// answer on the host, behind the read and before the host waits for it, so
// the GPU does not wait for the host; a queue(ends, ticket) writes the ends
// and the ticket itself (one launch less: H200, segmented_reduce, three
// rounds, 2^16 0.84-0.98x the time, 2^26 in segments of 4096-2^22
// 0.92-0.98x; h200-segmented-reported-ends.json). Offsets that end before
// they begin are refused here: what queue() enqueued must write nothing then.
template <class OffsetIt, class Queue>
std::pair<offset_t, offset_t> offset_ends(OffsetIt offsets, offset_t segments, cudaStream_t stream,
                                          const device_context& at, const char* name, Queue queue) {
  require_not_capturing(stream, name,
                        "the keyed or fixed-size forms, or segmented_reduce over values in a device allocation or a "
                        "transform of one (this call reads the offsets' ends back to the host)");
  offset_t* ends = result_slot::get<offset_t[3]>(at)[0];
  thread_local offset_t tickets = 0;  // (the slot is the thread's too)
  const offset_t ticket = ++tickets;
  *static_cast<volatile offset_t*>(ends + 2) = 0;  // (other calls' results pass through the slot)
  if constexpr (std::is_invocable_v<Queue, offset_t*, offset_t>) {
    queue(ends, ticket);
  } else {
    // Through the stream's graph for it (launch.cuh): 1-2 us less than a launch.
    launch(place_of(stream), read_offset_ends_kernel<OffsetIt>, 1, 1, "cascade read-offsets kernel", offsets,
           segments, ends, ticket);
    queue();
  }
  wait_for_ticket(ends + 2, ticket, stream);
  const offset_t first = ends[0], last = ends[1];
  if (first < 0 || last < first) {
    throw std::invalid_argument(std::string(name) + ": the offsets are not ascending (offsets[0] = " +
                                std::to_string(first) + ", offsets[last] = " + std::to_string(last) + ")");
  }
  return {first, last};
}
template <class OffsetIt>
std::pair<offset_t, offset_t> offset_ends(OffsetIt offsets, offset_t segments, cudaStream_t stream,
                                          const device_context& at, const char* name) {
  return offset_ends(offsets, segments, stream, at, name, [] {});
}

// The items from the values (an array, or a transform of one) to the end of
// the array's allocation, where an offsets form's grid of Tuning's tiles may
// be sized by that (tuning: bounded_grid_max_tiles, or any size where
// any_size(), asked only past that bound); else 0 (other iterators, or
// memory the driver gives no range for).
template <class Tuning, class ValueIt, class AnySize>
offset_t bounded_segmented_items(ValueIt values, AnySize any_size) {
  // Memory mapped piece by piece is looked up no further than a grid can use.
  const offset_t most = bounded_grid_max_tiles * segmented_tile_items<Tuning>;
  const offset_t bound = items_to_allocation_end_of(values, most + 1);
  if (bound <= most) return bound;
  return any_size() ? items_to_allocation_end_of(values) : 0;
}

// Refuses offsets that end past the values' allocation (`bound` items).
inline void check_within_bound(offset_t last, offset_t bound, const char* name) {
  if (last > bound) {
    throw std::invalid_argument(std::string(name) + ": the offsets pass the end of the values (offsets[last] = " +
                                std::to_string(last) + ", the values' allocation holds " + std::to_string(bound) +
                                " from the first)");
  }
}

template <class OutIt, class T>
__global__ void fill_kernel(OutIt out, offset_t count, T value) {
  for (offset_t i = blockIdx.x * offset_t(blockDim.x) + threadIdx.x; i < count; i += offset_t(gridDim.x) * blockDim.x) {
    out[i] = value;
  }
}

// Segment totals over numbered segments of n items (n > 0): segments(Id)
// gives the segmentation. The reductions have an engine of their own
// (segmented/tile_totals.cuh): no output depends on what precedes a segment.
template <class T, class S, class ValueIt, class OutIt, class Op, class MakeSegments>
void cuda_segment_totals(const cuda_policy<S>& policy, ValueIt values, offset_t n, offset_t segments,
                         MakeSegments make_segments, OutIt out, T init, Op op) {
  with_segment_id(segments, [&](auto id) {
    tile_totals::run(make_segments(id), values, items_known{n}, n, out, init, op, policy.stream());
  });
}

template <class S, class ValueIt, class OffsetIt, class OutIt, class T, class Op>
void cuda_segmented_reduce(const cuda_policy<S>& policy, ValueIt values, OffsetIt offsets, offset_t segments,
                           OutIt out, T init, Op op, const char* name) {
  require_gpu_value<T>();
  require_segmented_strategy<S>();
  const gpu_call call(policy, name);
  if (segments == 0) return;
  check_device_accessible(offsets, name, "the offsets");
  check_device_accessible(out, name, "the output range");
  // Values in an array (or a transform of one): its allocation bounds the
  // items, and so the grid, whose blocks read the item count themselves, so
  // the call is stream-ordered, as a form that returns nothing should be: no
  // read-back, no wait (2^16 items: one launch instead of a launch and a
  // wait for the host, h200-segmented-stream-ordered.json). The kernel
  // refuses ends that are not ascending or pass the allocation by writing
  // nothing: the host never sees them. Up to bounded_grid_max_tiles tiles of
  // allocation (a block past the items costs about 0.65 ns:
  // tuning/segmented.cuh); in a stream being captured, where nothing may
  // wait, however large.
  if constexpr (reads_an_array<ValueIt>()) {
    const offset_t bound = bounded_segmented_items<tile_totals_tuning<T>>(
        values, [&] { return stream_is_capturing(policy.stream()); });
    if (bound > 0) {
      check_device_accessible(values, name, "the values");
      with_segment_id(segments, [&](auto id) {
        using segs_t = csr_segments<unwrapped_t<OffsetIt>, decltype(id)>;
        tile_totals::run(segs_t{unwrap(offsets), decltype(id)(segments), 0, bound}, unwrap(values),
                         items_from_offsets{bound}, bound, unwrap(out), init, op, policy.stream());
      });
      return;
    }
  }
  const auto ends = offset_ends(unwrap(offsets), segments, policy.stream(), call.at(), name);
  const offset_t first = ends.first, n = ends.second - ends.first;
  if (n == 0) {  // every segment empty
    fill_kernel<<<static_cast<unsigned>(min_of<offset_t>((segments + 255) / 256, 4096)), 256, 0, policy.stream()>>>(
        unwrap(out), segments, init);
    check_launch("cascade fill kernel");
    return;
  }
  check_device_accessible(values, name, "the values");
  cuda_segment_totals<T>(policy, unwrap(values) + first, n, segments,
                         [&](auto id) { return csr_segments<unwrapped_t<OffsetIt>, decltype(id)>{unwrap(offsets), decltype(id)(segments), first, n}; },
                         unwrap(out), init, op);
}

template <class S, class ValueIt, class OutIt, class T, class Op>
void cuda_segmented_reduce_fixed(const cuda_policy<S>& policy, ValueIt values, offset_t n, offset_t size, OutIt out,
                                 T init, Op op, const char* name) {
  require_gpu_value<T>();
  require_segmented_strategy<S>();
  const gpu_call call(policy, name);
  if (n == 0) return;
  check_device_accessible(values, name, "the values");
  check_device_accessible(out, name, "the output range");
  const offset_t segments = (n + size - 1) / size;
  const auto totals = [&](auto make_segments) {
    cuda_segment_totals<T>(policy, unwrap(values), n, segments, make_segments, unwrap(out), init, op);
  };
  // Multiples of the tile (every tile inside one segment) and divisors of a
  // thread's items (every segment inside one thread): the kernel compiled
  // for that alone (tuning/segmented.cuh).
  if (size % segmented_tile_items<tile_totals_tuning<T>> == 0) {
    totals([&](auto id) { return fixed_tile_multiples<decltype(id)>{{size, decltype(id)(segments), n}}; });
  } else if (tile_totals_tuning<T>::items_per_thread % size == 0) {
    totals([&](auto id) { return fixed_inside_threads<decltype(id)>{{size, decltype(id)(segments), n}}; });
  } else {
    totals([&](auto id) { return fixed_segments<decltype(id)>{size, decltype(id)(segments), n}; });
  }
}

// Segmented scans write out[offsets[0] .. offsets[segments]) and return the
// end of that range.
template <class T, class S, class ValueIt, class OffsetIt, class OutIt, class Op>
OutIt cuda_segmented_scan(const cuda_policy<S>& policy, ValueIt values, OffsetIt offsets, offset_t segments,
                          OutIt out, Op op, const std::optional<T>& init, bool exclusive, const char* name) {
  require_gpu_value<T>();
  require_segmented_strategy<S>();
  const gpu_call call(policy, name);
  if (segments == 0) return out;
  check_device_accessible(offsets, name, "the offsets");
  // The scan of the items that `extent` places: the values and outputs from
  // the first item where the host knows it (first_known), else from the
  // arrays' starts (the kernel adds offsets[0]).
  auto scan = [&](offset_t first_known, auto extent, offset_t max_n) {
    with_segment_id(segments, [&](auto id) {
      using segs_t = csr_segments<unwrapped_t<OffsetIt>, decltype(id)>;
      using heads_t = segment_heads<segs_t, numbered_masked_scan_tuning<T>>;
      const heads_t heads{{unwrap(offsets), decltype(id)(segments), first_known, max_n}, max_n};
      const auto from = unwrap(values) + first_known;
      const auto to = unwrap(out) + first_known;
      using to_t = decltype(to);
      if (exclusive) {
        masked_scan::run<bool, T>(heads, from, extent, max_n,
                                  masked_scan::scanned_values<true, to_t, T, Op>{to, on_device(init), op}, op,
                                  policy.stream());
      } else {
        masked_scan::run<bool, T>(heads, from, extent, max_n,
                                  masked_scan::scanned_values<false, to_t, T, Op>{to, on_device(init), op}, op,
                                  policy.stream());
      }
    });
  };
  // Values in an array (or a transform of one): as segmented_reduce, the
  // grid sized by its allocation, its first block reporting the ends.
  if constexpr (reads_an_array<ValueIt>()) {
    if (const offset_t bound = bounded_segmented_items<numbered_masked_scan_tuning<T>>(values, [] { return false; });
        bound > 0) {
      check_device_accessible(values, name, "the values");
      check_device_accessible(out, name, "the output range");
      const auto ends = offset_ends(unwrap(offsets), segments, policy.stream(), call.at(), name,
                                    [&](offset_t* report, offset_t ticket) {
                                      scan(0, items_from_offsets{bound, report, ticket}, bound);
                                    });
      check_within_bound(ends.second, bound, name);
      return out + ends.second;
    }
  }
  const auto ends = offset_ends(unwrap(offsets), segments, policy.stream(), call.at(), name);
  const offset_t first = ends.first, last = ends.second, n = last - first;
  if (n == 0) return out + last;
  check_device_accessible(values, name, "the values");
  check_device_accessible(out, name, "the output range");
  scan(first, items_known{n}, n);
  return out + last;
}

}  // namespace cascade::detail
