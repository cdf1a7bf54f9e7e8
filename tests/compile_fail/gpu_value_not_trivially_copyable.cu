// Must not compile: GPU values move between threads as bytes, so a type with
// a copy constructor of its own cannot be reduced on a GPU policy (the host
// policies take it). The library's message comes first.
#include <cascade/cascade.cuh>

struct counted {
  int v = 0;
  counted() = default;
  __host__ __device__ counted(const counted& other) : v(other.v) {}
  __host__ __device__ counted& operator=(const counted& other) {
    v = other.v;
    return *this;
  }
};
struct add {
  __host__ __device__ counted operator()(const counted& a, const counted& b) const {
    counted r;
    r.v = a.v + b.v;
    return r;
  }
};

counted reduce_on_the_gpu(const counted* in) {
  return cascade::reduce(cascade::device, in, in + 100, counted{}, add{});
}
