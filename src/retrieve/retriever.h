#pragma once

// Retriever: the `find` / `search` retrieval pipeline of DESIGN §5 over the
// vector and lexical indexes.
//
//   QUICK     one filtered hybrid search over all levels, k = max(limit, 10).
//   THINKING  a global hybrid search over directory records (levels 0-1),
//             optionally reranked, gives starting directories (plus the
//             caller's root directories at score 0); a max-heap of
//             directories is then expanded `directories_per_round` at a time,
//             each searching its direct children (k = max(2·limit, 20)),
//             optionally reranked, with score propagation from the parent,
//             until the top results stop changing, the pool stops growing or
//             no directory is left.
//
// Every search stage is hybrid: the fused score of a record is
// (1 − w)·clamp(cosine) + w·normalized BM25 (w = hybrid_weight), and a record
// found by one index only gets 0 for the other component, so words the
// embedder does not capture are still found. The caller's filter (account,
// visibility scopes, context types, tags, time bounds, levels) is part of
// every index search, never applied to finished results.
//
// A directory's L0 and L1 records share its URI: they are one candidate
// (the better score wins). URIs in results are node URIs
// ("viking://resources/a"), the level says which record matched.
//
// Thread safety: a Retriever is immutable after construction; Retrieve may
// be called concurrently if the sources allow it (the indexes, embedders
// and rerankers of index/ and model/ do).

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/env.h"
#include "index/lexical_index.h"
#include "index/vector_index.h"
#include "model/embedder.h"
#include "model/reranker.h"
#include "retrieve/scoring.h"
#include "skald/db.h"
#include "skald/result.h"

namespace skald {

// What a hit needs besides its key. The service fills it from the catalog
// (Catalog::GetRecordsByKeys).
struct RetrievalRecord {
  uint64_t key = 0;          // the catalog record key (= the index ids)
  std::string uri;           // node URI; L0 and L1 records of a directory share it
  int level = 2;             // 0 abstract, 1 overview, 2 file
  std::string context_type;  // "resource" | "memory" | "skill"
  std::string abstract;      // shown in results; the document sent to the reranker
  std::vector<std::string> tags;
  int64_t active_count = 0;  // for hotness
  int64_t updated_ns = 0;    // for hotness
};

// Fetches the records of `keys` in `account`. Keys that no longer exist
// (deleted since they were indexed) are simply absent from the answer; the
// order of the answer does not matter. An error aborts the retrieval.
using RecordLookup = std::function<Result<std::vector<RetrievalRecord>>(
    std::string_view account, std::span<const uint64_t> keys)>;

// The dependencies of one retrieval; nothing is owned. Null `vectors` (the
// account has no vector index yet) or `lexical` leave that half of the
// hybrid out; null `reranker` = no reranker configured.
struct RetrievalSources {
  const VectorIndex* vectors = nullptr;
  const LexicalIndex* lexical = nullptr;
  Embedder* embedder = nullptr;  // REQUIRES: non-null
  Reranker* reranker = nullptr;
  RecordLookup lookup;  // REQUIRES: set
  // Its wall clock dates hotness (recency); borrowed, null = Env::Default().
  Env* env = nullptr;
};

// The `retrieval` config section (and the rerank threshold/budget).
struct RetrievalOptions {
  // Share of the lexical (BM25) score in the fused score of every stage:
  // 0 = vector only, 1 = BM25 only. Measured on SciFact with the built-in
  // hashing embedder (bench/retrieval_eval.cc; figures in
  // src/retrieve/README.md): nDCG@10 climbs from 0.477 (w 0) to a plateau of
  // 0.701-0.708 for w in 0.6..1; 0.7 is on the plateau (0.705) while leaving
  // the vector side a real share for semantic embedders.
  double hybrid_weight = 0.7;
  // How BM25 scores are mapped into [0, 1] before fusion (scoring.h). kMax
  // beat kSaturate at every weight below 1 on SciFact.
  LexicalNormalization lexical_normalization = LexicalNormalization::kMax;
  // Half-way point of kSaturate: a BM25 score equal to it normalizes to 0.5.
  double lexical_saturation = 10.0;
  // THINKING: final = α·child + (1 − α)·parent (parent score 0 ⇒ child).
  // 1.0 (OpenViking's default) ignores the parent.
  double score_propagation_alpha = 1.0;
  // Share of hotness (usage count and recency) in the final score; 0 = off.
  double hotness_alpha = 0.0;
  // Reranker input budget, and `threshold`: the default minimum score (strict
  // >) when the query gives none. It applies to fused scores too when no
  // reranker is configured, as in OpenViking.
  RerankOptions rerank;
  // THINKING stops after this many rounds without a change of the top
  // results (or without growth of the candidate pool).
  int max_convergence_rounds = 3;
  // THINKING: directories expanded per round.
  int directories_per_round = 4;

  // InvalidArgument naming the field.
  Status Validate() const;
};

enum class RetrievalMode {
  kAuto,  // THINKING iff a reranker is configured, else QUICK
  kQuick,
  kThinking,
};

// "auto" / "quick" / "thinking".
std::string_view RetrievalModeName(RetrievalMode mode);

struct RetrievalQuery {
  std::string text;     // REQUIRES: not blank
  std::string account;  // REQUIRES: non-empty; overrides filter.account
  // Visibility scopes, context types, tags, time bounds and levels, as the
  // caller decided. In THINKING the level mask selects which records may be
  // *results*; directories are traversed whatever it says.
  VectorFilter filter;
  // THINKING: starting directories besides the global hits (the target URIs
  // or the default roots of the caller); they start with score 0.
  std::vector<std::string> root_dirs;
  int limit = 10;  // REQUIRES: 1..10000
  // Minimum score (strict >); unset = options.rerank.threshold.
  std::optional<double> score_threshold;
  RetrievalMode mode = RetrievalMode::kAuto;
  // Fill RetrievalResult::trace.directories_visited (the other trace fields
  // are always filled; they are cheap).
  bool trace = false;
};

// MatchedContext (one hit) is the public type of skald/db.h: the service
// hands the retriever's hits to callers as they are.

struct RetrievalTrace {
  std::string mode;                              // "quick" | "thinking"
  std::vector<std::string> directories_visited;  // in expansion order (query.trace only)
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

struct RetrievalResult {
  std::vector<MatchedContext> hits;  // best first, unique URIs, at most limit
  RetrievalTrace trace;
};

// Thread safety: immutable; Retrieve is safe to call concurrently.
class Retriever {
 public:
  // REQUIRES: options.Validate().ok() (Retrieve reports it otherwise).
  explicit Retriever(RetrievalOptions options);

  const RetrievalOptions& options() const { return options_; }

  // Runs `query` against `sources`. Errors: InvalidArgument for a bad query
  // or options; the embedder's or the lookup's Status when they fail (the
  // caller maps it); an index search error. A failing reranker is not an
  // error: its stage keeps the fused scores, the trace carries the warning,
  // and the later stages of the query do not call it again.
  Result<RetrievalResult> Retrieve(const RetrievalQuery& query,
                                   const RetrievalSources& sources) const;

 private:
  RetrievalOptions options_;
};

}  // namespace skald
