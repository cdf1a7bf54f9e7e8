#pragma once
// Per-tile status for the decoupled look-back (Merrill & Garland 2016): each
// tile publishes its aggregate (state A), then its inclusive prefix (state P).
// An aggregate that absorbs whatever precedes it (op(x, a) == a: a segmented
// tile that holds a segment start) may say so (state X, the reproducible
// rule's, reproducible_lookback.cuh).
// The single-pass reduce publishes its chunk partials the same way.
//
// Status words are never cleared between launches: each carries the epoch of
// the launch that wrote it (30 bits) beside its state (2 bits), and a word of
// another epoch reads as "not yet". The host numbers the launches. A region of
// status words only ever holds words of its own layout (or zeros: epoch 0 /
// state 0 = "not yet"), so stale bits are never mistaken for a tag. Words
// with a single reader (the reduce's chunk partials) are cleared by it
// instead, so that their launches all use one epoch and take identical
// arguments (see util/workspace.cuh).
//
// Values of at most 12 bytes travel in one word with their tag (8 bytes for
// values up to 4, 16 for values up to 12), written and read by single
// relaxed accesses, so a reader sees value and tag together. Values of up to
// 48 bytes travel 12 bytes a word in up to 4 such words, each tagged: a
// reader loads them together and takes the value only when all carry one
// tag, so a word not yet written, or one left from an earlier state, sends
// it back to polling. No fence, and all loads in flight at once: the split
// layout's acquire ordered every poll after the one before (a finishing
// block reading 4 partials a thread waited for 8 round trips to L2).
// Larger values sit in a region of their own beside a 32-bit tag: written,
// then released; read after an acquire, from L2 (neighbouring tiles share
// cache lines, so L1 may hold a stale copy).

#include <cascade/detail/util/iterator.cuh>

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>
#include <cuda/std/type_traits>

#include <cstddef>

namespace cascade::detail {

enum tile_state : unsigned { tile_invalid = 0, tile_aggregate = 1, tile_prefix = 2, tile_absorbing = 3 };

inline constexpr unsigned kEpochMask = (1u << 30) - 1;

// An epoch as kernels receive it: a whole 8-byte word, so that a status
// handle has no padding and launch arguments that hold one compare bytewise
// (util/launch.cuh).
using epoch_word = unsigned long long;

// The 32-bit tag of a status word: epoch and state.
__host__ __device__ constexpr unsigned status_tag(epoch_word epoch, tile_state state) {
  return (static_cast<unsigned>(epoch & kEpochMask) << 2) | state;
}
__device__ __forceinline__ tile_state state_in(unsigned tag, epoch_word epoch) {
  return (tag >> 2) == static_cast<unsigned>(epoch & kEpochMask) ? static_cast<tile_state>(tag & 3u) : tile_invalid;
}

// The three layouts; the host keeps one region per layout.
enum class status_layout : int { packed8 = 0, packed16 = 1, split = 2 };
inline constexpr int kStatusLayouts = 3;

// The bytes of a value that a status word carries: all of them, unless the
// type has tail padding and says so (min_element's candidates: an 8-byte
// value and a 4-byte position publish 12 bytes, in one word).
template <class AccT>
struct status_payload : ::cuda::std::integral_constant<std::size_t, sizeof(AccT)> {};
template <class AccT>
inline constexpr std::size_t status_payload_v = status_payload<AccT>::value;

inline constexpr std::size_t kMostPackedWords = 4;  // 16-byte words of 12 bytes each

template <class AccT>
inline constexpr status_layout status_layout_for =
    status_payload_v<AccT> <= 4                       ? status_layout::packed8
    : status_payload_v<AccT> <= 12 * kMostPackedWords ? status_layout::packed16
                                                      : status_layout::split;

// One word: the value's bytes first, the tag in the word's last 4 bytes.
__device__ __forceinline__ void set_tag(unsigned long long& w, unsigned tag) {
  w = (w & 0xffffffffull) | (static_cast<unsigned long long>(tag) << 32);
}
__device__ __forceinline__ void set_tag(ulonglong2& w, unsigned tag) {
  w.y = (w.y & 0xffffffffull) | (static_cast<unsigned long long>(tag) << 32);
}
__device__ __forceinline__ unsigned tag_of(unsigned long long w) { return static_cast<unsigned>(w >> 32); }
__device__ __forceinline__ unsigned tag_of(ulonglong2 w) { return static_cast<unsigned>(w.y >> 32); }

__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long w) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}
__device__ __forceinline__ void store_relaxed(ulonglong2* p, ulonglong2 w) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w.x), "l"(w.y) : "memory");
}
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long w;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
  return w;
}
__device__ __forceinline__ ulonglong2 load_relaxed(const ulonglong2* p) {
  ulonglong2 w;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(w.x), "=l"(w.y) : "l"(p) : "memory");
  return w;
}

template <class AccT, status_layout Layout = status_layout_for<AccT>>
struct tile_status {
  using word_t = ::cuda::std::conditional_t<Layout == status_layout::packed8, unsigned long long, ulonglong2>;
  static constexpr std::size_t payload = status_payload_v<AccT>;
  static constexpr std::size_t per_word = sizeof(word_t) - 4;  // the value's bytes beside each tag
  static constexpr int tile_words = static_cast<int>((payload + per_word - 1) / per_word);
  static_assert(tile_words >= 1 && tile_words <= int(kMostPackedWords));

  word_t* words;
  epoch_word epoch;

  static constexpr std::size_t word_bytes(offset_t tiles) { return sizeof(word_t) * tile_words * tiles; }
  static constexpr std::size_t value_bytes(offset_t) { return 0; }
  __host__ __device__ static tile_status at(void* word_memory, void*, epoch_word epoch) {
    return {static_cast<word_t*>(word_memory), epoch};
  }
  // The words after the first `count`: a second array of one launch's words.
  __host__ __device__ tile_status after(offset_t count) const { return {words + tile_words * count, epoch}; }

  __device__ void publish(offset_t tile, tile_state state, const AccT& value) const {
#pragma unroll
    for (int k = 0; k < tile_words; ++k) {
      word_t w{};
      ::cuda::std::memcpy(&w, reinterpret_cast<const char*>(&value) + k * per_word, bytes_in(k));
      set_tag(w, status_tag(epoch, state));
      store_relaxed(words + tile_words * tile + k, w);
    }
  }

  // The tile's state now, and its value if it has published one (all its
  // words carry the same tag).
  __device__ tile_state peek(offset_t tile, AccT& value) const {
    word_t w[tile_words];
#pragma unroll
    for (int k = 0; k < tile_words; ++k) w[k] = load_relaxed(words + tile_words * tile + k);
    bool whole = true;
#pragma unroll
    for (int k = 0; k < tile_words; ++k) {
      ::cuda::std::memcpy(reinterpret_cast<char*>(&value) + k * per_word, &w[k], bytes_in(k));
      whole &= tag_of(w[k]) == tag_of(w[0]);
    }
    return whole ? state_in(tag_of(w[0]), epoch) : tile_invalid;
  }

  // Back to "not yet", for words that their one reader clears once read.
  __device__ void clear(offset_t tile) const {
#pragma unroll
    for (int k = 0; k < tile_words; ++k) store_relaxed(words + tile_words * tile + k, word_t{});
  }

 private:
  __host__ __device__ static constexpr std::size_t bytes_in(int k) {
    return payload - k * per_word < per_word ? payload - k * per_word : per_word;
  }
};

template <class AccT>
struct tile_status<AccT, status_layout::split> {
  // Values padded to whole 4-byte words, so they can be read word by word from L2.
  struct alignas(alignof(AccT) > 4 ? alignof(AccT) : 4) slot {
    AccT value;
  };
  static constexpr int slot_words = sizeof(slot) / 4;

  unsigned* tags;
  slot* values;  // tile t: aggregate at 2t, inclusive prefix at 2t + 1
  epoch_word epoch;

  static constexpr std::size_t word_bytes(offset_t tiles) { return sizeof(unsigned) * tiles; }
  static constexpr std::size_t value_bytes(offset_t tiles) { return 2 * sizeof(slot) * tiles; }
  __host__ __device__ static tile_status at(void* word_memory, void* value_memory, epoch_word epoch) {
    return {static_cast<unsigned*>(word_memory), static_cast<slot*>(value_memory), epoch};
  }
  __host__ __device__ tile_status after(offset_t count) const { return {tags + count, values + 2 * count, epoch}; }

  __device__ void publish(offset_t tile, tile_state state, const AccT& value) const {
    values[2 * tile + (state == tile_prefix)].value = value;
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> tag(tags[tile]);
    tag.store(status_tag(epoch, state), ::cuda::memory_order_release);
  }

  __device__ tile_state peek(offset_t tile, AccT& value) const {
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> tag(tags[tile]);
    const tile_state state = state_in(tag.load(::cuda::memory_order_acquire), epoch);
    if (state == tile_invalid) return state;
    const slot* source = values + 2 * tile + (state == tile_prefix);
    unsigned words[slot_words];
#pragma unroll
    for (int w = 0; w < slot_words; ++w) words[w] = __ldcg(reinterpret_cast<const unsigned*>(source) + w);
    ::cuda::std::memcpy(&value, words, sizeof(AccT));
    return state;
  }

  __device__ void clear(offset_t tile) const {
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> tag(tags[tile]);
    tag.store(0u, ::cuda::memory_order_relaxed);
  }
};

}  // namespace cascade::detail
