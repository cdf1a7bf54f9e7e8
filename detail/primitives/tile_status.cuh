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
// Values travel 4 bytes to a piece of 8 beside their tag, a piece being one
// 8-byte access (single-copy atomic), so every piece a reader loads says by
// its own tag whether its bytes are the new ones. Values of up to 4 bytes
// take one piece (an 8-byte word), larger ones 16-byte words of two pieces,
// up to kMostPackedWords of them: a reader loads them together and takes the
// value only when every piece carries one tag, so a piece not yet written,
// or one left from an earlier state, sends it back to polling. No fence, and
// all loads in flight at once: the split layout's acquire ordered every poll
// after the one before (a finishing block reading 4 partials a thread waited
// for 8 round trips to L2).
// Why a tag per piece, not one per 16-byte word: a 16-byte access is, to the
// memory model, two 8-byte ones, and the compiler splits it where the value
// leaves bytes unused. With 12 value bytes and one tag to a word, a pair of a
// 4-byte count and an __int128 (12 bytes of padding) had its first word read
// as two 4-byte loads, count and tag apart, and a reader took a new word's
// tag with the old word's count (H200: reduce_by_key over __int128 on a fresh
// workspace, 95 calls in 100 wrong; docs/segmented.md).
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
// value and a 4-byte position publish 12 bytes).
template <class AccT>
struct status_payload : ::cuda::std::integral_constant<std::size_t, sizeof(AccT)> {};
template <class AccT>
inline constexpr std::size_t status_payload_v = status_payload<AccT>::value;

inline constexpr std::size_t kPieceBytes = 4;        // value bytes beside each tag
inline constexpr std::size_t kMostPackedWords = 6;   // 16-byte words: 48 bytes of value

template <class AccT>
inline constexpr status_layout status_layout_for =
    status_payload_v<AccT> <= kPieceBytes                        ? status_layout::packed8
    : status_payload_v<AccT> <= 2 * kPieceBytes * kMostPackedWords ? status_layout::packed16
                                                                   : status_layout::split;

// A piece: 4 bytes of value, then the tag in the high 4 bytes.
__device__ __forceinline__ unsigned long long piece(unsigned bits, unsigned tag) {
  return static_cast<unsigned long long>(bits) | (static_cast<unsigned long long>(tag) << 32);
}
__device__ __forceinline__ unsigned tag_of(unsigned long long piece) { return static_cast<unsigned>(piece >> 32); }

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
  static constexpr int word_pieces = static_cast<int>(sizeof(word_t) / 8);
  static constexpr int tile_pieces = static_cast<int>((payload + kPieceBytes - 1) / kPieceBytes);
  static constexpr int tile_words = (tile_pieces + word_pieces - 1) / word_pieces;
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
    const unsigned tag = status_tag(epoch, state);
    unsigned long long pieces[tile_words * word_pieces];
#pragma unroll
    for (int i = 0; i < tile_words * word_pieces; ++i) {
      unsigned bits = 0;
      if (bytes_in(i) > 0) ::cuda::std::memcpy(&bits, reinterpret_cast<const char*>(&value) + i * kPieceBytes, bytes_in(i));
      pieces[i] = piece(bits, tag);
    }
#pragma unroll
    for (int k = 0; k < tile_words; ++k) store_relaxed(words + tile_words * tile + k, word_of(pieces, k));
  }

  // The tile's state now, and its value if it has published one (all its
  // pieces carry the same tag).
  __device__ tile_state peek(offset_t tile, AccT& value) const {
    unsigned long long pieces[tile_words * word_pieces];
#pragma unroll
    for (int k = 0; k < tile_words; ++k) pieces_of(load_relaxed(words + tile_words * tile + k), pieces, k);
    bool whole = true;
#pragma unroll
    for (int i = 0; i < tile_words * word_pieces; ++i) {
      if (bytes_in(i) > 0) {
        const unsigned bits = static_cast<unsigned>(pieces[i]);
        ::cuda::std::memcpy(reinterpret_cast<char*>(&value) + i * kPieceBytes, &bits, bytes_in(i));
      }
      whole &= tag_of(pieces[i]) == tag_of(pieces[0]);
    }
    return whole ? state_in(tag_of(pieces[0]), epoch) : tile_invalid;
  }

  // Back to "not yet", for words that their one reader clears once read.
  __device__ void clear(offset_t tile) const {
#pragma unroll
    for (int k = 0; k < tile_words; ++k) store_relaxed(words + tile_words * tile + k, word_t{});
  }

 private:
  // The value's bytes in piece i (none past the payload: its tag alone).
  __host__ __device__ static constexpr std::size_t bytes_in(int i) {
    return payload <= i * kPieceBytes ? 0 : payload - i * kPieceBytes < kPieceBytes ? payload - i * kPieceBytes : kPieceBytes;
  }
  __device__ static word_t word_of(const unsigned long long* pieces, int k) {
    if constexpr (word_pieces == 1) return pieces[k];
    else return {pieces[2 * k], pieces[2 * k + 1]};
  }
  __device__ static void pieces_of(const word_t& w, unsigned long long* pieces, int k) {
    if constexpr (word_pieces == 1) {
      pieces[k] = w;
    } else {
      pieces[2 * k] = w.x;
      pieces[2 * k + 1] = w.y;
    }
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
