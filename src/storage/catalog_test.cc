#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "storage/catalog.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

CatalogNode Dir(std::string path) {
  CatalogNode n;
  n.path = std::move(path);
  n.is_dir = true;
  n.mtime_ns = n.ctime_ns = 1;
  return n;
}

CatalogNode File(std::string path, uint64_t size) {
  CatalogNode n;
  n.path = std::move(path);
  n.size = size;
  n.mtime_ns = n.ctime_ns = 2;
  n.hash = "h";
  return n;
}

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Catalog::Open({dir_.Sub("skald.db")});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(c).value();
    ASSERT_TRUE(catalog_
                    ->Apply("a", {Dir("resources"), Dir("resources/d"), File("resources/d/x", 3),
                                  File("resources/d-y", 4), Dir("resources/d/e"),
                                  File("resources/d/e/z", 5)},
                            {})
                    .ok());
  }
  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(CatalogTest, GetAndListChildren) {
  auto got = catalog_->Get("a", "resources/d/x");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->size, 3u);
  EXPECT_FALSE(catalog_->Get("b", "resources/d/x")->has_value());  // accounts are separate
  auto kids = catalog_->ListChildren("a", "resources");
  ASSERT_TRUE(kids.ok());
  ASSERT_EQ(kids->size(), 2u);
  EXPECT_EQ((*kids)[0].path, "resources/d");
  EXPECT_EQ((*kids)[1].path, "resources/d-y");
}

TEST_F(CatalogTest, SubtreeDoesNotLeakIntoSiblingPrefixes) {
  auto sub = catalog_->ListSubtree("a", "resources/d", 0);
  ASSERT_TRUE(sub.ok());
  ASSERT_EQ(sub->size(), 3u);  // x, e, e/z — not "resources/d-y"
  auto shallow = catalog_->ListSubtree("a", "resources/d", 1);
  EXPECT_EQ(shallow->size(), 2u);
  EXPECT_EQ(*catalog_->CountSubtree("a", "resources/d"), 4u);
}

TEST_F(CatalogTest, MoveSubtreeRekeysDescendants) {
  ASSERT_TRUE(catalog_->Apply("a", {Dir("resources/n")}, {}).ok());
  ASSERT_TRUE(catalog_->MoveSubtree("a", "resources/d", "resources/n/m", 9).ok());
  EXPECT_FALSE(catalog_->Get("a", "resources/d/x")->has_value());
  auto moved = catalog_->Get("a", "resources/n/m/e/z");
  ASSERT_TRUE(moved->has_value());
  EXPECT_EQ((*moved)->size, 5u);
  auto kids = catalog_->ListChildren("a", "resources/n/m/e");
  ASSERT_EQ(kids->size(), 1u);
  EXPECT_EQ((*catalog_->Get("a", "resources/n/m"))->mtime_ns, 9);
  EXPECT_TRUE(catalog_->Get("a", "resources/d-y")->has_value());
}

// The outbox of a move: its jobs commit with it, or neither does.
TEST_F(CatalogTest, MoveSubtreeEnqueuesItsJobsInTheSameTransaction) {
  JobSpec index;
  index.kind = JobKind::kIndex;
  index.resource_id = "viking://resources/m";
  ASSERT_TRUE(catalog_->MoveSubtree("a", "resources/d", "resources/m", 9, {index}).ok());
  JobFilter filter;
  filter.resource_id = "viking://resources/m";
  Result<std::vector<Job>> jobs = catalog_->ListJobs(filter);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].account, "a");  // an empty account is the move's
  EXPECT_EQ((*jobs)[0].kind, JobKind::kIndex);

  // Onto a taken path the move fails as a whole: no node moved, no job.
  index.resource_id = "viking://resources/d-y";
  EXPECT_FALSE(catalog_->MoveSubtree("a", "resources/m", "resources/d-y", 9, {index}).ok());
  filter.resource_id = "viking://resources/d-y";
  EXPECT_TRUE(catalog_->ListJobs(filter)->empty());
  EXPECT_TRUE(catalog_->Get("a", "resources/m/x")->has_value());
}

// Meta trees: the key itself and the keys below it ("k/..."), never a
// sibling that merely starts with the same bytes ("k-2", "k0").
TEST_F(CatalogTest, MetaTreesMoveAndGoWholeAndAlone) {
  for (const char* key : {"t/a", "t/a/b", "t/a/b/c", "t/a-2", "t/a0", "t/ab", "t/b"}) {
    ASSERT_TRUE(catalog_->SetMeta(key, std::string("v:") + key).ok());
  }
  ASSERT_TRUE(catalog_->SetMeta("t/z/b", "replaced").ok());
  Result<uint64_t> moved = catalog_->MoveMetaTree("t/a", "t/z");
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(*moved, 3u);
  EXPECT_FALSE(catalog_->GetMeta("t/a")->has_value());
  EXPECT_FALSE(catalog_->GetMeta("t/a/b/c")->has_value());
  EXPECT_EQ(**catalog_->GetMeta("t/z"), "v:t/a");
  EXPECT_EQ(**catalog_->GetMeta("t/z/b"), "v:t/a/b");  // the old key there is replaced
  EXPECT_EQ(**catalog_->GetMeta("t/z/b/c"), "v:t/a/b/c");
  for (const char* kept : {"t/a-2", "t/a0", "t/ab", "t/b"}) {
    EXPECT_EQ(**catalog_->GetMeta(kept), std::string("v:") + kept) << kept;
  }
  Result<uint64_t> dropped = catalog_->DeleteMetaTree("t/z");
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 3u);
  EXPECT_FALSE(catalog_->GetMeta("t/z/b")->has_value());
  EXPECT_EQ(**catalog_->GetMeta("t/b"), "v:t/b");
  EXPECT_EQ(*catalog_->DeleteMetaTree("t/none"), 0u);
}

TEST_F(CatalogTest, DeleteSubtreeCountsRows) {
  auto n = catalog_->DeleteSubtree("a", "resources/d");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 4u);
  EXPECT_EQ(*catalog_->DeleteSubtree("a", "resources/d"), 0u);
  EXPECT_TRUE(catalog_->Get("a", "resources/d-y")->has_value());
}

// A checkpoint folds the write-ahead log into the database file and
// truncates it; what it folded is there after a reopen.
TEST_F(CatalogTest, CheckpointFoldsTheLogIn) {
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(catalog_->SetMeta("k" + std::to_string(i), std::string(1000, 'v')).ok());
  }
  const std::string wal = dir_.Sub("skald.db-wal");
  ASSERT_GT(std::filesystem::file_size(wal), 0u);
  ASSERT_TRUE(catalog_->Checkpoint().ok());
  EXPECT_EQ(std::filesystem::file_size(wal), 0u);
  catalog_.reset();
  auto c = Catalog::Open({dir_.Sub("skald.db")});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto value = (*c)->GetMeta("k49");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, std::string(1000, 'v'));
}

TEST_F(CatalogTest, ReopenKeepsDataAndSchemaVersion) {
  catalog_.reset();
  auto c = Catalog::Open({dir_.Sub("skald.db")});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(**(*c)->GetMeta("schema_version"), std::to_string(Catalog::kSchemaVersion));
  EXPECT_TRUE((*c)->Get("a", "resources/d/e/z")->has_value());
}

TEST_F(CatalogTest, NewerSchemaIsRefused) {
  ASSERT_TRUE(catalog_->SetMeta("schema_version", "99").ok());
  catalog_.reset();
  auto c = Catalog::Open({dir_.Sub("skald.db")});
  EXPECT_EQ(c.status().code(), StatusCode::kFailedPrecondition);
}

TEST(CatalogOpenTest, Version4IsMigratedWithItsAccountsRegistered) {
  testing::TempDir dir;
  const std::string path = dir.Sub("skald.db");
  {
    auto c = Catalog::Open({path});
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->Put("legacy", Dir("resources")).ok());
  }
  // Make it the version-4 database an older Skald left behind.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TABLE accounts; DROP TABLE users; "
                         "UPDATE meta SET value='4' WHERE key='schema_version';",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  auto c = Catalog::Open({path});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(**(*c)->GetMeta("schema_version"), std::to_string(Catalog::kSchemaVersion));
  auto accounts = (*c)->ListAccountRows();
  ASSERT_TRUE(accounts.ok());
  ASSERT_EQ(accounts->size(), 2u);
  EXPECT_EQ((*accounts)[0].account_id, "default");
  EXPECT_EQ((*accounts)[1].account_id, "legacy");
  EXPECT_EQ((*accounts)[1].user_count, 0u);
  EXPECT_TRUE((*c)->Get("legacy", "resources")->has_value());
}

TEST(CatalogOpenTest, GarbageFileIsCorruption) {
  testing::TempDir dir;
  std::ofstream(dir.Sub("skald.db")) << std::string(8192, 'x');
  auto c = Catalog::Open({dir.Sub("skald.db")});
  EXPECT_EQ(c.status().code(), StatusCode::kCorruption) << c.status().ToString();
}

}  // namespace
}  // namespace skald
