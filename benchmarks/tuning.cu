// --tuning: the automatic reduce and scan under alternative tunings, side by
// side with CUB, for int32 and double (the 4- and 8-byte classes). These runs
// chose the constants in detail/tuning/; see docs/performance.md.
//
//   reduce/tune.t<threads>.r<rows>.m<min blocks>.c<max chunks>/<type>/<n>
//   inclusive_scan/tune.t<threads>.i<items>.d<first poll ns>.s<poll spacing ns>.m<min blocks>.w<windows>
//                 [.direct].p<prefetch KB>/<type>/<n>
//   inclusive_scan/tune.{groups,textbook}.w<group window>.b<group batch>.d<first poll ns>.s<poll spacing ns>/<type>/<n>
//                 (float and double: the reproducible rule on shared tiles, and the textbook rule beside it)
//   inclusive_scan/tune.shape.t<threads>.i<items>.m<min blocks>.p<prefetch KB>.d<first poll ns>.s<poll spacing ns>
//                 [.textbook]/<type>/<n>
//                 (the automatic scan's shared tiles from 2^17, all four types, its rule for the type)
//   inclusive_scan/tune.small.t<threads>.i<items>.m<min blocks>/<type>/<n>
//                 (the register tiles of inputs up to 2^16, int64 and double, the automatic scan's rule)

#include "harness.cuh"
#include "runners.cuh"

#include <cascade/detail/reduce/single_pass.cuh>
#include <cascade/detail/scan/decoupled_lookback.cuh>

#include <string>
#include <type_traits>

namespace bench {
namespace {

template <class T, int Threads, int Rows, int MinBlocks, long long MaxChunks>
struct reduce_variant : cascade::detail::single_pass_reduce_tuning<T> {
  static constexpr int block_threads = Threads;
  static constexpr int rows_in_flight = Rows;
  static constexpr int min_blocks_per_sm = MinBlocks;
  static constexpr long long max_chunks = MaxChunks;
  static std::string name() {
    return "tune.t" + std::to_string(Threads) + ".r" + std::to_string(Rows) + ".m" + std::to_string(MinBlocks) +
           ".c" + std::to_string(MaxChunks);
  }
};

using cascade::detail::tile_io;

template <class T, int Threads, int Items, unsigned FirstPoll = 1200, unsigned Spin = 500, int MinBlocks = 1,
          int Windows = cascade::detail::lookback_scan_tuning<T>::lookback_windows, tile_io Io = tile_io::warp_transpose,
          long long Prefetch = cascade::detail::lookback_scan_tuning<T>::prefetch_bytes>
struct scan_variant : cascade::detail::lookback_scan_tuning<T> {
  static constexpr long long prefetch_bytes = Prefetch;
  static constexpr tile_io io = Io;
  static constexpr int lookback_windows = Windows;
  static constexpr int block_threads = Threads;
  static constexpr int items_per_thread = Items;
  static constexpr int min_blocks_per_sm = MinBlocks;
  static constexpr unsigned first_poll_delay_ns = FirstPoll;
  static constexpr unsigned spin_nanoseconds = Spin;
  static std::string name() {
    return "tune.t" + std::to_string(Threads) + ".i" + std::to_string(Items) + ".d" + std::to_string(FirstPoll) +
           ".s" + std::to_string(Spin) + ".m" + std::to_string(MinBlocks) + ".w" + std::to_string(Windows) +
           (Io == tile_io::direct ? ".direct" : "") + ".p" + std::to_string(Prefetch >> 10);
  }
};

// The reproducible rule's pacing on the shared tiles the automatic scan
// takes from 2^17 (float and double): groups polled in the first round trip
// (Window), group totals completed per round trip (Batch), the first poll's
// delay and the back-off; Textbook: the same tiles under the textbook rule.
template <class T, int Window, int Batch, unsigned FirstPoll, unsigned Spin, bool Textbook = false>
struct group_variant : cascade::detail::lookback_scan_shared_tuning<T> {
  static constexpr int group_window = Window;
  static constexpr int group_batch = Batch;
  static constexpr unsigned first_poll_delay_ns = FirstPoll;
  static constexpr unsigned spin_nanoseconds = Spin;
  static constexpr bool textbook = Textbook;
  static std::string name() {
    // (From the members: a textbook variant reads them nowhere else.)
    return std::string(Textbook ? "tune.textbook" : "tune.groups") + ".w" + std::to_string(group_window) + ".b" +
           std::to_string(group_batch) + ".d" + std::to_string(FirstPoll) + ".s" + std::to_string(Spin);
  }
};

// The automatic scan's shared tiles (from 2^17, 16-byte aligned arrays)
// under another shape or pacing: a GPU of more bandwidth than the one that
// chose them may want more bytes in flight per SM, or L2 asked further ahead.
// The rule is the automatic scan's for T (textbook for integers) unless
// Textbook names it.
template <class T, int Threads, int Items, int MinBlocks, long long Prefetch = 4 << 20, unsigned FirstPoll = 1200,
          unsigned Spin = 500, bool Textbook = std::is_integral_v<T>>
struct shape_variant : cascade::detail::lookback_scan_shared_tuning<T> {
  static constexpr int block_threads = Threads;
  static constexpr int items_per_thread = Items;
  static constexpr int min_blocks_per_sm = MinBlocks;
  static constexpr long long prefetch_bytes = Prefetch;
  static constexpr unsigned first_poll_delay_ns = FirstPoll;
  static constexpr unsigned spin_nanoseconds = Spin;
  static constexpr bool textbook = Textbook;
  static std::string name() {
    return "tune.shape.t" + std::to_string(block_threads) + ".i" + std::to_string(items_per_thread) + ".m" +
           std::to_string(min_blocks_per_sm) + ".p" + std::to_string(prefetch_bytes >> 10) + ".d" +
           std::to_string(first_poll_delay_ns) + ".s" + std::to_string(spin_nanoseconds) +
           (textbook && !std::is_integral_v<T> ? ".textbook" : "");
  }
};

// The register tiles of small inputs (up to 2^16 values) under another
// shape, with the automatic scan's rule for T.
template <class T, int Threads, int Items, int MinBlocks>
struct small_variant : cascade::detail::lookback_scan_small_tuning<T> {
  static constexpr int block_threads = Threads;
  static constexpr int items_per_thread = Items;
  static constexpr int min_blocks_per_sm = MinBlocks;
  static constexpr bool textbook = std::is_integral_v<T>;
  static std::string name() {
    return "tune.small.t" + std::to_string(block_threads) + ".i" + std::to_string(items_per_thread) + ".m" +
           std::to_string(min_blocks_per_sm);
  }
};

// The rule a variant tunes: the textbook one where it polls more than one
// window per round (which that rule alone has) or names it, else the
// automatic scan's (the reproducible look-back).
template <class Tuning, class = void>
struct tunes_textbook : std::bool_constant<(Tuning::lookback_windows > 1)> {};
template <class Tuning>
struct tunes_textbook<Tuning, std::void_t<decltype(Tuning::textbook)>> : std::bool_constant<Tuning::textbook> {};

template <class Tuning>
struct variant_runner {
  static constexpr memory where = memory::device;

  template <class T>
  auto bind(reduce_t, io<T> io) const {
    return [io] {
      cascade::detail::single_pass::run_tuned<Tuning>(io.in, io.n, io.out, T{}, ::cuda::std::plus<>{}, io.stream);
    };
  }
  template <class T>
  auto bind(inclusive_scan_t, io<T> io) const {
    return [io] {
      namespace lookback = cascade::detail::decoupled_lookback;
      using rule = std::conditional_t<tunes_textbook<Tuning>::value, lookback::nearest_prefix, lookback::group_prefix>;
      const cascade::detail::scan_mode<T> mode{T{}, false, false};
      if constexpr (lookback::shared_tiles_v<Tuning, const T*, T*, T>) {
        // The benchmark's arrays are aligned: the shared-tile kernel alone,
        // so that its register twin (run_tuned's other path) is not compiled.
        constexpr std::int64_t tile = std::int64_t(Tuning::block_threads) * Tuning::items_per_thread;
        lookback::launch_tiles<Tuning, rule, true>(io.in, io.n, io.out, (io.n + tile - 1) / tile, mode,
                                                   ::cuda::std::plus<>{}, io.stream);
      } else {
        lookback::run_tuned<Tuning, rule>(io.in, io.n, io.out, mode, ::cuda::std::plus<>{}, io.stream);
      }
    };
  }
};

template <class Algorithm, class T, class... Variants>
void register_variants(const options& opt, const char* type_name) {
  for (int log2 = opt.min_log2; log2 <= opt.max_log2; log2 += opt.log2_step) {
    add_case<Algorithm, T>(opt, type_name, log2, impl("cub", cub_runner{}));
    (add_case<Algorithm, T>(opt, type_name, log2, impl(Variants::name(), variant_runner<Variants>{})), ...);
  }
}

template <class T>
void register_type(const options& opt, const char* type_name) {
  register_variants<reduce_t, T,  //
                    reduce_variant<T, 256, 4, 1, 2048>, reduce_variant<T, 256, 2, 1, 2048>,
                    reduce_variant<T, 256, 8, 1, 2048>, reduce_variant<T, 128, 4, 1, 2048>,
                    reduce_variant<T, 512, 4, 1, 2048>, reduce_variant<T, 256, 4, 1, 512>,
                    reduce_variant<T, 256, 4, 1, 8192>, reduce_variant<T, 256, 4, 1, 32768>>(opt, type_name);
  // Tile shapes with the blocks per SM that __launch_bounds__ must allow
  // (which caps registers: 65536 / (threads x blocks)), around CUB's sm_90
  // choices (4-byte: 128 x 24, 8-byte: 224 x 24, both at about 64 registers).
  if constexpr (sizeof(T) == 4) {
    register_variants<inclusive_scan_t, T,  //
                      scan_variant<T, 128, 24, 1200, 500, 8>, scan_variant<T, 64, 32, 1200, 500, 14>,
                      scan_variant<T, 128, 32, 1200, 500, 6>, scan_variant<T, 128, 16, 1200, 500, 8>,
                      scan_variant<T, 256, 12, 1200, 500, 4>, scan_variant<T, 128, 24, 1600, 600, 8>,
                      scan_variant<T, 128, 24, 800, 400, 8>, scan_variant<T, 128, 16, 1200, 500, 8, 2>,
                      scan_variant<T, 128, 16, 1200, 500, 8, 4>, scan_variant<T, 128, 16, 1200, 500, 8, 8>,
                      scan_variant<T, 128, 24, 1200, 500, 8, 1, tile_io::direct>,
                      scan_variant<T, 128, 24, 1200, 500, 8, 1, tile_io::warp_transpose, 0>,
                      scan_variant<T, 128, 24, 1200, 500, 8, 1, tile_io::warp_transpose, 1 << 20>,
                      scan_variant<T, 128, 24, 1200, 500, 8, 1, tile_io::warp_transpose, 16 << 20>>(opt, type_name);
  } else {
    register_variants<inclusive_scan_t, T,  //
                      scan_variant<T, 128, 24, 1200, 500, 5>, scan_variant<T, 128, 16, 1200, 500, 6>,
                      scan_variant<T, 128, 24, 1200, 500, 6>, scan_variant<T, 128, 20, 1200, 500, 6>,
                      scan_variant<T, 128, 24, 1600, 600, 5>, scan_variant<T, 128, 24, 800, 400, 5>,
                      scan_variant<T, 128, 16, 1200, 500, 6, 4>,
                      scan_variant<T, 128, 24, 1200, 500, 5, 1, tile_io::warp_transpose, 0>,
                      scan_variant<T, 128, 24, 1200, 500, 5, 1, tile_io::warp_transpose, 1 << 20>,
                      scan_variant<T, 128, 24, 1200, 500, 5, 1, tile_io::warp_transpose, 16 << 20>>(opt, type_name);
  }
}

// Host-side cost of the calls a cascade launch makes, and of whole launches
// (no synchronisation: the time a caller's thread spends per call).
template <class F>
void host_cost(const char* name, F f) {
  benchmark::RegisterBenchmark(name, [f](benchmark::State& state) mutable {
    for (auto _ : state) f();
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
  })->Unit(benchmark::kNanosecond);
}

void register_host_costs() {
  const std::int64_t n = 1 << 14;
  const std::int32_t* in = device_input<std::int32_t>(n);
  static const device_buffer out_buffer = device_alloc(n * sizeof(std::int32_t));
  auto* out = static_cast<std::int32_t*>(out_buffer.get());
  host_cost("overhead/cudaPointerGetAttributes", [in] {
    cudaPointerAttributes a;
    benchmark::DoNotOptimize(cudaPointerGetAttributes(&a, in));
  });
  host_cost("overhead/cudaStreamIsCapturing", [] {
    cudaStreamCaptureStatus c;
    benchmark::DoNotOptimize(cudaStreamIsCapturing(stream(), &c));
  });
  host_cost("overhead/cudaGetDevice", [] {
    int d;
    benchmark::DoNotOptimize(cudaGetDevice(&d));
  });
  host_cost("overhead/cascade.reduce_into/int32/16384", [in, out, n] {
    cascade::reduce_into(cascade::cuda.on(stream()), in, in + n, out, 0, ::cuda::std::plus<>{});
  });
  host_cost("overhead/cascade.inclusive_scan/int32/16384", [in, out, n] {
    cascade::inclusive_scan(cascade::cuda.on(stream()), in, in + n, out);
  });
  std::size_t bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n, stream()), "cub::DeviceReduce::Sum");
  static const device_buffer temp_buffer = device_alloc(bytes);
  void* temp = temp_buffer.get();
  host_cost("overhead/cub.reduce/int32/16384", [in, out, n, temp, bytes]() mutable {
    check(cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream()), "cub::DeviceReduce::Sum");
  });
}

}  // namespace

template <class T>
void register_groups(const options& opt, const char* type_name) {
  register_variants<inclusive_scan_t, T,  //
                    group_variant<T, 8, 4, 1200, 500, true>, group_variant<T, 8, 4, 1200, 500>,
                    group_variant<T, 4, 4, 1200, 500>, group_variant<T, 3, 4, 1200, 500>,
                    group_variant<T, 2, 4, 1200, 500>, group_variant<T, 1, 4, 1200, 500>,
                    group_variant<T, 2, 2, 1200, 500>, group_variant<T, 1, 2, 1200, 500>>(opt, type_name);
}

// Around the automatic scan's shared tiles (160 bytes a thread, 128 threads
// at 8 blocks per SM from 2^17, 256 at 4 from 2^21; L2 asked 4 MB ahead): a
// thread's bytes must be 4k + 2 vectors of 16 (shared_tile_fits), so the
// shapes next to 160 are 96 and 224 (h200-scan-tuning-shapes.json).
template <class T>
void register_shapes(const options& opt, const char* type_name) {
  // (The L2 prefetch 2, 8 and 16 MB ahead, pacing and 256 x 96 at 8 blocks
  // were measured with these: h200-scan-tuning-shapes.json.)
  constexpr int i96 = int(96 / sizeof(T)), i160 = int(160 / sizeof(T)), i224 = int(224 / sizeof(T));
  constexpr bool textbook = true;
  register_variants<inclusive_scan_t, T,  //
                    shape_variant<T, 128, i160, 8>, shape_variant<T, 128, i160, 8, 4 << 20, 1200, 500, textbook>,
                    shape_variant<T, 128, i224, 7>, shape_variant<T, 256, i160, 4>,
                    shape_variant<T, 256, i160, 4, 4 << 20, 1200, 500, textbook>, shape_variant<T, 256, i160, 5>,
                    shape_variant<T, 256, i96, 6>>(opt, type_name);
}

// Around the small inputs' register tiles (128 x 8, 8 blocks per SM for
// 4-byte values and 5 for 8-byte): fewer items a thread, more or fewer
// threads, the same bytes in fewer tiles.
template <class T>
void register_small(const options& opt, const char* type_name) {
  constexpr int m = cascade::detail::lookback_scan_small_tuning<T>::min_blocks_per_sm;
  register_variants<inclusive_scan_t, T,  //
                    small_variant<T, 128, 8, m>, small_variant<T, 128, 4, m>, small_variant<T, 128, 16, m>,
                    small_variant<T, 64, 8, 10>, small_variant<T, 256, 4, 4>>(opt, type_name);
}

void register_tuning(const options& opt) {
  if (!opt.tuning) return;
  register_host_costs();
  if (opt.wants_type("int32")) register_type<std::int32_t>(opt, "int32");
  if (opt.wants_type("double")) register_type<double>(opt, "double");
  if (opt.wants_type("float")) register_groups<float>(opt, "float");
  if (opt.wants_type("double")) register_groups<double>(opt, "double");
  if (opt.wants_type("int32")) register_shapes<std::int32_t>(opt, "int32");
  if (opt.wants_type("int64")) register_shapes<std::int64_t>(opt, "int64");
  if (opt.wants_type("float")) register_shapes<float>(opt, "float");
  if (opt.wants_type("double")) register_shapes<double>(opt, "double");
  if (opt.wants_type("int64")) register_small<std::int64_t>(opt, "int64");
  if (opt.wants_type("double")) register_small<double>(opt, "double");
}

}  // namespace bench
