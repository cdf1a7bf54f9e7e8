#pragma once
// A block barrier that only some warps wait at: every thread of the block
// takes part, those that wait with sync(), the others with arrive(), which
// counts them and lets them go on at once (PTX barrier.sync / .arrive on a
// barrier of its own, beside __syncthreads' barrier 0; not .aligned, since
// the two are different instructions). Writes to shared memory before any
// thread's sync() or arrive() are visible after sync().

namespace cascade::detail {

template <int Id>
struct partial_barrier {
  static_assert(Id > 0 && Id < 16, "barrier 0 is __syncthreads'; a block has 16");
  __device__ static void sync() { asm volatile("barrier.sync %0, %1;" ::"n"(Id), "r"(blockDim.x) : "memory"); }
  __device__ static void arrive() { asm volatile("barrier.arrive %0, %1;" ::"n"(Id), "r"(blockDim.x) : "memory"); }
};

}  // namespace cascade::detail
