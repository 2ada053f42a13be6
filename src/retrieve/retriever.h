#pragma once

// Retriever: the `find` / `search` retrieval pipeline of DESIGN §5 over the
// vector and lexical indexes.
//
//   QUICK     one filtered hybrid search over all levels, k = max(limit, 10).
//   THINKING  a global hybrid search over every level (k = max(3·limit, 30)),
//             optionally reranked, gives QUICK's results (so THINKING never
//             loses them) and the starting directories: each directory hit at
//             its own score, the directory of each file hit at that file's
//             score (a weak summary cannot hide a strong document), plus the
//             caller's root directories at score 0. A max-heap of directories
//             is then expanded `directories_per_round` at a time, each
//             searching its direct children (k = max(2·limit, 20)), optionally
//             reranked, with score propagation from the parent (which only
//             lifts), until the top results stop changing, the pool stops
//             growing or no directory is left. BM25 scores of every stage are
//             normalized against the global stage's best, so children of
//             different directories compare.
//   AUTO      THINKING with a reranker, or when the global stage's hits lie in
//             directories below the searched roots; else QUICK's answer from
//             that global stage. RetrievalOptions::mode is used when the query
//             says kAuto.
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
#include "skald/result.h"
#include "skald/retrieval.h"
#include "storage/record.h"

namespace skald {

// Fetches the records of `keys` in `account` (the service answers from
// Catalog::GetRecordsByKeys, without vectors: the retriever reads key, uri,
// level, context_type, abstract, tags, active_count and updated_ns). Keys
// that no longer exist (deleted since they were indexed) are simply absent
// from the answer; the order of the answer does not matter. An error aborts
// the retrieval.
using RecordLookup = std::function<Result<std::vector<Record>>(std::string_view account,
                                                               std::span<const uint64_t> keys)>;

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

// RetrievalOptions (skald/retrieval.h) configure the retriever: the public
// config keys and the internal knobs (lexical normalization, saturation,
// convergence rounds, directories per round) are one type.

struct RetrievalQuery {
  std::string text;     // REQUIRES: not blank
  std::string account;  // REQUIRES: non-empty; overrides filter.account
  // Visibility scopes, context types, tags, time bounds and levels, as the
  // caller decided. In THINKING the level mask selects which records may be
  // *results*; directories are traversed whatever it says.
  RecordFilter filter;
  // THINKING: starting directories besides the global hits (the target URIs
  // or the default roots of the caller); they start with score 0.
  std::vector<std::string> root_dirs;
  int limit = 10;  // REQUIRES: 1..10000
  // Minimum score (strict >); unset = options.score_threshold.
  std::optional<double> score_threshold;
  RetrievalMode mode = RetrievalMode::kAuto;
  // Fill RetrievalResult::trace.directories_visited (the other trace fields
  // are always filled; they are cheap).
  bool trace = false;
};

// MatchedContext (one hit) and RetrievalTrace are the public types of
// skald/retrieval.h: the service hands the retriever's hits and trace to
// callers as they are.

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
