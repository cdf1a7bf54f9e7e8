// Must not compile: interleaved_divergent pads partial blocks with the
// operator's identity, and this operator has none (nor is it a monoid).
#include <cascade/cascade.cuh>

struct first_of {
  __host__ __device__ int operator()(int a, int) const { return a; }
};

void reduce_with_operator_without_identity(const int* p, int* out) {
  cascade::reduce_into(cascade::cuda.with(cascade::strategy::interleaved_divergent), p, p + 1, out, 0, first_of{});
}
