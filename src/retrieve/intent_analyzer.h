#pragma once

// Intent analysis, the first stage of `search` (DESIGN §5, reference
// internals §3): a query and what the caller's session says turn into a
// QueryPlan, the typed queries the retriever runs.
//
// The model-free analyzer (RuleIntentAnalyzer) types the query by its
// words, with no model:
//   - greetings, thanks and small talk ("hi", "thanks!") give no query;
//   - an imperative request ("write a release note", "please deploy the
//     site") gives a skill query first;
//   - a question about the caller ("my", "I", "we") or their tastes
//     ("prefer", "favorite") gives a memory query first;
//   - topic words give a resource query, and (unless the memory query is
//     there already) a memory query for what past conversations said;
//   - "how do I / how to …" adds a skill query for the procedure.
// Every query searches the same text: the query as asked unless it only
// makes sense in the conversation — a follow-up such as "and the other
// one?" or "what about its price?" — and then made self-contained with the
// salient words of the session's recent messages (newest first) or, when
// none are live, of its latest archive overview. An LLM planner builds on
// this interface.
//
// Thread safety: implementations are safe for concurrent use.

#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "skald/retrieval.h"

namespace skald {

// What a session offers intent analysis (search with a session_id).
struct SessionHints {
  std::string archive_overview;              // the latest archive's L1 ("" = none)
  std::vector<std::string> recent_messages;  // plain texts, oldest first (the last few)
  bool empty() const { return archive_overview.empty() && recent_messages.empty(); }
};

class IntentAnalyzer {
 public:
  virtual ~IntentAnalyzer() = default;
  // The plan for `query` (non-empty) given the session's hints (empty when
  // the search names no session or an unknown one): 0 to 5 typed queries,
  // most important first (priority 1, 2, ...). InvalidArgument for a blank
  // query.
  virtual Result<QueryPlan> Analyze(std::string_view query, const SessionHints& hints) const = 0;
};

class RuleIntentAnalyzer final : public IntentAnalyzer {
 public:
  // Words of the session added to a follow-up at most.
  static constexpr int kMaxContextWords = 8;
  // Typed queries in a plan at most (reference: 0-5).
  static constexpr int kMaxQueries = 5;

  Result<QueryPlan> Analyze(std::string_view query, const SessionHints& hints) const override;
};

// True when `query` reads as a follow-up that needs its conversation: it
// opens with "and", "or", "what about", "how about", "also", or it refers
// back ("it", "that one", "they", …) with at most three content words, or
// it has no content word at all. Exposed for tests.
bool IsFollowUpQuery(std::string_view query);

}  // namespace skald
