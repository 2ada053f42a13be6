#include "index/lexical_index.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "index/lexical_query.h"
#include "index/lexical_index_test_util.h"
#include "index/memory_lexical_index.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using lexical_testing::Doc;
using lexical_testing::IdList;
using lexical_testing::Ids;
using lexical_testing::LexicalIndexTest;
using lexical_testing::Put;
using lexical_testing::TestDoc;

TEST_P(LexicalIndexTest, InsertSearchDelete) {
  LexicalIndex& index = Open();
  ASSERT_TRUE(Put(index,
                    std::vector<TestDoc>{
                      Doc(1, "viking://resources/a.md", "the quick brown fox"),
                      Doc(2, "viking://resources/b.md", "a lazy dog sleeps"),
                      Doc(3, "viking://resources/c.md", "foxes chase dogs; fox fox"),
                  })
                  .ok());
  EXPECT_EQ(Find("fox"), (IdList{3, 1}));  // more occurrences rank higher
  EXPECT_EQ(Find("dogs"), (IdList{2, 3}));
  EXPECT_TRUE(Find("unicorn").empty());
  auto removed = index.Delete(std::vector<uint64_t>{3, 99});
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 1u);
  EXPECT_EQ(Find("fox"), (IdList{1}));
  EXPECT_EQ(*index.Count(Acme()), 2u);
}

TEST_P(LexicalIndexTest, StemmedAndCaseInsensitiveMatching) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/a", "Running databases")).ok());
  EXPECT_EQ(Find("RUNS database"), (IdList{1}));
}

TEST_P(LexicalIndexTest, UpsertReplacesText) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/a", "old words")).ok());
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/a", "new text")).ok());
  EXPECT_TRUE(Find("old").empty());
  EXPECT_EQ(Find("new"), (IdList{1}));
  EXPECT_EQ(*index_->Count(Acme()), 1u);
}

TEST_P(LexicalIndexTest, AccountsArePartitions) {
  Open();
  ASSERT_TRUE(Put(*index_,
                    std::vector<TestDoc>{
                      Doc(1, "viking://resources/a", "shared secret", "acme"),
                      Doc(2, "viking://resources/a", "shared secret", "globex"),
                  })
                  .ok());
  EXPECT_EQ(Find("secret"), (IdList{1}));
  RecordFilter globex;
  globex.account = "globex";
  EXPECT_EQ(Find("secret", globex), (IdList{2}));
  RecordFilter nobody;
  nobody.account = "initech";
  EXPECT_TRUE(Find("secret", nobody).empty());
  EXPECT_EQ(Find("secret", RecordFilter{}), (IdList{1, 2}));  // "" = every account
  // A record can move to another account.
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/a", "shared secret", "globex")).ok());
  EXPECT_TRUE(Find("secret").empty());
  EXPECT_EQ(Find("secret", globex), (IdList{1, 2}));
  EXPECT_EQ(*index_->Count(globex), 2u);
  TestDoc no_account = Doc(3, "viking://resources/x", "x", "");
  EXPECT_EQ(Put(*index_, no_account).code(), StatusCode::kInvalidArgument);
}

TEST_P(LexicalIndexTest, LevelAndContextTypeAndOwnerFilters) {
  Open();
  std::vector<TestDoc> docs;
  for (int i = 0; i < 6; ++i) {
    TestDoc doc = Doc(i + 1, "viking://resources/d" + std::to_string(i), "needle");
    doc.record.level = i % 3;
    doc.record.context_type = i < 3 ? ContextType::kResource : ContextType::kMemory;
    doc.record.owner = i % 2 == 0 ? "" : "alice";
    docs.push_back(doc);
  }
  ASSERT_TRUE(Put(*index_, docs).ok());
  RecordFilter f = Acme();
  f.level_mask = (1u << 0) | (1u << 2);
  EXPECT_EQ(Find("needle", f), (IdList{1, 3, 4, 6}));
  f = Acme();
  f.context_types = {ContextType::kMemory};
  EXPECT_EQ(Find("needle", f), (IdList{4, 5, 6}));
  f = Acme();
  f.owners = {"alice"};
  EXPECT_EQ(Find("needle", f), (IdList{2, 4, 6}));
  f.owners = {"", "bob"};
  EXPECT_EQ(Find("needle", f), (IdList{1, 3, 5}));
  f = Acme();
  f.level_mask = 1u << 1;
  f.context_types = {ContextType::kResource, ContextType::kSkill};
  EXPECT_EQ(Find("needle", f), (IdList{2}));
  EXPECT_EQ(*index_->Count(f), 1u);
  RecordFilter repeated;  // every account; repeated values count once
  repeated.context_types = {ContextType::kMemory, ContextType::kMemory};
  repeated.owners = {"alice", "alice"};
  EXPECT_EQ(*index_->Count(repeated), 2u);
  EXPECT_EQ(Find("needle", repeated), (IdList{4, 6}));
}

TEST_P(LexicalIndexTest, UriScopesSubtreeAndChildren) {
  Open();
  ASSERT_TRUE(Put(*index_,
                    std::vector<TestDoc>{
                      Doc(1, "viking://resources/a", "topic"),
                      Doc(2, "viking://resources/a/x.md", "topic"),
                      Doc(3, "viking://resources/a/sub", "topic"),
                      Doc(4, "viking://resources/a/sub/y.md", "topic"),
                      Doc(5, "viking://resources/ab/z.md", "topic"),
                      Doc(6, "viking://user/alice/memories/m.md", "topic"),
                  })
                  .ok());
  RecordFilter f = Acme();
  f.uri_scopes = {UriScope::Subtree("viking://resources/a")};
  EXPECT_EQ(Find("topic", f), (IdList{1, 2, 3, 4}));  // not "ab"
  f.uri_scopes = {UriScope::Children("viking://resources/a")};
  EXPECT_EQ(Find("topic", f), (IdList{2, 3}));
  f.uri_scopes = {UriScope::Children("viking://resources/a/")};  // trailing slash
  EXPECT_EQ(Find("topic", f), (IdList{2, 3}));
  f.uri_scopes = {UriScope{"viking://resources/a", 1, -1}};  // strictly below
  EXPECT_EQ(Find("topic", f), (IdList{2, 3, 4}));
  f.uri_scopes = {UriScope::Subtree("viking://resources/a/sub"),
                  UriScope::Subtree("viking://user/alice")};  // any-of
  EXPECT_EQ(Find("topic", f), (IdList{3, 4, 6}));
  f.uri_scopes = {UriScope::Subtree("viking://")};
  EXPECT_EQ(Find("topic", f).size(), 6u);
  EXPECT_EQ(*index_->Count(f), 6u);
  f.uri_scopes = {UriScope{"viking://resources/a", 2, 1}};
  std::vector<SearchHit> hits;
  EXPECT_EQ(index_->Search("topic", f, 10, &hits).code(), StatusCode::kInvalidArgument);
}

TEST_P(LexicalIndexTest, TagsAllOfAndTimeRanges) {
  Open();
  std::vector<TestDoc> docs;
  for (int i = 0; i < 4; ++i) {
    TestDoc doc = Doc(i + 1, "viking://resources/t" + std::to_string(i), "tagged text");
    doc.record.created_ns = 100 * (i + 1);
    doc.record.updated_ns = 1000 * (i + 1);
    docs.push_back(doc);
  }
  docs[0].record.tags = {"lang=en", "kind=doc"};
  docs[1].record.tags = {"lang=en"};
  docs[2].record.tags = {"kind=doc", "lang=en", "x=y"};
  ASSERT_TRUE(Put(*index_, docs).ok());
  RecordFilter f = Acme();
  f.tags = {"lang=en"};
  EXPECT_EQ(Find("text", f), (IdList{1, 2, 3}));
  f.tags = {"lang=en", "kind=doc", "lang=en"};  // duplicates are harmless
  EXPECT_EQ(Find("text", f), (IdList{1, 3}));
  f.tags = {"missing"};
  EXPECT_TRUE(Find("text", f).empty());
  f = Acme();
  f.created_min = 200;
  f.created_max = 300;
  EXPECT_EQ(Find("text", f), (IdList{2, 3}));
  f = Acme();
  f.updated_min = 3000;
  EXPECT_EQ(Find("text", f), (IdList{3, 4}));
  f.updated_max = 3000;
  EXPECT_EQ(Find("text", f), (IdList{3}));
  // Tags go away with the record.
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/t0", "tagged text")).ok());
  f = Acme();
  f.tags = {"kind=doc"};
  EXPECT_EQ(Find("text", f), (IdList{3}));
}

TEST_P(LexicalIndexTest, FilterAppliesBeforeTopK) {
  Open();
  std::vector<TestDoc> docs;
  for (int i = 0; i < 50; ++i) {
    docs.push_back(
        Doc(i + 1, "viking://resources/noise/" + std::to_string(i), "rare rare rare rare word"));
  }
  docs.push_back(Doc(100, "viking://resources/wanted/doc", "rare and a lot of other words here"));
  ASSERT_TRUE(Put(*index_, docs).ok());
  RecordFilter f = Acme();
  f.uri_scopes = {UriScope::Subtree("viking://resources/wanted")};
  EXPECT_EQ(Find("rare", f, 1), (IdList{100}));
  EXPECT_EQ(Find("rare", Acme(), 5).size(), 5u);
}

TEST_P(LexicalIndexTest, FieldWeightsMatter) {
  auto title_doc = Doc(1, "viking://resources/1", "unrelated body text about cooking");
  title_doc.title = "kubernetes";
  auto body_doc = Doc(2, "viking://resources/2", "deploying kubernetes clusters with helm");
  body_doc.title = "deployment notes";
  auto abstract_doc = Doc(3, "viking://resources/3", "misc");
  abstract_doc.abstract = "kubernetes summary";

  options_.title_weight = 5;
  Open();
  ASSERT_TRUE(Put(*index_, std::vector<TestDoc>{title_doc, body_doc, abstract_doc}).ok());
  EXPECT_EQ(Find("kubernetes").front(), 1u);

  fs::remove_all(dir_);
  options_.title_weight = 1;
  options_.body_weight = 5;
  Open();
  ASSERT_TRUE(Put(*index_, std::vector<TestDoc>{title_doc, body_doc, abstract_doc}).ok());
  EXPECT_EQ(Find("kubernetes").front(), 2u);

  fs::remove_all(dir_);
  options_.body_weight = 1;
  options_.abstract_weight = 5;
  options_.title_weight = 0;  // the title is no longer searchable
  Open();
  ASSERT_TRUE(Put(*index_, std::vector<TestDoc>{title_doc, body_doc, abstract_doc}).ok());
  EXPECT_EQ(Find("kubernetes"), (IdList{3, 2}));
}

TEST_P(LexicalIndexTest, QuerySyntaxIsNeverInterpreted) {
  Open();
  ASSERT_TRUE(Put(*index_,
                    std::vector<TestDoc>{
                      Doc(1, "viking://resources/1", "alpha beta"),
                      Doc(2, "viking://resources/2", "alpha only"),
                      Doc(3, "viking://resources/3", "near gamma title body"),
                  })
                  .ok());
  for (const char* query : {"\"", "\"\"\"", "*", "-", ":", "^", "(", ")", "{}", "AND", "OR", "NOT",
                            "\"unbalanced", "'", "\\", ";", "'; DROP TABLE docs; --"}) {
    std::vector<SearchHit> hits;
    Status status = index_->Search(query, Acme(), 10, &hits);
    EXPECT_TRUE(status.ok()) << query << ": " << status.ToString();
  }
  // Operators are words (or stop words), never syntax: OR semantics remain.
  EXPECT_EQ(Find("alpha AND beta"), (IdList{1, 2}));
  EXPECT_EQ(Find("alpha NOT beta"), (IdList{1, 2}));
  EXPECT_EQ(Find("-beta alpha"), (IdList{1, 2}));
  EXPECT_EQ(Find("alph*"), IdList{});           // no prefix queries
  EXPECT_EQ(Find("alpha*"), (IdList{1, 2}));    // equal scores: by id
  EXPECT_EQ(Find("title:gamma"), (IdList{3}));  // "title" is a word, not a column filter
  EXPECT_EQ(Find("NEAR(alpha beta)"), (IdList{1, 3, 2}));
  EXPECT_EQ(Find("\"alpha beta\""), (IdList{1, 2}));  // no phrase semantics either
  EXPECT_EQ(Find("^alpha"), (IdList{1, 2}));
  EXPECT_EQ(*index_->Count(Acme()), 3u);
}

TEST_P(LexicalIndexTest, BuildFts5QueryQuotesWords) {
  auto tokenizer = NewIcuTokenizer();
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_EQ(BuildFts5Query(**tokenizer, "Cats AND \"dogs\" -cats* NEAR(x)"),
            "\"Cats\" OR \"dogs\" OR \"NEAR\" OR \"x\"");
  EXPECT_EQ(BuildFts5Query(**tokenizer, "the of ... !!"), "");
  std::string many;
  for (size_t i = 0; i < kMaxQueryWords + 10; ++i) many += "w" + std::to_string(i) + " ";
  std::string query = BuildFts5Query(**tokenizer, many);
  EXPECT_EQ(static_cast<size_t>(std::count(query.begin(), query.end(), '"')), 2 * kMaxQueryWords);
}

TEST_P(LexicalIndexTest, ChineseJapaneseThaiAreSearchable) {
  Open();
  ASSERT_TRUE(Put(*index_,
                    std::vector<TestDoc>{
                      Doc(1, "viking://resources/zh", "我爱北京天安门，今天天气很好"),
                      Doc(2, "viking://resources/ja", "東京都に住んでいます。"),
                      Doc(3, "viking://resources/th", "ภาษาไทยเป็นภาษาที่ยาก"),
                      Doc(4, "viking://resources/en", "Beijing and Tokyo"),
                  })
                  .ok());
  EXPECT_EQ(Find("北京"), (IdList{1}));
  EXPECT_EQ(Find("天气怎么样"), (IdList{1}));
  EXPECT_EQ(Find("東京"), (IdList{2}));
  EXPECT_EQ(Find("ไทย"), (IdList{3}));
  EXPECT_EQ(Find("tokyo 東京").size(), 2u);
}

TEST_P(LexicalIndexTest, RejectsBadOptionsAndArguments) {
  LexicalIndexOptions bad = options_;
  bad.b = 1.5;
  EXPECT_EQ(OpenFts5LexicalIndex(bad).status().code(), StatusCode::kInvalidArgument);
  bad = options_;
  bad.title_weight = bad.abstract_weight = bad.body_weight = 0;
  EXPECT_EQ(OpenFts5LexicalIndex(bad).status().code(), StatusCode::kInvalidArgument);
  bad = options_;
  bad.path = "";
  EXPECT_EQ(OpenFts5LexicalIndex(bad).status().code(), StatusCode::kInvalidArgument);
  Open();
  std::vector<SearchHit> hits;
  EXPECT_EQ(index_->Search("x", Acme(), 0, &hits).code(), StatusCode::kInvalidArgument);
}

TEST_P(LexicalIndexTest, InvalidUtf8TextIsIndexedWithoutFailing) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/bad", "valid\xff\xfe words \xc3")).ok());
  EXPECT_EQ(Find("valid"), (IdList{1}));
  EXPECT_EQ(Find("words\xff"), (IdList{1}));
}

TEST_P(LexicalIndexTest, SearchesRaceWithWrites) {
  options_.read_connections = 3;
  Open();
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      std::vector<SearchHit> hits;
      while (!done.load()) {
        if (!index_->Search("shared term", Acme(), 10, &hits).ok()) ++errors;
        if (!index_->Count(Acme()).ok()) ++errors;
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    std::string uri = "viking://resources/r" + std::to_string(i);
    if (!Put(*index_, Doc(i + 1, uri, "shared term number " + std::to_string(i))).ok()) ++errors;
    if (i % 3 == 0 && !index_->Delete(std::vector<uint64_t>{static_cast<uint64_t>(i)}).ok()) {
      ++errors;
    }
  }
  done = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(*index_->Count(Acme()), 200u - 66u);
}

// The lexical index promises the vector index's filter language: on random
// records and random filters both must admit exactly the same records.
TEST_P(LexicalIndexTest, FiltersAgreeWithTheVectorIndex) {
  Open();
  VectorIndexOptions vector_options;
  vector_options.kind = "flat";
  vector_options.embedder = "test";
  vector_options.dim = 4;
  auto vectors = NewVectorIndex(vector_options);
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();

  std::mt19937 rng(11);
  auto pick = [&](const auto& from) { return from[rng() % from.size()]; };
  const std::vector<std::string> accounts{"acme", "globex"};
  const std::vector<std::string> dirs{"viking://resources",        "viking://resources/a",
                                      "viking://resources/a/b",    "viking://resources/ab",
                                      "viking://user/u1/memories", "viking://agent/skills"};
  const std::vector<ContextType> types{ContextType::kResource, ContextType::kMemory,
                                      ContextType::kSkill};
  const std::vector<std::string> owners{"", "u1", "u2"};
  const std::vector<std::string> tags{"t=1", "t=2", "lang=en"};
  std::vector<TestDoc> docs;
  for (int i = 1; i <= 300; ++i) {
    std::string dir = pick(dirs);
    TestDoc doc =
        Doc(i, rng() % 4 == 0 ? dir : dir + "/n" + std::to_string(i % 7), "common", pick(accounts));
    doc.record.level = static_cast<int>(rng() % 3);
    doc.record.context_type = pick(types);
    doc.record.owner = pick(owners);
    for (const auto& tag : tags) {
      if (rng() % 2) doc.record.tags.push_back(tag);
    }
    doc.record.created_ns = rng() % 1000;
    doc.record.updated_ns = rng() % 1000;
    docs.push_back(doc);
    std::vector<float> v{1, 0, 0, 0};
    ASSERT_TRUE((*vectors)->Upsert(doc.record, v).ok());
  }
  ASSERT_TRUE(Put(*index_, docs).ok());

  int selective = 0;  // rounds where the filter admits some records but not all
  for (int round = 0; round < 300; ++round) {
    RecordFilter f;
    if (rng() % 3) f.account = pick(accounts);
    if (rng() % 2) f.level_mask = static_cast<uint32_t>(rng() % 7) + 1;
    if (rng() % 3 == 0) {
      // Distinct: the vector index's Count double-counts a repeated context
      // type when the account is "" (reported; lexical handles repeats).
      f.context_types = {pick(types)};
      ContextType other = pick(types);
      if (other != f.context_types[0]) f.context_types.push_back(other);
    }
    if (rng() % 3 == 0) f.owners = {pick(owners)};
    if (rng() % 3 == 0) f.tags = {pick(tags), pick(tags)};
    if (rng() % 2) {
      int min_depth = static_cast<int>(rng() % 3);
      int max_depth = rng() % 2 ? -1 : min_depth + static_cast<int>(rng() % 2);
      f.uri_scopes.push_back({pick(dirs) + (rng() % 4 == 0 ? "/" : ""), min_depth, max_depth});
      if (rng() % 3 == 0) f.uri_scopes.push_back(UriScope::Subtree(pick(dirs)));
      if (rng() % 10 == 0) f.uri_scopes.push_back(UriScope::Subtree("viking://"));
    }
    if (rng() % 3 == 0) {
      f.created_min = rng() % 500;
      f.created_max = f.created_min + rng() % 500;
    }
    if (rng() % 3 == 0) f.updated_min = rng() % 1000;
    auto expected = (*vectors)->Count(f);
    auto actual = index_->Count(f);
    ASSERT_TRUE(expected.ok() && actual.ok());
    auto describe = [&] {
      std::string d = "account=" + f.account + " levels=" + std::to_string(f.level_mask);
      for (ContextType c : f.context_types) d += " type=" + std::string(ContextTypeName(c));
      for (const auto& o : f.owners) d += " owner=" + o;
      for (const auto& t : f.tags) d += " tag=" + t;
      for (const auto& u : f.uri_scopes) {
        d += " scope=" + u.uri + "[" + std::to_string(u.min_depth) + "," +
             std::to_string(u.max_depth) + "]";
      }
      d += " created=" + std::to_string(f.created_min) + ".." + std::to_string(f.created_max);
      d += " updated>=" + std::to_string(f.updated_min);
      return d;
    };
    ASSERT_EQ(*actual, *expected) << "round " << round << ": " << describe();
    if (*expected > 0 && *expected < docs.size()) ++selective;
    std::vector<SearchHit> lexical_hits, vector_hits;
    ASSERT_TRUE(index_->Search("common", f, 1000, &lexical_hits).ok());
    SearchOptions exact;
    exact.k = 1000;
    exact.exact = true;
    std::vector<float> q{1, 0, 0, 0};
    ASSERT_TRUE((*vectors)->Search(q, f, exact, &vector_hits).ok());
    auto l = Ids(lexical_hits), v = Ids(vector_hits);
    ASSERT_EQ(std::set<uint64_t>(l.begin(), l.end()), std::set<uint64_t>(v.begin(), v.end()))
        << "round " << round << ": " << describe();
  }
  EXPECT_GT(selective, 150);
}

// MaxScore pruning must not change results: the same queries against the
// same records, with and without pruning, give the same hits and scores.
// The reference is the exhaustive FTS5 index, so this also checks that the
// memory index ranks and scores as FTS5 does.
TEST_P(LexicalIndexTest, PruningGivesExactResults) {
  std::mt19937 rng(5);
  std::vector<double> weights;
  for (int i = 0; i < 300; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  auto words = [&](int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += "w" + std::to_string(zipf(rng)) + " ";
    return text;
  };
  std::vector<TestDoc> docs;
  for (int i = 1; i <= 1500; ++i) {
    TestDoc doc = Doc(i, "viking://resources/d" + std::to_string(i % 10) + "/" + std::to_string(i),
                      words(5 + rng() % 60));
    doc.title = words(1 + rng() % 4);
    doc.record.level = static_cast<int>(rng() % 3);
    docs.push_back(std::move(doc));
  }
  options_.prune = false;
  LexicalIndexOptions exhaustive_options = options_;
  exhaustive_options.path = (dir_ / "exhaustive.db").string();
  auto exhaustive = OpenFts5LexicalIndex(exhaustive_options);
  ASSERT_TRUE(exhaustive.ok());
  options_.prune = true;
  Open();
  ASSERT_TRUE(Put(*index_, docs).ok());
  ASSERT_TRUE(Put(**exhaustive, docs).ok());
  // Replace and delete some records: the pruned index's stored document
  // frequencies must follow (the exhaustive one counts postings instead).
  std::vector<TestDoc> changed;
  std::vector<uint64_t> deleted;
  for (int i = 1; i <= 1500; i += 7) {
    TestDoc doc = docs[i - 1];
    doc.body = words(10 + rng() % 30);
    changed.push_back(std::move(doc));
    deleted.push_back(i + 3);
  }
  for (LexicalIndex* index : {index_.get(), exhaustive->get()}) {
    ASSERT_TRUE(Put(*index, changed).ok());
    ASSERT_TRUE(index->Delete(deleted).ok());
  }
  size_t nonempty = 0;
  for (int round = 0; round < 300; ++round) {
    std::string query = words(1 + static_cast<int>(rng() % 10));
    int k = std::vector<int>{1, 3, 10, 50}[rng() % 4];
    RecordFilter filter = Acme();
    if (rng() % 3 == 0) filter.level_mask = 1u << (rng() % 3);
    // One directory's children (THINKING's searches; the memory index
    // scores them from their forward lists).
    if (rng() % 3 == 0) {
      filter.uri_scopes.push_back(
          UriScope::Children("viking://resources/d" + std::to_string(rng() % 10)));
    }
    std::vector<SearchHit> pruned, full;
    ASSERT_TRUE(index_->Search(query, filter, k, &pruned).ok());
    ASSERT_TRUE((*exhaustive)->Search(query, filter, k, &full).ok());
    ASSERT_EQ(pruned.size(), full.size()) << query << " k=" << k;
    for (size_t i = 0; i < full.size(); ++i) {
      ASSERT_EQ(pruned[i].id, full[i].id) << query << " k=" << k << " rank " << i;
      ASSERT_NEAR(pruned[i].score, full[i].score, 1e-4 * full[i].score);
    }
    nonempty += full.empty() ? 0 : 1;
  }
  EXPECT_GT(nonempty, 250u);
}

// BM25F scores computed by hand from the formula of fts5_bm25.h, with the
// index's field layout (title, abstract, body) and its documented constants.
//
//   norm_c(d) = w_c / (1 - b + b * len(d, c) / avglen(c))
//   tf~(t, d) = sum_c tf(t, d, c) * norm_c(d)
//   score(d)  = sum_t idf(t) * tf~ * (k1 + 1) / (tf~ + k1)
//   idf(t)    = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))
//
// k1 = 1.2, b = 0.75, weights title 2, abstract 1, body 1. No word of the
// corpus is a stop word or changed by stemming, so field lengths are word counts.
TEST_P(LexicalIndexTest, Bm25fScoresMatchHandComputation) {
  options_.k1 = 1.2;
  options_.b = 0.75;
  options_.title_weight = 2;
  options_.abstract_weight = 1;
  options_.body_weight = 1;
  LexicalIndex& index = Open();
  auto doc = [](uint64_t id, std::string title, std::string abstract, std::string body,
                std::string account = "acme") {
    TestDoc d = Doc(id, "viking://resources/d" + std::to_string(id), std::move(body),
                            std::move(account));
    d.title = std::move(title);
    d.abstract = std::move(abstract);
    return d;
  };
  ASSERT_TRUE(Put(index, std::vector<TestDoc>{
                             doc(1, "cat", "cat dog", "fish bird wolf lion"),
                             doc(2, "dog", "bird", "cat cat fish"),
                             doc(3, "lion wolf", "fish", "bird dog wolf"),
                             // Another account's partition: changes none of acme's statistics.
                             doc(4, "cat", "cat cat", "cat dog", "other"),
                         })
                  .ok());
  // Statistics of acme's partition: N = 3.
  //   lengths   title  abstract  body
  //   doc 1       1       2       4
  //   doc 2       1       1       3
  //   doc 3       2       1       3
  //   avglen    4/3     4/3     10/3
  // norm_c(d):
  //   title, len 1:    2 / (0.25 + 0.75 * 1 / (4/3))  = 2 / 0.8125 = 32/13 = 2.461538
  //   title, len 2:    2 / (0.25 + 0.75 * 2 / (4/3))  = 2 / 1.375  = 16/11 = 1.454545
  //   abstract, len 2: 1 / 1.375  =  8/11 = 0.727273
  //   abstract, len 1: 1 / 0.8125 = 16/13 = 1.230769
  //   body, len 4:     1 / (0.25 + 0.75 * 4 / (10/3)) = 1 / 1.15  = 20/23 = 0.869565
  //   body, len 3:     1 / (0.25 + 0.75 * 3 / (10/3)) = 1 / 0.925 = 40/37 = 1.081081
  // idf: "cat" is in docs 1, 2 (n = 2), "dog" in docs 1, 2, 3 (n = 3):
  //   idf(cat) = ln(1 + 1.5 / 2.5) = ln 1.6   = 0.470004
  //   idf(dog) = ln(1 + 0.5 / 3.5) = ln(8/7) = 0.133531
  // doc 1: cat tf~ = 32/13 (title) + 8/11 (abstract) = 456/143 = 3.188811
  //          0.470004 * 3.188811 * 2.2 / (3.188811 + 1.2) = 0.751287
  //        dog tf~ = 8/11 (abstract) = 0.727273
  //          0.133531 * 0.727273 * 2.2 / (0.727273 + 1.2) = 0.110856
  //        score = 0.862143
  // doc 2: cat tf~ = 2 * 40/37 (body) = 2.162162
  //          0.470004 * 2.162162 * 2.2 / (2.162162 + 1.2) = 0.664957
  //        dog tf~ = 32/13 (title) = 2.461538
  //          0.133531 * 2.461538 * 2.2 / (2.461538 + 1.2) = 0.197492
  //        score = 0.862449
  // doc 3: dog tf~ = 40/37 (body) = 1.081081
  //          0.133531 * 1.081081 * 2.2 / (1.081081 + 1.2) = 0.139227
  //        score = 0.139227
  std::vector<SearchHit> hits;
  ASSERT_TRUE(index.Search("cat dog", Acme(), 10, &hits).ok());
  ASSERT_EQ(Ids(hits), (IdList{2, 1, 3}));
  EXPECT_NEAR(hits[0].score, 0.862449, 2e-6);
  EXPECT_NEAR(hits[1].score, 0.862143, 2e-6);
  EXPECT_NEAR(hits[2].score, 0.139227, 2e-6);
}

INSTANTIATE_TEST_SUITE_P(Implementations, LexicalIndexTest, ::testing::Values("fts5", "memory"),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace skald
