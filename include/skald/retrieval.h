#pragma once

// The retrieval vocabulary shared by the public API (skald/db.h,
// skald/options.h) and the retriever (src/retrieve/): its options, one hit
// and the trace of one retrieval. The retriever fills these types and the
// facade hands them to callers as they are.
//
// Thread safety: value types.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skald/status.h"
#include "skald/types.h"

namespace skald {

// How a search stage's BM25 scores (unbounded, > 0) are mapped into [0, 1]
// before they are fused with vector similarities.
enum class LexicalNormalization {
  // s / max(s over the stage's lexical hits): the best lexical hit of every
  // stage gets 1, however weak its match.
  kMax,
  // s / (s + saturation): an absolute scale, comparable across stages.
  kSaturate,
};

// The lexical share of fused scores with a semantic embedder when
// `retrieval.hybrid_weight` is not configured (OpenViking-style hybrid
// search; not tuned here: no semantic embedder runs offline).
inline constexpr double kSemanticHybridWeight = 0.7;

// How find runs: QUICK (one filtered hybrid search) or THINKING
// (hierarchical, directory by directory; see src/retrieve/retriever.h).
enum class RetrievalMode {
  // THINKING when a reranker is configured or the query's best hits lie in
  // directories below the searched roots (a hierarchy worth descending),
  // else QUICK.
  kAuto,
  kQuick,
  kThinking,
};

// "auto" / "quick" / "thinking".
std::string_view RetrievalModeName(RetrievalMode mode);
// Parses "auto" / "quick" / "thinking"; nullopt otherwise.
std::optional<RetrievalMode> ParseRetrievalMode(std::string_view name);


// Retrieval tuning: config sections `retrieval` and `rerank` (hybrid_weight,
// score_propagation_alpha, hotness_alpha, rerank.threshold,
// rerank.max_input_tokens) plus the retriever's internal knobs, which only
// code and benchmarks set. Every field has the default Skald ships with.
struct RetrievalOptions {
  // Share of the lexical (BM25) score in the fused score of every search
  // stage: 0 = vector similarity only, 1 = BM25 only. Unset = chosen by the
  // embedder: 1 when it is lexical (Embedder::lexical(), the built-in
  // hashing embedder: its similarity repeats BM25's word matches, so fusing
  // adds noise — held-out SciFact and LoCoMo in docs/benchmarks.md), else
  // kSemanticHybridWeight, where hybrid search still finds exact words a
  // semantic embedder misses.
  std::optional<double> hybrid_weight;
  // `retrieval.mode`: how a find runs when the request does not say
  // (`retrieval_mode`); kAuto decides per query (RetrievalMode).
  RetrievalMode mode = RetrievalMode::kAuto;
  // How BM25 scores are mapped into [0, 1] before fusion. kMax beat
  // kSaturate at every weight below 1 on SciFact.
  LexicalNormalization lexical_normalization = LexicalNormalization::kMax;
  // Half-way point of kSaturate: a BM25 score equal to it normalizes to 0.5. > 0.
  double lexical_saturation = 10.0;
  // Hierarchical (THINKING) retrieval: final = α·child + (1 − α)·parent
  // (parent score 0 ⇒ child); a record keeps its own score when that is
  // higher. 1.0 (OpenViking's default) ignores the parent; 0.8 was best on
  // the tune half of bench/routing_eval (docs/benchmarks.md).
  double score_propagation_alpha = 0.8;
  // Share of hotness (usage count and recency) in final scores; 0 = off.
  double hotness_alpha = 0.0;
  // `rerank.threshold`: results must score strictly above it unless a query
  // gives its own. It applies to fused scores too when no reranker is
  // configured, as in OpenViking. Finite.
  double score_threshold = 0.1;
  // `rerank.max_input_tokens`: reranker token budget per (query, document)
  // pair; 0 = no truncation, else >= 128.
  int rerank_max_input_tokens = 0;
  // THINKING stops after this many consecutive rounds without a change of
  // the top results ("converged") or without growth of the candidate pool
  // ("stagnant"). 1..100.
  int max_convergence_rounds = 3;
  // THINKING: directories expanded per round. 1..256.
  int directories_per_round = 4;
  // A question (IsQuestion in text/stop_words.h) is searched by BM25
  // without its English function words (StripQueryFunctionWords: "what",
  // "did", "her"...); statements are searched as given, and the vector
  // search always embeds the whole query. Off only for measurements
  // (docs/benchmarks.md).
  bool strip_query_function_words = true;
  // `retrieval.lexical_index`: the BM25 index behind every search stage.
  // "memory" (in-memory postings with a snapshot and a log,
  // index/memory_lexical_index.h; it also describes candidates, so a find
  // reads the catalog only for the hits it returns) or "fts5" (SQLite FTS5,
  // for workspaces too large for RAM: ~0.8 KB a record). Both rank alike;
  // at 100k records memory finds are 45-300x faster (bench/find_bench in
  // docs/benchmarks.md). Switching builds the new one from the catalog at
  // the next open.
  std::string lexical_index = "memory";

  // InvalidArgument naming the field (by its config key).
  Status Validate() const;
};



// One retrieval hit.
struct MatchedContext {
  std::string uri;  // canonical node URI (+ "/.abstract.md" or "/.overview.md" for levels 0/1)
  ContextType context_type = ContextType::kResource;
  int level = 2;     // 0 abstract, 1 overview, 2 file
  double score = 0;  // finite, in [0, 1]
  std::string abstract;
  std::vector<std::string> tags;
  std::string match_reason;  // "vector", "lexical", "vector+lexical", "reranked"
};

// How one retrieval ran (find's include_provenance).
struct RetrievalTrace {
  std::string mode;                              // "quick" | "thinking"
  std::vector<std::string> directories_visited;  // THINKING, in expansion order
  std::vector<double> directory_scores;          // the score each was expanded with (parallel)
  int rounds = 0;                                // THINKING expansion rounds
  // THINKING: "converged" (top results unchanged), "stagnant" (pool stopped
  // growing), "exhausted" (no directory left); QUICK: "single_search".
  std::string stop_reason;
  int candidates_kept = 0;     // records that passed the threshold
  int candidates_dropped = 0;  // records at or below the threshold
  bool reranked = false;       // some stage's scores came from the reranker
  std::string rerank_warning;  // why the reranker was not used ("" = it was, or none configured)
  double latency_ms = 0;
};

// One query of a search plan (reference §2.4 `query_plan.queries`).
struct TypedQuery {
  std::string query;
  std::string context_type;  // "memory" | "resource" | "skill"; "" = every kind
  std::string intent;        // why this query (one line)
  int priority = 1;          // 1 = highest
};

// What intent analysis made of a search (reference §2.4 `query_plan`).
struct QueryPlan {
  std::string reasoning;
  std::vector<TypedQuery> queries;
};

}  // namespace skald
