#pragma once

// The RetrieverTest fixture: a Retriever over real indexes — a FlatIndex and
// a lexical index (FTS5 unless a derived fixture sets lexical_kind_ to
// "memory" in its constructor) fed with the hashing embedder — a small
// synthetic tree, and an in-memory catalog behind the record lookup.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "index/memory_lexical_index.h"
#include "model/factory.h"
#include "model/hashing_embedder.h"
#include "retrieve/retriever.h"
#include "tests/testutil/fault_injection_env.h"
#include "tests/testutil/temp_dir.h"
#include "uri/uri_path.h"

namespace skald {

inline constexpr char kAccount[] = "acme";
inline constexpr int64_t kDay = 86'400'000'000'000;

// An embedder that knows nothing: every text gets the same unit vector.
class BlindEmbedder : public Embedder {
 public:
  explicit BlindEmbedder(int dim) : dim_(dim) {}
  std::string provider() const override { return "blind"; }
  std::string model() const override { return "blind"; }
  int Dimension() const override { return dim_; }
  Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts,
                                                EmbedKind) override {
    if (fail_) return Status::Unavailable("blind embedder is down");
    std::vector<float> v(static_cast<size_t>(dim_), 0.0f);
    v[0] = 1.0f;
    return std::vector<std::vector<float>>(texts.size(), v);
  }
  void set_fail(bool fail) { fail_ = fail; }

 private:
  int dim_;
  bool fail_ = false;
};

class RetrieverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto embedder = NewDefaultHashingEmbedder();
    ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
    embedder_ = std::move(embedder).value();
    VectorIndexOptions vector_options;
    vector_options.kind = "flat";
    vector_options.embedder = embedder_->Name();
    vector_options.dim = embedder_->Dimension();
    auto vectors = NewVectorIndex(vector_options);
    ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
    vectors_ = std::move(vectors).value();
    LexicalIndexOptions lexical_options;
    lexical_options.path = dir_.Sub("lexical." + lexical_kind_);
    auto lexical = lexical_kind_ == "memory" ? OpenMemoryLexicalIndex(lexical_options)
                                             : OpenFts5LexicalIndex(lexical_options);
    ASSERT_TRUE(lexical.ok()) << lexical.status().ToString();
    lexical_ = std::move(lexical).value();
    BuildTree();
  }

  // One record in both indexes and the in-memory catalog.
  void AddRecord(const std::string& uri, int level, const std::string& abstract,
                 const std::string& body, ContextType context_type = ContextType::kResource,
                 const std::string& account = kAccount) {
    Record record;
    record.key = ++next_key_;
    record.account = account;
    record.level = level;
    record.context_type = context_type;
    record.uri = uri;
    record.abstract = abstract;
    record.tags = {"level=" + std::to_string(level)};
    auto vector = embedder_->Embed(std::vector<std::string>{abstract + "\n" + body});
    ASSERT_TRUE(vector.ok()) << vector.status().ToString();
    ASSERT_TRUE(vectors_->Upsert(record, (*vector)[0]).ok());
    LexicalText text;
    text.title = std::string(BaseName(uri));
    text.abstract = abstract;
    text.body = body;
    ASSERT_TRUE(lexical_->Upsert(record, text).ok());
    records_[account][record.key] = record;
  }
  // A directory: its L0 and L1 records share the URI.
  void AddDir(const std::string& uri, const std::string& abstract, const std::string& overview,
              ContextType context_type = ContextType::kResource) {
    AddRecord(uri, 0, abstract, "", context_type);
    AddRecord(uri, 1, overview, "", context_type);
  }
  void AddFile(const std::string& uri, const std::string& abstract, const std::string& content,
               ContextType context_type = ContextType::kResource) {
    AddRecord(uri, 2, abstract, content, context_type);
  }

  void BuildTree() {
    AddDir("viking://resources", "All shared resources", "Cooking, astronomy and gardening notes");
    AddDir("viking://resources/cooking", "Cooking recipes: bread, pasta and desserts",
           "Recipes for sourdough bread baking, fresh pasta dough and desserts such as "
           "chocolate cake");
    AddFile("viking://resources/cooking/bread.md", "Sourdough bread",
            "Sourdough bread baking with a starter culture, dough hydration, proofing and oven "
            "spring");
    AddFile("viking://resources/cooking/pasta.md", "Fresh pasta",
            "Fresh pasta dough from eggs and flour, rolling and cutting tagliatelle");
    AddDir("viking://resources/cooking/desserts", "Desserts: chocolate cake and custard",
           "Dessert recipes: chocolate cake with ganache frosting, vanilla custard");
    AddFile("viking://resources/cooking/desserts/cake.md", "Chocolate cake",
            "Chocolate cake layers with dark chocolate ganache frosting and cocoa sponge");
    AddFile("viking://resources/cooking/desserts/custard.md", "Vanilla custard",
            "Vanilla custard with egg yolks, milk and sugar, cooked gently");
    AddDir("viking://resources/astronomy", "Astronomy: telescopes and planets",
           "Telescopes for amateur astronomers, planets of the solar system, galaxies");
    AddFile("viking://resources/astronomy/telescopes.md", "Refractor telescopes",
            "Choosing a refractor telescope: aperture, focal length, eyepieces and mounts");
    AddFile("viking://resources/astronomy/planets.md", "Planets",
            "Planets of the solar system: Mars, Jupiter, the rings and moons of Saturn");
    AddDir("viking://resources/gardening", "Gardening: compost and tomatoes",
           "Composting kitchen scraps and growing tomatoes in raised beds");
    AddFile("viking://resources/gardening/compost.md", "Composting",
            "Composting kitchen scraps: nitrogen greens, carbon browns, turning the pile; the "
            "brewing of zymurgy is not covered");
    AddFile("viking://resources/gardening/tomatoes.md", "Tomatoes",
            "Growing tomatoes in raised beds: staking, watering and pruning suckers");
    AddDir("viking://user/alice/memories", "Alice's memories", "What Alice prefers", ContextType::kMemory);
    AddFile("viking://user/alice/memories/bread.md", "Alice bakes bread",
            "Alice prefers sourdough bread with a long cold proofing", ContextType::kMemory);
  }

  RetrievalSources Sources() {
    RetrievalSources sources;
    sources.vectors = vectors_.get();
    sources.lexical = lexical_.get();
    sources.embedder = embedder_.get();
    sources.lookup = [this](
                         std::string_view account,
                         std::span<const uint64_t> keys) -> Result<std::vector<Record>> {
      ++lookups_;
      looked_up_keys_ += static_cast<int>(keys.size());
      if (lookup_error_) return Status::IOError("catalog is unreadable");
      std::vector<Record> out;
      const auto& table = records_[std::string(account)];
      for (uint64_t key : keys) {
        auto it = table.find(key);
        if (it != table.end()) out.push_back(it->second);
      }
      return out;
    };
    static testing::FakeClock clock(1000 * kDay);
    sources.env = &clock;
    return sources;
  }

  RetrievalQuery Query(const std::string& text, RetrievalMode mode = RetrievalMode::kQuick) {
    RetrievalQuery query;
    query.text = text;
    query.account = kAccount;
    query.mode = mode;
    query.trace = true;
    query.root_dirs = {"viking://resources"};
    return query;
  }

  // The fusion these tests exercise: the hashing embedder alone would get
  // BM25-only scoring by default (see DefaultWeightFollowsTheEmbedder).
  static RetrievalOptions Hybrid() {
    RetrievalOptions options;
    options.hybrid_weight = 0.7;
    return options;
  }

  RetrievalResult Run(const RetrievalQuery& query, const RetrievalSources& sources,
                      const RetrievalOptions& options = Hybrid()) {
    Result<RetrievalResult> result = Retriever(options).Retrieve(query, sources);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : RetrievalResult{};
  }
  RetrievalResult Run(const RetrievalQuery& query) { return Run(query, Sources()); }

  static std::vector<std::string> Uris(const RetrievalResult& result) {
    std::vector<std::string> uris;
    for (const MatchedContext& hit : result.hits) uris.push_back(hit.uri);
    return uris;
  }

  static void ExpectWellFormed(const RetrievalResult& result, double threshold) {
    std::set<std::string> seen;
    for (size_t i = 0; i < result.hits.size(); ++i) {
      const MatchedContext& hit = result.hits[i];
      EXPECT_TRUE(std::isfinite(hit.score)) << hit.uri;
      EXPECT_GE(hit.score, 0.0) << hit.uri;
      EXPECT_LE(hit.score, 1.0) << hit.uri;
      EXPECT_GT(hit.score, threshold) << hit.uri;
      EXPECT_TRUE(seen.insert(hit.uri).second) << "duplicate " << hit.uri;
      if (i > 0) {
        EXPECT_LE(hit.score, result.hits[i - 1].score);
      }
      EXPECT_FALSE(hit.match_reason.empty());
    }
  }

  std::string lexical_kind_ = "fts5";  // or "memory"
  testing::TempDir dir_;
  std::unique_ptr<Embedder> embedder_;
  std::unique_ptr<VectorIndex> vectors_;
  std::unique_ptr<LexicalIndex> lexical_;
  std::map<std::string, std::map<uint64_t, Record>> records_;
  uint64_t next_key_ = 0;
  int lookups_ = 0;
  int looked_up_keys_ = 0;  // keys asked of the lookup, over every call
  bool lookup_error_ = false;
};

}  // namespace skald
