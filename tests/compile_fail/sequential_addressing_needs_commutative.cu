// Must not compile: sequential addressing combines element tid with element
// tid + s, which needs a commutative operator; affine-map composition is not
// one (it has an identity here, so only commutativity is missing).
#include <cascade/cascade.cuh>

struct affine {
  unsigned a, b;
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

void reduce_with_non_commutative_operator(const affine* p, affine* out) {
  cascade::reduce_into(cascade::cuda.with(cascade::strategy::sequential_addressing), p, p + 1, out, affine{1, 0},
                       cascade::monoid(compose{}, affine{1, 0}));
}
