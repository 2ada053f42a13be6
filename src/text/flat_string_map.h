#pragma once

// FlatStringMap: a hash map from byte strings to values, for the per-token
// lookups of the tokenizer, the keyphrase code and the hashing embedder.
// Open addressing over a flat slot array that holds each key's hash; keys
// live in one arena and values in one vector in insertion order, so a lookup
// that misses touches one cache line and an insert allocates nothing but
// amortized growth. Iteration is in insertion order.
//
// Thread safety: a value type; const members are safe to call concurrently.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace skald {

template <typename V>
class FlatStringMap {
 public:
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }

  void clear() {
    slots_.clear();
    keys_.clear();
    values_.clear();
    arena_.clear();
  }

  static constexpr size_t npos = static_cast<size_t>(-1);

  // The value of `key`, or null.
  const V* Find(std::string_view key) const {
    const size_t index = IndexOf(key);
    return index == npos ? nullptr : &values_[index];
  }

  // The insertion index of `key`, or npos.
  size_t IndexOf(std::string_view key) const {
    if (slots_.empty()) return npos;
    uint64_t hash = Hash(key);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.index == 0) return npos;
      if (s.hash == hash && Equal(Key(s.index - 1), key)) return s.index - 1;
    }
  }

  // The insertion index of `key` (0, 1, ... in order of first insertion),
  // inserting it with a value-initialized V when absent; `*inserted` (if
  // given) tells whether it was.
  size_t Insert(std::string_view key, bool* inserted = nullptr) {
    if ((values_.size() + 1) * 4 > slots_.size() * 3) Grow();
    uint64_t hash = Hash(key);
    size_t i = hash & mask_;
    for (;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.index == 0) break;
      if (s.hash == hash && Equal(Key(s.index - 1), key)) {
        if (inserted != nullptr) *inserted = false;
        return s.index - 1;
      }
    }
    keys_.push_back({arena_.size(), key.size()});
    arena_.append(key);
    values_.emplace_back();
    slots_[i] = Slot{hash, static_cast<uint32_t>(values_.size())};
    if (inserted != nullptr) *inserted = true;
    return values_.size() - 1;
  }

  V& operator[](std::string_view key) { return values_[Insert(key)]; }

  // By insertion index (< size()).
  std::string_view Key(size_t index) const {
    return std::string_view(arena_).substr(keys_[index].first, keys_[index].second);
  }
  V& Value(size_t index) { return values_[index]; }
  const V& Value(size_t index) const { return values_[index]; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t index = 0;  // 1 + insertion index; 0 = empty
  };

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

  static uint64_t Hash(std::string_view key) {
    // Spread the bits the slot index is taken from.
    uint64_t h = std::hash<std::string_view>{}(key);
    return h ^ (h >> 29);
  }

  void Grow() {
    size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (size_t v = 0; v < values_.size(); ++v) {
      uint64_t hash = Hash(Key(v));
      size_t i = hash & mask_;
      while (slots_[i].index != 0) i = (i + 1) & mask_;
      slots_[i] = Slot{hash, static_cast<uint32_t>(v + 1)};
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<std::pair<size_t, size_t>> keys_;  // offset and length in arena_
  std::vector<V> values_;
  std::string arena_;
};

}  // namespace skald
