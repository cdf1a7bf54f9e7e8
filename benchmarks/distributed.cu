// cascade_nccl_bench: weak scaling of reduce and inclusive scan across the
// GPUs of one host through NCCL (cascade::nccl): the same number of elements
// on every GPU, 1, 2, 4 GPUs. One process, one rank and one host thread per
// GPU. Beside cascade:
//   - the baseline a user would write for a sum: cub::DeviceReduce::Sum on
//     each rank, then ncclAllReduce of the one partial, value to the host;
//   - cascade::cuda on the shard alone (no communication): the local part.
//
// Each timed run: the rank threads meet at a barrier, then each records a
// CUDA event on its stream, makes the call (reduce returns on the host; a
// scan once its local pass is queued), records a second event and waits for
// it. A run's time is its slowest rank's; tables give the median over runs.
// Bytes: reduce n*sizeof(T) per GPU (read), scan 2*n*sizeof(T) (read, write).
// NVLink multicast stays off: NCCL_NVLS_ENABLE=0 is set before any NCCL call.

#include <cascade/cascade.cuh>
#include <cascade/nccl.cuh>

#include <cub/device/device_reduce.cuh>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

constexpr const char* kUsage =
    "cascade_nccl_bench [flags]\n"
    "  --log2=K          elements per GPU: 2^K (default 28)\n"
    "  --elements=N      elements per GPU: N (instead of --log2)\n"
    "  --gpus=LIST       GPU counts, comma-separated (default 1,2,4; counts above the\n"
    "                    visible GPUs are skipped)\n"
    "  --types=LIST      int32,float (default both)\n"
    "  --reps=N          timed runs per case (default 30), after 3 untimed ones\n"
    "  --json=PATH       results as JSON (default cascade_nccl_bench.json)\n";

struct options {
  std::int64_t elements = std::int64_t(1) << 28;
  std::vector<int> gpus{1, 2, 4};
  std::vector<std::string> types{"int32", "float"};
  int reps = 30;
  int warmup = 3;
  std::string json = "cascade_nccl_bench.json";
};

// A bad command line: main prints it with the usage and exits with 2.
struct usage_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The items of a comma-separated list.
std::vector<std::string> items_of(const std::string& list) {
  std::vector<std::string> items;
  for (std::size_t begin = 0, end = 0; begin <= list.size(); begin = end + 1) {
    end = std::min(list.find(',', begin), list.size());
    if (end > begin) items.push_back(list.substr(begin, end - begin));
  }
  return items;
}

std::int64_t to_int(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 0) {
    throw usage_error(flag + " needs a non-negative integer, got '" + text + "'");
  }
  return value;
}

options parse(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string flag = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (flag == "--log2") opt.elements = std::int64_t(1) << to_int(value, flag);
    else if (flag == "--elements") opt.elements = to_int(value, flag);
    else if (flag == "--reps") opt.reps = static_cast<int>(std::max<std::int64_t>(1, to_int(value, flag)));
    else if (flag == "--json") opt.json = value;
    else if (flag == "--types") opt.types = items_of(value);
    else if (flag == "--gpus") {
      opt.gpus.clear();
      for (const auto& g : items_of(value)) opt.gpus.push_back(static_cast<int>(to_int(g, flag)));
    } else if (flag == "--help") {
      std::printf("%s", kUsage);
      std::exit(0);
    } else {
      throw usage_error("unknown flag " + arg);
    }
  }
  for (const auto& t : opt.types)
    if (t != "int32" && t != "float") throw usage_error("unknown type " + t);
  return opt;
}

void cuda_ok(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw cascade::cuda_error(status, call);
}
void nccl_ok(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw cascade::nccl_error(status, call);
}

// A reusable barrier for the rank threads (std::barrier is C++20).
class barrier {
 public:
  explicit barrier(int count) : count_(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation != generation_; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_, arrived_ = 0;
  std::uint64_t generation_ = 0;
};

template <class T>
struct type_info;
template <>
struct type_info<int> {
  static constexpr const char* name = "int32";
  static constexpr ncclDataType_t nccl = ncclInt32;
};
template <>
struct type_info<float> {
  static constexpr const char* name = "float";
  static constexpr ncclDataType_t nccl = ncclFloat32;
};

// Inputs: integers in {-1, 0, 1} (no int32 overflow at any size), floats in [-1, 1).
template <class T>
__global__ void fill_kernel(T* data, std::int64_t n, std::uint64_t seed) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    std::uint64_t x = (static_cast<std::uint64_t>(i) + seed) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    if constexpr (std::is_integral_v<T>) data[i] = static_cast<T>(x % 3) - 1;
    else data[i] = static_cast<T>(static_cast<double>(x >> 11) * 0x1.0p-52 - 1.0);
  }
}

// The cases, in the order every rank runs them (the collectives must match).
struct case_info {
  const char* algorithm;
  const char* implementation;
  int bytes_per_element;  // multiples of sizeof(T)
};
constexpr case_info kCases[] = {
    {"reduce", "cascade.nccl", 1},
    {"reduce", "cub+ncclAllReduce", 1},
    {"reduce", "cascade.cuda (local only)", 1},
    {"inclusive_scan", "cascade.nccl", 2},
    {"inclusive_scan", "cascade.cuda (local only)", 2},
};
constexpr int kCaseCount = sizeof(kCases) / sizeof(kCases[0]);

struct result {
  case_info what;
  std::string type;
  int gpus;
  std::int64_t elements_per_gpu;
  double median_ms, min_ms, gbps, efficiency;  // efficiency: 1-GPU time over this time; < 0 if unknown
  std::string check;
};

// times[case][rep][rank], milliseconds.
using times_t = std::vector<std::vector<std::vector<double>>>;

template <class T>
struct rank_check {
  T cascade_sum{}, baseline_sum{}, scan_last{};
};

// One rank: its shard, every case timed, the values kept for the check.
template <class T>
void run_rank(int rank, ncclComm_t comm, const options& opt, barrier& sync, times_t& times,
              rank_check<T>& check) {
  cuda_ok(cudaSetDevice(rank), "cudaSetDevice");
  const std::int64_t n = opt.elements;
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  T *in = nullptr, *out = nullptr, *sums = nullptr, *host_sum = nullptr;
  cuda_ok(cudaMalloc(&in, std::max<std::int64_t>(n, 1) * sizeof(T)), "cudaMalloc");
  cuda_ok(cudaMalloc(&out, std::max<std::int64_t>(n, 1) * sizeof(T)), "cudaMalloc");
  cuda_ok(cudaMalloc(&sums, 2 * sizeof(T)), "cudaMalloc");
  cuda_ok(cudaMallocHost(&host_sum, sizeof(T)), "cudaMallocHost");
  fill_kernel<<<1024, 256, 0, stream>>>(in, n, static_cast<std::uint64_t>(rank) * n);
  cuda_ok(cudaGetLastError(), "fill_kernel");
  std::size_t temp_bytes = 0;
  cuda_ok(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, sums, n, stream), "cub::DeviceReduce::Sum");
  void* temp = nullptr;
  cuda_ok(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)), "cudaMalloc");
  cudaEvent_t start, stop;
  cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&stop), "cudaEventCreate");
  cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  const auto policy = cascade::nccl(comm).on(stream);
  const auto local = cascade::cuda.on(stream);
  const std::function<void()> calls[kCaseCount] = {
      [&] { check.cascade_sum = cascade::reduce(policy, in, in + n, T{}); },
      [&] {
        cuda_ok(cub::DeviceReduce::Sum(temp, temp_bytes, in, sums, n, stream), "cub::DeviceReduce::Sum");
        nccl_ok(ncclAllReduce(sums, sums + 1, 1, type_info<T>::nccl, ncclSum, comm, stream), "ncclAllReduce");
        cuda_ok(cudaMemcpyAsync(host_sum, sums + 1, sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
        cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        check.baseline_sum = *host_sum;
      },
      [&] { (void)cascade::reduce(local, in, in + n, T{}); },
      [&] { cascade::inclusive_scan(policy, in, in + n, out); },
      [&] { cascade::inclusive_scan(local, in, in + n, out); },
  };
  for (int c = 0; c < kCaseCount; ++c) {
    for (int rep = -opt.warmup; rep < opt.reps; ++rep) {
      sync.wait();
      cuda_ok(cudaEventRecord(start, stream), "cudaEventRecord");
      calls[c]();
      cuda_ok(cudaEventRecord(stop, stream), "cudaEventRecord");
      cuda_ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      cuda_ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      if (rep >= 0) times[c][rep][rank] = ms;
    }
    if (c == 3 && n > 0) {  // the distributed scan's last element: the global sum on the last rank
      cuda_ok(cudaMemcpy(&check.scan_last, out + n - 1, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(temp);
  cudaFreeHost(host_sum);
  cudaFree(sums);
  cudaFree(out);
  cudaFree(in);
  cudaStreamDestroy(stream);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Every case on `gpus` GPUs for type T; appends to `results`.
template <class T>
void run_scale(int gpus, const options& opt, std::vector<result>& results) {
  std::vector<ncclComm_t> comms(gpus);
  std::vector<int> devices(gpus);
  for (int g = 0; g < gpus; ++g) devices[g] = g;
  nccl_ok(ncclCommInitAll(comms.data(), gpus, devices.data()), "ncclCommInitAll");

  times_t times(kCaseCount, std::vector<std::vector<double>>(opt.reps, std::vector<double>(gpus)));
  std::vector<rank_check<T>> checks(gpus);
  barrier sync(gpus);
  std::vector<std::string> errors(gpus);
  std::vector<std::thread> threads;
  for (int r = 0; r < gpus; ++r) {
    threads.emplace_back([&, r] {
      try {
        run_rank<T>(r, comms[r], opt, sync, times, checks[r]);
      } catch (const std::exception& e) {
        errors[r] = e.what();  // the other ranks may now wait forever in a collective
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto c : comms) ncclCommDestroy(c);
  for (int r = 0; r < gpus; ++r)
    if (!errors[r].empty()) throw std::runtime_error("rank " + std::to_string(r) + ": " + errors[r]);

  // The check: every rank's cascade sum has rank 0's bits and equals the
  // baseline's and the distributed scan's last element: exactly for int32;
  // for float within 1e-3 sqrt(N), far above the rounding differences of two
  // summation orders (~1e-2 at N = 2^30) and far below one shard's sum (~1e4).
  const T sum = checks[0].cascade_sum;
  bool ok = true;
  const double tolerance = 1e-3 * std::sqrt(double(gpus) * double(opt.elements));
  auto near = [&](T a, T b) {
    if constexpr (std::is_integral_v<T>) return a == b;
    else return std::abs(double(a) - double(b)) <= tolerance;
  };
  for (const auto& c : checks) {
    ok = ok && std::memcmp(&c.cascade_sum, &sum, sizeof(T)) == 0 && near(sum, c.baseline_sum);
  }
  if (opt.elements > 0) ok = ok && near(checks.back().scan_last, sum);
  std::ostringstream check;
  check << (ok ? "ok" : "MISMATCH") << " (sum " << sum << ", baseline " << checks[0].baseline_sum << ")";

  for (int c = 0; c < kCaseCount; ++c) {
    std::vector<double> slowest(opt.reps);
    for (int rep = 0; rep < opt.reps; ++rep) {
      slowest[rep] = *std::max_element(times[c][rep].begin(), times[c][rep].end());
    }
    result r{kCases[c], type_info<T>::name, gpus, opt.elements, median(slowest),
             *std::min_element(slowest.begin(), slowest.end()), 0.0, gpus == 1 ? 1.0 : -1.0, check.str()};
    const double bytes = double(gpus) * double(opt.elements) * sizeof(T) * kCases[c].bytes_per_element;
    r.gbps = bytes / (r.median_ms * 1e6);
    for (const auto& one : results) {  // weak scaling: the same case on one GPU
      if (gpus > 1 && one.gpus == 1 && one.type == r.type && one.what.algorithm == r.what.algorithm &&
          one.what.implementation == r.what.implementation) {
        r.efficiency = one.median_ms / r.median_ms;
      }
    }
    results.push_back(r);
  }
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char ch : s) out += (ch == '"' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
  return out;
}

void write_json(const std::string& path, const options& opt, const std::vector<result>& results) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  cudaDeviceProp prop{};
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int runtime = 0, driver = 0, nccl = 0, devices = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  ncclGetVersion(&nccl);
  cudaGetDeviceCount(&devices);
  std::fprintf(f,
               "{\n  \"context\": {\"gpu\": \"%s\", \"visible_gpus\": %d, \"cuda_runtime\": %d, "
               "\"cuda_driver\": %d, \"nccl\": %d, \"elements_per_gpu\": %lld, \"reps\": %d, "
               "\"NCCL_NVLS_ENABLE\": \"%s\"},\n  \"results\": [\n",
               json_escape(prop.name).c_str(), devices, runtime, driver, nccl, static_cast<long long>(opt.elements),
               opt.reps, std::getenv("NCCL_NVLS_ENABLE"));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const result& r = results[i];
    std::fprintf(f,
                 "    {\"algorithm\": \"%s\", \"implementation\": \"%s\", \"type\": \"%s\", \"gpus\": %d, "
                 "\"elements_per_gpu\": %lld, \"median_ms\": %.6f, \"min_ms\": %.6f, \"aggregate_GBps\": %.2f, "
                 "\"per_gpu_GBps\": %.2f, \"efficiency_vs_1_gpu\": %s, \"check\": \"%s\"}%s\n",
                 r.what.algorithm, r.what.implementation, r.type.c_str(), r.gpus,
                 static_cast<long long>(r.elements_per_gpu),
                 r.median_ms, r.min_ms, r.gbps, r.gbps / r.gpus,
                 r.efficiency < 0 ? "null" : std::to_string(r.efficiency).c_str(), json_escape(r.check).c_str(),
                 i + 1 < results.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
}

void print_table(const std::vector<result>& results) {
  std::printf("\n| algorithm | implementation | type | GPUs | median ms | GB/s total | GB/s per GPU "
              "| efficiency vs 1 GPU |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|\n");
  for (const auto& r : results) {
    char efficiency[32] = "-";
    if (r.efficiency >= 0) std::snprintf(efficiency, sizeof efficiency, "%.0f%%", 100.0 * r.efficiency);
    std::printf("| %s | %s | %s | %d | %.3f | %.0f | %.0f | %s |\n", r.what.algorithm, r.what.implementation,
                r.type.c_str(), r.gpus, r.median_ms, r.gbps, r.gbps / r.gpus, efficiency);
  }
}

}  // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // before any NCCL call: NVLink multicast stays off
  options opt;
  try {
    opt = parse(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "cascade_nccl_bench: %s\n\n%s", e.what(), kUsage);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: benchmark skipped\n");
    return 0;
  }
  try {
    std::vector<result> results;
    for (const auto& type : opt.types) {
      for (int gpus : opt.gpus) {
        if (gpus < 1 || gpus > devices) {
          std::printf("%d GPU(s): skipped, %d visible\n", gpus, devices);
          continue;
        }
        std::printf("%s on %d GPU(s), %lld elements each...\n", type.c_str(), gpus,
                    static_cast<long long>(opt.elements));
        std::fflush(stdout);
        const std::size_t first = results.size();
        if (type == "int32") run_scale<int>(gpus, opt, results);
        else run_scale<float>(gpus, opt, results);
        std::printf("  check: %s\n", results[first].check.c_str());
      }
    }
    print_table(results);
    write_json(opt.json, opt, results);
    std::printf("\nresults in %s\n", opt.json.c_str());
    for (const auto& r : results)
      if (r.check.rfind("ok", 0) != 0) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cascade_nccl_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
