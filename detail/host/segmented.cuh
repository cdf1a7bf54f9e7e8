#pragma once
// cascade::seq and cascade::par for the keyed and segmented algorithms.
// seq: one pass, left to right. par: runs of keys are split into chunks that
// start at run heads (so that no run crosses a chunk and no carry is
// needed), reduce_by_key counting each chunk's runs first to know where its
// outputs go; numbered segments are spread over the threads whole.

#include <cascade/detail/host/parallel.cuh>

#include <cstdint>
#include <vector>

namespace cascade::detail::host {

// Scans [b, e) by runs of keys: inclusive (has_init false) or exclusive from
// init. Each value is read before its output is written (in place is safe).
template <class KeyIt, class ValueIt, class OutIt, class Pred, class Op, class T>
void scan_runs(KeyIt keys, ValueIt values, OutIt out, std::int64_t b, std::int64_t e, Pred pred, Op op, T init,
               bool exclusive) {
  T acc = init;
  for (std::int64_t i = b; i < e; ++i) {
    const bool head = i == b || !pred(keys[i - 1], keys[i]);
    const T v = static_cast<T>(values[i]);
    if (exclusive) {
      if (head) acc = init;
      out[i] = acc;
      acc = static_cast<T>(op(acc, v));
    } else {
      acc = head ? v : static_cast<T>(op(acc, v));
      out[i] = acc;
    }
  }
}

// Chunk c covers [bound[c], bound[c + 1]): near equal parts, moved forward
// to the next run head.
template <class KeyIt, class Pred>
std::vector<std::int64_t> run_aligned_chunks(KeyIt keys, std::int64_t n, Pred pred) {
  const chunking plan{n, thread_count(n)};
  std::vector<std::int64_t> bound(plan.chunks + 1, n);
  bound[0] = 0;
  for_each_chunk(plan, [&](int c) {
    if (c == 0) return;
    std::int64_t i = plan.begin(c);
    while (i < n && pred(keys[i - 1], keys[i])) ++i;
    bound[c] = i;
  });
  // A run longer than a chunk pushes a bound past the next ones.
  for (int c = 1; c <= plan.chunks; ++c) bound[c] = std::max(bound[c], bound[c - 1]);
  return bound;
}

template <bool Parallel, class KeyIt, class ValueIt, class OutIt, class Pred, class Op, class T>
void scan_by_key(KeyIt keys, std::int64_t n, ValueIt values, OutIt out, Pred pred, Op op, T init, bool exclusive) {
  if (!Parallel || thread_count(n) == 1) return scan_runs(keys, values, out, 0, n, pred, op, init, exclusive);
  const auto bound = run_aligned_chunks(keys, n, pred);
  const chunking plan{n, static_cast<int>(bound.size()) - 1};
  for_each_chunk(plan, [&](int c) { scan_runs(keys, values, out, bound[c], bound[c + 1], pred, op, init, exclusive); });
}

// Runs in [b, e) (b a head): keys and totals from run index `first_run`.
template <class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class Pred, class Op, class V>
std::int64_t reduce_runs(KeyIt keys, ValueIt values, std::int64_t b, std::int64_t e, KeysOut keys_out,
                         ValuesOut values_out, std::int64_t first_run, Pred pred, Op op, V*, bool write) {
  std::int64_t run = first_run - 1;
  V acc{};
  for (std::int64_t i = b; i < e; ++i) {
    const bool head = i == b || !pred(keys[i - 1], keys[i]);
    const V v = static_cast<V>(values[i]);
    if (head) {
      if (write && run >= first_run) values_out[run] = acc;
      ++run;
      if (write) keys_out[run] = keys[i];
      acc = v;
    } else {
      acc = static_cast<V>(op(acc, v));
    }
  }
  if (write && e > b) values_out[run] = acc;
  return run + 1 - first_run;
}

template <bool Parallel, class V, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class Pred, class Op>
std::int64_t reduce_by_key(KeyIt keys, std::int64_t n, ValueIt values, KeysOut keys_out, ValuesOut values_out,
                           Pred pred, Op op) {
  V* tag = nullptr;
  if (!Parallel || thread_count(n) == 1) return reduce_runs(keys, values, 0, n, keys_out, values_out, 0, pred, op, tag, true);
  const auto bound = run_aligned_chunks(keys, n, pred);
  const chunking plan{n, static_cast<int>(bound.size()) - 1};
  std::vector<std::int64_t> runs(plan.chunks + 1, 0);
  for_each_chunk(plan, [&](int c) {
    runs[c + 1] = reduce_runs(keys, values, bound[c], bound[c + 1], keys_out, values_out, 0, pred, op, tag, false);
  });
  for (int c = 0; c < plan.chunks; ++c) runs[c + 1] += runs[c];
  for_each_chunk(plan, [&](int c) {
    reduce_runs(keys, values, bound[c], bound[c + 1], keys_out, values_out, runs[c], pred, op, tag, true);
  });
  return runs[plan.chunks];
}

// Numbered segments, whole segments per thread (dynamic: lengths vary).
// begin(j) is segment j's first item, begin(segments) the end of the last.
template <bool Parallel, class Begin, class Body>
void for_each_segment(std::int64_t segments, Begin begin, Body body) {
  const bool parallel = Parallel && thread_count(segments > 0 ? begin(segments) - begin(0) + segments : 0) > 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256) if (parallel)
#endif
  for (std::int64_t j = 0; j < segments; ++j) body(j, begin(j), begin(j + 1));
  (void)parallel;
}

}  // namespace cascade::detail::host
