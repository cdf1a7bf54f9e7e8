// Must not compile: the GPU kernels declare a thread's values before they
// fill them, so a type without a default constructor cannot be scanned on a
// GPU policy (the host policies take it). The library's message comes first.
#include <cascade/cascade.cuh>

struct sum_of_two {
  int v;
  __host__ __device__ explicit sum_of_two(int x) : v(x) {}
};
struct add {
  __host__ __device__ sum_of_two operator()(sum_of_two a, sum_of_two b) const { return sum_of_two(a.v + b.v); }
};

void scan_on_the_gpu(const sum_of_two* in, sum_of_two* out) {
  cascade::inclusive_scan(cascade::device, in, in + 100, out, add{});
}
