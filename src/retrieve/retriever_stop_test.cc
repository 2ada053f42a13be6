// THINKING stop reasons, each on a tree built to produce exactly it. Scores
// come from a fake lexical index with fixed per-record BM25 scores (no vector
// index, so BM25 alone carries the score), normalized with kSaturate at
// saturation 1: a record of score n in (0, 1) is stored as BM25 n / (1 - n).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "retrieve/retriever.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

constexpr char kAccount[] = "acme";

// Answers every query with the records that pass the filter (levels and URI
// scopes, which is all THINKING varies), best first.
class FixedScoreLexicalIndex : public LexicalIndex {
 public:
  void Add(const Record& record, double normalized) {
    records_[record.key] = Entry{record, normalized / (1.0 - normalized)};
  }

  std::string_view Kind() const override { return "fixed"; }
  const std::string& tokenizer_name() const override { return name_; }
  Status Upsert(std::span<const RecordFields>, std::span<const LexicalText>) override {
    return Status::Internal("read-only");
  }
  Result<uint64_t> Delete(std::span<const uint64_t>) override {
    return Status::Internal("read-only");
  }
  Status Search(std::string_view, const RecordFilter& filter, int k,
                std::vector<SearchHit>* hits) const override {
    hits->clear();
    for (const auto& [key, entry] : records_) {
      if (Passes(filter, entry.record)) hits->push_back({key, static_cast<float>(entry.bm25)});
    }
    std::sort(hits->begin(), hits->end(), [](const SearchHit& a, const SearchHit& b) {
      return a.score != b.score ? a.score > b.score : a.id < b.id;
    });
    if (hits->size() > static_cast<size_t>(k)) hits->resize(static_cast<size_t>(k));
    return Status::Ok();
  }
  Result<uint64_t> Count(const RecordFilter&) const override {
    return Status::Internal("not used");
  }
  int64_t applied_seq() const override { return 0; }
  Status SetAppliedSeq(int64_t) override { return Status::Ok(); }
  bool was_reset() const override { return false; }
  Status Optimize() override { return Status::Ok(); }

 private:
  struct Entry {
    Record record;
    double bm25 = 0;
  };

  static bool Passes(const RecordFilter& f, const RecordFields& r) {
    if (f.level_mask != 0 && ((f.level_mask >> r.level) & 1u) == 0) return false;
    if (f.uri_scopes.empty()) return true;
    for (const UriScope& scope : f.uri_scopes) {
      if (!UriWithin(r.uri, scope.uri)) continue;
      const int depth = UriDepth(r.uri) - UriDepth(scope.uri);
      if (depth >= scope.min_depth && (scope.max_depth < 0 || depth <= scope.max_depth)) {
        return true;
      }
    }
    return false;
  }

  std::string name_ = "fixed";
  std::map<uint64_t, Entry> records_;
};

// Never called: without a vector index the query is not embedded.
class UnusedEmbedder : public Embedder {
 public:
  std::string provider() const override { return "unused"; }
  std::string model() const override { return "unused"; }
  int Dimension() const override { return 4; }
  Result<std::vector<std::vector<float>>> Embed(std::span<const std::string>,
                                                EmbedKind) override {
    return Status::Internal("the retriever embedded a query without a vector index");
  }
};

class RetrieverStopTest : public ::testing::Test {
 protected:
  // A record of `uri` at `level` whose every search scores `normalized`.
  void Add(const std::string& uri, int level, double normalized) {
    Record record;
    record.key = ++next_key_;
    record.account = kAccount;
    record.uri = uri;
    record.level = level;
    record.abstract = uri;
    lexical_.Add(record, normalized);
    records_[record.key] = record;
  }

  RetrievalResult Run(int limit, uint32_t level_mask = 0) {
    RetrievalSources sources;
    sources.lexical = &lexical_;
    sources.embedder = &embedder_;
    sources.lookup = [this](std::string_view, std::span<const uint64_t> keys) {
      std::vector<Record> out;
      for (uint64_t key : keys) out.push_back(records_.at(key));
      return Result<std::vector<Record>>(std::move(out));
    };
    RetrievalQuery query;
    query.text = "anything";
    query.account = kAccount;
    query.mode = RetrievalMode::kThinking;
    query.limit = limit;
    query.score_threshold = 0.0;
    query.trace = true;
    query.filter.level_mask = level_mask;
    Result<RetrievalResult> result = Retriever(options_).Retrieve(query, sources);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : RetrievalResult{};
  }

  RetrievalOptions Options() {
    RetrievalOptions options;
    options.lexical_normalization = LexicalNormalization::kSaturate;
    options.lexical_saturation = 1.0;
    options.directories_per_round = 1;
    return options;
  }

  static std::vector<std::string> Uris(const RetrievalResult& result) {
    std::vector<std::string> uris;
    for (const MatchedContext& hit : result.hits) uris.push_back(hit.uri);
    return uris;
  }

  FixedScoreLexicalIndex lexical_;
  UnusedEmbedder embedder_;
  std::map<uint64_t, Record> records_;
  uint64_t next_key_ = 0;
  RetrievalOptions options_ = Options();
};

TEST_F(RetrieverStopTest, ExhaustedWhenNoDirectoryIsLeft) {
  Add("viking://resources/a", 0, 0.9);
  Add("viking://resources/a/a.md", 2, 0.8);
  RetrievalResult result = Run(/*limit=*/10);
  // Round 1 expands a and finds a.md; then the heap is empty.
  EXPECT_EQ(result.trace.stop_reason, "exhausted");
  EXPECT_EQ(result.trace.rounds, 1);
  EXPECT_EQ(result.trace.directories_visited, std::vector<std::string>{"viking://resources/a"});
  EXPECT_EQ(Uris(result), std::vector<std::string>{"viking://resources/a/a.md"});
}

TEST_F(RetrieverStopTest, ConvergedWhenTheTopStaysTheSame) {
  options_.max_convergence_rounds = 2;
  Add("viking://resources/a", 0, 0.9);
  Add("viking://resources/a/a.md", 2, 0.8);
  Add("viking://resources/b", 0, 0.5);
  Add("viking://resources/b/b.md", 2, 0.3);
  Add("viking://resources/c", 0, 0.4);
  Add("viking://resources/c/c.md", 2, 0.2);
  Add("viking://resources/d", 0, 0.35);
  Add("viking://resources/d/d.md", 2, 0.1);
  RetrievalResult result = Run(/*limit=*/1);
  // The global stage already puts every file in the pool, a.md on top.
  // Rounds 1 (a) and 2 (b) leave the top alone: converged after 2 such
  // rounds; c and d are never expanded.
  EXPECT_EQ(result.trace.stop_reason, "converged");
  EXPECT_EQ(result.trace.rounds, 2);
  EXPECT_EQ(result.trace.directories_visited,
            (std::vector<std::string>{"viking://resources/a", "viking://resources/b"}));
  EXPECT_EQ(Uris(result), std::vector<std::string>{"viking://resources/a/a.md"});
}

TEST_F(RetrieverStopTest, StagnantWhenThePoolStopsGrowing) {
  Add("viking://resources/d", 0, 0.9);
  Add("viking://resources/d/f.md", 2, 0.6);
  for (int i = 1; i <= 4; ++i) {  // empty directories
    Add("viking://resources/e" + std::to_string(i), 0, 0.55 - 0.05 * i);
  }
  RetrievalResult result = Run(/*limit=*/10);
  // The global stage finds f.md; round 1 (d) finds it again and rounds 2-3
  // expand empty directories: the pool (1 record, below the limit, so never
  // "converged") stops growing for max_convergence_rounds = 3 rounds, with
  // e3 and e4 still waiting.
  EXPECT_EQ(result.trace.stop_reason, "stagnant");
  EXPECT_EQ(result.trace.rounds, 3);
  EXPECT_EQ(result.trace.directories_visited,
            (std::vector<std::string>{"viking://resources/d", "viking://resources/e1",
                                      "viking://resources/e2"}));
  EXPECT_EQ(Uris(result), std::vector<std::string>{"viking://resources/d/f.md"});
}

TEST_F(RetrieverStopTest, ATopChangeWithoutGrowthRestartsConvergence) {
  // Results are overview (L1) records only; y and x have only an abstract
  // (L0) record, so they steer the traversal without being results.
  // Score propagation 0.5: a child found under x scores 0.5·own + 0.5·0.8.
  options_.max_convergence_rounds = 2;
  options_.score_propagation_alpha = 0.5;
  Add("viking://resources/y", 0, 0.9);
  Add("viking://resources/x", 0, 0.8);
  Add("viking://resources/t", 1, 0.5);
  Add("viking://resources/x/g", 1, 0.4);
  RetrievalResult result = Run(/*limit=*/1, /*level_mask=*/1u << 1);
  // The global search puts t (0.5) and g (0.4) in the pool: top [t].
  // Round 1 (y, no children): top unchanged -> converged 1.
  // Round 2 (x): g is found again at 0.5·0.4 + 0.5·0.8 = 0.6 and becomes the
  //   top; the pool does not grow -> this must reset the converged count.
  // Round 3 (g, no children): converged 1. Round 4 (t): converged 2 -> stop.
  // Without the reset, round 3 would already count 2 and stop.
  EXPECT_EQ(result.trace.stop_reason, "converged");
  EXPECT_EQ(result.trace.rounds, 4);
  EXPECT_EQ(result.trace.directories_visited,
            (std::vector<std::string>{"viking://resources/y", "viking://resources/x",
                                      "viking://resources/x/g", "viking://resources/t"}));
  ASSERT_FALSE(result.hits.empty());
  EXPECT_EQ(result.hits[0].uri, "viking://resources/x/g");
  EXPECT_NEAR(result.hits[0].score, 0.6, 1e-6);
}

}  // namespace
}  // namespace skald
