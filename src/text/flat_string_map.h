#pragma once

// FlatStringMap: a hash map from byte strings to values, for the per-token
// lookups of the tokenizer, the keyphrase code and the hashing embedder.
// Open addressing over a flat array of 8-byte slots (32 bits of the key's
// hash and the key's index); each key's bytes live in one arena, and its
// full hash, place in the arena and value in one vector in insertion order,
// so a lookup that misses touches one cache line, one that hits two more,
// and an insert allocates nothing but amortized growth. Iteration is in
// insertion order.
//
// Lookups of many keys overlap their memory accesses when the caller
// hashes the keys first (Hash), prefetches (Prefetch, then PrefetchKey) and
// then finds or inserts with the hash (Find/Insert with a hash): a map of
// ~10^5 keys (the background document frequencies) misses the cache on
// nearly every lookup.
//
// Thread safety: a value type; const members are safe to call concurrently.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace skald {

template <typename V>
class FlatStringMap {
 public:
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  void clear() {
    slots_.clear();
    mask_ = 0;
    entries_.clear();
    arena_.clear();
  }

  // The hash the map files `key` under (for the members taking a hash).
  static uint64_t Hash(std::string_view key) {
    // Spread the bits the slot index is taken from.
    uint64_t h = std::hash<std::string_view>{}(key);
    return h ^ (h >> 29);
  }

  // The value of `key`, or null. With `hash`: REQUIRES hash == Hash(key).
  const V* Find(std::string_view key) const { return Find(key, Hash(key)); }
  const V* Find(std::string_view key, uint64_t hash) const {
    if (slots_.empty()) return nullptr;
    const uint32_t tag = Tag(hash);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot s = slots_[i];
      if (s.index == 0) return nullptr;
      if (s.tag == tag && Matches(s.index - 1, key, hash)) return &entries_[s.index - 1].value;
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
        const Entry& e = entries_[s.index - 1];
        __builtin_prefetch(&e);
        __builtin_prefetch(arena_.data() + e.offset);
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
    if ((entries_.size() + 1) * 4 > slots_.size() * 3) Grow(entries_.size() + 1);
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
    entries_.push_back(Entry{hash, arena_.size(), key.size(), V{}});
    arena_.append(key);
    slots_[i] = Slot{tag, static_cast<uint32_t>(entries_.size())};
    if (inserted != nullptr) *inserted = true;
    return entries_.size() - 1;
  }

  V& operator[](std::string_view key) { return Value(Insert(key)); }

  // Makes room for `keys` keys in all, so that inserting up to that many
  // moves no slot (and a Prefetch stays useful). Slots only: the entries
  // grow as they would.
  void Reserve(size_t keys) {
    if (keys * 4 > slots_.size() * 3) Grow(keys);
  }

  // By insertion index (< size()).
  std::string_view Key(size_t index) const {
    const Entry& e = entries_[index];
    return std::string_view(arena_).substr(e.offset, e.size);
  }
  uint64_t HashAt(size_t index) const { return entries_[index].hash; }
  V& Value(size_t index) { return entries_[index].value; }
  const V& Value(size_t index) const { return entries_[index].value; }

 private:
  struct Slot {
    uint32_t tag = 0;    // the hash's upper 32 bits
    uint32_t index = 0;  // 1 + insertion index; 0 = empty
  };
  struct Entry {
    uint64_t hash;
    size_t offset;  // of the key in arena_
    size_t size;
    V value;
  };

  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

  bool Matches(size_t index, std::string_view key, uint64_t hash) const {
    const Entry& e = entries_[index];
    return e.hash == hash && e.size == key.size() &&
           std::string_view(arena_).substr(e.offset, e.size) == key;
  }

  // Slots for at least `keys` keys at a load of at most 3/4.
  void Grow(size_t keys) {
    size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    while (keys * 4 > capacity * 3) capacity *= 2;
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (size_t v = 0; v < entries_.size(); ++v) {
      const uint64_t hash = entries_[v].hash;
      size_t i = hash & mask_;
      while (slots_[i].index != 0) i = (i + 1) & mask_;
      slots_[i] = Slot{Tag(hash), static_cast<uint32_t>(v + 1)};
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<Entry> entries_;
  std::string arena_;
};

}  // namespace skald
