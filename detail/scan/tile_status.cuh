#pragma once
// Per-tile status for the decoupled look-back (Merrill & Garland 2016): each
// tile publishes its aggregate (state A), then its inclusive prefix (state P).
//
// Status words are never cleared between launches: each carries the epoch of
// the launch that wrote it (30 bits) beside its state (2 bits), and a word of
// another epoch reads as "not yet". The memory holds nothing but status words
// (or zeros, epoch 0 / state 0 = "not yet").
//
// Values of at most 4 bytes travel in one 64-bit word with their status, so a
// reader sees value and status together. Larger values sit beside a 32-bit
// status word: written, then released; read after an acquire, from L2
// (neighbouring tiles share cache lines, so L1 may hold a stale copy).

#include <cascade/detail/util/iterator.cuh>

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>

namespace cascade::detail {

enum tile_state : unsigned { tile_invalid = 0, tile_aggregate = 1, tile_prefix = 2 };

inline constexpr unsigned kEpochMask = (1u << 30) - 1;

// The 32-bit tag of a status word: epoch and state.
__host__ __device__ constexpr unsigned status_tag(unsigned epoch, tile_state state) {
  return ((epoch & kEpochMask) << 2) | state;
}
__device__ __forceinline__ tile_state state_in(unsigned tag, unsigned epoch) {
  return (tag >> 2) == (epoch & kEpochMask) ? static_cast<tile_state>(tag & 3u) : tile_invalid;
}

template <class AccT, bool Packed = (sizeof(AccT) <= 4)>
struct tile_status;

template <class AccT>
struct tile_status<AccT, true> {
  using word_t = unsigned long long;
  word_t* words;
  unsigned epoch;

  __host__ __device__ static std::size_t bytes(offset_t tiles) { return sizeof(word_t) * tiles; }
  __host__ __device__ static tile_status at(void* memory, offset_t, unsigned epoch) { return {static_cast<word_t*>(memory), epoch}; }

  __device__ void publish(offset_t tile, tile_state state, const AccT& value) const {
    unsigned bits = 0;
    ::cuda::std::memcpy(&bits, &value, sizeof(AccT));
    ::cuda::atomic_ref<word_t, ::cuda::thread_scope_device> word(words[tile]);
    word.store((word_t(status_tag(epoch, state)) << 32) | bits, ::cuda::memory_order_relaxed);
  }

  // Spins until the tile has published something in this epoch; returns its state and value.
  __device__ tile_state wait(offset_t tile, AccT& value, unsigned spin_ns) const {
    ::cuda::atomic_ref<word_t, ::cuda::thread_scope_device> word(words[tile]);
    word_t w = word.load(::cuda::memory_order_relaxed);
    tile_state state;
    while ((state = state_in(static_cast<unsigned>(w >> 32), epoch)) == tile_invalid) {
      __nanosleep(spin_ns);
      w = word.load(::cuda::memory_order_relaxed);
    }
    const unsigned bits = static_cast<unsigned>(w);
    ::cuda::std::memcpy(&value, &bits, sizeof(AccT));
    return state;
  }
};

template <class AccT>
struct tile_status<AccT, false> {
  // Values padded to whole 4-byte words, so they can be read word by word from L2.
  struct alignas(alignof(AccT) > 4 ? alignof(AccT) : 4) slot {
    AccT value;
  };
  static constexpr int slot_words = sizeof(slot) / 4;

  unsigned* tags;
  slot* aggregates;
  slot* prefixes;
  unsigned epoch;

  __host__ __device__ static std::size_t round(std::size_t b) { return (b + 255) / 256 * 256; }
  __host__ __device__ static std::size_t bytes(offset_t tiles) { return round(sizeof(unsigned) * tiles) + 2 * round(sizeof(slot) * tiles); }
  __host__ __device__ static tile_status at(void* memory, offset_t tiles, unsigned epoch) {
    char* base = static_cast<char*>(memory);
    const std::size_t tag_bytes = round(sizeof(unsigned) * tiles);
    return {reinterpret_cast<unsigned*>(base), reinterpret_cast<slot*>(base + tag_bytes),
            reinterpret_cast<slot*>(base + tag_bytes + round(sizeof(slot) * tiles)), epoch};
  }

  __device__ void publish(offset_t tile, tile_state state, const AccT& value) const {
    (state == tile_aggregate ? aggregates : prefixes)[tile].value = value;
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> tag(tags[tile]);
    tag.store(status_tag(epoch, state), ::cuda::memory_order_release);
  }

  __device__ tile_state wait(offset_t tile, AccT& value, unsigned spin_ns) const {
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> tag(tags[tile]);
    tile_state state;
    while ((state = state_in(tag.load(::cuda::memory_order_acquire), epoch)) == tile_invalid) __nanosleep(spin_ns);
    const slot* source = (state == tile_aggregate ? aggregates : prefixes) + tile;
    unsigned words[slot_words];
#pragma unroll
    for (int w = 0; w < slot_words; ++w) words[w] = __ldcg(reinterpret_cast<const unsigned*>(source) + w);
    ::cuda::std::memcpy(&value, words, sizeof(AccT));
    return state;
  }
};

}  // namespace cascade::detail
