#include <gtest/gtest.h>

#include <sqlite3.h>

#include "storage/catalog.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

Record Rec(std::string id, std::string uri, std::vector<float> v) {
  Record r;
  r.id = std::move(id);
  r.uri = std::move(uri);
  r.parent_uri = "viking://resources";
  r.context_type = ContextType::kResource;
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
  std::vector<Record> recs = {Rec("a", "viking://resources/d/a", {1, 2}),
                                    Rec("b", "viking://resources/d/b", {3, 4})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  EXPECT_GT(recs[0].key, 0u);
  EXPECT_EQ(recs[1].seq, recs[0].seq + 1);
  uint64_t key_a = recs[0].key;
  // Re-upserting the same id keeps the key and takes a new sequence number.
  std::vector<Record> again = {Rec("a", "viking://resources/d/a", {5, 6})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &again).ok());
  EXPECT_EQ(again[0].key, key_a);
  EXPECT_EQ(*catalog_->MaxRecordSeq(), again[0].seq);
  std::vector<Record> seen;
  ASSERT_TRUE(catalog_->ScanRecords("acct", false, [&](const Record& r) {
    seen.push_back(r);
    return Status::Ok();
  }).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].vector, (std::vector<float>{5, 6}));
  EXPECT_EQ(seen[0].tags, std::vector<std::string>{"lang=en"});
  EXPECT_EQ(seen[0].account, "acct");
  // The change feed, with and without the vectors.
  auto full = catalog_->RecordsChangedSince(0, 100);
  auto light = catalog_->RecordsChangedSince(0, 100, /*with_vectors=*/false);
  ASSERT_TRUE(full.ok() && light.ok());
  ASSERT_EQ(full->size(), 2u);
  ASSERT_EQ(light->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE((*full)[i].vector.empty());
    EXPECT_TRUE((*light)[i].vector.empty());
    EXPECT_EQ((*light)[i].key, (*full)[i].key);
    EXPECT_EQ((*light)[i].seq, (*full)[i].seq);
    EXPECT_EQ((*light)[i].abstract, (*full)[i].abstract);
    EXPECT_EQ((*light)[i].tags, (*full)[i].tags);
  }
}

TEST_F(RecordsTest, DeletesLeaveTombstonesForCatchUp) {
  std::vector<Record> recs = {Rec("a", "viking://resources/d", {1}),
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
  ASSERT_TRUE(catalog_->ScanRecords("acct", false, [&](const Record&) {
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
  EXPECT_EQ(**(*c)->GetMeta("schema_version"), std::to_string(Catalog::kSchemaVersion));
  EXPECT_TRUE((*c)->Get("a", "resources")->has_value());
  std::vector<Record> recs = {Rec("a", "viking://resources/x", {1})};
  EXPECT_TRUE((*c)->UpsertRecords("a", &recs).ok());
}

TEST_F(RecordsTest, GetRecordsByKeysKeepsOrderAndSkipsMissing) {
  std::vector<Record> recs = {Rec("a", "viking://resources/a", {1, 2}),
                                    Rec("b", "viking://resources/b", {3, 4}),
                                    Rec("c", "viking://resources/c", {5, 6})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  std::vector<Record> foreign = {Rec("z", "viking://resources/z", {9})};
  ASSERT_TRUE(catalog_->UpsertRecords("other", &foreign).ok());
  ASSERT_EQ(*catalog_->DeleteRecordsUnder("acct", "viking://resources/b"), 1u);

  std::vector<uint64_t> keys = {recs[2].key, 424242, recs[1].key, foreign[0].key, recs[0].key};
  auto got = catalog_->GetRecordsByKeys("acct", keys);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // Order of `keys`; unknown, deleted and other-account keys are skipped.
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].id, "c");
  EXPECT_EQ((*got)[1].id, "a");
  EXPECT_TRUE((*got)[0].vector.empty());
  EXPECT_EQ((*got)[0].tags, std::vector<std::string>{"lang=en"});
  EXPECT_EQ((*got)[0].account, "acct");

  auto with_vectors = catalog_->GetRecordsByKeys("acct", keys, /*with_vectors=*/true);
  ASSERT_TRUE(with_vectors.ok());
  ASSERT_EQ(with_vectors->size(), 2u);
  EXPECT_EQ((*with_vectors)[0].vector, (std::vector<float>{5, 6}));
  EXPECT_TRUE(catalog_->GetRecordsByKeys("acct", {})->empty());

  // A hot-path sized batch is answered completely.
  std::vector<Record> many;
  for (int i = 0; i < 150; ++i) {
    many.push_back(
        Rec("m" + std::to_string(i), "viking://resources/m" + std::to_string(i), {float(i)}));
  }
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &many).ok());
  std::vector<uint64_t> many_keys;
  for (auto it = many.rbegin(); it != many.rend(); ++it) many_keys.push_back(it->key);
  auto batch = catalog_->GetRecordsByKeys("acct", many_keys, true);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 150u);
  EXPECT_EQ(batch->front().id, "m149");
  EXPECT_EQ(batch->back().vector, std::vector<float>{0.0f});
}

TEST_F(RecordsTest, GetRecordsByUriReturnsEveryLevelOfOneNode) {
  Record l0 = Rec("d0", "viking://resources/d", {1});
  l0.level = 0;
  Record l1 = Rec("d1", "viking://resources/d", {2});
  l1.level = 1;
  Record child = Rec("x", "viking://resources/d/x", {3});
  std::vector<Record> recs = {l1, child, l0};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  auto got = catalog_->GetRecordsByUri("acct", "viking://resources/d", true);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].level, 0);
  EXPECT_EQ((*got)[1].level, 1);
  EXPECT_EQ((*got)[1].vector, std::vector<float>{2});
  EXPECT_TRUE(catalog_->GetRecordsByUri("other", "viking://resources/d")->empty());
  EXPECT_TRUE(catalog_->GetRecordsByUri("acct", "viking://resources/nope")->empty());
}

TEST_F(RecordsTest, ApplyRecordTagsKeepsTheRestAndTakesANewSequence) {
  std::vector<Record> recs = {Rec("d", "viking://resources/d", {1, 0}),
                              Rec("a", "viking://resources/d/a", {1, 2}),
                              Rec("b", "viking://resources/d/sub/b", {3, 4}),
                              Rec("x", "viking://resources/dx", {5, 6})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  auto under = catalog_->GetRecordsUnder("acct", "viking://resources/d");
  ASSERT_TRUE(under.ok());
  std::vector<std::string> uris;
  for (const Record& r : *under) uris.push_back(r.uri);
  EXPECT_EQ(uris, (std::vector<std::string>{"viking://resources/d", "viking://resources/d/a",
                                            "viking://resources/d/sub/b"}))
      << "the subtree only, not its sibling dx";

  // Every record starts with "lang=en" (Rec).
  const std::vector<uint64_t> b = {recs[2].key};
  const int64_t before = *catalog_->MaxRecordSeq();
  const std::vector<uint64_t> a_and_unknown = {recs[1].key, 987654};
  const std::vector<std::string> team = {"team=search"};
  auto updated = catalog_->ApplyRecordTags("acct", a_and_unknown, team, TagMode::kReplace);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(*updated, 1u) << "the unknown key is skipped";
  EXPECT_EQ(*catalog_->ApplyRecordTags("acct", b, {}, TagMode::kReplace), 1u);
  // Tags that would not change are not written again.
  EXPECT_EQ(*catalog_->ApplyRecordTags("acct", b, {}, TagMode::kReplace), 0u);
  auto changed = catalog_->RecordsChangedSince(before, 10);
  ASSERT_TRUE(changed.ok());
  ASSERT_EQ(changed->size(), 2u);
  EXPECT_EQ((*changed)[0].uri, "viking://resources/d/a");
  EXPECT_EQ((*changed)[0].tags, std::vector<std::string>{"team=search"});
  EXPECT_EQ((*changed)[0].vector, (std::vector<float>{1, 2})) << "the vector is kept";
  EXPECT_EQ((*changed)[1].tags, std::vector<std::string>{});
  EXPECT_EQ(*catalog_->MaxRecordSeq(), before + 2);
  // Append merges into the tags stored now, by key.
  const std::vector<uint64_t> a = {recs[1].key};
  const std::vector<std::string> more = {"team=ranking", "env=prod"};
  ASSERT_EQ(*catalog_->ApplyRecordTags("acct", a, more, TagMode::kAppend), 1u);
  EXPECT_EQ((*catalog_->GetRecordsByUri("acct", "viking://resources/d/a"))[0].tags,
            (std::vector<std::string>{"team=ranking", "env=prod"}));
  // Another account's records are not touched.
  EXPECT_EQ(*catalog_->ApplyRecordTags("other", a, team, TagMode::kReplace), 0u);
}

// An indexer that read a record's tags before a tag change and writes the
// record after it keeps the changed tags; a deleted record's are not
// brought back.
TEST_F(RecordsTest, UpsertKeepingStoredTagsReadsThemAtTheWrite) {
  std::vector<Record> recs = {Rec("a", "viking://resources/a", {1}),
                              Rec("b", "viking://resources/b", {2}),
                              Rec("c", "viking://resources/c", {3})};
  recs[0].tags = {"old=1"};
  recs[1].tags = {"old=2"};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  const std::vector<uint64_t> a = {recs[0].key};
  const std::vector<std::string> changed = {"new=1"};
  ASSERT_EQ(*catalog_->ApplyRecordTags("acct", a, changed, TagMode::kReplace), 1u);
  ASSERT_EQ(*catalog_->DeleteRecordsUnder("acct", "viking://resources/b"), 1u);

  // Written again as read before: "a" keeps the tag set meanwhile, "b" (a
  // deleted record) gets the tags given, "c" is written as given, "d" is new.
  std::vector<Record> again = {Rec("a", "viking://resources/a", {9}),
                               Rec("b", "viking://resources/b", {9}),
                               Rec("c", "viking://resources/c", {9}),
                               Rec("d", "viking://resources/d", {9})};
  again[0].tags = {"old=1"};
  again[1].tags = {"carried=2"};
  again[2].tags = {"given=3"};
  again[3].tags = {"carried=4"};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &again, {true, true, false, true}).ok());
  EXPECT_EQ(again[0].tags, std::vector<std::string>{"new=1"}) << "set on the written record";
  for (const char* uri : {"viking://resources/a", "viking://resources/b", "viking://resources/c",
                          "viking://resources/d"}) {
    auto stored = catalog_->GetRecordsByUri("acct", uri, true);
    ASSERT_TRUE(stored.ok() && stored->size() == 1u) << uri;
    EXPECT_EQ((*stored)[0].vector, std::vector<float>{9}) << uri;
  }
  EXPECT_EQ((*catalog_->GetRecordsByUri("acct", "viking://resources/a"))[0].tags,
            std::vector<std::string>{"new=1"});
  EXPECT_EQ((*catalog_->GetRecordsByUri("acct", "viking://resources/b"))[0].tags,
            std::vector<std::string>{"carried=2"});
  EXPECT_EQ((*catalog_->GetRecordsByUri("acct", "viking://resources/c"))[0].tags,
            std::vector<std::string>{"given=3"});
  EXPECT_EQ((*catalog_->GetRecordsByUri("acct", "viking://resources/d"))[0].tags,
            std::vector<std::string>{"carried=4"});
}

TEST_F(RecordsTest, BumpActiveCountCountsUseWithoutANewSequence) {
  Record l0 = Rec("d0", "viking://resources/d", {1});
  l0.level = 0;
  std::vector<Record> recs = {l0, Rec("d2", "viking://resources/d", {2}),
                                    Rec("e", "viking://resources/e", {3}),
                                    Rec("gone", "viking://resources/gone", {4})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  ASSERT_EQ(*catalog_->DeleteRecordsUnder("acct", "viking://resources/gone"), 1u);
  int64_t seq_before = *catalog_->MaxRecordSeq();
  std::vector<std::string> used = {"viking://resources/d", "viking://resources/gone",
                                   "viking://resources/unknown"};
  ASSERT_TRUE(catalog_->BumpActiveCount("acct", used).ok());
  ASSERT_TRUE(catalog_->BumpActiveCount("acct", std::vector<std::string>{used[0]}).ok());
  ASSERT_TRUE(catalog_->BumpActiveCount("other", used).ok());  // another tenant: no effect
  EXPECT_EQ(*catalog_->MaxRecordSeq(), seq_before);
  auto bumped = catalog_->GetRecordsByUri("acct", "viking://resources/d");
  ASSERT_TRUE(bumped.ok());
  ASSERT_EQ(bumped->size(), 2u);
  for (const Record& r : *bumped) {
    EXPECT_EQ(r.active_count, 2) << r.id;
  }
  EXPECT_EQ((*catalog_->GetRecordsByUri("acct", "viking://resources/e"))[0].active_count, 0);
}

TEST_F(RecordsTest, BumpActiveCountOnceCountsAKeyOnce) {
  std::vector<Record> recs = {Rec("d", "viking://resources/d", {1})};
  ASSERT_TRUE(catalog_->UpsertRecords("acct", &recs).ok());
  std::vector<std::string> used = {"viking://resources/d"};
  EXPECT_TRUE(*catalog_->BumpActiveCountOnce("acct", "task-1", used));
  EXPECT_FALSE(*catalog_->BumpActiveCountOnce("acct", "task-1", used));  // a rerun
  EXPECT_TRUE(*catalog_->BumpActiveCountOnce("acct", "task-2", used));
  EXPECT_EQ((*catalog_->GetRecordsByUri("acct", "viking://resources/d"))[0].active_count, 2);
  ASSERT_TRUE(catalog_->ForgetActiveCountBump("task-1").ok());
  EXPECT_FALSE(catalog_->GetMeta("active_count_bumped/task-1")->has_value());
  EXPECT_TRUE(catalog_->GetMeta("active_count_bumped/task-2")->has_value());
}

// The distinct (account, embedder) keys whose embedder holds a fragment,
// found by seeking (EmbeddingCacheKeysWith), with many entries per key.
TEST_F(RecordsTest, EmbeddingCacheKeysWithAFragmentAreEachListedOnce) {
  std::vector<std::string> hashes;
  std::vector<std::vector<float>> vectors;
  for (int i = 0; i < 50; ++i) {
    hashes.push_back("h" + std::to_string(i));
    vectors.push_back({float(i)});
  }
  for (const char* account : {"acct", "bob", "zed"}) {
    for (const char* embedder : {"openai:small", "openai:small#ovpack:b1", "openai:small#ovpack:b2",
                                 "zz#ovpack:b3"}) {
      if (std::string(account) == "bob" && std::string(embedder) != "openai:small") continue;
      ASSERT_TRUE(catalog_->PutCachedEmbeddings(account, embedder, hashes, vectors).ok());
    }
  }
  auto keys = catalog_->EmbeddingCacheKeysWith("#ovpack:");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  using Key = std::pair<std::string, std::string>;
  EXPECT_EQ(*keys, (std::vector<Key>{{"acct", "openai:small#ovpack:b1"},
                                     {"acct", "openai:small#ovpack:b2"},
                                     {"acct", "zz#ovpack:b3"},
                                     {"zed", "openai:small#ovpack:b1"},
                                     {"zed", "openai:small#ovpack:b2"},
                                     {"zed", "zz#ovpack:b3"}}));
  EXPECT_TRUE(catalog_->EmbeddingCacheKeysWith("#nothing:")->empty());
}

TEST_F(RecordsTest, EmbeddingCacheHitsMissesAndPurge) {
  std::vector<std::string> hashes = {"h1", "h2"};
  std::vector<std::vector<float>> vectors = {{1, 2, 3}, {4, 5, 6}};
  ASSERT_TRUE(catalog_->PutCachedEmbeddings("acct", "hashing:512", hashes, vectors).ok());
  std::vector<std::vector<float>> other_vectors = {{7}};
  ASSERT_TRUE(
      catalog_
          ->PutCachedEmbeddings("acct", "openai:small", std::vector<std::string>{"h1"},
                                other_vectors)
          .ok());

  std::vector<std::string> query = {"h2", "missing", "h1", "h2"};
  auto got = catalog_->GetCachedEmbeddings("acct", "hashing:512", query);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 4u);
  EXPECT_EQ((*got)[0], (std::vector<float>{4, 5, 6}));
  EXPECT_FALSE((*got)[1].has_value());
  EXPECT_EQ((*got)[2], (std::vector<float>{1, 2, 3}));
  EXPECT_EQ((*got)[3], (std::vector<float>{4, 5, 6}));
  // Entries are per embedder.
  auto other = catalog_->GetCachedEmbeddings("acct", "openai:small", query);
  EXPECT_EQ((*other)[2], std::vector<float>{7});
  EXPECT_FALSE((*other)[0].has_value());

  // A put replaces; mismatched lengths are refused.
  std::vector<std::vector<float>> replaced = {{9, 9}};
  ASSERT_TRUE(
      catalog_->PutCachedEmbeddings("acct", "hashing:512", std::vector<std::string>{"h1"}, replaced)
          .ok());
  EXPECT_EQ((*catalog_->GetCachedEmbeddings("acct", "hashing:512", hashes))[0],
            (std::vector<float>{9, 9}));
  EXPECT_EQ(catalog_->PutCachedEmbeddings("acct", "hashing:512", hashes, replaced).code(),
            StatusCode::kInvalidArgument);

  // Entries are per account: another account sees none of them.
  auto elsewhere = catalog_->GetCachedEmbeddings("other", "hashing:512", query);
  ASSERT_TRUE(elsewhere.ok());
  for (const auto& v : *elsewhere) EXPECT_FALSE(v.has_value());
  std::vector<std::vector<float>> theirs = {{5, 5}};
  ASSERT_TRUE(
      catalog_->PutCachedEmbeddings("other", "hashing:512", std::vector<std::string>{"h1"}, theirs)
          .ok());
  EXPECT_EQ((*catalog_->GetCachedEmbeddings("acct", "hashing:512", hashes))[0],
            (std::vector<float>{9, 9}));
  EXPECT_EQ((*catalog_->GetCachedEmbeddings("other", "hashing:512", hashes))[0],
            (std::vector<float>{5, 5}));

  EXPECT_EQ(*catalog_->PurgeEmbeddingCache("hashing:512"), 1u);
  EXPECT_FALSE((*catalog_->GetCachedEmbeddings("acct", "openai:small", query))[2].has_value());
  EXPECT_TRUE((*catalog_->GetCachedEmbeddings("acct", "hashing:512", hashes))[1].has_value());
}

// The version-2 schema, as migrations 0->1 and 1->2 wrote it.
constexpr const char* kVersion2Schema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE nodes(account TEXT NOT NULL, path TEXT NOT NULL, parent TEXT NOT NULL,
  name TEXT NOT NULL, is_dir INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL, hash TEXT NOT NULL, PRIMARY KEY(account, path)) WITHOUT ROWID;
CREATE INDEX nodes_by_parent ON nodes(account, parent, name);
CREATE TABLE records(key INTEGER PRIMARY KEY, account TEXT NOT NULL, id TEXT NOT NULL,
  uri TEXT NOT NULL, parent_uri TEXT NOT NULL, level INTEGER NOT NULL,
  context_type TEXT NOT NULL, owner TEXT NOT NULL, abstract TEXT NOT NULL,
  embedder TEXT NOT NULL, vector BLOB, tags TEXT NOT NULL, created_ns INTEGER NOT NULL,
  updated_ns INTEGER NOT NULL, active_count INTEGER NOT NULL, seq INTEGER NOT NULL,
  deleted INTEGER NOT NULL);
CREATE UNIQUE INDEX records_by_id ON records(account, id);
CREATE INDEX records_by_uri ON records(account, uri);
CREATE INDEX records_by_seq ON records(seq);
INSERT INTO meta VALUES('schema_version', '2');
INSERT INTO nodes VALUES('a', 'resources', '', 'resources', 1, 0, 1, 1, '');
INSERT INTO records VALUES(7, 'a', 'rid', 'viking://resources', '', 0, 'resource', '',
  'all resources', 'hashing:512', x'0000803f', '[]', 1, 1, 3, 5, 0);
)sql";

TEST(CatalogMigrationTest, Version2DatabaseGainsJobsAndCacheKeepingData) {
  testing::TempDir dir;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.Sub("skald.db").c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, kVersion2Schema, nullptr, nullptr, &err), SQLITE_OK) << err;
  sqlite3_close(db);

  auto c = Catalog::Open({dir.Sub("skald.db")});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Catalog& catalog = **c;
  EXPECT_EQ(**catalog.GetMeta("schema_version"), std::to_string(Catalog::kSchemaVersion));
  EXPECT_TRUE(catalog.Get("a", "resources")->has_value());
  auto rec = catalog.GetRecordsByKeys("a", std::vector<uint64_t>{7}, true);
  ASSERT_TRUE(rec.ok());
  ASSERT_EQ(rec->size(), 1u);
  EXPECT_EQ((*rec)[0].vector, std::vector<float>{1.0f});
  EXPECT_EQ((*rec)[0].active_count, 3);
  EXPECT_EQ(*catalog.MaxRecordSeq(), 5);
  // The new tables work.
  JobSpec spec;
  spec.kind = JobKind::kIndex;
  spec.account = "a";
  EXPECT_TRUE(catalog.EnqueueJob(spec).ok());
  std::vector<std::vector<float>> v = {{1}};
  EXPECT_TRUE(catalog.PutCachedEmbeddings("a", "e", std::vector<std::string>{"h"}, v).ok());
}

}  // namespace
}  // namespace skald
