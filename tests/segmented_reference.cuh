#pragma once
// Segmentations for the keyed and segmented tests, and references built on
// the standard library only (std::accumulate, std::inclusive_scan,
// std::exclusive_scan per segment), independent of cascade.

#include "common.cuh"

#include <numeric>
#include <string>

namespace cascade_test {

// Segment lengths summing to n: every one `len` long (the last shorter),
// power law (Pareto alpha = 1.1), half of them empty, or random up to `len`.
inline std::vector<std::int64_t> segment_lengths(const std::string& shape, std::int64_t n, std::int64_t len,
                                                 std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lengths;
  std::int64_t left = n;
  auto take = [&](std::int64_t l) {
    l = std::min(l, left);
    lengths.push_back(l);
    left -= l;
  };
  while (left > 0) {
    if (shape == "fixed") take(len);
    else if (shape == "powerlaw") take(std::int64_t(std::pow(1.0 - std::uniform_real_distribution<double>(0, 1)(rng), -1.0 / 1.1)));
    else if (shape == "halfempty") { lengths.push_back(0); take(2 * len); }
    else take(std::int64_t(rng() % (len + 1)));  // "random": empty segments too
  }
  if (shape == "halfempty" || shape == "random") lengths.push_back(0);  // an empty segment at the end
  return lengths;
}

template <class O>
std::vector<O> offsets_of(const std::vector<std::int64_t>& lengths, O first = 0) {
  std::vector<O> offsets{first};
  for (auto l : lengths) offsets.push_back(static_cast<O>(offsets.back() + l));
  return offsets;
}

// Keys with a run per non-empty segment, neighbours always different.
template <class K>
std::vector<K> keys_of(const std::vector<std::int64_t>& lengths, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> keys;
  K key = K(rng() % 1000);
  for (auto l : lengths) {
    if (l == 0) continue;
    key = static_cast<K>(key + 1 + K(rng() % 3));
    keys.insert(keys.end(), l, key);
  }
  return keys;
}

template <class T, class V, class O, class Op>
std::vector<T> ref_segmented_reduce(const std::vector<V>& v, const std::vector<O>& offsets, T init, Op op) {
  std::vector<T> out;
  for (std::size_t j = 0; j + 1 < offsets.size(); ++j) {
    out.push_back(std::accumulate(v.begin() + offsets[j], v.begin() + offsets[j + 1], init, op));
  }
  return out;
}

// Scans of each segment in place of `out` (positions outside keep their values).
template <class T, class V, class O, class Op>
void ref_segmented_scan(const std::vector<V>& v, const std::vector<O>& offsets, std::vector<T>& out, Op op,
                        const T* init, bool exclusive) {
  for (std::size_t j = 0; j + 1 < offsets.size(); ++j) {
    auto b = v.begin() + offsets[j], e = v.begin() + offsets[j + 1];
    auto o = out.begin() + offsets[j];
    if (exclusive) std::exclusive_scan(b, e, o, *init, op);
    else if (init) std::inclusive_scan(b, e, o, op, *init);
    else std::inclusive_scan(b, e, o, op);
  }
}

// Runs of equal keys as offsets.
template <class K>
std::vector<std::int64_t> run_offsets(const std::vector<K>& keys) {
  std::vector<std::int64_t> offsets{0};
  for (std::size_t i = 1; i <= keys.size(); ++i) {
    if (i == keys.size() || !(keys[i] == keys[i - 1])) offsets.push_back(std::int64_t(i));
  }
  if (keys.empty()) offsets.clear(), offsets.push_back(0);
  return offsets;
}

}  // namespace cascade_test
