#include "text/flat_string_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace skald {
namespace {

TEST(FlatStringMapTest, InsertionOrderIndicesAndValues) {
  FlatStringMap<int> map;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Find("a"), nullptr);
  bool inserted = false;
  EXPECT_EQ(map.Insert("beta", &inserted), 0u);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(map.Insert("alpha", &inserted), 1u);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(map.Insert("beta", &inserted), 0u);
  EXPECT_FALSE(inserted);
  map["alpha"] = 7;
  map[""] = 3;  // the empty key is a key
  ASSERT_EQ(map.size(), 3u);
  EXPECT_EQ(map.Key(0), "beta");
  EXPECT_EQ(map.Key(1), "alpha");
  EXPECT_EQ(map.Key(2), "");
  ASSERT_NE(map.Find("alpha"), nullptr);
  EXPECT_EQ(*map.Find("alpha"), 7);
  EXPECT_EQ(*map.Find(""), 3);
  EXPECT_EQ(map.Value(0), 0);  // value-initialized
  EXPECT_EQ(map.HashAt(1), FlatStringMap<int>::Hash("alpha"));
  map.clear();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Find("alpha"), nullptr);
  EXPECT_EQ(map.Insert("gamma"), 0u);
}

// Many keys, with and without precomputed hashes, prefetches and
// reservations, against std::map.
TEST(FlatStringMapTest, AgreesWithStdMapThroughGrowth) {
  std::mt19937_64 rng(5);
  FlatStringMap<uint32_t> map;
  std::map<std::string, uint32_t> reference;
  std::vector<std::string> order;
  for (int i = 0; i < 20000; ++i) {
    std::string key = "k" + std::to_string(rng() % 6000);
    if (i % 1000 == 0) map.Reserve(map.size() + 500);
    const uint64_t hash = FlatStringMap<uint32_t>::Hash(key);
    map.Prefetch(hash);
    map.PrefetchKey(hash);
    bool inserted = false;
    const size_t index = i % 2 == 0 ? map.Insert(key, hash, &inserted) : map.Insert(key, &inserted);
    auto [it, fresh] = reference.emplace(key, 0);
    EXPECT_EQ(inserted, fresh);
    if (fresh) order.push_back(key);
    ++map.Value(index);
    ++it->second;
  }
  ASSERT_EQ(map.size(), reference.size());
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(map.Key(i), order[i]);
    EXPECT_EQ(map.Value(i), reference[order[i]]);
    const uint32_t* found = map.Find(order[i], FlatStringMap<uint32_t>::Hash(order[i]));
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, reference[order[i]]);
  }
  EXPECT_EQ(map.Find("k6000"), nullptr);
  // Copies and moves keep the order and the values.
  FlatStringMap<uint32_t> copy = map;
  FlatStringMap<uint32_t> moved = std::move(map);
  EXPECT_TRUE(map.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(map.Find(order[0]), nullptr);
  for (const FlatStringMap<uint32_t>* m : {&copy, &moved}) {
    ASSERT_EQ(m->size(), order.size());
    for (size_t i = 0; i < order.size(); i += 97) {
      EXPECT_EQ(m->Key(i), order[i]);
      EXPECT_EQ(*m->Find(order[i]), reference[order[i]]);
    }
  }
  // Cleared, the map reuses its storage and forgets its values.
  copy.clear();
  EXPECT_EQ(copy.Find(order[0]), nullptr);
  EXPECT_EQ(copy.Insert(std::string(70000, 'x')), 0u);  // longer than a key block
  EXPECT_EQ(copy.Insert(order[1]), 1u);
  EXPECT_EQ(copy.Value(1), 0u);
  EXPECT_EQ(copy.Key(0), std::string(70000, 'x'));
  EXPECT_EQ(copy.Key(1), order[1]);
  EXPECT_EQ(map.Find("absent", FlatStringMap<uint32_t>::Hash("absent")), nullptr);
  // Hints on an empty map do nothing.
  FlatStringMap<uint32_t> none;
  none.Prefetch(1);
  none.PrefetchKey(1);
  none.Reserve(0);
  EXPECT_EQ(none.Find("x"), nullptr);
}

// The inline hash reads every byte of keys of each length (the short,
// overlapping and 16-byte-round paths): keys differing in one byte, or only
// in length, hash apart, and the slot index's low bits and the tag's high
// bits are spread evenly.
TEST(FlatStringMapTest, HashMixesEveryByteOfEveryLength) {
  using Map = FlatStringMap<char>;
  std::set<uint64_t> seen;
  size_t keys = 0;
  std::vector<size_t> low(64), high(64);
  for (size_t n = 0; n <= 70; ++n) {
    const std::string base(n, 'a');
    ASSERT_TRUE(seen.insert(Map::Hash(base)).second) << n;
    ++keys;
    for (size_t at = 0; at < n; ++at) {
      for (char c : {'b', 'A', '\0', '\xff'}) {
        std::string key = base;
        key[at] = c;
        const uint64_t h = Map::Hash(key);
        ASSERT_TRUE(seen.insert(h).second) << "length " << n << " byte " << at;
        ++keys;
        ++low[h & 63];
        ++high[(h >> 58) & 63];
      }
    }
  }
  EXPECT_EQ(Map::Hash("same"), Map::Hash(std::string("same")));
  // Each of 64 buckets holds its share within a factor of two.
  for (size_t b = 0; b < 64; ++b) {
    EXPECT_GT(low[b], keys / 64 / 2) << b;
    EXPECT_LT(low[b], keys / 64 * 2) << b;
    EXPECT_GT(high[b], keys / 64 / 2) << b;
    EXPECT_LT(high[b], keys / 64 * 2) << b;
  }
}

}  // namespace
}  // namespace skald
