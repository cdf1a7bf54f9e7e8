// cascade_bench: cascade beside CUB, Thrust, the CPU and the measured memory
// limits. Our own flags are taken out of the command line before Google
// Benchmark parses the rest (--benchmark_filter, --benchmark_out, ...).

#include "harness.cuh"

#include <cuda/std/version>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

constexpr const char* kUsage =
    "cascade_bench flags (besides Google Benchmark's own):\n"
    "  --types=LIST       value types, comma-separated, or 'all' (default int32,float,int64,double;\n"
    "                     known: int8,int16,int32,int64,uint32,uint64,float,double; and affine64,\n"
    "                     a 16-byte struct scanned with a non-commutative operator)\n"
    "  --min-log2=N       smallest size 2^N (default 10)\n"
    "  --max-log2=N       largest size 2^N (default 28)\n"
    "  --log2-step=N      step of the exponent (default 2)\n"
    "  --reps=N           timed runs per case, each a repetition; the median is reported\n"
    "                     (default 50; host cases above 2^20 elements get N/5)\n"
    "  --cpu              also run cpu.seq and cpu.par (cascade::seq / cascade::par)\n"
    "  --cpu-max-log2=N   largest size for the cpu cases (default 24)\n"
    "  --device=N         the CUDA device to run on (default 0)\n"
    "  --tuning           also run the tuning variants of the automatic reduce and scan\n";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "cascade_bench: %s\n\n%s", message.c_str(), kUsage);
  std::exit(2);
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

// If arg is `<flag>=<value>`, stores the value and returns true.
bool take_value(const char* arg, const char* flag, std::string& value) {
  const std::size_t length = std::strlen(flag);
  if (std::strncmp(arg, flag, length) != 0 || arg[length] != '=') return false;
  value = arg + length + 1;
  return true;
}

bool take_int(const char* arg, const char* flag, int& value) {
  std::string text;
  if (!take_value(arg, flag, text)) return false;
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') usage_error(std::string(flag) + " needs an integer, got '" + text + "'");
  value = static_cast<int>(parsed);
  return true;
}

// Removes our flags from argv (Google Benchmark rejects flags it does not know).
bench::options parse_options(int& argc, char** argv) {
  bench::options opt;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    std::string types;
    if (take_value(arg, "--types", types)) {
      opt.types.clear();
      if (types == "all") bench::for_each_type([&](const auto& tag) { opt.types.push_back(tag.name); });
      else opt.types = split(types);
    } else if (std::strcmp(arg, "--cpu") == 0) {
      opt.cpu = true;
    } else if (std::strcmp(arg, "--tuning") == 0) {
      opt.tuning = true;
    } else if (!take_int(arg, "--min-log2", opt.min_log2) && !take_int(arg, "--max-log2", opt.max_log2) &&
               !take_int(arg, "--log2-step", opt.log2_step) && !take_int(arg, "--reps", opt.repetitions) &&
               !take_int(arg, "--cpu-max-log2", opt.cpu_max_log2) && !take_int(arg, "--device", opt.device)) {
      if (std::strcmp(arg, "--help") == 0) std::fputs(kUsage, stdout);
      argv[kept++] = argv[i];  // not ours
    }
  }
  argc = kept;
  argv[argc] = nullptr;

  for (const auto& name : opt.types) {
    bool known = false;
    bench::for_each_type([&](const auto& tag) { known = known || name == tag.name; });
    known = known || name == "affine64";  // scans only (scan.cu)
    if (!known) usage_error("unknown type '" + name + "'");
  }
  if (opt.types.empty()) usage_error("--types names no type");
  if (opt.min_log2 < 0 || opt.max_log2 > 40 || opt.min_log2 > opt.max_log2)
    usage_error("sizes need 0 <= --min-log2 <= --max-log2 <= 40");
  if (opt.log2_step < 1) usage_error("--log2-step must be at least 1");
  if (opt.repetitions < 1) usage_error("--reps must be at least 1");
  return opt;
}

// What the JSON's context says about the machine and the build, so that a
// results file stands on its own.
void add_context(const bench::options& opt) {
  const int device = opt.device;
  cudaDeviceProp prop{};
  bench::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int memory_khz = 0, bus_bits = 0, runtime = 0, driver = 0;
  bench::check(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device), "cudaDeviceGetAttribute");
  bench::check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device), "cudaDeviceGetAttribute");
  bench::check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  bench::check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  // Double data rate: two transfers per memory clock.
  const double peak_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8) * 1e-9;

  benchmark::AddCustomContext("gpu", prop.name);
  benchmark::AddCustomContext("gpu_compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  benchmark::AddCustomContext("gpu_sm_count", std::to_string(prop.multiProcessorCount));
  benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(prop.l2CacheSize));
  benchmark::AddCustomContext("gpu_memory_bytes", std::to_string(prop.totalGlobalMem));
  benchmark::AddCustomContext("gpu_peak_bandwidth_GBps", std::to_string(peak_gbps));
  benchmark::AddCustomContext("cuda_runtime", version(runtime));
  benchmark::AddCustomContext("cuda_driver", version(driver));
  benchmark::AddCustomContext("cccl", std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) +
                                          "." + std::to_string(CCCL_PATCH_VERSION));
  benchmark::AddCustomContext("build_type", CASCADE_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("types", join(opt.types));
#ifdef _OPENMP
  benchmark::AddCustomContext("openmp_threads", std::to_string(omp_get_max_threads()));
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options opt = parse_options(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no CUDA device: benchmarks skipped");
    return 0;
  }
  if (opt.device < 0 || opt.device >= devices) usage_error("--device=" + std::to_string(opt.device) + ": no such device");
  try {
    bench::check(cudaSetDevice(opt.device), "cudaSetDevice");
    add_context(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cascade_bench: %s\n", e.what());
    return 1;
  }

  bench::register_reduce(opt);
  bench::register_scans(opt);
  bench::register_reduce_strategies(opt);
  bench::register_scan_strategies(opt);
  bench::register_iterators(opt);
  bench::register_family(opt);
  bench::register_tuning(opt);
  bench::register_segmented(opt);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
