// Seed 003's experiment: an inclusive prefix sum of int32 from 4 MB to 2 GB
// (2^20 to 2^29 items, every power of two) on one CPU core, on all cores, on
// the GPU with the copies to and from the host included, and on the GPU on
// data already there. The seed's question: from which size on does the GPU
// beat one core, and by how much? (It found: above 8 MB, by up to 1.3x,
// copies included.) See docs/scan.md.
//
//   inclusive_scan/cpu.seq/int32/<n>             cascade::seq: one core
//   inclusive_scan/cpu.par/int32/<n>             cascade::par: all cores (OpenMP)
//   inclusive_scan/gpu.with_transfers/int32/<n>  copy in, cascade::cuda scan, copy out:
//                                                pageable host memory (a std::vector,
//                                                like the seed's cudaMemcpy), host clock
//   inclusive_scan/cascade/int32/<n>             cascade::cuda on device-resident data
//
// Registered with --cpu (and int32 among the types). The host cases, this
// experiment's three first columns, stop at --cpu-max-log2, so the whole
// experiment is (one command line)
//   cascade_bench --cpu --cpu-max-log2=29 --types=int32
//     --benchmark_filter='^inclusive_scan/(cpu\.seq|cpu\.par|gpu\.with_transfers|cascade)/'
// Sizes that the default sweep (scan.cu) already registers are left to it.

#include "harness.cuh"
#include "runners.cuh"

namespace bench {
namespace {

constexpr int kSeedMinLog2 = 20;  // 4 MB of int32
constexpr int kSeedMaxLog2 = 29;  // 2 GB of int32

// The host program's view: its input and output live in host memory.
struct with_transfers_runner {
  static constexpr memory where = memory::host;

  template <class T>
  auto bind(inclusive_scan_t, io<T> io) const {
    return [d_in = device_alloc(io.n * sizeof(T)), d_out = device_alloc(io.n * sizeof(T)), io] {
      T* in = static_cast<T*>(d_in.get());
      T* out = static_cast<T*>(d_out.get());
      const std::size_t bytes = io.n * sizeof(T);
      check(cudaMemcpyAsync(in, io.in, bytes, cudaMemcpyHostToDevice, stream()), "cudaMemcpyAsync");
      cascade::inclusive_scan(cascade::cuda.on(stream()), in, in + io.n, out);
      check(cudaMemcpyAsync(io.out, out, bytes, cudaMemcpyDeviceToHost, stream()), "cudaMemcpyAsync");
      check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
    };
  }
};

// Whether the default sweep registers int32 at 2^log2 already.
bool in_default_sweep(const options& opt, int log2) {
  return log2 >= opt.min_log2 && log2 <= opt.max_log2 && (log2 - opt.min_log2) % opt.log2_step == 0;
}

}  // namespace

void register_cpu_vs_gpu(const options& opt) {
  if (!opt.cpu || !opt.wants_type("int32")) return;
  for (int log2 = kSeedMinLog2; log2 <= kSeedMaxLog2; ++log2) {
    add_case<inclusive_scan_t, std::int32_t>(opt, "int32", log2,
                                             impl("gpu.with_transfers", with_transfers_runner{}));
    if (in_default_sweep(opt, log2)) continue;
    add_case<inclusive_scan_t, std::int32_t>(opt, "int32", log2, impl("cascade", cascade_runner{cascade::cuda}));
    add_case<inclusive_scan_t, std::int32_t>(opt, "int32", log2, impl("cpu.seq", cascade_runner{cascade::seq}));
    add_case<inclusive_scan_t, std::int32_t>(opt, "int32", log2, impl("cpu.par", cascade_runner{cascade::par}));
  }
}

}  // namespace bench
