#pragma once

// The fixture and helpers the lexical index tests share: every test runs
// against both implementations of LexicalIndex (the parameter).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "index/lexical_index.h"
#include "index/memory_lexical_index.h"

namespace skald::lexical_testing {
namespace fs = std::filesystem;

// A record with its text, as these tests build them; Put() hands both to the
// index through its (records, texts) interface.
struct TestDoc : LexicalText {
  RecordFields record;
};

inline TestDoc Doc(uint64_t id, std::string uri, std::string body, std::string account = "acme") {
  TestDoc doc;
  doc.record.key = id;
  doc.record.account = std::move(account);
  doc.record.uri = std::move(uri);
  doc.record.context_type = ContextType::kResource;
  doc.body = std::move(body);
  return doc;
}

inline Status Put(LexicalIndex& index, const std::vector<TestDoc>& docs) {
  std::vector<RecordFields> records;
  std::vector<LexicalText> texts;
  for (const TestDoc& doc : docs) {
    records.push_back(doc.record);
    texts.push_back(doc);
  }
  return index.Upsert(records, texts);
}

inline Status Put(LexicalIndex& index, const TestDoc& doc) { return index.Upsert(doc.record, doc); }

inline std::vector<uint64_t> Ids(const std::vector<SearchHit>& hits) {
  std::vector<uint64_t> ids;
  for (const SearchHit& hit : hits) ids.push_back(hit.id);
  return ids;
}

// Every test runs against both implementations of LexicalIndex.
class LexicalIndexTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    // A parameterized test's name is "Name/param": the slash would make the
    // directory a child of one that TearDown never removes.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '-');
    dir_ = fs::temp_directory_path() /
           ("skald-lexical-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir_);
    options_.path = (dir_ / "index" / "lexical.db").string();
  }
  void TearDown() override {
    index_.reset();
    fs::remove_all(dir_);
  }

  bool fts5() const { return GetParam() == "fts5"; }
  Result<std::unique_ptr<LexicalIndex>> OpenIndex(const LexicalIndexOptions& options) const {
    return fts5() ? OpenFts5LexicalIndex(options) : OpenMemoryLexicalIndex(options);
  }

  LexicalIndex& Open() {
    index_.reset();
    auto index = OpenIndex(options_);
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    index_ = std::move(index).value();
    return *index_;
  }

  std::vector<uint64_t> Find(std::string_view query, const RecordFilter& filter = Acme(),
                             int k = 10) {
    std::vector<SearchHit> hits;
    Status status = index_->Search(query, filter, k, &hits);
    EXPECT_TRUE(status.ok()) << status.ToString();
    for (const SearchHit& hit : hits) EXPECT_GT(hit.score, 0);
    for (size_t i = 1; i < hits.size(); ++i) EXPECT_GE(hits[i - 1].score, hits[i].score);
    return Ids(hits);
  }

  static RecordFilter Acme() {
    RecordFilter filter;
    filter.account = "acme";
    return filter;
  }

  fs::path dir_;
  LexicalIndexOptions options_;
  std::unique_ptr<LexicalIndex> index_;
};

using IdList = std::vector<uint64_t>;

}  // namespace skald::lexical_testing
