#pragma once

// LlmIntentAnalyzer: intent analysis by a chat model (the `query_planner`
// config section, else `vlm`), with the model-free RuleIntentAnalyzer as its
// fallback. One structured call per search: the model gets the query, the
// session's latest archive overview and its recent messages, and answers a
// JSON plan (reference api §2.4 `query_plan`):
//
//   {"reasoning": "...",
//    "queries": [{"query": "...", "context_type": "resource|memory|skill",
//                 "intent": "...", "priority": 1}]}
//
// 0 queries (small talk) is a valid plan. The answer is checked
// (ParsePlannerReply); a failed call (timeout, HTTP error, open circuit) or
// an answer that is not a valid plan gives the fallback's plan, whose
// `reasoning` then opens with why the model's plan was not used — search
// never fails because of the planner.
//
// Thread safety: safe for concurrent use (the Llm is).

#include <string>
#include <string_view>
#include <vector>

#include "model/llm.h"
#include "retrieve/intent_analyzer.h"

namespace skald {

struct LlmIntentAnalyzerOptions {
  // Characters of the latest archive overview put in the prompt at most
  // (its head: an overview opens with its summary).
  size_t max_overview_chars = 4000;
  // Characters of each recent message put in the prompt at most.
  size_t max_message_chars = 1000;
  // Characters of one planned query at most (longer ones are cut).
  size_t max_query_chars = 400;
};

class LlmIntentAnalyzer final : public IntentAnalyzer {
 public:
  // `llm` and `fallback` are borrowed and must outlive the analyzer.
  LlmIntentAnalyzer(Llm* llm, const IntentAnalyzer* fallback,
                    LlmIntentAnalyzerOptions options = {});

  // The model's plan, else the fallback's (see the file comment).
  // InvalidArgument for a blank query (no model call).
  Result<QueryPlan> Analyze(std::string_view query, const SessionHints& hints) const override;

 private:
  Llm* const llm_;
  const IntentAnalyzer* const fallback_;
  const LlmIntentAnalyzerOptions options_;
};

// The chat messages of one planning call (system instructions, then the
// conversation and the query). Exposed for tests.
std::vector<ChatMessage> PlannerMessages(std::string_view query, const SessionHints& hints,
                                         const LlmIntentAnalyzerOptions& options = {});

// Checks a planner answer and turns it into a plan: a JSON object whose
// `queries` is an array (empty = nothing to retrieve) of objects with a
// non-blank `query` and a `context_type` of resource, memory or skill
// (plural and upper-case forms accepted); `intent` (string) and `priority`
// (integer, clamped to 1..5; missing = its position) are optional. Queries
// are ordered by priority (stable), duplicates (same text and type) dropped,
// at most RuleIntentAnalyzer::kMaxQueries kept, each cut to
// `max_query_chars`. InvalidArgument naming what is wrong otherwise.
Result<QueryPlan> ParsePlannerReply(std::string_view reply, size_t max_query_chars = 400);

}  // namespace skald
