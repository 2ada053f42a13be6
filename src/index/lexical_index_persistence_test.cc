#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "index/lexical_index.h"
#include "index/lexical_index_test_util.h"
#include "index/memory_lexical_index.h"

// The lexical indexes on disk: reopening, replacing, resetting what is not
// theirs, and the memory index's log.

namespace skald {
namespace {

namespace fs = std::filesystem;
using lexical_testing::Doc;
using lexical_testing::IdList;
using lexical_testing::Put;
using lexical_testing::TestDoc;

class LexicalIndexPersistenceTest : public lexical_testing::LexicalIndexTest {};
TEST_P(LexicalIndexPersistenceTest, PersistsAcrossReopen) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(7, "viking://resources/p", "durable words")).ok());
  ASSERT_TRUE(index_->SetAppliedSeq(42).ok());
  ASSERT_TRUE(index_->Optimize().ok());
  LexicalIndex& reopened = Open();
  EXPECT_FALSE(reopened.was_reset());
  EXPECT_EQ(reopened.applied_seq(), 42);
  EXPECT_EQ(Find("durable"), (IdList{7}));
  ASSERT_TRUE(Put(reopened, Doc(8, "viking://resources/q", "more durable")).ok());
  EXPECT_EQ(Find("durable").size(), 2u);
}

// A record replaced under the same key (a move) and a delete survive a
// reopen without a reset.
TEST_P(LexicalIndexPersistenceTest, ReplacedAndDeletedRecordsPersist) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/docs/a.md", "alpha beta")).ok());
  ASSERT_TRUE(Put(*index_, Doc(2, "viking://resources/docs", "docs dir")).ok());
  ASSERT_TRUE(index_->SetAppliedSeq(3).ok());
  index_.reset();
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/docs/b.md", "alpha beta")).ok());
  std::vector<uint64_t> gone{2};
  ASSERT_TRUE(index_->Delete(gone).ok());
  ASSERT_TRUE(index_->SetAppliedSeq(5).ok());
  index_.reset();
  LexicalIndex& reopened = Open();
  EXPECT_FALSE(reopened.was_reset());
  EXPECT_EQ(reopened.applied_seq(), 5);
  EXPECT_EQ(Find("alpha"), (IdList{1}));
  EXPECT_EQ(Find("docs"), (IdList{}));
}

TEST_P(LexicalIndexPersistenceTest, OtherTokenizerResetsTheIndex) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/p", "words")).ok());
  ASSERT_TRUE(index_->SetAppliedSeq(9).ok());
  index_.reset();
  TokenizerOptions plain;
  plain.stem_english = false;
  auto tokenizer = NewIcuTokenizer(plain);
  ASSERT_TRUE(tokenizer.ok());
  options_.tokenizer = tokenizer->get();
  LexicalIndex& reopened = Open();
  EXPECT_TRUE(reopened.was_reset());
  EXPECT_EQ(reopened.applied_seq(), 0);
  EXPECT_EQ(*reopened.Count(RecordFilter{}), 0u);
  EXPECT_EQ(reopened.tokenizer_name(), (*tokenizer)->Name());
  index_.reset();
}

TEST_P(LexicalIndexPersistenceTest, CorruptFileIsReset) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/p", "words")).ok());
  index_.reset();
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(options_.path + suffix);
  {
    std::ofstream out(options_.path, std::ios::binary | std::ios::trunc);
    out << std::string(8192, 'Z');
  }
  LexicalIndex& reopened = Open();
  EXPECT_TRUE(reopened.was_reset());
  EXPECT_EQ(*reopened.Count(RecordFilter{}), 0u);
  ASSERT_TRUE(Put(reopened, Doc(1, "viking://resources/p", "words")).ok());
  EXPECT_EQ(Find("words"), (IdList{1}));
}

TEST_P(LexicalIndexPersistenceTest, RefusesSomeoneElsesDatabase) {
  fs::create_directories(fs::path(options_.path).parent_path());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(options_.path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE nodes(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto index = OpenIndex(options_);
  EXPECT_EQ(index.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(fs::exists(options_.path));
}

// The memory index's log: a crash mid-append (a torn last entry) loses only
// that entry; everything before it, with its applied sequence, survives.
// Tests of the memory index alone (its log has no FTS5 counterpart).
class MemoryLexicalIndexTest : public lexical_testing::LexicalIndexTest {};

TEST_P(MemoryLexicalIndexTest, TornLogTailIsDropped) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/p", "first words")).ok());
  ASSERT_TRUE(index_->SetAppliedSeq(5).ok());
  ASSERT_TRUE(Put(*index_, Doc(2, "viking://resources/q", "second words")).ok());
  ASSERT_TRUE(index_->SetAppliedSeq(6).ok());
  // What a crash leaves: the files as they are now (the destructor would
  // fold the log into a snapshot), the log cut inside its last entry.
  const fs::path copy = dir_ / "copy";
  fs::create_directories(copy);
  fs::copy_file(options_.path, copy / "lexical.db");
  fs::copy_file(options_.path + ".log", copy / "lexical.db.log");
  fs::resize_file(copy / "lexical.db.log", fs::file_size(copy / "lexical.db.log") - 3);
  index_.reset();
  options_.path = (copy / "lexical.db").string();
  LexicalIndex& reopened = Open();
  EXPECT_FALSE(reopened.was_reset());
  EXPECT_EQ(reopened.applied_seq(), 5);
  EXPECT_EQ(Find("words"), (IdList{1, 2}));
  // The recovered state is a new snapshot; reopening again keeps it.
  LexicalIndex& again = Open();
  EXPECT_EQ(again.applied_seq(), 5);
  EXPECT_EQ(Find("second").size(), 1u);
}

// Body terms given with a text are indexed in its body's place when they
// are the index's tokenizer's (the same postings as tokenizing the body),
// and ignored when they are another tokenizer's or of a text of another
// size than the body.
TEST_P(MemoryLexicalIndexTest, BodyTermsOfTheSameTokenizerStandForTheBody) {
  auto tokenizer = NewIcuTokenizer();  // the index's own: the default
  ASSERT_TRUE(tokenizer.ok());
  Open();
  ASSERT_EQ(index_->tokenizer_name(), (*tokenizer)->Name());
  TestDoc given = Doc(1, "viking://resources/given.md", "alpha words");
  auto terms = std::make_shared<TermList>((*tokenizer)->Name(), given.body.size());
  (*tokenizer)->ForEachTerm("zeta words", terms.get());
  given.body_terms = terms;
  TestDoc other = Doc(2, "viking://resources/other.md", "beta words");
  auto foreign = std::make_shared<TermList>("another-tokenizer", other.body.size());
  (*tokenizer)->ForEachTerm("zeta words", foreign.get());
  other.body_terms = foreign;
  TestDoc plain = Doc(3, "viking://resources/plain.md", "zeta words");
  TestDoc sized = Doc(5, "viking://resources/sized.md", "delta words");
  auto of_another = std::make_shared<TermList>((*tokenizer)->Name(), sized.body.size() + 1);
  (*tokenizer)->ForEachTerm("zeta words", of_another.get());
  sized.body_terms = of_another;
  ASSERT_TRUE(Put(*index_, std::vector<TestDoc>{given, other, plain, sized}).ok());
  EXPECT_EQ(Find("zeta"), (IdList{1, 3}));
  EXPECT_EQ(Find("alpha"), IdList{});
  EXPECT_EQ(Find("beta"), (IdList{2}));
  EXPECT_EQ(Find("delta"), (IdList{5}));
  // Scored as the same text tokenized: doc 1 and doc 3 tie.
  std::vector<SearchHit> hits;
  ASSERT_TRUE(index_->Search("zeta", Acme(), 10, &hits).ok());
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_DOUBLE_EQ(hits[0].score, hits[1].score);
  // The abstract's terms likewise.
  TestDoc abstracted = Doc(4, "viking://resources/abstracted.md", "");
  abstracted.abstract = "gamma";
  auto abstract_terms =
      std::make_shared<TermList>((*tokenizer)->Name(), abstracted.abstract.size());
  (*tokenizer)->ForEachTerm("omega", abstract_terms.get());
  abstracted.abstract_terms = abstract_terms;
  ASSERT_TRUE(Put(*index_, abstracted).ok());
  EXPECT_EQ(Find("omega"), (IdList{4}));
  EXPECT_EQ(Find("gamma"), IdList{});
}

// Checkpoint writes what the close would (the log folded into a snapshot),
// so the close right after writes nothing; a reopen finds everything.
TEST_P(MemoryLexicalIndexTest, CheckpointLeavesTheCloseNothingToWrite) {
  Open();
  ASSERT_TRUE(Put(*index_, Doc(1, "viking://resources/p", "first words")).ok());
  ASSERT_TRUE(index_->SetAppliedSeq(5).ok());
  const std::string log = options_.path + ".log";
  const auto logged = fs::file_size(log);
  ASSERT_TRUE(index_->Checkpoint().ok());
  EXPECT_LT(fs::file_size(log), logged);
  const auto snapshot_written = fs::last_write_time(options_.path);
  ASSERT_TRUE(index_->Checkpoint().ok());  // nothing since: nothing written
  index_.reset();
  EXPECT_EQ(fs::last_write_time(options_.path), snapshot_written);
  LexicalIndex& reopened = Open();
  EXPECT_FALSE(reopened.was_reset());
  EXPECT_EQ(reopened.applied_seq(), 5);
  EXPECT_EQ(Find("words"), (IdList{1}));
}

// One Upsert whose documents alternate between accounts (each partition
// gives the batch's terms its own ids) ranks and scores as upserting them
// one by one, before and after a reopen; a term repeated past 65,535 times
// saturates as the snapshot stores it.
TEST_P(MemoryLexicalIndexTest, OneBatchAcrossAccountsScoresAsOneByOne) {
  std::string many;
  for (int i = 0; i < 70000; ++i) many += "echo ";
  const std::vector<TestDoc> docs = {
      Doc(1, "viking://resources/a/1", "alpha beta gamma alpha"),
      Doc(2, "viking://resources/b/2", "beta delta alpha", "other"),
      Doc(3, "viking://resources/a/3", "gamma delta delta " + many),
      Doc(4, "viking://resources/b/4", "alpha alpha gamma echo", "other"),
      Doc(5, "viking://resources/a/5", "delta beta echo"),
  };
  auto scores = [&](LexicalIndex& index, const std::string& account) {
    RecordFilter filter;
    filter.account = account;
    std::vector<std::pair<uint64_t, float>> all;
    for (const char* query : {"alpha", "beta delta", "gamma echo", "echo", "alpha beta gamma"}) {
      std::vector<SearchHit> hits;
      EXPECT_TRUE(index.Search(query, filter, 10, &hits).ok());
      for (const SearchHit& hit : hits) all.emplace_back(hit.id, hit.score);
    }
    return all;
  };
  LexicalIndexOptions one_by_one = options_;
  one_by_one.path = (dir_ / "one" / "lexical.db").string();
  auto single = OpenIndex(one_by_one);
  ASSERT_TRUE(single.ok());
  for (const TestDoc& doc : docs) ASSERT_TRUE(Put(**single, doc).ok());
  ASSERT_TRUE(Put(Open(), docs).ok());
  for (const char* account : {"acme", "other"}) {
    const auto expected = scores(**single, account);
    EXPECT_EQ(expected.size(), account == std::string("acme") ? 12u : 7u);
    EXPECT_EQ(scores(*index_, account), expected) << account;
    EXPECT_EQ(scores(Open(), account), expected) << account << " (reopened)";
  }
}

INSTANTIATE_TEST_SUITE_P(Implementations, LexicalIndexPersistenceTest,
                         ::testing::Values("fts5", "memory"),
                         [](const auto& param) { return param.param; });
INSTANTIATE_TEST_SUITE_P(MemoryOnly, MemoryLexicalIndexTest, ::testing::Values("memory"),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace skald
