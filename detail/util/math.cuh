#pragma once
// min, max, clamp and ceil-division usable on host and device for any integer
// type (std::min is not a device function without relaxed constexpr).

namespace cascade::detail {

template <class T>
__host__ __device__ constexpr T min_of(T a, T b) {
  return b < a ? b : a;
}
template <class T>
__host__ __device__ constexpr T max_of(T a, T b) {
  return a < b ? b : a;
}
template <class T>
__host__ __device__ constexpr T clamp_to(T v, T lo, T hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}
template <class T>
__host__ __device__ constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

// The smallest power of two >= n (n >= 1).
__host__ __device__ constexpr int ceil_pow2(int n) { return n <= 1 ? 1 : 2 * ceil_pow2((n + 1) / 2); }

}  // namespace cascade::detail
