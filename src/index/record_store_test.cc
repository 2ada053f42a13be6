#include "index/record_store.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "index/index_test_util.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

using testing::RefMatches;
using testing::TestRecord;

// The reference depth (RefDepth, used by RefMatches) and the index's UriDepth
// both agree with depths counted by hand, and with how TestRecord builds URIs.
TEST(UriTest, DepthMatchesHandCountedDepths) {
  for (const auto& c : testing::kHandCountedDepths) {
    EXPECT_EQ(testing::RefDepth(c.uri), c.depth) << c.uri;
    EXPECT_EQ(UriDepth(c.uri), c.depth) << c.uri;
  }
  for (uint64_t i = 0; i < 200; ++i) {
    // viking://resources/a<i%4>[/b<i%13>/f<i>]: a directory record every 50.
    EXPECT_EQ(testing::RefDepth(TestRecord(i).uri), i % 50 == 0 ? 2 : 4) << TestRecord(i).uri;
  }
}

class RecordStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<float> v(4, 1.0f);
    for (uint64_t i = 0; i < 600; ++i) {
      records_.push_back(TestRecord(i));
      store_.Append(records_.back(), v.data());
    }
    snap_ = StoreSnapshot{1, store_.slots()};
  }

  // Every matching slot by the reference semantics.
  std::vector<uint32_t> Reference(const RecordFilter& f) const {
    std::vector<uint32_t> out;
    for (uint32_t s = 0; s < records_.size(); ++s) {
      if (store_.Visible(s, snap_) && RefMatches(f, records_[s])) out.push_back(s);
    }
    return out;
  }

  void ExpectAllPathsAgree(const RecordFilter& f) {
    std::vector<uint32_t> want = Reference(f);
    CompiledFilter c = store_.Compile(f);
    std::vector<uint32_t> collected;
    store_.CollectMatches(c, snap_, &collected);
    EXPECT_EQ(collected, want);
    std::vector<uint32_t> enumerated;
    if (store_.EnumerateScopes(c, snap_, 1 << 20, &enumerated)) {
      std::sort(enumerated.begin(), enumerated.end());
      EXPECT_EQ(enumerated, want);
    } else {
      EXPECT_TRUE(f.uri_scopes.empty());
    }
    std::vector<uint32_t> posted;
    if (store_.CollectFromPostings(c, snap_, 1 << 20, &posted)) {
      std::sort(posted.begin(), posted.end());
      EXPECT_EQ(posted, want);
      EXPECT_GE(store_.PostingBound(c), want.size());
    } else {
      EXPECT_EQ(store_.PostingBound(c), UINT64_MAX);
    }
    // The estimate is exact when the sample covers every slot.
    EXPECT_EQ(store_.EstimateMatches(c, snap_, 1024), want.size());
  }

  RecordStore store_{4, Metric::kCosine, VectorEncoding::kFloat32};
  std::vector<RecordFields> records_;
  StoreSnapshot snap_;
};

TEST_F(RecordStoreTest, RoundTripsRecordFields) {
  RecordFields r = store_.GetRecord(42);
  EXPECT_EQ(r.key, 42u);
  EXPECT_EQ(r.uri, records_[42].uri);
  EXPECT_EQ(r.owner, records_[42].owner);
  EXPECT_EQ(r.context_type, records_[42].context_type);
  std::vector<std::string> tags = records_[42].tags;
  std::vector<std::string> got = r.tags;
  std::sort(tags.begin(), tags.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, tags);
}

TEST_F(RecordStoreTest, FiltersOfEveryKindMatchTheReference) {
  std::vector<RecordFilter> filters(14);
  filters[1].account = "other";
  filters[2].WithLevels({0, 2});
  filters[3].context_types = {ContextType::kSkill, ContextType::kMemory};
  filters[4].owners = {"", "u3"};
  filters[5].tags = {"t=3", "odd"};
  filters[6].created_min = 100;
  filters[6].created_max = 199;
  filters[7].updated_max = 500;
  filters[8].uri_scopes = {UriScope::Children("viking://resources/a1")};
  filters[9].uri_scopes = {UriScope::Subtree("viking://resources/a2")};
  filters[10].uri_scopes = {UriScope::Children("viking://resources/a1/b5"),
                            UriScope::Subtree("viking://resources/a3/b3")};
  filters[11].uri_scopes = {UriScope{"viking://resources", 2, 3}};
  filters[12].uri_scopes = {UriScope::Subtree("viking://")};
  filters[12].owners = {"u1"};
  filters[12].tags = {"even"};
  filters[13].uri_scopes = {UriScope::Subtree("viking://resources/a1/b")};  // segment boundary
  for (size_t i = 0; i < filters.size(); ++i) {
    SCOPED_TRACE("filter " + std::to_string(i));
    ExpectAllPathsAgree(filters[i]);
  }
  EXPECT_TRUE(Reference(filters[13]).empty());
  EXPECT_FALSE(Reference(filters[10]).empty());
  EXPECT_FALSE(Reference(filters[9]).empty());
}

TEST_F(RecordStoreTest, UnknownStringsMatchNothing) {
  RecordFilter f;
  f.owners = {"nobody"};
  EXPECT_TRUE(store_.Compile(f).match_nothing);
  RecordFilter g;
  g.tags = {"odd", "no-such-tag"};
  EXPECT_TRUE(store_.Compile(g).match_nothing);
  // A context type no record carries matches nothing; any-of: one present
  // type is enough.
  RecordStore resources_only(4, Metric::kCosine, VectorEncoding::kFloat32);
  RecordFields r = TestRecord(1);
  r.context_type = ContextType::kResource;
  std::vector<float> v(4, 1.0f);
  resources_only.Append(r, v.data());
  RecordFilter h;
  h.context_types = {ContextType::kSkill};
  EXPECT_TRUE(resources_only.Compile(h).match_nothing);
  h.context_types = {ContextType::kSkill, ContextType::kResource};
  EXPECT_FALSE(resources_only.Compile(h).match_nothing);
}

TEST_F(RecordStoreTest, TombstonesAreVersioned) {
  store_.MarkDeleted(10, 5);
  EXPECT_TRUE(store_.Visible(10, StoreSnapshot{4, store_.slots()}));
  EXPECT_FALSE(store_.Visible(10, StoreSnapshot{5, store_.slots()}));
  EXPECT_FALSE(store_.Visible(store_.slots(), StoreSnapshot{9, store_.slots()}));
  snap_ = StoreSnapshot{5, store_.slots()};
  RecordFilter all;
  all.uri_scopes = {UriScope::Subtree("viking://resources")};
  ExpectAllPathsAgree(all);
  EXPECT_EQ(Reference(all).size(), records_.size() - 1);
}

TEST_F(RecordStoreTest, EnumerationGivesUpPastItsBudget) {
  RecordFilter f;
  f.uri_scopes = {UriScope::Subtree("viking://resources")};
  std::vector<uint32_t> out;
  EXPECT_FALSE(store_.EnumerateScopes(store_.Compile(f), snap_, 100, &out));
}

}  // namespace
}  // namespace skald
