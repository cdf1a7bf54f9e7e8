#pragma once
// The benchmark harness: options, CUDA checks, cached inputs, the two clocks,
// and register_algorithm(), which turns a list of named runners into Google
// Benchmark cases named <algorithm>/<implementation>/<type>/<n>.
//
// A runner is a small copyable object:
//
//   struct my_runner {
//     static constexpr memory where = memory::device;   // which copy of the input it reads
//     template <class Algorithm, class T>
//     auto bind(Algorithm, io<T> io) const;             // untimed set-up; returns the timed call
//   };
//
// bind() does everything a user would do once (allocate temporary storage,
// build a policy) and returns a nullary callable that performs one run.
// Device runners are timed with CUDA events on the benchmark stream, host
// runners with a steady host clock.

#include <benchmark/benchmark.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace bench {

// ---------------------------------------------------------------------------
// Options (parsed in main.cu before Google Benchmark sees the command line)
// ---------------------------------------------------------------------------
struct options {
  int min_log2 = 10;
  int max_log2 = 28;
  int log2_step = 2;
  std::vector<std::string> types{"int32", "float", "int64", "double"};
  int repetitions = 50;  // per GPU case; host cases above kHostLongRun get a fifth
  bool cpu = false;
  bool tuning = false;  // register the tuning variants (tuning.cu)
  int cpu_max_log2 = 24;  // cpu.seq at 2^28 doubles would take seconds per run
  int device = 0;

  bool wants_type(const std::string& name) const {
    for (const auto& t : types)
      if (t == name) return true;
    return false;
  }
};

// ---------------------------------------------------------------------------
// Value types, each with the name it has in benchmark names
// ---------------------------------------------------------------------------
template <class T>
struct type_tag {
  using type = T;
  const char* name;
};

inline const auto all_types =
    std::make_tuple(type_tag<std::int8_t>{"int8"}, type_tag<std::int16_t>{"int16"}, type_tag<std::int32_t>{"int32"},
                    type_tag<std::int64_t>{"int64"}, type_tag<std::uint32_t>{"uint32"},
                    type_tag<std::uint64_t>{"uint64"}, type_tag<float>{"float"}, type_tag<double>{"double"});

template <class F>
void for_each_type(F&& f) {
  std::apply([&](const auto&... tag) { (f(tag), ...); }, all_types);
}

// ---------------------------------------------------------------------------
// Algorithms: the name in benchmark names and the bytes one run must move
// ---------------------------------------------------------------------------
struct reduce_t {
  static constexpr const char* name = "reduce";
  static constexpr int passes = 1;  // read the input once
};
struct inclusive_scan_t {
  static constexpr const char* name = "inclusive_scan";
  static constexpr int passes = 2;  // read the input, write the output
};
struct exclusive_scan_t {
  static constexpr const char* name = "exclusive_scan";
  static constexpr int passes = 2;
};

// ---------------------------------------------------------------------------
// CUDA checks: a failure throws; measure() turns it into a skipped case
// ---------------------------------------------------------------------------
inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so later cases can run
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                             cudaGetErrorString(status));
  }
}

inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// The stream every device case runs on; non-blocking, so that nothing on the
// legacy default stream is ordered with the timed work.
inline cudaStream_t stream() {
  static const cudaStream_t s = [] {
    cudaStream_t created = nullptr;
    check(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return created;
  }();
  return s;
}

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------
enum class memory { device, host };

struct device_free {
  void operator()(void* p) const { (void)cudaFree(p); }  // may run after the runtime is gone
};
using device_buffer = std::unique_ptr<void, device_free>;

inline device_buffer device_alloc(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
  return device_buffer(p);
}

// Output space shared by all cases: grown to the largest request, never shrunk.
inline void* device_scratch(std::size_t bytes) {
  static device_buffer buffer;
  static std::size_t capacity = 0;
  if (bytes > capacity) {
    buffer.reset();  // free first: the old and new buffer may not fit together
    capacity = 0;
    buffer = device_alloc(bytes);
    capacity = bytes;
  }
  return buffer.get();
}

template <class T>
std::vector<T>& host_scratch(std::int64_t n) {
  static std::vector<T> buffer;
  if (static_cast<std::int64_t>(buffer.size()) < n) buffer.resize(n);
  return buffer;
}

// Random, never all zero, and small enough that sums stay far from overflow
// for the signed types (symmetric around 0) and float (|sum| grows as sqrt n).
template <class T>
__global__ void fill_random(T* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull ^ seed;  // splitmix64
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    if constexpr (std::is_class_v<T>) {
      out[i] = T::from_hash(h);  // user structs make themselves from the hash
    } else if constexpr (std::is_floating_point_v<T>) {
      out[i] = static_cast<T>(static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0);  // [-1, 1)
    } else if constexpr (std::is_signed_v<T>) {
      out[i] = static_cast<T>(static_cast<int>(h % 127) - 63);  // [-63, 63]
    } else {
      out[i] = static_cast<T>(h % 128);  // [0, 127]
    }
  }
}

// The input of every case of type T and size n: generated once on the device,
// kept for the whole run (all sizes of all types fit an H100 together), and
// reused by every implementation so that all of them reduce the same values.
template <class T>
const T* device_input(std::int64_t n) {
  static std::map<std::int64_t, device_buffer> inputs;
  auto it = inputs.find(n);
  if (it == inputs.end()) {
    device_buffer buffer = device_alloc(n * sizeof(T));
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 4096));
    fill_random<<<blocks, 256, 0, stream()>>>(static_cast<T*>(buffer.get()), n, 0x5eed0000ull + n);
    check_launch("fill_random kernel");
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
    it = inputs.emplace(n, std::move(buffer)).first;
  }
  return static_cast<const T*>(it->second.get());
}

// The same values on the host, for cpu.seq and cpu.par.
template <class T>
const std::vector<T>& host_input(std::int64_t n) {
  static std::map<std::int64_t, std::vector<T>> inputs;
  auto it = inputs.find(n);
  if (it == inputs.end()) {
    std::vector<T> values(n);
    check(cudaMemcpy(values.data(), device_input<T>(n), n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    it = inputs.emplace(n, std::move(values)).first;
  }
  return it->second;
}

// What one run reads and writes: n inputs, and n outputs for a scan or one
// for a reduce.
template <class T>
struct io {
  const T* in;
  T* out;
  std::int64_t n;
  cudaStream_t stream;  // nullptr for host runners
};

template <class Algorithm, class T>
io<T> make_io(memory where, std::int64_t n) {
  const std::int64_t out_items = Algorithm::passes == 2 ? n : 1;
  if (where == memory::host) return {host_input<T>(n).data(), host_scratch<T>(out_items).data(), n, nullptr};
  return {device_input<T>(n), static_cast<T*>(device_scratch(out_items * sizeof(T))), n, stream()};
}

// ---------------------------------------------------------------------------
// Clocks: one run, in seconds
// ---------------------------------------------------------------------------
// Events bracket the run on the stream. For calls that return only once the
// result is on the host (thrust's algorithms, cascade::reduce) the stop event
// is recorded after the call returns, so the time includes the wait for the
// stream and the result's way back: what the caller sees.
template <class Call>
double time_on_device(Call& call) {
  struct events {
    cudaEvent_t start = nullptr, stop = nullptr;
    events() {
      check(cudaEventCreate(&start), "cudaEventCreate");
      check(cudaEventCreate(&stop), "cudaEventCreate");
    }
  };
  static const events e;
  check(cudaEventRecord(e.start, stream()), "cudaEventRecord");
  call();
  check(cudaEventRecord(e.stop, stream()), "cudaEventRecord");
  check(cudaEventSynchronize(e.stop), "cudaEventSynchronize");
  check(cudaGetLastError(), "the timed call");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, e.start, e.stop), "cudaEventElapsedTime");
  return ms * 1e-3;
}

template <class Call>
double time_on_host(Call& call) {
  const auto start = std::chrono::steady_clock::now();
  call();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

template <memory Where, class Call>
double time_once(Call& call) {
  if constexpr (Where == memory::device) return time_on_device(call);
  else return time_on_host(call);
}

// ---------------------------------------------------------------------------
// One case: set up (untimed), warm up, then time each iteration
// ---------------------------------------------------------------------------
template <class Algorithm, class T, class Runner>
void measure(benchmark::State& state, const Runner& runner, std::int64_t n) {
  try {
    const io<T> data = make_io<Algorithm, T>(Runner::where, n);
    auto call = runner.bind(Algorithm{}, data);
    // Warm-up: first-call costs (module loading, pool growth, page faults,
    // OpenMP thread start) stay out of the timed runs. It also leaves inputs
    // that fit in L2 there, so small sizes measure launch latency and L2.
    call();
    if (Runner::where == memory::device) check(cudaStreamSynchronize(data.stream), "cudaStreamSynchronize");
    double seconds = 0;
    for (auto _ : state) {
      const double t = time_once<Runner::where>(call);
      state.SetIterationTime(t);
      seconds += t;
    }
    const double bytes = double(Algorithm::passes) * double(n) * sizeof(T);
    state.counters["bytes"] = bytes;
    // Computed here rather than with a rate counter so that it reads plainly
    // as GB/s in the console; the time is the manual (event or host) time.
    state.counters["GB/s"] = bytes * double(state.iterations()) / seconds * 1e-9;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// ---------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------
template <class Runner>
struct named_runner {
  std::string name;
  Runner runner;
};

// impl("cub", cub_runner{}): an implementation column of the tables.
template <class Runner>
named_runner<Runner> impl(std::string name, Runner runner) {
  return {std::move(name), std::move(runner)};
}

// Host runs of more than a million elements take milliseconds each; fewer
// repetitions keep --cpu sweeps short without losing the median.
inline constexpr std::int64_t kHostLongRun = std::int64_t(1) << 20;

template <class Algorithm, class T, class Runner>
void add_case(const options& opt, const char* type_name, int log2, const named_runner<Runner>& r) {
  const bool host = Runner::where == memory::host;
  if (host && (!opt.cpu || log2 > opt.cpu_max_log2)) return;
  const std::int64_t n = std::int64_t(1) << log2;
  const int repetitions = host && n > kHostLongRun ? std::max(1, opt.repetitions / 5) : opt.repetitions;
  const std::string name =
      std::string(Algorithm::name) + "/" + r.name + "/" + type_name + "/" + std::to_string(n);
  benchmark::RegisterBenchmark(name.c_str(),
                               [runner = r.runner, n](benchmark::State& state) {
                                 measure<Algorithm, T>(state, runner, n);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(1)  // one run per repetition: the median is over single runs
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(true);
}

// Registers every (type, n, implementation) of one algorithm, in that order,
// so that the implementations of one size run next to each other.
template <class Algorithm, class... Runners>
void register_algorithm(const options& opt, const named_runner<Runners>&... runners) {
  for_each_type([&](const auto& tag) {
    using T = typename std::decay_t<decltype(tag)>::type;
    if (!opt.wants_type(tag.name)) return;
    for (int log2 = opt.min_log2; log2 <= opt.max_log2; log2 += opt.log2_step) {
      (add_case<Algorithm, T>(opt, tag.name, log2, runners), ...);
    }
  });
}

// Defined in reduce.cu and scan.cu.
void register_reduce(const options& opt);
void register_scans(const options& opt);
void register_reduce_strategies(const options& opt);  // reduce_strategies.cu
void register_segmented(const options& opt);          // segmented.cu
void register_scan_strategies(const options& opt);    // scan_strategies.cu
void register_tuning(const options& opt);             // tuning.cu
void register_iterators(const options& opt);          // iterators.cu
void register_family(const options& opt);             // family.cu

}  // namespace bench
