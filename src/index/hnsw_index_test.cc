#include "index/hnsw_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "index/index_file.h"
#include "index/index_test_util.h"
#include "tests/testutil/index_file_version.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using testing::BruteForce;
using testing::MixtureData;
using testing::RecallOf;
using testing::RefMatches;
using testing::SameTopK;
using testing::TestRecord;

constexpr int kDim = 32;
constexpr size_t kN = 5000;
constexpr int kQueries = 60;

VectorIndexOptions HnswOptions(int build_threads = 1) {
  VectorIndexOptions o;
  o.kind = "hnsw";
  o.embedder = "test";
  o.dim = kDim;
  o.metric = Metric::kCosine;
  o.hnsw.m = 12;
  o.hnsw.ef_construction = 80;
  o.hnsw.ef_search = 64;
  o.hnsw.build_threads = build_threads;
  o.exact_max_candidates = 200;  // small, so both planner paths are exercised at this size
  o.exact_max_fraction = 0.0;
  return o;
}

class HnswIndexTest : public ::testing::Test {
 protected:
  void Build(int build_threads) { Build(HnswOptions(build_threads)); }
  void Build(const VectorIndexOptions& options) {
    auto created = NewVectorIndex(options);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    index_ = std::move(created).value();
    // Queries come from the same mixture as the data (the last kQueries rows).
    std::vector<float> data = MixtureData(kN + kQueries, kDim, 25, 21);
    queries_.assign(data.begin() + kN * kDim, data.end());
    data.resize(kN * kDim);
    std::vector<RecordFields> batch;
    for (uint64_t i = 0; i < kN; ++i) {
      batch.push_back(TestRecord(i));
      records_[i] = batch.back();
      vectors_[i].assign(data.begin() + i * kDim, data.begin() + (i + 1) * kDim);
    }
    ASSERT_TRUE(index_->Upsert(batch, data).ok());
  }

  std::vector<float> Query(int q) const {
    return {queries_.begin() + q * kDim, queries_.begin() + (q + 1) * kDim};
  }

  // Mean recall@k of the index against filtered brute force; checks every
  // hit passes the filter and reports the path of the last search.
  double MeanRecall(const RecordFilter& f, int k, SearchPath* path = nullptr) {
    double sum = 0;
    for (int q = 0; q < kQueries; ++q) {
      std::vector<SearchHit> got;
      SearchOptions o;
      o.k = k;
      SearchStats stats;
      EXPECT_TRUE(index_->Search(Query(q), f, o, &got, &stats).ok());
      if (path) *path = stats.path;
      for (const auto& h : got) {
        EXPECT_TRUE(records_.count(h.id) && RefMatches(f, records_.at(h.id))) << "id " << h.id;
      }
      for (size_t i = 1; i < got.size(); ++i) EXPECT_GE(got[i - 1].score, got[i].score);
      sum += RecallOf(BruteForce(records_, vectors_, Query(q), Metric::kCosine, f, size_t(k)), got);
    }
    return sum / kQueries;
  }

  std::unique_ptr<VectorIndex> index_;
  std::vector<float> queries_;
  std::map<uint64_t, RecordFields> records_;
  std::map<uint64_t, std::vector<float>> vectors_;
};

TEST_F(HnswIndexTest, RecallAgainstExactSearch) {
  Build(1);
  // A graph with missing or wrong links lands far below this.
  EXPECT_GE(MeanRecall({}, 10), 0.95);
  // The flat index agrees with brute force, so it is a valid reference too.
  VectorIndexOptions fo = HnswOptions();
  fo.kind = "flat";
  auto flat = NewVectorIndex(fo);
  ASSERT_TRUE(flat.ok());
  std::vector<float> all;
  std::vector<RecordFields> recs;
  for (const auto& [id, r] : records_) {
    recs.push_back(r);
    all.insert(all.end(), vectors_[id].begin(), vectors_[id].end());
  }
  ASSERT_TRUE((*flat)->Upsert(recs, all).ok());
  double sum = 0;
  for (int q = 0; q < kQueries; ++q) {
    std::vector<SearchHit> exact, approx;
    ASSERT_TRUE((*flat)->Search(Query(q), {}, {}, &exact).ok());
    ASSERT_TRUE(index_->Search(Query(q), {}, {}, &approx).ok());
    sum += RecallOf(exact, approx);
  }
  EXPECT_GE(sum / kQueries, 0.95);
}

TEST_F(HnswIndexTest, ParallelBuildKeepsRecall) {
  Build(2);
  EXPECT_GE(MeanRecall({}, 10), 0.95);
}

TEST_F(HnswIndexTest, LowEfStillFindsMostNeighbours) {
  Build(1);
  double sum = 0;
  for (int q = 0; q < kQueries; ++q) {
    std::vector<SearchHit> got;
    SearchOptions o;
    o.ef = 10;
    ASSERT_TRUE(index_->Search(Query(q), {}, o, &got).ok());
    sum += RecallOf(BruteForce(records_, vectors_, Query(q), Metric::kCosine, {}, 10), got);
  }
  EXPECT_GE(sum / kQueries, 0.6);
}

TEST_F(HnswIndexTest, FilteredSearchOnBothPlannerPaths) {
  Build(1);
  struct Case {
    RecordFilter f;
    SearchPath path;
  };
  std::vector<Case> cases(7);
  cases[0].f.tags = {"even"};  // 50%: graph
  cases[0].path = SearchPath::kGraph;
  cases[1].f.context_types = {ContextType::kSkill};  // 10%: graph
  cases[1].path = SearchPath::kGraph;
  cases[2].f.owners = {"u3"};  // ~12%
  cases[2].f.tags = {"t=4"};   // ~2.5% = ~120 records; postings list too many: sampled, exact scan
  cases[2].path = SearchPath::kExactScan;
  cases[3].f.uri_scopes = {UriScope::Children("viking://resources/a1/b5")};  // tiny: enumerated
  cases[3].path = SearchPath::kExactCandidates;
  cases[4].f.uri_scopes = {UriScope::Subtree("viking://resources/a2")};  // 25%: graph
  cases[4].path = SearchPath::kGraph;
  cases[5].f.created_min = 4900;  // 100 records, no postings: sampled, then exact scan
  cases[5].path = SearchPath::kExactScan;
  cases[6].f.tags = {"r=7", "odd"};  // the "r=7" postings list 125 slots: exact over them
  cases[6].path = SearchPath::kExactCandidates;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    SearchPath path;
    double recall = MeanRecall(cases[i].f, 10, &path);
    EXPECT_EQ(path, cases[i].path);
    if (path == SearchPath::kGraph) {
      EXPECT_GE(recall, 0.9);
    } else {
      EXPECT_EQ(recall, 1.0);
      for (int q = 0; q < 5; ++q) {
        std::vector<SearchHit> got;
        ASSERT_TRUE(index_->Search(Query(q), cases[i].f, {}, &got).ok());
        EXPECT_TRUE(SameTopK(BruteForce(records_, vectors_, Query(q), Metric::kCosine,
                                        cases[i].f, 10),
                             got, records_, cases[i].f));
      }
    }
  }
}

TEST_F(HnswIndexTest, ExactOptionEqualsBruteForce) {
  Build(1);
  RecordFilter f;
  f.context_types = {ContextType::kMemory};
  for (int q = 0; q < 10; ++q) {
    std::vector<SearchHit> got;
    SearchOptions o;
    o.exact = true;
    o.k = 25;
    ASSERT_TRUE(index_->Search(Query(q), f, o, &got).ok());
    EXPECT_TRUE(SameTopK(BruteForce(records_, vectors_, Query(q), Metric::kCosine, f, 25), got,
                         records_, f));
  }
}

TEST_F(HnswIndexTest, CountFilter) {
  Build(1);
  RecordFilter f;
  f.WithLevels({2});
  f.owners = {"u1", "u2"};
  uint64_t want = 0;
  for (const auto& [id, r] : records_) want += RefMatches(f, r);
  EXPECT_EQ(*index_->Count(f), want);
  EXPECT_EQ(*index_->Count({}), kN);
}

TEST_F(HnswIndexTest, DeletesAreNeverReturnedAndCompactionKeepsRecall) {
  Build(1);
  std::vector<uint64_t> doomed;
  for (uint64_t i = 0; i < kN; i += 5) {
    for (uint64_t j = i; j < i + 2; ++j) doomed.push_back(j);  // 40%
  }
  for (uint64_t id : doomed) {
    records_.erase(id);
    vectors_.erase(id);
  }
  ASSERT_EQ(*index_->Delete(doomed), doomed.size());
  EXPECT_GE(MeanRecall({}, 10), 0.93);
  EXPECT_EQ(*index_->Count({}), records_.size());
  ASSERT_TRUE(index_->Compact().ok());
  EXPECT_EQ(index_->deleted(), 0u);
  EXPECT_EQ(index_->size(), records_.size());
  EXPECT_GE(MeanRecall({}, 10), 0.95);
  RecordFilter f;
  f.tags = {"odd"};
  EXPECT_GE(MeanRecall(f, 10), 0.9);
}

TEST_F(HnswIndexTest, EmptyAndTinyIndexes) {
  auto created = NewVectorIndex(HnswOptions());
  ASSERT_TRUE(created.ok());
  auto& index = *created;
  std::vector<SearchHit> got;
  std::vector<float> q(kDim, 0.25f);
  ASSERT_TRUE(index->Search(q, {}, {}, &got).ok());
  EXPECT_TRUE(got.empty());
  ASSERT_TRUE(index->Upsert(TestRecord(1), q).ok());
  ASSERT_TRUE(index->Upsert(TestRecord(2), std::vector<float>(kDim, -0.25f)).ok());
  ASSERT_TRUE(index->Search(q, {}, {}, &got).ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].id, 1u);
  EXPECT_NEAR(got[0].score, 1.0f, 1e-5);
  EXPECT_NEAR(got[1].score, -1.0f, 1e-5);
}

// Writers insert batches of 40 records tagged "batch=B" and delete whole old
// batches; readers check that every batch is seen all-or-nothing (each write
// commits atomically and each search reads one snapshot), that graph results
// are sorted and come from inserted batches, while Compact() runs too.
// Records left unlinked (HnswParams::max_unlinked) are found all the same:
// searches score them exactly until LinkPending links them.
TEST_F(HnswIndexTest, UnlinkedRecordsAreFoundAndLinkedLater) {
  VectorIndexOptions o = HnswOptions();
  o.hnsw.max_unlinked = 3000;
  auto created = NewVectorIndex(o);
  ASSERT_TRUE(created.ok());
  index_ = std::move(created).value();
  std::vector<float> data = MixtureData(kN + kQueries, kDim, 25, 21);
  queries_.assign(data.begin() + kN * kDim, data.end());
  // Three batches: the first two wait (2,000 <= 3,000), the third would
  // leave 4,000 (1,000 were linked meanwhile) and so links the oldest
  // 1,000 itself.
  auto upsert = [&](uint64_t from, uint64_t to) {
    std::vector<RecordFields> batch;
    std::vector<float> v;
    for (uint64_t i = from; i < to; ++i) {
      batch.push_back(TestRecord(i));
      records_[i] = batch.back();
      vectors_[i].assign(data.begin() + i * kDim, data.begin() + (i + 1) * kDim);
      v.insert(v.end(), vectors_[i].begin(), vectors_[i].end());
    }
    ASSERT_TRUE(index_->Upsert(batch, v).ok());
  };
  upsert(0, 1000);
  upsert(1000, 2000);
  EXPECT_EQ(index_->pending_links(), 2000u);
  // Nothing linked yet: every search is exact, filters included.
  EXPECT_DOUBLE_EQ(MeanRecall({}, 10), 1.0);
  RecordFilter mem;
  mem.context_types = {ContextType::kMemory};
  EXPECT_DOUBLE_EQ(MeanRecall(mem, 10), 1.0);
  // Half linked: the graph answers for one part, the scan for the other.
  EXPECT_EQ(index_->LinkPending(1000), 1000u);
  EXPECT_EQ(index_->pending_links(), 1000u);
  EXPECT_GE(MeanRecall({}, 10), 0.95);
  // A replaced record is returned once, by its new vector.
  RecordFields again = TestRecord(1500);
  std::vector<float> moved = Query(0);
  ASSERT_TRUE(index_->Upsert(again, moved).ok());
  vectors_[1500] = moved;
  std::vector<SearchHit> hits;
  SearchOptions top;
  top.k = 5;
  ASSERT_TRUE(index_->Search(Query(0), {}, top, &hits).ok());
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].id, 1500u);
  for (size_t i = 1; i < hits.size(); ++i) EXPECT_NE(hits[i].id, 1500u);
  // Past max_unlinked the writer links what passes it.
  upsert(2000, kN);
  EXPECT_EQ(index_->pending_links(), 3000u);
  EXPECT_GE(MeanRecall({}, 10), 0.95);
  EXPECT_EQ(index_->LinkPending(kN), 3000u);
  EXPECT_EQ(index_->LinkPending(100), 0u);
  EXPECT_GE(MeanRecall({}, 10), 0.95);
}

// Save does not link what waits for links: it is saved waiting (format
// version 2), loaded waiting, found by exact scoring meanwhile and linked
// later; a whole index is saved in version 1.
TEST_F(HnswIndexTest, SaveKeepsWhatWaitsForLinks) {
  VectorIndexOptions o = HnswOptions();
  o.hnsw.max_unlinked = kN;
  Build(o);
  ASSERT_EQ(index_->pending_links(), kN);
  testing::TempDir dir;
  const std::string path = dir.Sub("v.skvi");
  auto reload = [&] {
    auto loaded = LoadVectorIndex(path, o);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    index_ = std::move(loaded).value();
  };
  // Nothing linked: the file has no graph node.
  ASSERT_TRUE(index_->Save(path).ok());
  EXPECT_EQ(index_->pending_links(), kN);
  EXPECT_EQ(testing::IndexFileVersion(path), kIndexFormatPartlyLinked);
  reload();
  EXPECT_EQ(index_->size(), kN);
  EXPECT_EQ(index_->pending_links(), kN);
  EXPECT_DOUBLE_EQ(MeanRecall({}, 10), 1.0);
  // Part linked: the graph holds the linked part, the rest still waits.
  EXPECT_EQ(index_->LinkPending(kN / 2), kN / 2);
  ASSERT_TRUE(index_->Save(path).ok());
  EXPECT_EQ(testing::IndexFileVersion(path), kIndexFormatPartlyLinked);
  reload();
  EXPECT_EQ(index_->pending_links(), kN - kN / 2);
  EXPECT_GE(MeanRecall({}, 10), 0.95);
  // Linked after the load, saved whole: version 1, searched on the graph.
  EXPECT_EQ(index_->LinkPending(kN), kN - kN / 2);
  ASSERT_TRUE(index_->Save(path).ok());
  EXPECT_EQ(testing::IndexFileVersion(path), kIndexFormatWhole);
  reload();
  EXPECT_EQ(index_->pending_links(), 0u);
  SearchPath path_taken = SearchPath::kEmpty;
  EXPECT_GE(MeanRecall({}, 10, &path_taken), 0.95);
  EXPECT_EQ(path_taken, SearchPath::kGraph);
}

// A partly linked file is read by its version: read as version 1 (no node
// count, every slot in the graph) it is corrupt, never half a graph taken
// for a whole one.
TEST_F(HnswIndexTest, APartlyLinkedFileIsChecked) {
  VectorIndexOptions o = HnswOptions();
  o.hnsw.max_unlinked = kN;
  Build(o);
  ASSERT_EQ(index_->LinkPending(100), 100u);
  testing::TempDir dir;
  const std::string path = dir.Sub("v.skvi");
  ASSERT_TRUE(index_->Save(path).ok());
  ASSERT_EQ(testing::IndexFileVersion(path), kIndexFormatPartlyLinked);
  // The same file read as version 1 (no node count): its level table is
  // the wrong size.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t v1 = kIndexFormatWhole;
    f.seekp(8);
    f.write(reinterpret_cast<const char*>(&v1), 4);
  }
  auto loaded = LoadVectorIndex(path, o);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption) << loaded.status().ToString();
}

// A linker thread links while writers append and readers search.
TEST(HnswConcurrencyTest, LinkingRacesWithUpsertsAndSearches) {
  VectorIndexOptions o = HnswOptions(2);
  o.hnsw.max_unlinked = 500;
  auto created = NewVectorIndex(o);
  ASSERT_TRUE(created.ok());
  std::unique_ptr<VectorIndex> index = std::move(created).value();
  constexpr int kBatch = 50;
  constexpr int kBatches = 60;
  std::vector<float> data = MixtureData(size_t(kBatch) * kBatches, kDim, 10, 7);
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread writer([&] {
    for (int b = 0; b < kBatches; ++b) {
      std::vector<RecordFields> recs;
      for (int i = 0; i < kBatch; ++i) recs.push_back(TestRecord(uint64_t(b) * kBatch + i));
      std::span<const float> v(data.data() + size_t(b) * kBatch * kDim, size_t(kBatch) * kDim);
      if (!index->Upsert(recs, v).ok()) failures++;
    }
    done.store(true);
  });
  std::thread linker([&] {
    while (!done.load() || index->pending_links() > 0) {
      if (index->LinkPending(16) == 0) std::this_thread::yield();
    }
  });
  auto reader = [&](int seed) {
    std::mt19937 rng(seed);
    while (!done.load()) {
      size_t row = rng() % (data.size() / kDim);
      std::vector<float> q(data.begin() + row * kDim, data.begin() + (row + 1) * kDim);
      std::vector<SearchHit> hits;
      SearchOptions g;
      g.k = 10;
      if (!index->Search(q, {}, g, &hits).ok()) failures++;
      std::set<uint64_t> seen;
      for (size_t i = 0; i < hits.size(); ++i) {
        if (!seen.insert(hits[i].id).second) failures++;  // never twice
        if (i > 0 && hits[i - 1].score < hits[i].score) failures++;
      }
    }
  };
  std::thread r1(reader, 1), r2(reader, 2);
  writer.join();
  linker.join();
  r1.join();
  r2.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(index->pending_links(), 0u);
  EXPECT_EQ(index->size(), size_t(kBatch) * kBatches);
  // Every record is found by its own vector through the graph.
  int found = 0;
  for (int i = 0; i < kBatch * kBatches; i += 7) {
    std::vector<float> q(data.begin() + size_t(i) * kDim, data.begin() + size_t(i + 1) * kDim);
    std::vector<SearchHit> hits;
    SearchOptions g;
    g.k = 1;
    ASSERT_TRUE(index->Search(q, {}, g, &hits).ok());
    found += !hits.empty() && hits[0].id == uint64_t(i);
  }
  EXPECT_GE(found, (kBatch * kBatches / 7) * 95 / 100);
}

TEST(HnswConcurrencyTest, SearchesRaceWithInsertsDeletesAndCompaction) {
  auto created = NewVectorIndex(HnswOptions(2));
  ASSERT_TRUE(created.ok());
  std::unique_ptr<VectorIndex> index = std::move(created).value();
  constexpr int kBatch = 40;
  constexpr int kBatches = 60;
  std::vector<float> data = MixtureData(size_t(kBatch) * kBatches, kDim, 10, 5);
  std::atomic<int> inserted{0};
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};

  std::thread writer([&] {
    for (int b = 0; b < kBatches; ++b) {
      std::vector<RecordFields> recs;
      for (int i = 0; i < kBatch; ++i) {
        RecordFields r = TestRecord(uint64_t(b) * kBatch + i);
        r.tags = {"batch=" + std::to_string(b)};
        recs.push_back(r);
      }
      std::span<const float> v(data.data() + size_t(b) * kBatch * kDim, size_t(kBatch) * kDim);
      if (!index->Upsert(recs, v).ok()) failures++;
      inserted.store(b + 1);
      if (b >= 10) {
        std::vector<uint64_t> ids;
        for (int i = 0; i < kBatch; ++i) ids.push_back(uint64_t(b - 10) * kBatch + i);
        if (!index->Delete(ids).ok()) failures++;
      }
      if (b % 20 == 19 && !index->Compact().ok()) failures++;
    }
    done.store(true);
  });

  auto reader = [&](int seed) {
    std::mt19937 rng(seed);
    while (!done.load()) {
      int upto = inserted.load();
      int b = upto == 0 ? 0 : int(rng() % uint32_t(upto + 1));
      RecordFilter f;
      f.tags = {"batch=" + std::to_string(b)};
      auto n = index->Count(f);
      if (!n.ok() || (*n != 0 && *n != kBatch)) failures++;
      std::vector<SearchHit> hits;
      SearchOptions o;
      o.k = 2 * kBatch;
      if (!index->Search(std::vector<float>(kDim, 0.1f), f, o, &hits).ok() ||
          (hits.size() != 0 && hits.size() != kBatch)) {
        failures++;
      }
      size_t row = rng() % (data.size() / kDim);
      std::vector<float> q(data.begin() + row * kDim, data.begin() + (row + 1) * kDim);
      SearchOptions g;
      g.k = 10;
      if (!index->Search(q, {}, g, &hits).ok()) failures++;
      for (size_t i = 0; i < hits.size(); ++i) {
        if (hits[i].id >= uint64_t(kBatches) * kBatch) failures++;
        if (i > 0 && hits[i - 1].score < hits[i].score) failures++;
      }
    }
  };
  std::thread r1(reader, 1), r2(reader, 2);
  writer.join();
  r1.join();
  r2.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(index->size(), 10u * kBatch);
  RecordFilter last;
  last.tags = {"batch=" + std::to_string(kBatches - 1)};
  EXPECT_EQ(*index->Count(last), uint64_t(kBatch));
}

}  // namespace
}  // namespace skald
