#pragma once

// Finder: the `find` operation — a caller's request mapped onto the
// retriever over the vector and lexical indexes, limited to what the caller
// may see (find_ops.cc).
//
// Thread safety: safe for concurrent use (the indexes and the retriever
// are). Everything passed in is borrowed and must outlive the finder.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "index/lexical_index.h"
#include "index/vector_index_set.h"
#include "retrieve/intent_analyzer.h"
#include "retrieve/llm_intent_analyzer.h"
#include "retrieve/retriever.h"
#include "service/uri_resolver.h"
#include "skald/db.h"
#include "storage/catalog.h"

namespace skald {

// `scopes` narrowed to the parts inside one of `within` (a filter's uri
// conditions): each pair that nests gives the deeper scope with the depths
// both allow; pairs apart give nothing.
std::vector<UriScope> WithinSubtrees(const std::vector<UriScope>& scopes,
                                     const std::vector<FindRequest::Subtree>& within);

class Finder {
 public:
  // `vectors` is null without an embedder. `options` supplies the embedder,
  // the reranker and the query planner model (search plans with it when
  // set, falling back to the rule-based analyzer).
  Finder(const DbOptions* options, UriResolver* resolver, Catalog* catalog, VectorIndexSet* vectors,
         LexicalIndex* lexical, Retriever* retriever)
      : options_(*options),
        resolver_(resolver),
        catalog_(catalog),
        vectors_(vectors),
        lexical_(lexical),
        retriever_(retriever) {
    if (options_.query_planner) {
      planner_ = std::make_unique<LlmIntentAnalyzer>(options_.query_planner.get(), &analyzer_);
    }
  }

  // Db::Find: hits sorted into memories, resources and skills. Counted in
  // counts().
  Result<FindResult> Find(const Identity& who, const FindRequest& request);

  // Db::Search: the plan of the query planner model (else, or when it
  // fails, of the rule-based analyzer) for the query and the session's
  // hints (from the provider set with SetSessionHints; none without one),
  // each typed query run as Find, hits merged by URI at the best score.
  Result<SearchResult> Search(const Identity& who, const SearchRequest& request);

  // Where Search gets a session's hints: (caller, session id) -> hints,
  // empty for an unknown or foreign session. Set once before use.
  using SessionHintsProvider =
      std::function<SessionHints(const Identity&, std::string_view session_id)>;
  void SetSessionHints(SessionHintsProvider provider) { session_hints_ = std::move(provider); }

  // Find calls since the finder was created (Db::Stats).
  RetrievalStats counts() const;

 private:
  Result<FindResult> RunFind(const Identity& who, const FindRequest& request);
  // FindRequest::filter_only: the records `filter` admits, at most `limit`.
  Result<FindResult> ListAdmitted(const Identity& who, const RecordFilter& filter, int limit);

  std::atomic<uint64_t> finds_{0};
  std::atomic<uint64_t> failures_{0};
  std::atomic<uint64_t> zero_hit_{0};
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> nanos_{0};

  const DbOptions& options_;
  UriResolver* const resolver_;
  Catalog* const catalog_;
  VectorIndexSet* const vectors_;
  LexicalIndex* const lexical_;
  Retriever* const retriever_;
  RuleIntentAnalyzer analyzer_;
  std::unique_ptr<LlmIntentAnalyzer> planner_;  // null without a query planner model
  SessionHintsProvider session_hints_;
};

}  // namespace skald
