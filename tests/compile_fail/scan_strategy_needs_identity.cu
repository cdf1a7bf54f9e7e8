// Must not compile: blelloch pads partial tiles and clears the tree's root
// with the operator's identity, and this operator has none (nor is it a monoid).
#include <cascade/cascade.cuh>

struct first_of {
  __host__ __device__ int operator()(int a, int) const { return a; }
};

void exclusive_scan_with_operator_without_identity(const int* p, int* out) {
  cascade::exclusive_scan(cascade::cuda.with(cascade::strategy::blelloch), p, p + 1, out, 0, first_of{});
}
