#pragma once
// Shared test helpers: value types and operators of the test matrix, random
// inputs that are never all zeros, output poisoning, host references and
// tolerances, and the GPU fixture that skips (visibly) without a device.

#include <cascade/cascade.cuh>

#include <gtest/gtest.h>

#include <cuda/functional>
#include <cuda_runtime_api.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace cascade_test {

// ---------------------------------------------------------------------------
// Non-commutative, associative, exact: composition of affine maps x -> a*x + b
// over uint32 (wrapping). compose(f, g) applies f first, then g.
// ---------------------------------------------------------------------------
struct affine {
  std::uint32_t a, b;
  __host__ __device__ friend bool operator==(const affine& x, const affine& y) { return x.a == y.a && x.b == y.b; }
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
inline std::ostream& operator<<(std::ostream& os, const affine& f) { return os << "{" << f.a << "," << f.b << "}"; }

// The same over uint16, in 4 bytes: a non-commutative operator on the paths
// of 4-byte values (16-byte vectors, scan tiles kept in shared memory).
struct affine16 {
  std::uint16_t a, b;
  __host__ __device__ friend bool operator==(const affine16& x, const affine16& y) { return x.a == y.a && x.b == y.b; }
};
struct compose16 {
  __host__ __device__ affine16 operator()(const affine16& f, const affine16& g) const {
    // Products in uint32: uint16 operands would promote to int and overflow.
    return {static_cast<std::uint16_t>(std::uint32_t(g.a) * f.a),
            static_cast<std::uint16_t>(std::uint32_t(g.a) * f.b + g.b)};
  }
};
inline std::ostream& operator<<(std::ostream& os, const affine16& f) { return os << "{" << f.a << "," << f.b << "}"; }

// Affine-map composition with its identity (x -> 1 x + 0) declared: order
// matters, and the strategies that pad can pad. (compose itself has no
// identity trait, on purpose.)
struct compose_with_identity : compose {};

// A 12-byte user struct (no vector loads) with component-wise plus.
struct triple {
  int x, y, z;
  __host__ __device__ friend bool operator==(const triple& p, const triple& q) {
    return p.x == q.x && p.y == q.y && p.z == q.z;
  }
};
struct triple_plus {
  __host__ __device__ triple operator()(const triple& p, const triple& q) const { return {p.x + q.x, p.y + q.y, p.z + q.z}; }
};
inline std::ostream& operator<<(std::ostream& os, const triple& p) { return os << "{" << p.x << "," << p.y << "," << p.z << "}"; }

// ---------------------------------------------------------------------------
// Inputs: random, from a domain that suits the operator (no signed overflow,
// products that stay meaningful), never all zeros.
// ---------------------------------------------------------------------------
template <class T, class Op>
struct domain {
  static T draw(std::mt19937_64& rng) {
    if constexpr (std::is_floating_point_v<T>) {
      if constexpr (std::is_same_v<Op, cuda::std::multiplies<>>) return std::uniform_real_distribution<T>(T(0.999), T(1.001))(rng);
      if constexpr (std::is_same_v<Op, cuda::std::plus<>>) return std::uniform_real_distribution<T>(T(-1), T(1))(rng);
      return std::uniform_real_distribution<T>(T(-1000), T(1000))(rng);
    } else if constexpr (std::is_same_v<T, affine>) {
      return {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
    } else if constexpr (std::is_same_v<T, affine16>) {
      return {static_cast<std::uint16_t>(rng() | 1u), static_cast<std::uint16_t>(rng())};
    } else if constexpr (std::is_same_v<T, triple>) {
      std::uniform_int_distribution<int> d(-1000, 1000);
      return {d(rng), d(rng), d(rng)};
    } else if constexpr (std::is_same_v<Op, cuda::std::multiplies<>>) {
      // Signed: +-1 (no overflow); unsigned: small factors, wrapping is defined.
      if constexpr (std::is_signed_v<T>) return (rng() & 1) ? T(1) : T(-1);
      return static_cast<T>(1 + rng() % 3);
    } else if constexpr (std::is_same_v<Op, cuda::std::plus<>> && std::is_signed_v<T> && sizeof(T) >= 4) {
      return static_cast<T>(static_cast<std::int64_t>(rng() % 2001) - 1000);  // sums never overflow
    } else {
      return static_cast<T>(rng());  // full range: min, max, xor; wrapping sums of small types
    }
  }
};

template <class T, class Op>
std::vector<T> random_input(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = domain<T, Op>::draw(rng);
  if (n > 0 && std::all_of(v.begin(), v.end(), [](const T& x) { T zero{}; return std::memcmp(&x, &zero, sizeof(T)) == 0; })) {
    v[0] = domain<T, Op>::draw(rng);  // never all zeros
  }
  return v;
}

// The byte pattern written over outputs before every run: an element the
// algorithm fails to write keeps it and fails the comparison.
inline constexpr unsigned char kPoison = 0xA5;
template <class T>
T poison_value() {
  T v;
  std::memset(static_cast<void*>(&v), kPoison, sizeof(T));  // (a class with private members too)
  return v;
}

// ---------------------------------------------------------------------------
// Comparison. Integers and structs: exact. Floating point plus/multiplies:
// against a float64 reference, within eps * depth * scale, where depth bounds
// the number of roundings on any path of the combination tree and scale is
// sum |x| (plus) or |result| (multiplies). min/max are exact in floating point.
// ---------------------------------------------------------------------------
template <class T, class Op>
inline constexpr bool rounds_v = std::is_floating_point_v<T> &&
                                 (std::is_same_v<Op, cuda::std::plus<>> || std::is_same_v<Op, cuda::std::multiplies<>>);

// Depth bounds. A sum's error is at most eps * (longest path of additions)
// * sum |x|: a reduce tree is a few dozen levels plus its sequential runs; a
// scan adds the chain of tile prefixes (one rounding per tile of >= 1024). A
// product's relative error is at most eps * (number of multiplications),
// whatever the tree's shape.
template <class Op>
double reduce_depth(std::int64_t n) {
  return std::is_same_v<Op, cuda::std::multiplies<>> ? double(n) + 2.0 : 64.0 + double(n) / 8192.0;
}
template <class Op>
double scan_depth(std::int64_t n) {
  return std::is_same_v<Op, cuda::std::multiplies<>> ? double(n) + 2.0 : 64.0 + double(n) / 1024.0;
}

template <class T>
::testing::AssertionResult close(const T& got, double want, double scale, double depth) {
  const double tol = double(std::numeric_limits<T>::epsilon()) * depth * std::max(scale, 1e-30);
  if (std::isnan(double(got)) || std::fabs(double(got) - want) > tol) {
    return ::testing::AssertionFailure() << "got " << double(got) << ", want " << want << " (tolerance " << tol << ")";
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// GPU fixture: tests derived from it skip, and say so, when no GPU is present.
// ---------------------------------------------------------------------------
inline bool gpu_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

class gpu_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  }
};

// The variable CASCADE_TEST_MAX_SIZE caps the sizes tests use (the
// sanitizers run ~100x slower): the cap, and a list of sizes capped.
inline std::int64_t max_test_size() {
  const char* cap = std::getenv("CASCADE_TEST_MAX_SIZE");
  return cap ? std::atoll(cap) : std::numeric_limits<std::int64_t>::max();
}
inline std::vector<std::int64_t> capped(std::vector<std::int64_t> sizes) {
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [max = max_test_size()](std::int64_t n) { return n > max; }),
              sizes.end());
  return sizes;
}

// Sizes that probe every boundary: empty, single, warp edges, the type's tile
// edges, primes, powers of two +-1, and one larger than 2^24; capped.
inline std::vector<std::int64_t> boundary_sizes(std::int64_t tile) {
  return capped({0, 1, 2, 31, 32, 33, 127, 1021, tile - 1, tile, tile + 1, 2 * tile + 1, 65535, 65537, 100003,
                 (1 << 20) - 1, (1 << 20) + 1, (1 << 24) + 7});
}

}  // namespace cascade_test

template <>
struct cascade::identity_element<cascade_test::compose_with_identity, cascade_test::affine> {
  __host__ __device__ static constexpr cascade_test::affine value() { return {1, 0}; }
};
