#include "index/index_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "index/index_test_util.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using testing::MixtureData;
using testing::TestRecord;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

VectorIndexOptions Options(const std::string& kind, int dim,
                           VectorEncoding encoding = VectorEncoding::kFloat32) {
  VectorIndexOptions o;
  o.kind = kind;
  o.embedder = "test-embedder:v1";
  o.dim = dim;
  o.encoding = encoding;
  o.hnsw.m = 6;
  o.hnsw.ef_construction = 40;
  return o;
}

std::unique_ptr<VectorIndex> Filled(const VectorIndexOptions& o, size_t n) {
  auto index = std::move(NewVectorIndex(o)).value();
  std::vector<float> data = MixtureData(n, o.dim, 5, 3);
  std::vector<RecordFields> recs;
  for (size_t i = 0; i < n; ++i) recs.push_back(TestRecord(i));
  EXPECT_TRUE(index->Upsert(recs, data).ok());
  std::vector<uint64_t> doomed;
  for (uint64_t i = 0; i < n; i += 7) doomed.push_back(i);
  EXPECT_TRUE(index->Delete(doomed).ok());
  index->set_applied_seq(1234);
  return index;
}

class RoundTripTest : public ::testing::TestWithParam<std::pair<const char*, VectorEncoding>> {};

TEST_P(RoundTripTest, LoadedIndexAnswersLikeTheSavedOne) {
  testing::TempDir dir;
  auto o = Options(GetParam().first, 16, GetParam().second);
  auto index = Filled(o, 700);
  std::string path = dir.Sub("vectors.skvi");
  ASSERT_TRUE(index->Save(path).ok());
  auto loaded = LoadVectorIndex(path, o);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), index->size());
  EXPECT_EQ((*loaded)->deleted(), index->deleted());
  EXPECT_EQ((*loaded)->applied_seq(), 1234);
  EXPECT_EQ((*loaded)->embedder(), "test-embedder:v1");
  std::vector<float> queries = MixtureData(20, 16, 5, 4);
  RecordFilter odd;
  odd.tags = {"odd"};
  for (const RecordFilter& f : {RecordFilter{}, odd}) {
    EXPECT_EQ(*(*loaded)->Count(f), *index->Count(f));
    for (int q = 0; q < 20; ++q) {
      std::span<const float> query(queries.data() + q * 16, 16);
      std::vector<SearchHit> a, b;
      ASSERT_TRUE(index->Search(query, f, {}, &a).ok());
      ASSERT_TRUE((*loaded)->Search(query, f, {}, &b).ok());
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].id, b[i].id);
        EXPECT_EQ(a[i].score, b[i].score);
      }
    }
  }
  // The loaded index keeps working: writes, deletes, compaction, save again.
  ASSERT_TRUE((*loaded)->Upsert(TestRecord(5000), std::vector<float>(16, 0.5f)).ok());
  ASSERT_EQ(*(*loaded)->Delete(std::vector<uint64_t>{1, 2}), 2u);
  ASSERT_TRUE((*loaded)->Compact().ok());
  ASSERT_TRUE((*loaded)->Save(path).ok());
  auto again = LoadVectorIndex(path, o);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->size(), index->size() - 1);
  EXPECT_EQ((*again)->deleted(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Kinds, RoundTripTest,
                         ::testing::Values(std::make_pair("flat", VectorEncoding::kFloat32),
                                           std::make_pair("flat", VectorEncoding::kInt8),
                                           std::make_pair("hnsw", VectorEncoding::kFloat32)));

TEST(IndexFileTest, EmptyIndexRoundTrips) {
  testing::TempDir dir;
  for (const char* kind : {"flat", "hnsw"}) {
    auto o = Options(kind, 8);
    auto index = std::move(NewVectorIndex(o)).value();
    ASSERT_TRUE(index->Save(dir.Sub(kind)).ok());
    auto loaded = LoadVectorIndex(dir.Sub(kind), o);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ((*loaded)->size(), 0u);
  }
}

TEST(IndexFileTest, EveryFlippedByteIsDetected) {
  testing::TempDir dir;
  for (const char* kind : {"flat", "hnsw"}) {
    auto o = Options(kind, 4);
    auto index = Filled(o, 60);
    std::string path = dir.Sub(std::string(kind) + ".skvi");
    ASSERT_TRUE(index->Save(path).ok());
    const std::string clean = ReadAll(path);
    ASSERT_GT(clean.size(), 100u);
    for (size_t pos = 0; pos < clean.size(); ++pos) {
      std::string bad = clean;
      bad[pos] = char(bad[pos] ^ 0x5a);
      WriteAll(path, bad);
      auto loaded = LoadVectorIndex(path, o);
      ASSERT_FALSE(loaded.ok()) << kind << ": flip at " << pos << " of " << clean.size()
                                << " went unnoticed";
      // The format version field may read as "from the future".
      if (pos >= 8 && pos < 12) continue;
      EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption)
          << kind << " flip at " << pos << ": " << loaded.status().ToString();
    }
    for (size_t len : {size_t{0}, size_t{5}, size_t{12}, clean.size() / 2, clean.size() - 1}) {
      WriteAll(path, clean.substr(0, len));
      auto loaded = LoadVectorIndex(path, o);
      EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption) << kind << " truncated to " << len;
    }
    WriteAll(path, clean + "x");
    EXPECT_EQ(LoadVectorIndex(path, o).status().code(), StatusCode::kCorruption);
    WriteAll(path, clean);
    EXPECT_TRUE(LoadVectorIndex(path, o).ok());
  }
}

TEST(IndexFileTest, MissingFileAndMismatchedOptions) {
  testing::TempDir dir;
  auto o = Options("hnsw", 8);
  EXPECT_EQ(LoadVectorIndex(dir.Sub("none"), o).status().code(), StatusCode::kNotFound);
  auto index = Filled(o, 50);
  std::string path = dir.Sub("v.skvi");
  ASSERT_TRUE(index->Save(path).ok());
  auto other_embedder = o;
  other_embedder.embedder = "another:v2";
  auto other_dim = o;
  other_dim.dim = 9;
  auto other_kind = o;
  other_kind.kind = "flat";
  auto other_m = o;
  other_m.hnsw.m = 8;
  auto other_metric = o;
  other_metric.metric = Metric::kInnerProduct;
  for (const auto& bad : {other_embedder, other_dim, other_kind, other_m, other_metric}) {
    auto loaded = LoadVectorIndex(path, bad);
    EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition)
        << loaded.status().ToString();
  }
}

}  // namespace
}  // namespace skald
