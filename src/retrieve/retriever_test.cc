// Retriever over real indexes (retriever_test_util.h): the FTS5 lexical
// index, whose candidates the retriever reads from the catalog.

#include "retrieve/retriever.h"
#include "retrieve/retriever_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/factory.h"
#include "model/fake_model_server.h"
#include "model/hashing_embedder.h"
#include "tests/testutil/fault_injection_env.h"
#include "tests/testutil/temp_dir.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

TEST_F(RetrieverTest, QuickFindsTheRightFile) {
  RetrievalResult result = Run(Query("refractor telescope aperture and eyepieces"));
  ASSERT_FALSE(result.hits.empty());
  EXPECT_EQ(result.hits[0].uri, "viking://resources/astronomy/telescopes.md");
  EXPECT_EQ(result.hits[0].level, 2);
  EXPECT_EQ(result.hits[0].context_type, ContextType::kResource);
  EXPECT_EQ(result.hits[0].abstract, "Refractor telescopes");
  EXPECT_EQ(result.hits[0].tags, std::vector<std::string>{"level=2"});
  EXPECT_EQ(result.hits[0].match_reason, "vector+lexical");
  EXPECT_EQ(result.trace.mode, "quick");
  EXPECT_EQ(result.trace.stop_reason, "single_search");
  EXPECT_TRUE(result.trace.directories_visited.empty());
  ExpectWellFormed(result, 0.1);
}

TEST_F(RetrieverTest, DefaultWeightFollowsTheEmbedderAndFallsBackOnVectors) {
  // The hashing embedder is lexical: unset hybrid_weight scores by BM25 alone.
  const RetrievalOptions defaults;
  RetrievalResult result =
      Run(Query("refractor telescope aperture and eyepieces"), Sources(), defaults);
  ASSERT_FALSE(result.hits.empty());
  EXPECT_EQ(result.hits[0].uri, "viking://resources/astronomy/telescopes.md");
  EXPECT_EQ(result.hits[0].match_reason, "lexical");
  // Misspelled words BM25 cannot match: the vectors (character 3-grams) still find it.
  RetrievalResult misspelled = Run(Query("refractr telescpes"), Sources(), defaults);
  ASSERT_FALSE(misspelled.hits.empty());
  EXPECT_EQ(misspelled.hits[0].uri, "viking://resources/astronomy/telescopes.md");
  EXPECT_EQ(misspelled.hits[0].match_reason, "vector");
  ExpectWellFormed(misspelled, 0.1);
}

TEST_F(RetrieverTest, AutoModeDescendsWhenHitsLieBelowTheRoots) {
  // The best hits are in directories below viking://resources: THINKING.
  RetrievalResult result = Run(Query("telescope", RetrievalMode::kAuto));
  EXPECT_EQ(result.trace.mode, "thinking");
  ASSERT_FALSE(result.hits.empty());
  EXPECT_EQ(result.hits[0].uri, "viking://resources/astronomy/telescopes.md");
  // Searched from the directory that holds them, there is nothing to descend: QUICK.
  RetrievalQuery flat = Query("telescope", RetrievalMode::kAuto);
  flat.root_dirs = {"viking://resources/astronomy"};
  flat.filter.uri_scopes = {UriScope::Subtree("viking://resources/astronomy")};
  flat.filter.level_mask = 1u << 2;
  RetrievalResult quick = Run(flat);
  EXPECT_EQ(quick.trace.mode, "quick");
  ASSERT_FALSE(quick.hits.empty());
  EXPECT_EQ(quick.hits[0].uri, "viking://resources/astronomy/telescopes.md");
  // The configured mode applies when the query does not say.
  RetrievalOptions quick_default = Hybrid();
  quick_default.mode = RetrievalMode::kQuick;
  EXPECT_EQ(Run(Query("telescope", RetrievalMode::kAuto), Sources(), quick_default).trace.mode,
            "quick");
}

TEST_F(RetrieverTest, ThinkingNeverLosesQuicksResults) {
  // THINKING starts from QUICK's hits: whatever QUICK ranks in its top
  // results, THINKING returns too (propagation only lifts scores).
  for (const char* q : {"refractor telescope aperture", "sourdough bread starter",
                        "growing tomatoes raised beds", "vanilla custard egg yolks"}) {
    RetrievalQuery query = Query(q, RetrievalMode::kQuick);
    query.limit = 3;
    RetrievalResult quick = Run(query);
    query.mode = RetrievalMode::kThinking;
    RetrievalResult thinking = Run(query);
    ASSERT_FALSE(quick.hits.empty()) << q;
    EXPECT_EQ(thinking.hits[0].uri, quick.hits[0].uri) << q;
    EXPECT_GE(thinking.hits[0].score, quick.hits[0].score - 1e-9) << q;
  }
}

TEST_F(RetrieverTest, ThinkingDrillsIntoTheRightDirectory) {
  RetrievalResult result =
      Run(Query("chocolate cake with ganache frosting", RetrievalMode::kThinking));
  EXPECT_EQ(result.trace.mode, "thinking");
  ASSERT_FALSE(result.hits.empty());
  EXPECT_EQ(result.hits[0].uri, "viking://resources/cooking/desserts/cake.md");
  const auto& visited = result.trace.directories_visited;
  EXPECT_NE(std::find(visited.begin(), visited.end(), "viking://resources/cooking/desserts"),
            visited.end());
  // The desserts directory is expanded before any unrelated directory.
  auto desserts = std::find(visited.begin(), visited.end(), "viking://resources/cooking/desserts");
  auto astronomy = std::find(visited.begin(), visited.end(), "viking://resources/astronomy");
  EXPECT_LT(desserts - visited.begin(), astronomy - visited.begin());
  EXPECT_GE(result.trace.rounds, 1);
  // A THINKING reason (each is pinned down by retriever_stop_test.cc).
  const std::set<std::string> thinking_reasons = {"converged", "stagnant", "exhausted"};
  EXPECT_TRUE(thinking_reasons.contains(result.trace.stop_reason)) << result.trace.stop_reason;
  EXPECT_GT(result.trace.candidates_kept, 0);
  ExpectWellFormed(result, 0.1);
}

TEST_F(RetrieverTest, ThinkingReturnsFilesBelowAStartingDirectoryFoundOnlyByItsRoot) {
  // No directory record mentions custard's cooking method; the file is found
  // by drilling down from the root directories.
  RetrievalQuery query = Query("egg yolks cooked gently", RetrievalMode::kThinking);
  query.limit = 3;
  RetrievalResult result = Run(query);
  ASSERT_FALSE(result.hits.empty());
  EXPECT_EQ(result.hits[0].uri, "viking://resources/cooking/desserts/custard.md");
}

TEST_F(RetrieverTest, ContextTypeFilterIsPartOfEverySearch) {
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    RetrievalQuery query = Query("sourdough bread", mode);
    query.filter.context_types = {ContextType::kMemory};
    query.root_dirs = {"viking://user/alice/memories"};
    RetrievalResult result = Run(query);
    ASSERT_FALSE(result.hits.empty()) << RetrievalModeName(mode);
    EXPECT_EQ(result.hits[0].uri, "viking://user/alice/memories/bread.md");
    for (const MatchedContext& hit : result.hits) EXPECT_EQ(hit.context_type, ContextType::kMemory);
  }
}

TEST_F(RetrieverTest, UriScopeIsHonouredInsideCandidateGeneration) {
  // Many better bread matches outside the scope: a filter applied after a
  // top-k cut would lose the only in-scope mention.
  for (int i = 0; i < 30; ++i) {
    AddFile("viking://resources/cooking/loaf" + std::to_string(i) + ".md", "Bread loaf",
            "Bread bread bread: another bread loaf recipe number " + std::to_string(i));
  }
  AddFile("viking://resources/astronomy/moon.md", "Moon",
          "The moon looks like a round loaf of bread through a telescope");
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    RetrievalQuery query = Query("bread loaf", mode);
    query.limit = 3;
    query.filter.uri_scopes = {UriScope::Subtree("viking://resources/astronomy")};
    query.root_dirs = {"viking://resources"};  // outside the scope: must not widen it
    RetrievalResult result = Run(query);
    ASSERT_FALSE(result.hits.empty()) << RetrievalModeName(mode);
    EXPECT_EQ(result.hits[0].uri, "viking://resources/astronomy/moon.md");
    for (const MatchedContext& hit : result.hits) {
      EXPECT_TRUE(UriWithin(hit.uri, "viking://resources/astronomy")) << hit.uri;
    }
  }
}

TEST_F(RetrieverTest, LevelFilterSelectsResultsButThinkingStillTraverses) {
  RetrievalQuery query = Query("chocolate cake desserts");
  query.filter.WithLevels({2});
  RetrievalResult quick = Run(query);
  ASSERT_FALSE(quick.hits.empty());
  for (const MatchedContext& hit : quick.hits) EXPECT_EQ(hit.level, 2) << hit.uri;

  query.mode = RetrievalMode::kThinking;
  RetrievalResult thinking = Run(query);
  ASSERT_FALSE(thinking.hits.empty());
  EXPECT_EQ(thinking.hits[0].uri, "viking://resources/cooking/desserts/cake.md");
  for (const MatchedContext& hit : thinking.hits) EXPECT_EQ(hit.level, 2) << hit.uri;

  query.filter.WithLevels({0, 1});
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    query.mode = mode;
    RetrievalResult dirs = Run(query);
    ASSERT_FALSE(dirs.hits.empty()) << RetrievalModeName(mode);
    EXPECT_EQ(dirs.hits[0].uri, "viking://resources/cooking/desserts") << RetrievalModeName(mode);
    for (const MatchedContext& hit : dirs.hits) EXPECT_LT(hit.level, 2) << hit.uri;
  }
}

TEST_F(RetrieverTest, DirectoryL0AndL1AreOneCandidate) {
  // Both records of the cooking directory match; it appears once.
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    RetrievalQuery query = Query("cooking recipes bread pasta desserts", mode);
    query.filter.WithLevels({0, 1});
    RetrievalResult result = Run(query);
    std::vector<std::string> uris = Uris(result);
    EXPECT_EQ(std::count(uris.begin(), uris.end(), "viking://resources/cooking"), 1)
        << RetrievalModeName(mode);
    ExpectWellFormed(result, 0.1);
  }
}

TEST_F(RetrieverTest, ThresholdIsStrictAndCounted) {
  RetrievalQuery query = Query("sourdough bread baking");
  RetrievalResult loose = Run(query);
  ASSERT_GE(loose.hits.size(), 2u);
  const double top = loose.hits[0].score;
  // A threshold equal to the best score drops it too (strict >).
  query.score_threshold = top;
  RetrievalResult strict = Run(query);
  for (const MatchedContext& hit : strict.hits) EXPECT_GT(hit.score, top);
  EXPECT_TRUE(strict.hits.empty());
  EXPECT_GT(strict.trace.candidates_dropped, loose.trace.candidates_dropped);
  // Default threshold: options.score_threshold.
  RetrievalOptions options = Hybrid();
  options.score_threshold = (loose.hits[0].score + loose.hits[1].score) / 2;
  query.score_threshold.reset();
  RetrievalResult mid = Run(query, Sources(), options);
  ASSERT_EQ(mid.hits.size(), 1u);
  EXPECT_EQ(mid.hits[0].uri, loose.hits[0].uri);
  query.mode = RetrievalMode::kThinking;
  ExpectWellFormed(Run(query, Sources(), options), options.score_threshold);
}

TEST_F(RetrieverTest, ThinkingStopsWhenTheTopResultsConverge) {
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "viking://resources/misc" + std::to_string(i);
    AddDir(dir, "Miscellaneous notes " + std::to_string(i), "Assorted notes and lists");
    AddFile(dir + "/note.md", "A note", "A note about topic " + std::to_string(i) + " and cake");
  }
  RetrievalOptions options = Hybrid();
  options.directories_per_round = 1;
  RetrievalQuery query = Query("chocolate cake ganache", RetrievalMode::kThinking);
  query.limit = 1;
  RetrievalResult result = Run(query, Sources(), options);
  EXPECT_EQ(result.trace.stop_reason, "converged");
  EXPECT_EQ(result.hits.size(), 1u);
  EXPECT_EQ(result.hits[0].uri, "viking://resources/cooking/desserts/cake.md");
  // Stopped long before every directory was expanded.
  EXPECT_LT(result.trace.directories_visited.size(), 10u);
  EXPECT_EQ(static_cast<size_t>(result.trace.rounds), result.trace.directories_visited.size());

  // A small scope runs out of directories first.
  query.filter.uri_scopes = {UriScope::Subtree("viking://resources/astronomy")};
  query.root_dirs = {"viking://resources/astronomy"};
  query.limit = 10;
  result = Run(query, Sources(), options);
  EXPECT_EQ(result.trace.stop_reason, "exhausted");
  EXPECT_EQ(result.trace.directories_visited,
            std::vector<std::string>{"viking://resources/astronomy"});
}

TEST_F(RetrieverTest, LexicalOnlyMatchIsFoundWithABlindEmbedder) {
  BlindEmbedder blind(embedder_->Dimension());
  RetrievalSources sources = Sources();
  sources.embedder = &blind;
  RetrievalResult result = Run(Query("zymurgy"), sources);
  ASSERT_FALSE(result.hits.empty());
  EXPECT_EQ(result.hits[0].uri, "viking://resources/gardening/compost.md");
  EXPECT_NE(result.hits[0].match_reason.find("lexical"), std::string::npos);

  // Vector only (hybrid weight 0), the blind embedder cannot rank it first.
  RetrievalOptions vector_only;
  vector_only.hybrid_weight = 0;
  vector_only.score_threshold = -1;
  RetrievalResult blind_result = Run(Query("zymurgy"), sources, vector_only);
  EXPECT_TRUE(blind_result.hits.empty() ||
              blind_result.hits[0].uri != "viking://resources/gardening/compost.md");

  // THINKING finds it too: the gardening directory is reached from the root.
  RetrievalResult thinking = Run(Query("zymurgy", RetrievalMode::kThinking), sources);
  ASSERT_FALSE(thinking.hits.empty());
  EXPECT_EQ(thinking.hits[0].uri, "viking://resources/gardening/compost.md");
}

TEST_F(RetrieverTest, MissingIndexesDegradeGracefully) {
  RetrievalSources sources = Sources();
  sources.vectors = nullptr;  // the account has no vector index yet: lexical only
  RetrievalResult lexical_only = Run(Query("refractor telescope"), sources);
  ASSERT_FALSE(lexical_only.hits.empty());
  EXPECT_EQ(lexical_only.hits[0].uri, "viking://resources/astronomy/telescopes.md");
  EXPECT_EQ(lexical_only.hits[0].match_reason, "lexical");
  ExpectWellFormed(lexical_only, 0.1);

  sources.lexical = nullptr;
  EXPECT_TRUE(Run(Query("refractor telescope"), sources).hits.empty());
  EXPECT_TRUE(Run(Query("refractor telescope", RetrievalMode::kThinking), sources).hits.empty());

  sources = Sources();
  sources.lexical = nullptr;
  RetrievalResult vector_only = Run(Query("refractor telescope"), sources);
  ASSERT_FALSE(vector_only.hits.empty());
  EXPECT_EQ(vector_only.hits[0].match_reason, "vector");
}

TEST_F(RetrieverTest, ErrorsOfTheEmbedderAndTheLookupAreReturned) {
  BlindEmbedder broken(embedder_->Dimension());
  broken.set_fail(true);
  RetrievalSources sources = Sources();
  sources.embedder = &broken;
  Result<RetrievalResult> result = Retriever({}).Retrieve(Query("telescope"), sources);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);

  lookup_error_ = true;
  result = Retriever({}).Retrieve(Query("telescope"), Sources());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kIOError);

  BlindEmbedder wrong_dim(16);
  sources.embedder = &wrong_dim;
  lookup_error_ = false;
  EXPECT_EQ(Retriever({}).Retrieve(Query("telescope"), sources).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(RetrieverTest, BadQueriesAndOptionsAreRejected) {
  RetrievalQuery query = Query("   ");
  EXPECT_EQ(Retriever({}).Retrieve(query, Sources()).status().code(), StatusCode::kInvalidArgument);
  query = Query("telescope");
  query.account.clear();
  EXPECT_EQ(Retriever({}).Retrieve(query, Sources()).status().code(), StatusCode::kInvalidArgument);
  query = Query("telescope");
  query.limit = 0;
  EXPECT_EQ(Retriever({}).Retrieve(query, Sources()).status().code(), StatusCode::kInvalidArgument);
  RetrievalOptions options = Hybrid();
  options.hybrid_weight = 2;
  EXPECT_EQ(Retriever(options).Retrieve(Query("telescope"), Sources()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(RetrieverTest, OtherAccountsAndDeletedRecordsNeverSurface) {
  AddRecord("viking://resources/secret.md", 2, "Telescope secrets",
            "refractor telescope aperture eyepieces mounts", ContextType::kResource, "other");
  // A record still indexed but gone from the catalog.
  AddFile("viking://resources/astronomy/ghost.md", "Ghost", "refractor telescope aperture");
  records_[kAccount].erase(next_key_);
  for (RetrievalMode mode : {RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    RetrievalResult result = Run(Query("refractor telescope aperture", mode));
    ASSERT_FALSE(result.hits.empty());
    for (const MatchedContext& hit : result.hits) {
      EXPECT_NE(hit.uri, "viking://resources/secret.md");
      EXPECT_NE(hit.uri, "viking://resources/astronomy/ghost.md");
    }
  }
}

TEST_F(RetrieverTest, HotnessLiftsUsedAndRecentRecords) {
  // Two near-identical files; one is used often and was updated today.
  AddFile("viking://resources/astronomy/mars1.md", "Mars", "Mars rover landing sites");
  records_[kAccount][next_key_].updated_ns = 900 * kDay;
  AddFile("viking://resources/astronomy/mars2.md", "Mars", "Mars rover landing sites");
  records_[kAccount][next_key_].active_count = 50;
  records_[kAccount][next_key_].updated_ns = 1000 * kDay;
  RetrievalOptions options = Hybrid();
  options.hotness_alpha = 0.3;
  RetrievalResult result = Run(Query("mars rover landing sites"), Sources(), options);
  ASSERT_GE(result.hits.size(), 2u);
  EXPECT_EQ(result.hits[0].uri, "viking://resources/astronomy/mars2.md");
  EXPECT_EQ(result.hits[1].uri, "viking://resources/astronomy/mars1.md");
  EXPECT_GT(result.hits[0].score - result.hits[1].score, 0.1);
  ExpectWellFormed(result, 0.0);
}

class RetrieverRerankTest : public RetrieverTest {
 protected:
  void SetUp() override {
    RetrieverTest::SetUp();
    // The content of heavy.md matches the query best, but its abstract says
    // nothing about it; light.md's abstract is exactly the query.
    AddDir("viking://resources/energy", "Energy: solar power notes", "Solar panels and inverters");
    AddFile("viking://resources/energy/heavy.md", "roof repair notes",
            "solar inverter solar inverter efficiency of the solar inverter");
    AddFile("viking://resources/energy/light.md", "solar inverter sizing",
            "a guide to sizing: cables, breakers and the house");
    RerankConfig config;
    config.provider = "cohere";
    config.api_base = server_.base_url();
    config.max_retries = 0;
    auto reranker = NewReranker(config);
    ASSERT_TRUE(reranker.ok()) << reranker.status().ToString();
    reranker_ = std::move(reranker).value();
  }

  RetrievalQuery SolarQuery() {
    RetrievalQuery query = Query("solar inverter", RetrievalMode::kAuto);
    query.filter.WithLevels({2});
    query.limit = 2;
    return query;
  }

  testing::FakeModelServer server_;
  std::unique_ptr<Reranker> reranker_;
};

TEST_F(RetrieverRerankTest, RerankerReordersResults) {
  RetrievalQuery query = SolarQuery();
  query.mode = RetrievalMode::kThinking;
  RetrievalResult plain = Run(query);
  ASSERT_FALSE(plain.hits.empty());
  EXPECT_EQ(plain.hits[0].uri, "viking://resources/energy/heavy.md");

  RetrievalSources sources = Sources();
  sources.reranker = reranker_.get();
  query.mode = RetrievalMode::kAuto;  // a reranker makes it THINKING
  RetrievalResult reranked = Run(query, sources);
  EXPECT_EQ(reranked.trace.mode, "thinking");
  EXPECT_TRUE(reranked.trace.reranked);
  EXPECT_EQ(reranked.trace.rerank_warning, "");
  ASSERT_FALSE(reranked.hits.empty());
  EXPECT_EQ(reranked.hits[0].uri, "viking://resources/energy/light.md");
  EXPECT_EQ(reranked.hits[0].match_reason, "reranked");
  EXPECT_DOUBLE_EQ(reranked.hits[0].score, 1.0);  // both query words in the abstract
  // heavy.md's abstract shares no word with the query: 0, below the threshold.
  for (const MatchedContext& hit : reranked.hits) {
    EXPECT_NE(hit.uri, "viking://resources/energy/heavy.md");
  }
  ASSERT_GT(server_.request_count(), 0);
  EXPECT_EQ(server_.requests().at(0).path, "/v1/rerank");
  ExpectWellFormed(reranked, 0.1);
}

TEST_F(RetrieverRerankTest, FailingRerankerFallsBackWithAWarning) {
  RetrievalQuery query = SolarQuery();
  query.mode = RetrievalMode::kThinking;
  RetrievalResult plain = Run(query);

  testing::Fault broken;
  broken.status = 500;
  server_.SetDefaultFault(broken);
  RetrievalSources sources = Sources();
  sources.reranker = reranker_.get();
  RetrievalResult fallback = Run(SolarQuery(), sources);
  EXPECT_EQ(fallback.trace.mode, "thinking");
  EXPECT_FALSE(fallback.trace.reranked);
  EXPECT_NE(fallback.trace.rerank_warning.find("HTTP 500"), std::string::npos)
      << fallback.trace.rerank_warning;
  EXPECT_EQ(Uris(fallback), Uris(plain));
  // After the first failure the query stops asking the reranker.
  EXPECT_EQ(server_.request_count(), 1);
  ASSERT_FALSE(fallback.hits.empty());
  EXPECT_EQ(fallback.hits[0].uri, "viking://resources/energy/heavy.md");
  for (const MatchedContext& hit : fallback.hits) EXPECT_NE(hit.match_reason, "reranked");
}

}  // namespace
}  // namespace skald
