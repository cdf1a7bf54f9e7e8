#pragma once
// cascade::seq and cascade::par for the keyed and segmented algorithms.
// seq: one pass, left to right. par: the cost follows the items, not how
// they are split. Keys are cut into one chunk per thread wherever the cuts
// fall: each chunk first finds what it leaves its neighbours (its heads, its
// items before its first head, the fold from its last head), the runs that
// cross cuts are carried across them in chunk order, and each chunk then
// writes its items' outputs. Numbered segments are spread over the threads
// whole, except that one of at least a thread's share of the items gets
// every thread. (Whole runs per chunk and whole segments per thread left one
// thread working through a long run or segment while the others waited.)

#include <cascade/detail/host/parallel.cuh>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace cascade::detail::host {

// Whether item i begins a run.
template <class KeyIt, class Pred>
bool run_head(KeyIt keys, std::int64_t i, Pred pred) {
  return i == 0 || !pred(keys[i - 1], keys[i]);
}

// What the chunk [b, e) leaves the chunks around it: whether it holds run
// heads (with CountHeads, how many), the fold of its items before its
// first head (all of them where it has none: they continue a run from
// before), and the fold from its last head on. It reads the keys from each
// end to the nearest head, and the values of those items only: for short
// runs, a few items a chunk (counting the heads reads every key). A fold
// that has no items is absent: no value of T is made from nothing, so T
// need not be default constructible (as for std's algorithms).
template <class T>
struct run_pieces {
  std::int64_t heads = 0;
  std::optional<T> before_head;
  std::optional<T> from_last_head;
};

template <bool CountHeads, class T, class KeyIt, class ValueIt, class Pred, class Op>
run_pieces<T> pieces_of(KeyIt keys, ValueIt values, std::int64_t b, std::int64_t e, Pred pred, Op op) {
  const auto fold_of = [&](std::int64_t from, std::int64_t to) {  // from < to
    return static_cast<T>(host::fold(values + from + 1, to - from - 1, static_cast<T>(values[from]), op));
  };
  run_pieces<T> p;
  std::int64_t first = b;
  while (first < e && !run_head(keys, first, pred)) ++first;
  if (first == e) {
    p.before_head = fold_of(b, e);
    return p;
  }
  std::int64_t last = e - 1;
  while (!run_head(keys, last, pred)) --last;
  if (first > b) p.before_head = fold_of(b, first);
  p.from_last_head = fold_of(last, e);
  p.heads = 1;
  if constexpr (CountHeads) {
    for (std::int64_t i = first + 1; i <= last; ++i) p.heads += run_head(keys, i, pred);
  }
  return p;
}

// The keys cut into one chunk per thread, each chunk's pieces (read before
// any output is written: in place is safe), and from them, in chunk order:
// carry[c], the fold of the run in progress where chunk c begins, of its
// items before it (absent for chunk 0, which begins with a head),
// carry[chunks] that of the last run up to the end; with CountHeads,
// first_run[c], the index of the run of chunk c's first head, and
// first_run[chunks] the number of runs.
template <class T>
struct chunked_runs {
  chunking plan;
  std::vector<run_pieces<T>> pieces;
  std::vector<std::optional<T>> carry;
  std::vector<std::int64_t> first_run;
};

template <bool CountHeads, class T, class KeyIt, class ValueIt, class Pred, class Op>
chunked_runs<T> chunk_runs(KeyIt keys, std::int64_t n, ValueIt values, Pred pred, Op op) {
  chunked_runs<T> r{{n, thread_count(n)}, {}, {}, {}};
  const int chunks = r.plan.chunks;
  r.pieces.resize(chunks);
  for_each_chunk(r.plan, [&](int c) {
    r.pieces[c] = pieces_of<CountHeads, T>(keys, values, r.plan.begin(c), r.plan.end(c), pred, op);
  });
  r.carry.resize(chunks + 1);
  r.first_run.assign(chunks + 1, 0);
  for (int c = 1; c <= chunks; ++c) {
    const run_pieces<T>& p = r.pieces[c - 1];
    // Chunk 0 holds a head (item 0), so a chunk without one has a carry before it.
    r.carry[c] = p.heads > 0 ? p.from_last_head : static_cast<T>(op(*r.carry[c - 1], *p.before_head));
    r.first_run[c] = r.first_run[c - 1] + p.heads;
  }
  return r;
}

// Scans [b, e) by runs of keys: exclusive from init where there is one,
// else inclusive; `carry` is the fold of the run in progress at b where b
// begins none. Each value is read before its output is written (in place
// is safe).
template <class KeyIt, class ValueIt, class OutIt, class Pred, class Op, class T>
void scan_runs(KeyIt keys, ValueIt values, OutIt out, std::int64_t b, std::int64_t e, Pred pred, Op op,
               const std::optional<T>& init, const std::optional<T>& carry) {
  const bool exclusive = init.has_value();
  std::optional<T> acc;  // the run's fold so far (exclusive: from init); absent before b's head
  if (b < e && !run_head(keys, b, pred)) acc = exclusive ? static_cast<T>(op(*init, *carry)) : *carry;
  for (std::int64_t i = b; i < e; ++i) {
    const bool head = run_head(keys, i, pred);
    const T v = static_cast<T>(values[i]);
    if (exclusive) {
      if (head) acc = *init;
      out[i] = *acc;
      acc = static_cast<T>(op(*acc, v));
    } else {
      acc = head ? v : static_cast<T>(op(*acc, v));
      out[i] = *acc;
    }
  }
}

template <bool Parallel, class KeyIt, class ValueIt, class OutIt, class Pred, class Op, class T>
void scan_by_key(KeyIt keys, std::int64_t n, ValueIt values, OutIt out, Pred pred, Op op,
                 const std::optional<T>& init) {
  if (!Parallel || thread_count(n) == 1) return scan_runs(keys, values, out, 0, n, pred, op, init, init);
  const chunked_runs<T> r = chunk_runs<false, T>(keys, n, values, pred, op);
  for_each_chunk(r.plan, [&](int c) {
    scan_runs(keys, values, out, r.plan.begin(c), r.plan.end(c), pred, op, init, r.carry[c]);
  });
}

// The runs whose heads lie in [b, e), numbered from first_run: each key,
// and each total up to e (a run that goes on past e is completed by the
// caller). Returns how many.
template <class V, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class Pred, class Op>
std::int64_t write_runs(KeyIt keys, ValueIt values, std::int64_t b, std::int64_t e, KeysOut keys_out,
                        ValuesOut values_out, std::int64_t first_run, Pred pred, Op op) {
  std::int64_t run = first_run - 1;
  std::optional<V> acc;
  for (std::int64_t i = b; i < e; ++i) {
    const V v = static_cast<V>(values[i]);
    if (run_head(keys, i, pred)) {
      if (run >= first_run) values_out[run] = *acc;
      keys_out[++run] = keys[i];
      acc = v;
    } else if (run >= first_run) {
      acc = static_cast<V>(op(*acc, v));
    }
  }
  if (run >= first_run) values_out[run] = *acc;
  return run + 1 - first_run;
}

template <bool Parallel, class V, class KeyIt, class ValueIt, class KeysOut, class ValuesOut, class Pred, class Op>
std::int64_t reduce_by_key(KeyIt keys, std::int64_t n, ValueIt values, KeysOut keys_out, ValuesOut values_out,
                           Pred pred, Op op) {
  if (!Parallel || thread_count(n) == 1) return write_runs<V>(keys, values, 0, n, keys_out, values_out, 0, pred, op);
  const chunked_runs<V> r = chunk_runs<true, V>(keys, n, values, pred, op);
  const int chunks = r.plan.chunks;
  for_each_chunk(r.plan, [&](int c) {
    write_runs<V>(keys, values, r.plan.begin(c), r.plan.end(c), keys_out, values_out, r.first_run[c], pred, op);
  });
  // The runs that cross cuts, each completed from the chunk where it ends
  // (the last run: from the end).
  for (int c = 1; c < chunks; ++c) {
    if (r.pieces[c].heads > 0 && !run_head(keys, r.plan.begin(c), pred)) {
      values_out[r.first_run[c] - 1] = static_cast<V>(op(*r.carry[c], *r.pieces[c].before_head));
    }
  }
  if (r.pieces[chunks - 1].heads == 0) values_out[r.first_run[chunks] - 1] = *r.carry[chunks];
  return r.first_run[chunks];
}

// Numbered segments: begin(j) is segment j's first item, begin(segments)
// the end of the last. Those of fewer items than a thread's share are
// spread over the threads whole, one(j, b, e) each (dynamic: lengths vary);
// the others, at most one per thread, then get every thread in turn
// (whole(j, b, e)).
template <bool Parallel, class Begin, class One, class Whole>
void for_each_segment(std::int64_t segments, Begin begin, One one, Whole whole) {
  const std::int64_t items = segments > 0 ? begin(segments) - begin(0) : 0;
  const int threads = Parallel ? thread_count(items + segments) : 1;
  const std::int64_t share = std::max<std::int64_t>(items / threads, kParallelThreshold);
  std::vector<std::int64_t> long_ones;
  caught_in_loop caught;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256) if (threads > 1)
#endif
  for (std::int64_t j = 0; j < segments; ++j) {
    caught.run([&] {
      const std::int64_t b = begin(j), e = begin(j + 1);
      if (threads == 1 || e - b < share) {
        one(j, b, e);
      } else {
#ifdef _OPENMP
#pragma omp critical(cascade_long_segments)
#endif
        long_ones.push_back(j);
      }
    });
  }
  caught.rethrow();
  for (const std::int64_t j : long_ones) whole(j, begin(j), begin(j + 1));
}

// out[j] = init op the items of segment j, for each of the numbered segments.
template <bool Parallel, class Begin, class ValueIt, class OutIt, class T, class Op>
void segment_totals(std::int64_t segments, Begin begin, ValueIt values, OutIt out, T init, Op op) {
  for_each_segment<Parallel>(
      segments, begin,
      [&](std::int64_t j, std::int64_t b, std::int64_t e) { out[j] = host::fold(values + b, e - b, init, op); },
      [&](std::int64_t j, std::int64_t b, std::int64_t e) { out[j] = parallel_fold(values + b, e - b, init, op); });
}

}  // namespace cascade::detail::host
