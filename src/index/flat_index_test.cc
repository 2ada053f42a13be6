#include "index/flat_index.h"

#include <gtest/gtest.h>

#include <map>

#include "index/index_test_util.h"
#include "index/vector_kernels.h"

namespace skald {
namespace {

using testing::BruteForce;
using testing::MixtureData;
using testing::SameTopK;
using testing::TestRecord;

struct Param {
  Metric metric;
  VectorEncoding encoding;
};

class FlatIndexTest : public ::testing::TestWithParam<Param> {
 protected:
  static constexpr int kDim = 24;

  void SetUp() override {
    VectorIndexOptions o;
    o.kind = "flat";
    o.embedder = "test";
    o.dim = kDim;
    o.metric = GetParam().metric;
    o.encoding = GetParam().encoding;
    auto created = NewVectorIndex(o);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    index_ = std::move(created).value();
    data_ = MixtureData(3020, kDim, 12, 11);
    queries_.assign(data_.begin() + 3000 * kDim, data_.end());
    data_.resize(3000 * kDim);
    std::vector<RecordFields> batch;
    for (uint64_t i = 0; i < 3000; ++i) {
      batch.push_back(TestRecord(i));
      records_[i] = batch.back();
      vectors_[i].assign(data_.begin() + i * kDim, data_.begin() + (i + 1) * kDim);
    }
    ASSERT_TRUE(index_->Upsert(batch, data_).ok());
  }

  std::vector<float> Query(int q) const {
    return {queries_.begin() + q * kDim, queries_.begin() + (q + 1) * kDim};
  }

  // What the index scores for kInt8: the normalized (cosine) vector,
  // quantized, then dequantized. Scores over these are the index's scores.
  std::vector<float> AsStored(std::vector<float> v) const {
    if (GetParam().encoding != VectorEncoding::kInt8) return v;
    if (GetParam().metric == Metric::kCosine) NormalizeL2(v.data(), v.size());
    std::vector<int8_t> codes(v.size());
    float scale = QuantizeInt8(v.data(), v.size(), codes.data());
    for (size_t i = 0; i < v.size(); ++i) v[i] = codes[i] * scale;
    return v;
  }

  // The index equals brute force; for kInt8, brute force over the quantized
  // vectors (and query) with inner product, which is what "exact over int8" means.
  void ExpectMatchesBruteForce(const RecordFilter& f, int k) {
    const bool int8 = GetParam().encoding == VectorEncoding::kInt8;
    std::map<uint64_t, std::vector<float>> stored;
    for (const auto& [id, v] : vectors_) stored[id] = AsStored(v);
    for (int q = 0; q < 20; ++q) {
      std::vector<SearchHit> got;
      SearchOptions o;
      o.k = k;
      ASSERT_TRUE(index_->Search(Query(q), f, o, &got).ok());
      auto truth = BruteForce(records_, stored, AsStored(Query(q)),
                              int8 ? Metric::kInnerProduct : GetParam().metric, f, size_t(k));
      float tolerance = int8 ? 1e-3f * std::max(1.0f, std::fabs(truth.empty() ? 1 : truth[0].score))
                             : 1e-4f;
      EXPECT_TRUE(SameTopK(truth, got, records_, f, tolerance)) << "query " << q;
      if (int8) {  // and quantization loses little against float32
        auto exact = BruteForce(records_, vectors_, Query(q), GetParam().metric, f, size_t(k));
        EXPECT_GE(testing::RecallOf(exact, got), 0.6) << "query " << q;
      }
    }
  }

  std::unique_ptr<VectorIndex> index_;
  std::vector<float> data_, queries_;
  std::map<uint64_t, RecordFields> records_;
  std::map<uint64_t, std::vector<float>> vectors_;
};

TEST_P(FlatIndexTest, UnfilteredSearchIsExact) { ExpectMatchesBruteForce({}, 10); }

TEST_P(FlatIndexTest, FilteredSearchEqualsFilteredBruteForce) {
  std::vector<RecordFilter> filters(7);
  filters[0].context_types = {ContextType::kSkill};                       // ~10%
  filters[1].owners = {"u2"};                                             // ~12%
  filters[2].tags = {"t=1", "odd"};                                       // ~10%
  filters[3].uri_scopes = {UriScope::Children("viking://resources/a1/b5")};  // tiny
  filters[4].uri_scopes = {UriScope::Subtree("viking://resources/a2")};   // 25%
  filters[4].WithLevels({1});
  filters[5].created_min = 2990;                                          // 10 records
  filters[6].account = "other";
  filters[6].updated_max = 300;
  for (size_t i = 0; i < filters.size(); ++i) {
    SCOPED_TRACE("filter " + std::to_string(i));
    ExpectMatchesBruteForce(filters[i], 10);
    ExpectMatchesBruteForce(filters[i], 200);
  }
}

TEST_P(FlatIndexTest, CountMatchesReference) {
  RecordFilter f;
  f.tags = {"even"};
  f.context_types = {ContextType::kResource};
  uint64_t want = 0;
  for (const auto& [id, r] : records_) want += testing::RefMatches(f, r);
  auto n = index_->Count(f);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, want);
  EXPECT_EQ(*index_->Count({}), 3000u);
  RecordFilter dir;
  dir.uri_scopes = {UriScope::Children("viking://resources/a3")};
  want = 0;
  for (const auto& [id, r] : records_) want += testing::RefMatches(dir, r);
  EXPECT_EQ(*index_->Count(dir), want);
  // A value listed twice selects the same records as listed once.
  RecordFilter once;
  once.context_types = {ContextType::kMemory};
  RecordFilter twice;
  twice.context_types = {ContextType::kMemory, ContextType::kMemory};
  EXPECT_EQ(*index_->Count(twice), *index_->Count(once));
}

TEST_P(FlatIndexTest, UpsertReplacesAndDeleteRemoves) {
  // Move record 5 next to the query and retag it; delete a batch.
  std::vector<float> q = Query(0);
  std::vector<float> near = q;
  for (auto& x : near) x *= 10;  // the best match for both metrics
  RecordFields r = TestRecord(5);
  r.tags = {"moved"};
  ASSERT_TRUE(index_->Upsert(r, near).ok());
  records_[5] = r;
  vectors_[5] = near;
  std::vector<uint64_t> doomed;
  for (uint64_t i = 100; i < 400; ++i) {
    doomed.push_back(i);
    records_.erase(i);
    vectors_.erase(i);
  }
  doomed.push_back(999999);  // unknown ids are ignored
  auto removed = index_->Delete(doomed);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 300u);
  EXPECT_EQ(index_->size(), 2700u);
  EXPECT_EQ(index_->deleted(), 301u);  // 300 deletes + the replaced slot

  std::vector<SearchHit> got;
  ASSERT_TRUE(index_->Search(q, {}, {}, &got).ok());
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0].id, 5u);
  RecordFilter moved;
  moved.tags = {"moved"};
  EXPECT_EQ(*index_->Count(moved), 1u);
  ExpectMatchesBruteForce({}, 10);

  ASSERT_TRUE(index_->Compact().ok());
  EXPECT_EQ(index_->deleted(), 0u);
  EXPECT_EQ(index_->size(), 2700u);
  ExpectMatchesBruteForce({}, 10);
  RecordFilter skills;
  skills.context_types = {ContextType::kSkill};
  ExpectMatchesBruteForce(skills, 10);
}

TEST_P(FlatIndexTest, RejectsBadInput) {
  std::vector<SearchHit> got;
  std::vector<float> short_query(kDim - 1, 0.5f);
  EXPECT_EQ(index_->Search(short_query, {}, {}, &got).code(), StatusCode::kInvalidArgument);
  std::vector<float> nan_query(kDim, std::nanf(""));
  EXPECT_EQ(index_->Search(nan_query, {}, {}, &got).code(), StatusCode::kInvalidArgument);
  SearchOptions zero_k;
  zero_k.k = 0;
  EXPECT_EQ(index_->Search(Query(0), {}, zero_k, &got).code(), StatusCode::kInvalidArgument);
  RecordFields r = TestRecord(1);
  r.level = 9;
  EXPECT_EQ(index_->Upsert(r, Query(0)).code(), StatusCode::kInvalidArgument);
  std::vector<RecordFields> dup = {TestRecord(1), TestRecord(1)};
  std::vector<float> two(2 * kDim, 0.1f);
  EXPECT_EQ(index_->Upsert(dup, two).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index_->Upsert(TestRecord(1), short_query).code(), StatusCode::kInvalidArgument);
  RecordFilter bad;
  bad.created_min = 10;
  bad.created_max = 5;
  EXPECT_EQ(index_->Search(Query(0), bad, {}, &got).code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, FlatIndexTest,
    ::testing::Values(Param{Metric::kCosine, VectorEncoding::kFloat32},
                      Param{Metric::kInnerProduct, VectorEncoding::kFloat32},
                      Param{Metric::kCosine, VectorEncoding::kInt8},
                      Param{Metric::kInnerProduct, VectorEncoding::kInt8}),
    [](const ::testing::TestParamInfo<Param>& p) {
      return std::string(MetricName(p.param.metric)) + "_" +
             std::string(EncodingName(p.param.encoding));
    });

}  // namespace
}  // namespace skald
