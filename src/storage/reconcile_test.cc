#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/hash.h"
#include "storage/reconcile.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

class ReconcileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    content_ = std::move(NewLocalContentStore({dir_.Sub("content"), dir_.Sub("trash"), false}))
                   .value();
    catalog_ = std::move(Catalog::Open({dir_.Sub("skald.db")})).value();
    ASSERT_TRUE(content_->MakeDir("a", "").ok());
    ASSERT_TRUE(content_->MakeDir("a", "resources").ok());
    Track("resources");
    Write("resources/x.md", "hello");
  }
  void Track(const std::string& path) {
    auto attr = content_->Stat("a", path);
    ASSERT_TRUE(attr.ok());
    CatalogNode n;
    n.path = path;
    n.is_dir = attr->is_dir;
    n.size = attr->size;
    n.mtime_ns = n.ctime_ns = attr->mtime_ns;
    if (!attr->is_dir) n.hash = Sha256Hex(*content_->ReadFile("a", path));
    ASSERT_TRUE(catalog_->Put("a", n).ok());
  }
  void Write(const std::string& path, const std::string& data) {
    ASSERT_TRUE(content_->WriteFile("a", path, data).ok());
    Track(path);
  }
  ReconcileReport Run(bool repair, bool verify = false, int64_t rehash_since = INT64_MAX) {
    auto r = Reconcile(*content_, *catalog_, {repair, verify, rehash_since});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ReconcileReport{};
  }

  testing::TempDir dir_;
  std::unique_ptr<ContentStore> content_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(ReconcileTest, CleanWorkspaceHasNoIssues) {
  ReconcileReport r = Run(false, true);
  EXPECT_TRUE(r.issues.empty());
  EXPECT_EQ(r.nodes_checked, 2u);
}

TEST_F(ReconcileTest, FindsAndRepairsEveryKindOfDifference) {
  // Untracked file, missing file, changed bytes (same size), changed size.
  ASSERT_TRUE(content_->WriteFile("a", "resources/new.md", "new").ok());
  ASSERT_TRUE(catalog_->Put("a", CatalogNode{"resources/gone.md", false, 1, 1, 1, "h"}).ok());
  Write("resources/same.md", "aaaa");
  ASSERT_TRUE(content_->WriteFile("a", "resources/same.md", "bbbb").ok());
  ASSERT_TRUE(content_->WriteFile("a", "resources/x.md", "hello world").ok());

  ReconcileReport before = Run(false, false, /*rehash_since=*/0);
  std::multiset<std::string> kinds;
  for (const auto& i : before.issues) kinds.insert(i.kind);
  EXPECT_EQ(kinds.count("untracked_content"), 1u);
  EXPECT_EQ(kinds.count("missing_content"), 1u);
  EXPECT_EQ(kinds.count("size_mismatch"), 1u);
  EXPECT_EQ(kinds.count("hash_mismatch"), 1u);
  // Without repair nothing changed.
  EXPECT_EQ(Run(false, false, 0).issues.size(), before.issues.size());

  Run(true, false, 0);
  EXPECT_TRUE(Run(false, true).issues.empty());
  EXPECT_EQ((*catalog_->Get("a", "resources/x.md"))->size, 11u);
  EXPECT_FALSE(catalog_->Get("a", "resources/gone.md")->has_value());
}

TEST_F(ReconcileTest, VerifyHashesCatchesSilentBitRot) {
  // Same size and (restored) mtime: only hashing notices.
  std::string p = dir_.Sub("content/a/resources/x.md");
  auto before = std::filesystem::last_write_time(p);
  std::ofstream(p, std::ios::binary) << "hellO";
  std::filesystem::last_write_time(p, before);
  EXPECT_TRUE(Run(false, false).issues.empty());
  auto r = Run(false, true);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "hash_mismatch");
}

TEST_F(ReconcileTest, LongNamesAreMatchedByTheirStoredNamesNotRenamed) {
  const std::string dir = "resources/" + std::string(300, 'd');
  const std::string file = dir + "/" + std::string(280, 'f') + ".md";
  ASSERT_TRUE(content_->MakeDir("a", dir).ok());
  Track(dir);
  Write(file, "long");
  Write(dir + "/short.md", "short");
  ReconcileReport check = Run(false, true);
  for (const auto& i : check.issues) ADD_FAILURE() << i.kind << " " << i.path;
  EXPECT_EQ(check.nodes_checked, 5u);
  Run(true, true, 0);
  auto rows = catalog_->ListSubtree("a", "", 0);
  ASSERT_TRUE(rows.ok());
  std::set<std::string> paths;
  for (const auto& n : *rows) paths.insert(n.path);
  EXPECT_EQ(paths, (std::set<std::string>{"resources", "resources/x.md", dir, file,
                                          dir + "/short.md"}));

  // Bytes below a shortened directory that the catalog lacks are adopted
  // under the full path.
  ASSERT_TRUE(content_->WriteFile("a", dir + "/new.md", "new").ok());
  ReconcileReport found = Run(true);
  ASSERT_EQ(found.issues.size(), 1u);
  EXPECT_EQ(found.issues[0].kind, "untracked_content");
  EXPECT_EQ(found.issues[0].path, dir + "/new.md");
  EXPECT_TRUE((*catalog_->Get("a", dir + "/new.md")).has_value());
  EXPECT_TRUE(Run(false, true).issues.empty());
}

TEST_F(ReconcileTest, ShortenedNameWithoutANodeIsReportedNotAdopted) {
  // A crash between the content write and its catalog commit: the full name
  // is unknown, so the bytes must not become a node named by the stored name.
  const std::string name = std::string(300, 'o');
  ASSERT_TRUE(content_->WriteFile("a", "resources/" + name, "orphan").ok());
  ReconcileReport r = Run(true);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].kind, "unnamed_content");
  EXPECT_FALSE(r.issues[0].repaired);
  EXPECT_EQ(r.issues[0].path, "resources/" + StoredSegmentName(name));
  auto rows = catalog_->ListSubtree("a", "", 0);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 2u);  // resources, resources/x.md
  EXPECT_EQ(*content_->ReadFile("a", "resources/" + name), "orphan");  // bytes kept
}

}  // namespace
}  // namespace skald
