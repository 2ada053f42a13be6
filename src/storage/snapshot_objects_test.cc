// Snapshot objects: git's ids, the tree and commit encodings, and the
// catalog's snapshot tables (objects, branches moved by compare-and-set,
// ignore rules, an account's purge).

#include "storage/snapshot_objects.h"

#include <gtest/gtest.h>

#include "common/hash.h"
#include "storage/catalog.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

TEST(SnapshotObjectsTest, BlobIdsAreGitsObjectIds) {
  // `printf 'hello\n' | git hash-object --stdin` and the empty blob's id.
  EXPECT_EQ(SnapshotBlob("hello\n", "").oid, "ce013625030ba8dba906f756967f9e9ca394464a");
  EXPECT_EQ(SnapshotBlob("", "").oid, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  EXPECT_TRUE(IsSnapshotOid(SnapshotBlob("x", "").oid));
  EXPECT_FALSE(IsSnapshotOid("CE013625030BA8DBA906F756967F9E9CA394464A"));  // lower case only
  EXPECT_FALSE(IsSnapshotOid("ce01"));
}

TEST(SnapshotObjectsTest, TreesAndCommitsRoundTripWithStableIds) {
  SnapshotTree tree = {{"resources/a b/ünï.md", SnapshotBlob("1", "").oid},
                       {"user/u/memories/x.md", SnapshotBlob("2", "").oid}};
  SnapshotObject t = SnapshotTreeObject(tree);
  auto back = DecodeSnapshotTree(t.data);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, tree);
  EXPECT_EQ(SnapshotTreeObject(*back).oid, t.oid);
  EXPECT_TRUE(DecodeSnapshotTree("").ok());  // the empty tree
  EXPECT_EQ(DecodeSnapshotTree("garbage\0").status().code(), StatusCode::kCorruption);

  SnapshotCommit c;
  c.tree = t.oid;
  c.parents = {SnapshotBlob("p", "").oid};
  c.author = {"Ada", "ada@example.com", 1796363322, 3600};
  c.committer = c.author;
  c.message = "first line\n\nbody";
  SnapshotObject o = SnapshotCommitObject(c);
  auto decoded = DecodeSnapshotCommit(o.data);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->tree, c.tree);
  EXPECT_EQ(decoded->parents, c.parents);
  EXPECT_EQ(decoded->author.email, "ada@example.com");
  EXPECT_EQ(decoded->author.tz_offset_seconds, 3600);
  EXPECT_EQ(decoded->message, c.message);
  EXPECT_EQ(SnapshotCommitObject(*decoded).oid, o.oid);
  c.message = "other";
  EXPECT_NE(SnapshotCommitObject(c).oid, o.oid);
  EXPECT_EQ(DecodeSnapshotCommit("{}").status().code(), StatusCode::kCorruption);
}

class SnapshotCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Catalog::Open({dir_.Sub("skald.db")});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(c).value();
  }
  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(SnapshotCatalogTest, BranchesMoveOnlyFromTheHeadTheCommitStartedFrom) {
  SnapshotObject blob = SnapshotBlob("bytes", Sha256Hex("bytes"));
  SnapshotObject tree = SnapshotTreeObject({{"resources/a.md", blob.oid}});
  SnapshotCommit c;
  c.tree = tree.oid;
  c.message = "one";
  SnapshotObject first = SnapshotCommitObject(c);
  ASSERT_TRUE(catalog_
                  ->StoreSnapshotCommit("acct", std::vector<SnapshotObject>{blob, tree, first},
                                        "refs/heads/main", std::nullopt, first.oid)
                  .ok());
  EXPECT_EQ(*catalog_->GetSnapshotRef("acct", "refs/heads/main"), first.oid);
  EXPECT_EQ(*catalog_->FindSnapshotBlob("acct", Sha256Hex("bytes")), blob.oid);
  EXPECT_FALSE(catalog_->FindSnapshotBlob("other", Sha256Hex("bytes"))->has_value());
  auto stored = catalog_->GetSnapshotObject("acct", blob.oid);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->data, "bytes");
  EXPECT_EQ((*stored)->kind, SnapshotObjectKind::kBlob);

  // A second commit that started before the first (no head then) loses:
  // Conflict, and nothing of it is stored.
  c.message = "racing";
  SnapshotObject racing = SnapshotCommitObject(c);
  Status lost = catalog_->StoreSnapshotCommit("acct", std::vector<SnapshotObject>{racing},
                                              "refs/heads/main", std::nullopt, racing.oid);
  EXPECT_EQ(lost.code(), StatusCode::kConflict);
  EXPECT_FALSE(catalog_->GetSnapshotObject("acct", racing.oid)->has_value());
  EXPECT_EQ(*catalog_->GetSnapshotRef("acct", "refs/heads/main"), first.oid);
  // From the head it saw, it wins.
  c.parents = {first.oid};
  SnapshotObject second = SnapshotCommitObject(c);
  EXPECT_TRUE(catalog_
                  ->StoreSnapshotCommit("acct", std::vector<SnapshotObject>{second},
                                        "refs/heads/main", first.oid, second.oid)
                  .ok());
  EXPECT_EQ(*catalog_->GetSnapshotRef("acct", "refs/heads/main"), second.oid);
  // Short ids find commits only, of this account only.
  EXPECT_EQ(*catalog_->SnapshotCommitsWithPrefix("acct", second.oid.substr(0, 7), 2),
            std::vector<std::string>{second.oid});
  EXPECT_TRUE(catalog_->SnapshotCommitsWithPrefix("acct", blob.oid.substr(0, 7), 2)->empty());
  EXPECT_TRUE(catalog_->SnapshotCommitsWithPrefix("other", second.oid.substr(0, 7), 2)->empty());
}

TEST_F(SnapshotCatalogTest, IgnoreRulesAndAPurgedAccountsHistoryGo) {
  EXPECT_EQ(*catalog_->GetSnapshotIgnore("acme"), "");
  ASSERT_TRUE(catalog_->SetSnapshotIgnore("acme", "*.log\n").ok());
  EXPECT_EQ(*catalog_->GetSnapshotIgnore("acme"), "*.log\n");
  EXPECT_EQ(*catalog_->GetSnapshotIgnore("other"), "");
  ASSERT_TRUE(catalog_->InsertAccount("acme", 1).ok());
  SnapshotObject blob = SnapshotBlob("b", Sha256Hex("b"));
  ASSERT_TRUE(catalog_->StoreSnapshotObjects("acme", std::vector<SnapshotObject>{blob}).ok());
  ASSERT_TRUE(catalog_
                  ->StoreSnapshotCommit("acme", std::vector<SnapshotObject>{}, "refs/heads/main",
                                        std::nullopt, blob.oid)
                  .ok());
  ASSERT_TRUE(catalog_->PurgeAccount("acme").ok());
  EXPECT_FALSE(catalog_->GetSnapshotObject("acme", blob.oid)->has_value());
  EXPECT_FALSE(catalog_->GetSnapshotRef("acme", "refs/heads/main")->has_value());
  EXPECT_EQ(*catalog_->GetSnapshotIgnore("acme"), "");
  ASSERT_TRUE(catalog_->SetSnapshotIgnore("other", "x").ok());
  ASSERT_TRUE(catalog_->SetSnapshotIgnore("other", "").ok());  // "" deletes
  EXPECT_EQ(*catalog_->GetSnapshotIgnore("other"), "");
}

}  // namespace
}  // namespace skald
