#include <gtest/gtest.h>

#include <sqlite3.h>

#include "storage/catalog.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

VectorRecord Rec(std::string id, std::string uri, std::vector<float> v) {
  VectorRecord r;
  r.id = std::move(id);
  r.uri = std::move(uri);
  r.parent_uri = "viking://resources";
  r.context_type = "resource";
  r.embedder = "hashing:512";
  r.vector = std::move(v);
  r.tags = {"lang=en"};
  return r;
}

class RecordsTest : public ::testing::Test {
 protected:
  void SetUp() override { catalog_ = std::move(Catalog::Open({dir_.Sub("skald.db")})).value(); }
  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(RecordsTest, UpsertAssignsKeysAndSequence) {
  std::vector<VectorRecord> recs = {Rec("a", "viking://resources/d/a", {1, 2}),
                                    Rec("b", "viking://resources/d/b", {3, 4})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  EXPECT_GT(recs[0].key, 0);
  EXPECT_EQ(recs[1].seq, recs[0].seq + 1);
  int64_t key_a = recs[0].key;
  // Re-upserting the same id keeps the key and takes a new sequence number.
  std::vector<VectorRecord> again = {Rec("a", "viking://resources/d/a", {5, 6})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &again).ok());
  EXPECT_EQ(again[0].key, key_a);
  EXPECT_EQ(*catalog_->MaxRecordSeq(), again[0].seq);
  std::vector<VectorRecord> seen;
  ASSERT_TRUE(catalog_->ScanRecords("acct", false, [&](const VectorRecord& r) {
    seen.push_back(r);
    return Status::Ok();
  }).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].vector, (std::vector<float>{5, 6}));
  EXPECT_EQ(seen[0].tags, std::vector<std::string>{"lang=en"});
  EXPECT_EQ(seen[0].account, "acct");
}

TEST_F(RecordsTest, DeletesLeaveTombstonesForCatchUp) {
  std::vector<VectorRecord> recs = {Rec("a", "viking://resources/d", {1}),
                                    Rec("b", "viking://resources/d/x", {2}),
                                    Rec("c", "viking://resources/d-x", {3})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  int64_t before = *catalog_->MaxRecordSeq();
  EXPECT_EQ(*catalog_->DeleteRecordsUnder("acct", "viking://resources/d"), 2u);
  auto changed = catalog_->RecordsChangedSince(before, 100);
  ASSERT_TRUE(changed.ok());
  ASSERT_EQ(changed->size(), 2u);
  EXPECT_TRUE((*changed)[0].deleted);
  EXPECT_TRUE((*changed)[0].vector.empty());
  int live = 0;
  ASSERT_TRUE(catalog_->ScanRecords("acct", false, [&](const VectorRecord&) {
    ++live;
    return Status::Ok();
  }).ok());
  EXPECT_EQ(live, 1);  // "d-x" is a sibling, not below "d"
  EXPECT_EQ(*catalog_->PurgeTombstones(*catalog_->MaxRecordSeq()), 2u);
  EXPECT_TRUE(catalog_->RecordsChangedSince(before, 100)->empty());
}

TEST_F(RecordsTest, Version1DatabaseIsMigratedForward) {
  catalog_.reset();
  // Turn the database back into a version-1 one: no records table.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.Sub("skald.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TABLE records; UPDATE meta SET value='1' WHERE "
                         "key='schema_version'; INSERT INTO nodes VALUES('a','resources','',"
                         "'resources',1,0,1,1,'');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto c = Catalog::Open({dir_.Sub("skald.db")});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(**(*c)->GetMeta("schema_version"), "2");
  EXPECT_TRUE((*c)->Get("a", "resources")->has_value());
  std::vector<VectorRecord> recs = {Rec("a", "viking://resources/x", {1})};
  EXPECT_TRUE((*c)->UpsertRecords("a", &recs).ok());
}

}  // namespace
}  // namespace skald
