#pragma once

// FlatStringMap: a hash map from byte strings to values, for the per-token
// lookups of the tokenizer, the keyphrase code and the hashing embedder.
// Open addressing over a flat array of 8-byte slots (32 bits of the key's
// hash and the key's index); each key's full hash, bytes and value are in
// an entry, entries in insertion order in chunks of 256 and key bytes in
// blocks, neither of which ever moves: a lookup that misses touches one
// cache line, one that hits two more, and a growing map (the background's
// ~10^5 keys) copies no entry and no key. clear() keeps the chunks and
// blocks for reuse. Iteration is in insertion order.
//
// Lookups of many keys overlap their memory accesses when the caller
// hashes the keys first (Hash), prefetches (Prefetch, then PrefetchKey) and
// then finds or inserts with the hash (Find/Insert with a hash): a map of
// ~10^5 keys (the background document frequencies) misses the cache on
// nearly every lookup.
//
// Thread safety: a value type; const members are safe to call concurrently.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skald {

// GCC's and Clang's 128-bit integer, for FlatStringMap::Hash.
__extension__ typedef unsigned __int128 FlatStringMapUint128;

template <typename V>
class FlatStringMap {
 public:
  FlatStringMap() = default;
  // Copies keep the keys' insertion order; a moved-from map is empty.
  FlatStringMap(const FlatStringMap& other) { *this = other; }
  FlatStringMap& operator=(const FlatStringMap& other) {
    if (this == &other) return *this;
    clear();
    Reserve(other.size());
    for (size_t i = 0; i < other.size(); ++i) {
      Value(Insert(other.Key(i), other.HashAt(i))) = other.Value(i);
    }
    return *this;
  }
  FlatStringMap(FlatStringMap&& other) noexcept { *this = std::move(other); }
  FlatStringMap& operator=(FlatStringMap&& other) noexcept {
    if (this == &other) return *this;
    slots_ = std::move(other.slots_);
    mask_ = std::exchange(other.mask_, 0);
    chunks_ = std::move(other.chunks_);
    size_ = std::exchange(other.size_, 0);
    blocks_ = std::move(other.blocks_);
    block_ = std::exchange(other.block_, 0);
    block_used_ = std::exchange(other.block_used_, 0);
    other.slots_.clear();
    other.chunks_.clear();
    other.blocks_.clear();
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void clear() {
    slots_.clear();
    mask_ = 0;
    for (size_t i = 0; i < size_; ++i) At(i).value = V{};
    size_ = 0;
    block_ = 0;
    block_used_ = 0;
  }

  // The hash the map files `key` under (for the members taking a hash).
  // Inline, for the short keys of words (std::hash is an out-of-line call
  // of murmur, a fifth of a scan's hashing time): a key of up to 16 bytes
  // is two overlapping loads, a longer one 16 bytes per round, each folded
  // by a 64x64->128 bit multiply, whose high and low halves mix every bit
  // of the key into the slot index (low bits) and the tag (high bits).
  static uint64_t Hash(std::string_view key) {
    const auto* p = reinterpret_cast<const unsigned char*>(key.data());
    const size_t n = key.size();
    uint64_t a = 0, b = 0;
    if (n >= 8 && n <= 16) {
      a = Load64(p);
      b = Load64(p + n - 8);
    } else if (n >= 4 && n < 8) {
      a = Load32(p);
      b = Load32(p + n - 4);
    } else if (n > 0 && n < 4) {
      a = (uint64_t{p[0]} << 16) | (uint64_t{p[n >> 1]} << 8) | p[n - 1];
    } else if (n > 16) {
      uint64_t h = kHashSeed2;
      size_t i = 0;
      for (; i + 16 < n; i += 16) h = Fold(Load64(p + i) ^ kHashSeed, Load64(p + i + 8) ^ h);
      a = Load64(p + n - 16) ^ h;
      b = Load64(p + n - 8);
    }
    return Fold(Fold(a ^ kHashSeed, b ^ kHashSeed2 ^ n), kHashSeed2 ^ n);
  }

  static constexpr size_t npos = static_cast<size_t>(-1);

  // The insertion index of `key`, or npos.
  size_t IndexOf(std::string_view key) const {
    if (slots_.empty()) return npos;
    const uint64_t hash = Hash(key);
    const uint32_t tag = Tag(hash);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.index == 0) return npos;
      if (s.tag == tag && Matches(s.index - 1, key, hash)) return s.index - 1;
    }
  }

  // The value of `key`, or null. With `hash`: REQUIRES hash == Hash(key).
  const V* Find(std::string_view key) const { return Find(key, Hash(key)); }
  const V* Find(std::string_view key, uint64_t hash) const {
    if (slots_.empty()) return nullptr;
    const uint32_t tag = Tag(hash);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.index == 0) return nullptr;
      if (s.tag == tag && Matches(s.index - 1, key, hash)) return &At(s.index - 1).value;
    }
  }
  V* Find(std::string_view key, uint64_t hash) {
    return const_cast<V*>(static_cast<const FlatStringMap*>(this)->Find(key, hash));
  }

  // Starts loading the slot a lookup of a key with `hash` reads first.
  // Only a hint: changes nothing.
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }
  // Starts loading the entry and key bytes of the first key filed under
  // `hash` (after Prefetch(hash), once its slot is loaded). Only a hint.
  void PrefetchKey(uint64_t hash) const {
    if (slots_.empty()) return;
    const uint32_t tag = Tag(hash);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.index == 0) return;
      if (s.tag == tag) {
        const Entry& e = At(s.index - 1);
        __builtin_prefetch(&e);
        __builtin_prefetch(e.key);
        return;
      }
    }
  }

  // The insertion index of `key` (0, 1, ... in order of first insertion),
  // inserting it with a value-initialized V when absent; `*inserted` (if
  // given) tells whether it was. With `hash`: REQUIRES hash == Hash(key).
  size_t Insert(std::string_view key, bool* inserted = nullptr) {
    return Insert(key, Hash(key), inserted);
  }
  size_t Insert(std::string_view key, uint64_t hash, bool* inserted = nullptr) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow(size_ + 1);
    const uint32_t tag = Tag(hash);
    size_t i = hash & mask_;
    for (;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.index == 0) break;
      if (s.tag == tag && Matches(s.index - 1, key, hash)) {
        if (inserted != nullptr) *inserted = false;
        return s.index - 1;
      }
    }
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<Entry[]>(kChunk));
    At(size_) = Entry{hash, StoreKey(key), key.size(), V{}};
    ++size_;
    slots_[i] = Slot{tag, static_cast<uint32_t>(size_)};
    if (inserted != nullptr) *inserted = true;
    return size_ - 1;
  }

  V& operator[](std::string_view key) { return Value(Insert(key)); }

  // Makes room for `keys` keys in all, so that inserting up to that many
  // moves no slot (and a Prefetch stays useful).
  void Reserve(size_t keys) {
    if (keys * 4 > slots_.size() * 3) Grow(keys);
  }

  // By insertion index (< size()).
  std::string_view Key(size_t index) const {
    const Entry& e = At(index);
    return std::string_view(e.key, e.size);
  }
  uint64_t HashAt(size_t index) const { return At(index).hash; }
  V& Value(size_t index) { return At(index).value; }
  const V& Value(size_t index) const { return At(index).value; }

 private:
  struct Slot {
    uint32_t tag = 0;    // the hash's upper 32 bits
    uint32_t index = 0;  // 1 + insertion index; 0 = empty
  };
  struct Entry {
    uint64_t hash = 0;
    const char* key = nullptr;  // in blocks_
    size_t size = 0;
    V value{};
  };
  static constexpr size_t kChunkBits = 8;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  static constexpr size_t kFirstBlock = 1024;
  static constexpr size_t kMaxBlock = 65536;

  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

  static constexpr uint64_t kHashSeed = 0xA0761D6478BD642Full;
  static constexpr uint64_t kHashSeed2 = 0xE7037ED1A0B428DBull;
  static uint64_t Load64(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static uint64_t Load32(const unsigned char* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // The 128-bit product of a and b, its halves xor-ed.
  static uint64_t Fold(uint64_t a, uint64_t b) {
    const FlatStringMapUint128 m = static_cast<FlatStringMapUint128>(a) * b;
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  }

  Entry& At(size_t index) { return chunks_[index >> kChunkBits][index & (kChunk - 1)]; }
  const Entry& At(size_t index) const {
    return chunks_[index >> kChunkBits][index & (kChunk - 1)];
  }

  bool Matches(size_t index, std::string_view key, uint64_t hash) const {
    const Entry& e = At(index);
    return e.hash == hash && Equal(std::string_view(e.key, e.size), key);
  }

  // a == b, inline for the short keys these maps hold (words): memcmp is a
  // call per lookup. Two overlapping loads cover 4..16 bytes.
  static bool Equal(std::string_view a, std::string_view b) {
    const size_t n = a.size();
    if (n != b.size()) return false;
    if (n >= 8 && n <= 16) {
      return Load<uint64_t>(a.data()) == Load<uint64_t>(b.data()) &&
             Load<uint64_t>(a.data() + n - 8) == Load<uint64_t>(b.data() + n - 8);
    }
    if (n >= 4 && n < 8) {
      return Load<uint32_t>(a.data()) == Load<uint32_t>(b.data()) &&
             Load<uint32_t>(a.data() + n - 4) == Load<uint32_t>(b.data() + n - 4);
    }
    return a == b;
  }
  template <typename T>
  static T Load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }

  // A copy of `key`'s bytes that stays where it is.
  const char* StoreKey(std::string_view key) {
    if (blocks_.empty() || block_used_ + key.size() > blocks_[block_].second) {
      // The next block kept by clear() when it is large enough, else a new one.
      if (!blocks_.empty() && block_ + 1 < blocks_.size() &&
          blocks_[block_ + 1].second >= key.size()) {
        ++block_;
      } else {
        size_t size = blocks_.empty() ? kFirstBlock
                                      : std::min(kMaxBlock, 2 * blocks_.back().second);
        size = std::max(size, key.size());
        size_t at = blocks_.empty() ? 0 : block_ + 1;
        blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(at),
                       {std::make_unique<char[]>(size), size});
        block_ = at;
      }
      block_used_ = 0;
    }
    char* out = blocks_[block_].first.get() + block_used_;
    if (!key.empty()) std::memcpy(out, key.data(), key.size());
    block_used_ += key.size();
    return out;
  }

  // Slots for at least `keys` keys at a load of at most 3/4.
  void Grow(size_t keys) {
    size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    while (keys * 4 > capacity * 3) capacity *= 2;
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (size_t v = 0; v < size_; ++v) {
      const uint64_t hash = At(v).hash;
      size_t i = hash & mask_;
      while (slots_[i].index != 0) i = (i + 1) & mask_;
      slots_[i] = Slot{Tag(hash), static_cast<uint32_t>(v + 1)};
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  size_t size_ = 0;
  std::vector<std::pair<std::unique_ptr<char[]>, size_t>> blocks_;  // bytes, size
  size_t block_ = 0;       // the block keys are stored in
  size_t block_used_ = 0;  // bytes of it used
};

}  // namespace skald
