#pragma once
// cascade::par: the range split into one contiguous chunk per OpenMP thread,
// so the operator sees elements in order and need not commute. Reduce folds
// the chunks, then their results in chunk order. Scan is two passes: chunk
// totals, their exclusive fold (sequential, one per thread), then each chunk
// scans with its carry-in. Without OpenMP, it is cascade::seq.

#include <cascade/detail/host/sequential.cuh>
#include <cascade/detail/util/math.cuh>

#include <cstdint>
#include <exception>
#include <iterator>
#include <optional>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace cascade::detail::host {

// Below this many elements a single thread is faster than waking the team.
inline constexpr std::int64_t kParallelThreshold = 1 << 15;

inline int thread_count(std::int64_t n) {
#ifdef _OPENMP
  if (n >= kParallelThreshold) return static_cast<int>(min_of<std::int64_t>(max_of(1, omp_get_max_threads()), n));
#endif
  (void)n;
  return 1;
}

struct chunking {
  std::int64_t n;
  int chunks;
  std::int64_t begin(int c) const { return n * c / chunks; }
  std::int64_t end(int c) const { return n * (c + 1) / chunks; }
};

// What the iterations of a parallel loop throw (the user's operator may):
// an exception must not leave an OpenMP region, which would end the
// process, so each iteration's is caught and one of them is rethrown on the
// calling thread once the loop is done, as cascade::seq lets it through.
// Outputs may then be partly written, as with std's algorithms.
class caught_in_loop {
 public:
  template <class F>
  void run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
#ifdef _OPENMP
#pragma omp critical(cascade_caught_in_loop)
#endif
      if (!failure_) failure_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  std::exception_ptr failure_;
};

// Runs body(c) for every chunk c, one chunk per thread.
template <class Body>
void for_each_chunk(const chunking& plan, Body body) {
  caught_in_loop caught;
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(plan.chunks)
#endif
  for (int c = 0; c < plan.chunks; ++c) caught.run([&] { body(c); });
  caught.rethrow();
}

template <class It, class T, class Op>
T parallel_fold(It first, std::int64_t n, T init, Op op) {
  const chunking plan{n, thread_count(n)};
  if (plan.chunks == 1) return host::fold(first, n, init, op);
  std::vector<T> partial(plan.chunks, init);
  // Each chunk folds from its own first element: no identity needed.
  for_each_chunk(plan, [&](int c) {
    It b = first + plan.begin(c);
    partial[c] = host::fold(b + 1, plan.end(c) - plan.begin(c) - 1, static_cast<T>(*b), op);
  });
  for (int c = 0; c < plan.chunks; ++c) init = op(init, partial[c]);
  return init;
}

// Scans [first, first + n) into out, seeded with init where there is one;
// exclusive when `exclusive` (then there is one). No value of T is made
// from nothing (T need not be default constructible).
template <class It, class OutIt, class T, class Op>
OutIt parallel_scan(It first, std::int64_t n, OutIt out, Op op, const std::optional<T>& init, bool exclusive) {
  const chunking plan{n, thread_count(n)};
  auto scan_chunk = [&](std::int64_t b, std::int64_t e, const std::optional<T>& carry) {
    if (exclusive) host::exclusive_scan(first + b, e - b, out + b, *carry, op);
    else host::inclusive_scan(first + b, e - b, out + b, op, carry);
  };
  if (plan.chunks == 1) {
    scan_chunk(0, n, init);
    return out + n;
  }
  std::vector<std::optional<T>> total(plan.chunks);
  for_each_chunk(plan, [&](int c) {
    It b = first + plan.begin(c);
    total[c] = host::fold(b + 1, plan.end(c) - plan.begin(c) - 1, static_cast<T>(*b), op);
  });
  // Carry-in of chunk c: init op total[0] op ... op total[c-1].
  std::vector<std::optional<T>> carry(plan.chunks);
  carry[0] = init;
  for (int c = 1; c < plan.chunks; ++c) {
    carry[c] = carry[c - 1] ? static_cast<T>(op(*carry[c - 1], *total[c - 1])) : *total[c - 1];
  }
  for_each_chunk(plan, [&](int c) { scan_chunk(plan.begin(c), plan.end(c), carry[c]); });
  return out + n;
}

}  // namespace cascade::detail::host
