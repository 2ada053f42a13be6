#include "index/vector_index_set.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "index/index_test_util.h"
#include "storage/catalog.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

constexpr int kDim = 8;

Record CatalogRecord(int i, const std::string& embedder = "emb:v1") {
  Record r;
  r.id = "rec" + std::to_string(i);
  r.uri = "viking://resources/d" + std::to_string(i % 3) + "/f" + std::to_string(i);
  r.parent_uri = "viking://resources/d" + std::to_string(i % 3);
  r.level = 2;
  r.context_type = i % 4 == 0 ? ContextType::kMemory : ContextType::kResource;
  r.embedder = embedder;
  r.vector.resize(kDim);
  for (int j = 0; j < kDim; ++j) r.vector[j] = float((i * 37 + j * 11) % 17) - 8.0f;
  r.tags = {"n=" + std::to_string(i)};
  return r;
}

class VectorIndexSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = std::move(Catalog::Open({dir_.Sub("skald.db")})).value();
    options_.dir = dir_.Sub("index");
    options_.index.embedder = "emb:v1";
    options_.index.dim = kDim;
    options_.index.hnsw.m = 8;
  }

  void Add(const std::string& account, int from, int to, const std::string& embedder = "emb:v1") {
    // Accounts are discovered from the catalog's nodes, as in a real workspace.
    CatalogNode root;
    root.path = "resources";
    root.is_dir = true;
    ASSERT_TRUE(catalog_->Put(account, root).ok());
    std::vector<Record> recs;
    for (int i = from; i < to; ++i) recs.push_back(CatalogRecord(i, embedder));
    ASSERT_TRUE(catalog_->UpsertRecords(account, &recs).ok());
  }

  std::unique_ptr<VectorIndexSet> OpenSet() {
    auto set = VectorIndexSet::Open(options_, catalog_.get());
    EXPECT_TRUE(set.ok()) << set.status().ToString();
    return set.ok() ? std::move(set).value() : nullptr;
  }

  // Whether record i of `account` is found by its own vector, tag-filtered.
  bool Findable(VectorIndexSet* set, const std::string& account, int i) {
    VectorIndex* index = set->Find(account);
    if (index == nullptr) return false;
    RecordFilter f;
    f.tags = {"n=" + std::to_string(i)};
    std::vector<SearchHit> hits;
    EXPECT_TRUE(index->Search(CatalogRecord(i).vector, f, {}, &hits).ok());
    return hits.size() == 1;
  }

  // The open report of `account` (a failed default one when missing).
  const IndexOpenReport& ReportFor(VectorIndexSet* set, const std::string& account) {
    for (const auto& r : set->open_report()) {
      if (r.account == account) return r;
    }
    ADD_FAILURE() << "no open report for " << account;
    return missing_;
  }
  IndexOpenReport missing_;

  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
  VectorIndexSetOptions options_;
};

TEST_F(VectorIndexSetTest, MissingFileIsRebuiltThenLoadedWithoutRebuild) {
  Add("acme", 0, 300);
  Add("beta/x", 0, 20);  // an account name that needs escaping
  {
    auto set = OpenSet();
    ASSERT_TRUE(set);
    EXPECT_EQ(ReportFor(set.get(), "acme").action, IndexOpenReport::Action::kRebuilt);
    EXPECT_NE(ReportFor(set.get(), "acme").reason.find("not_found"), std::string::npos);
    EXPECT_EQ(set->Find("acme")->size(), 300u);
    EXPECT_EQ(set->Find("beta/x")->size(), 20u);
    EXPECT_TRUE(Findable(set.get(), "acme", 123));
    EXPECT_TRUE(std::filesystem::exists(VectorIndexSet::PathFor(options_.dir, "acme")));
    EXPECT_TRUE(std::filesystem::exists(dir_.Sub("index/beta%2Fx/vectors.skvi")));
  }
  auto set = OpenSet();
  ASSERT_TRUE(set);
  EXPECT_EQ(ReportFor(set.get(), "acme").action, IndexOpenReport::Action::kLoaded);
  EXPECT_EQ(ReportFor(set.get(), "beta/x").action, IndexOpenReport::Action::kLoaded);
  EXPECT_EQ(set->Find("acme")->size(), 300u);
  EXPECT_TRUE(Findable(set.get(), "acme", 7));
}

TEST_F(VectorIndexSetTest, CleanFileCatchesUpFromItsSequence) {
  Add("acme", 0, 100);
  int64_t saved_seq = 0;
  {
    auto set = OpenSet();
    ASSERT_TRUE(set);
    saved_seq = set->Find("acme")->applied_seq();
  }
  // Changes while the index is closed: new records, a re-embedded one, deletes.
  Add("acme", 100, 150);
  Record moved = CatalogRecord(5);
  moved.tags = {"n=5", "moved"};
  std::vector<Record> one = {moved};
  ASSERT_TRUE(catalog_->UpsertRecords("acme", &one).ok());
  ASSERT_EQ(*catalog_->DeleteRecordsUnder("acme", "viking://resources/d1"), 50u);
  Add("newco", 0, 10);

  auto set = OpenSet();
  ASSERT_TRUE(set);
  EXPECT_EQ(ReportFor(set.get(), "acme").action, IndexOpenReport::Action::kLoaded);
  EXPECT_EQ(ReportFor(set.get(), "acme").applied_seq, saved_seq);
  VectorIndex* acme = set->Find("acme");
  EXPECT_EQ(acme->size(), 100u);  // 150 - 50 under d1
  EXPECT_TRUE(Findable(set.get(), "acme", 140));
  EXPECT_FALSE(Findable(set.get(), "acme", 1));  // i % 3 == 1 lived under d1
  RecordFilter f;
  f.tags = {"moved"};
  EXPECT_EQ(*acme->Count(f), 1u);
  EXPECT_EQ(acme->applied_seq(), *catalog_->MaxRecordSeq());
  EXPECT_EQ(set->Find("newco")->size(), 10u);

  // Live catch-up while the set is open.
  Add("acme", 150, 160);
  auto applied = set->CatchUp();
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(*applied, 10u);
  EXPECT_TRUE(Findable(set.get(), "acme", 155));
  EXPECT_EQ(set->MinAppliedSeq(), *catalog_->MaxRecordSeq());

  // 50 of 160 slots... plus the replaced one are tombstones: compaction reclaims them.
  EXPECT_GT(acme->deleted(), 0u);
  auto compacted = set->CompactIfNeeded(0.2);
  ASSERT_TRUE(compacted.ok());
  EXPECT_EQ(*compacted, 1);
  EXPECT_EQ(acme->deleted(), 0u);
  EXPECT_TRUE(Findable(set.get(), "acme", 155));
  ASSERT_TRUE(set->SaveAll().ok());
  auto reopened = OpenSet();
  ASSERT_TRUE(reopened);
  EXPECT_EQ(ReportFor(reopened.get(), "acme").action, IndexOpenReport::Action::kLoaded);
  EXPECT_EQ(reopened->Find("acme")->size(), 110u);
  EXPECT_EQ(reopened->Find("acme")->deleted(), 0u);
}

// With max_unlinked, the catch-up leaves new records to the background
// linker, which links them and saves the index once it is whole.
TEST_F(VectorIndexSetTest, TheBackgroundLinkerLinksAndSavesWhatCatchUpLeft) {
  options_.index.hnsw.max_unlinked = 1000;
  auto set = OpenSet();
  ASSERT_TRUE(set);
  Add("acme", 0, 300);
  ASSERT_TRUE(set->CatchUp().ok());
  // Found at once, linked or not.
  EXPECT_TRUE(Findable(set.get(), "acme", 7));
  EXPECT_TRUE(Findable(set.get(), "acme", 299));
  // SaveLinked leaves an index that waits for links to the linker.
  ASSERT_TRUE(set->SaveLinked().ok());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const std::string path = VectorIndexSet::PathFor(options_.dir, "acme");
  while ((set->PendingLinks() > 0 || !std::filesystem::exists(path)) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(set->PendingLinks(), 0u);
  ASSERT_TRUE(std::filesystem::exists(path));  // saved by the linker
  set.reset();
  auto loaded = LoadVectorIndex(path, options_.index);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), 300u);
  EXPECT_EQ((*loaded)->pending_links(), 0u);
  auto reopened = OpenSet();
  ASSERT_TRUE(reopened);
  EXPECT_EQ(ReportFor(reopened.get(), "acme").action, IndexOpenReport::Action::kLoaded);
  EXPECT_TRUE(Findable(reopened.get(), "acme", 150));
}

// Without the background linker (a short-lived process), what the catch-up
// leaves unlinked is saved waiting and found all the same; a set with the
// linker opened later links it and saves it whole, though no record changed.
TEST_F(VectorIndexSetTest, UnlinkedRecordsAreSavedWaitingForALaterLinker) {
  options_.index.hnsw.max_unlinked = 1000;
  options_.background_linker = false;
  auto set = OpenSet();
  ASSERT_TRUE(set);
  Add("acme", 0, 300);
  ASSERT_TRUE(set->CatchUp().ok());
  EXPECT_EQ(set->PendingLinks(), 300u);
  // A job's SaveLinked leaves it to the close (SaveAll): no linker saves it.
  const std::string path = VectorIndexSet::PathFor(options_.dir, "acme");
  ASSERT_TRUE(set->SaveLinked().ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE(set->SaveAll().ok());
  EXPECT_EQ(set->PendingLinks(), 300u);  // saved, not linked
  set.reset();
  {
    auto loaded = LoadVectorIndex(path, options_.index);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ((*loaded)->size(), 300u);
    EXPECT_EQ((*loaded)->pending_links(), 300u);
  }
  // Reopened without the linker: loaded (not rebuilt), still waiting, found.
  set = OpenSet();
  ASSERT_TRUE(set);
  EXPECT_EQ(ReportFor(set.get(), "acme").action, IndexOpenReport::Action::kLoaded);
  EXPECT_EQ(set->PendingLinks(), 300u);
  EXPECT_TRUE(Findable(set.get(), "acme", 0));
  EXPECT_TRUE(Findable(set.get(), "acme", 299));
  set.reset();
  // With the linker: linked, then saved whole by it.
  options_.background_linker = true;
  set = OpenSet();
  ASSERT_TRUE(set);
  auto whole_on_disk = [&] {
    auto loaded = LoadVectorIndex(path, options_.index);
    return loaded.ok() && (*loaded)->pending_links() == 0;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((set->PendingLinks() > 0 || !whole_on_disk()) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(set->PendingLinks(), 0u);
  EXPECT_TRUE(whole_on_disk());
  EXPECT_TRUE(Findable(set.get(), "acme", 150));
}

// StopLinker (a close) stops the background linker for good: what waits
// for links stays waiting and is saved so.
TEST_F(VectorIndexSetTest, AStoppedLinkerLinksNoMore) {
  options_.index.hnsw.max_unlinked = 1000;
  auto set = OpenSet();
  ASSERT_TRUE(set);
  auto hold = set->HoldLinks();  // nothing linked before the stop
  Add("acme", 0, 300);
  ASSERT_TRUE(set->CatchUp().ok());
  set->StopLinker();
  hold.Release();  // would wake a running linker
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(set->PendingLinks(), 300u);
  ASSERT_TRUE(set->SaveAll().ok());
  EXPECT_EQ(set->PendingLinks(), 300u);
  EXPECT_TRUE(Findable(set.get(), "acme", 42));
  set->StopLinker();  // again: nothing to stop
}

// Under a LinkHold (a bulk import), the linker leaves new records unlinked
// up to half of max_unlinked, links only what exceeds that, and links the
// rest (and saves) once the last hold goes.
TEST_F(VectorIndexSetTest, AHoldDefersLinkingUpToHalfTheLimit) {
  options_.index.hnsw.max_unlinked = 1000;
  auto set = OpenSet();
  ASSERT_TRUE(set);
  auto wait_until = [&](auto done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  VectorIndexSet::LinkHold hold = set->HoldLinks();
  VectorIndexSet::LinkHold second = set->HoldLinks();
  Add("acme", 0, 300);
  ASSERT_TRUE(set->CatchUp().ok());
  // Unheld, 300 records of 8 dimensions link within milliseconds.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(set->PendingLinks(), 300u);
  EXPECT_TRUE(Findable(set.get(), "acme", 150));  // searched exactly meanwhile
  Add("acme", 300, 700);
  ASSERT_TRUE(set->CatchUp().ok());
  wait_until([&] { return set->PendingLinks() <= 500; });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LE(set->PendingLinks(), 500u);
  EXPECT_GT(set->PendingLinks(), 400u);  // no further than the limit (steps of 64)
  hold.Release();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GT(set->PendingLinks(), 400u);  // one hold is still out
  const std::string path = VectorIndexSet::PathFor(options_.dir, "acme");
  { VectorIndexSet::LinkHold released = std::move(second); }
  wait_until([&] { return set->PendingLinks() == 0 && std::filesystem::exists(path); });
  EXPECT_EQ(set->PendingLinks(), 0u);
  EXPECT_TRUE(std::filesystem::exists(path));  // saved once whole
  EXPECT_TRUE(Findable(set.get(), "acme", 650));
}

TEST_F(VectorIndexSetTest, FlippedByteIsReportedAndRebuilt) {
  Add("acme", 0, 200);
  { ASSERT_TRUE(OpenSet()); }
  std::string path = VectorIndexSet::PathFor(options_.dir, "acme");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(std::filesystem::file_size(path) / 2));
    char c = 0;
    f.read(&c, 1);
    f.seekp(std::streamoff(std::filesystem::file_size(path) / 2));
    c = char(c ^ 0x10);
    f.write(&c, 1);
  }
  auto set = OpenSet();
  ASSERT_TRUE(set);
  const IndexOpenReport& report = ReportFor(set.get(), "acme");
  EXPECT_EQ(report.action, IndexOpenReport::Action::kRebuilt);
  EXPECT_NE(report.reason.find("corruption"), std::string::npos) << report.reason;
  EXPECT_EQ(set->Find("acme")->size(), 200u);
  EXPECT_TRUE(Findable(set.get(), "acme", 99));
  // The rebuilt file is clean again.
  auto again = OpenSet();
  ASSERT_TRUE(again);
  EXPECT_EQ(ReportFor(again.get(), "acme").action, IndexOpenReport::Action::kLoaded);
}

TEST_F(VectorIndexSetTest, OtherEmbeddersAreSkippedAndEmbedderChangeRebuilds) {
  Add("acme", 0, 30);
  Add("acme", 30, 40, "other:v9");
  {
    auto set = OpenSet();
    ASSERT_TRUE(set);
    EXPECT_EQ(set->Find("acme")->size(), 30u);
    EXPECT_EQ(set->skipped_records(), 10u);
  }
  options_.index.embedder = "other:v9";
  auto set = OpenSet();
  ASSERT_TRUE(set);
  const IndexOpenReport& report = ReportFor(set.get(), "acme");
  EXPECT_EQ(report.action, IndexOpenReport::Action::kRebuilt);
  EXPECT_NE(report.reason.find("embedder"), std::string::npos) << report.reason;
  EXPECT_EQ(set->Find("acme")->size(), 10u);
}


// A record whose vector holds a NaN or an infinity (however it reached the
// catalog) is skipped like one of another embedder: it neither fails the
// rebuild at open nor holds back the catch-up of the records after it.
TEST_F(VectorIndexSetTest, NonFiniteVectorsAreSkippedNotFatal) {
  Add("acme", 0, 20);
  auto bad = [](int i, float value) {
    Record r = CatalogRecord(i);
    r.vector[3] = value;
    return std::vector<Record>{r};
  };
  std::vector<Record> nan = bad(20, std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(catalog_->UpsertRecords("acme", &nan).ok());
  {
    auto set = OpenSet();  // a rebuild from the catalog
    ASSERT_TRUE(set);
    EXPECT_EQ(set->Find("acme")->size(), 20u);
    EXPECT_EQ(set->skipped_records(), 1u);
    std::vector<Record> inf = bad(21, std::numeric_limits<float>::infinity());
    ASSERT_TRUE(catalog_->UpsertRecords("acme", &inf).ok());
    Add("acme", 22, 30);
    auto caught_up = set->CatchUp();
    ASSERT_TRUE(caught_up.ok()) << caught_up.status().ToString();
    EXPECT_EQ(set->Find("acme")->size(), 28u);
    EXPECT_TRUE(Findable(set.get(), "acme", 25));
    ASSERT_TRUE(set->SaveAll().ok());
  }
  auto reopened = OpenSet();
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->Find("acme")->size(), 28u);
}

}  // namespace
}  // namespace skald
