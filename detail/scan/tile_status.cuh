#pragma once
// Per-tile status for the decoupled look-back (Merrill & Garland 2016): each
// tile publishes its aggregate (status A), then its inclusive prefix (status
// P). Zero means "not yet"; the host clears the words before the launch.
//
// Values of at most 4 bytes travel in one 64-bit word with their status, so a
// reader sees value and status together. Larger values sit beside a 32-bit
// status flag: written, fenced, then flagged; read after the flag, from L2
// (neighbouring tiles share cache lines, so L1 may hold a stale copy).

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>

#include <cascade/detail/util/iterator.cuh>

namespace cascade::detail {

enum tile_state : unsigned { tile_invalid = 0, tile_aggregate = 1, tile_prefix = 2 };

template <class AccT, bool Packed = (sizeof(AccT) <= 4)>
struct tile_status;

template <class AccT>
struct tile_status<AccT, true> {
  using word_t = unsigned long long;
  word_t* words;

  static std::size_t bytes(offset_t tiles) { return sizeof(word_t) * tiles; }
  static tile_status at(void* memory, offset_t) { return {static_cast<word_t*>(memory)}; }
  std::size_t clear_bytes(offset_t tiles) const { return bytes(tiles); }
  void* clear_begin() const { return words; }

  __device__ void publish(offset_t tile, tile_state state, const AccT& value) const {
    unsigned bits = 0;
    ::cuda::std::memcpy(&bits, &value, sizeof(AccT));
    ::cuda::atomic_ref<word_t, ::cuda::thread_scope_device> word(words[tile]);
    word.store((word_t(state) << 32) | bits, ::cuda::memory_order_relaxed);
  }

  // Spins until the tile has published something; returns its state and value.
  __device__ tile_state wait(offset_t tile, AccT& value, unsigned spin_ns) const {
    ::cuda::atomic_ref<word_t, ::cuda::thread_scope_device> word(words[tile]);
    word_t w = word.load(::cuda::memory_order_relaxed);
    while ((w >> 32) == tile_invalid) {
      __nanosleep(spin_ns);
      w = word.load(::cuda::memory_order_relaxed);
    }
    const unsigned bits = static_cast<unsigned>(w);
    ::cuda::std::memcpy(&value, &bits, sizeof(AccT));
    return static_cast<tile_state>(w >> 32);
  }
};

template <class AccT>
struct tile_status<AccT, false> {
  // Values padded to whole 4-byte words, so they can be read word by word from L2.
  struct alignas(alignof(AccT) > 4 ? alignof(AccT) : 4) slot {
    AccT value;
  };
  static constexpr int slot_words = sizeof(slot) / 4;

  unsigned* flags;
  slot* aggregates;
  slot* prefixes;

  static std::size_t round(std::size_t b) { return (b + 255) / 256 * 256; }
  static std::size_t bytes(offset_t tiles) { return round(sizeof(unsigned) * tiles) + 2 * round(sizeof(slot) * tiles); }
  static tile_status at(void* memory, offset_t tiles) {
    char* base = static_cast<char*>(memory);
    const std::size_t flag_bytes = round(sizeof(unsigned) * tiles);
    return {reinterpret_cast<unsigned*>(base), reinterpret_cast<slot*>(base + flag_bytes),
            reinterpret_cast<slot*>(base + flag_bytes + round(sizeof(slot) * tiles))};
  }
  std::size_t clear_bytes(offset_t tiles) const { return sizeof(unsigned) * tiles; }
  void* clear_begin() const { return flags; }

  __device__ void publish(offset_t tile, tile_state state, const AccT& value) const {
    (state == tile_aggregate ? aggregates : prefixes)[tile].value = value;
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> flag(flags[tile]);
    flag.store(state, ::cuda::memory_order_release);
  }

  __device__ tile_state wait(offset_t tile, AccT& value, unsigned spin_ns) const {
    ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> flag(flags[tile]);
    unsigned state = flag.load(::cuda::memory_order_acquire);
    while (state == tile_invalid) {
      __nanosleep(spin_ns);
      state = flag.load(::cuda::memory_order_acquire);
    }
    const slot* source = (state == tile_aggregate ? aggregates : prefixes) + tile;
    unsigned words[slot_words];
#pragma unroll
    for (int w = 0; w < slot_words; ++w) words[w] = __ldcg(reinterpret_cast<const unsigned*>(source) + w);
    ::cuda::std::memcpy(&value, words, sizeof(AccT));
    return static_cast<tile_state>(state);
  }
};

}  // namespace cascade::detail
