// Intent analysis by a chat model (llm_intent_analyzer.h).

#include "retrieve/llm_intent_analyzer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <utility>

#include "common/json_util.h"
#include "common/strings.h"

namespace skald {
namespace {

// The planner's instructions. Written for Skald; the answer's shape is the
// reference's `query_plan`.
constexpr std::string_view kPlannerInstructions =
    R"(You decide what an AI agent should look up in its context store before it answers the user.
The store holds three kinds of context:
- resource: documents the user added - manuals, notes, papers, web pages, code, data.
- memory: what earlier conversations taught about the user - facts about them, their preferences, plans, people they mentioned, events and decisions.
- skill: procedures and tools the agent can run to get a task done.

You get the user's current message and, when there is one, the conversation so far (a summary of its earlier part and its latest messages).

How to plan:
1. When the message needs nothing from the store (a greeting, thanks, an acknowledgement, small talk), plan no query at all.
2. Otherwise plan between 1 and 5 queries, the most useful first. One query per distinct need; never the same need twice in other words.
3. A request to carry out a task (write, send, deploy, convert, schedule, ...) needs a skill query describing the task; add resource or memory queries only for facts the task depends on.
4. A question about the user - who they are, what they like, what they did or plan - needs a memory query.
5. A question on a subject, a document or a fact needs a resource query; add a memory query when earlier conversations may hold the answer.
6. Each query must make sense without the conversation: put the names and things that "it", "that", "the other one", "they" and similar words refer to into the query itself.
7. Write each query as a short phrase made of the words the wanted text would contain. Leave out words about searching (find, search, look up, retrieve).
8. Write the queries in the language of the user's message.

Answer with a single JSON object and nothing else, shaped like this:
{"reasoning": "one or two sentences on what the user needs",
 "queries": [{"query": "self-contained search phrase", "context_type": "resource", "intent": "what this query is for", "priority": 1}]}
context_type is one of "resource", "memory", "skill"; priority runs from 1 (most important) to 5.)";

// Priorities the plan may carry.
constexpr int kMinPriority = 1;
constexpr int kMaxPriority = 5;
// Characters of a query's intent and of the plan's reasoning kept at most.
constexpr size_t kMaxIntentChars = 300;
constexpr size_t kMaxReasoningChars = 1000;

std::string OneLine(std::string_view text, size_t max_chars) {
  return std::string(Utf8Prefix(CollapseWhitespace(text), max_chars));
}

// "resource", "memory" or "skill" for the forms a model may write; "" else.
std::string NormalizeContextType(std::string_view raw) {
  const std::string type = AsciiLower(Trim(raw));
  if (type == "resource" || type == "resources") return "resource";
  if (type == "memory" || type == "memories") return "memory";
  if (type == "skill" || type == "skills") return "skill";
  return "";
}

// Why the model's plan was not used, in words a caller may see (no
// endpoint, no provider message: those go to the log).
std::string FailureReason(const Status& status, bool answered) {
  if (answered) return fmt::format("its answer was not a valid plan ({})", status.message());
  if (status.code() == StatusCode::kDeadlineExceeded) return "it did not answer in time";
  std::string message(status.message());
  const size_t http = message.find("HTTP ");
  if (http != std::string::npos && http + 8 <= message.size()) {
    return fmt::format("the call failed ({})", message.substr(http, 8));
  }
  return fmt::format("the call failed ({})", StatusCodeName(status.code()));
}

}  // namespace

std::vector<ChatMessage> PlannerMessages(std::string_view query, const SessionHints& hints,
                                         const LlmIntentAnalyzerOptions& options) {
  std::string context;
  if (!Trim(hints.archive_overview).empty()) {
    std::string overview(Utf8Prefix(Trim(hints.archive_overview), options.max_overview_chars));
    context += fmt::format("## Earlier in this conversation (summary)\n{}\n\n", overview);
  }
  if (!hints.recent_messages.empty()) {
    context += "## Latest messages, oldest first\n";
    for (const std::string& message : hints.recent_messages) {
      context += fmt::format("- {}\n", OneLine(message, options.max_message_chars));
    }
    context += "\n";
  }
  std::string user = context.empty() ? "There is no earlier conversation.\n\n" : context;
  user += fmt::format("## Current message\n{}", Trim(query));
  return {ChatMessage{"system", std::string(kPlannerInstructions)},
          ChatMessage{"user", std::move(user)}};
}

Result<QueryPlan> ParsePlannerReply(std::string_view reply, size_t max_query_chars) {
  Result<Json> parsed = ParseJson(reply);
  if (!parsed.ok()) return Status::InvalidArgument("the answer is not JSON");
  const Json& root = *parsed;
  if (!root.is_object()) return Status::InvalidArgument("the answer is not a JSON object");
  auto queries = root.find("queries");
  if (queries == root.end() || !queries->is_array()) {
    return Status::InvalidArgument("\"queries\" is missing or not a list");
  }
  QueryPlan plan;
  if (auto reasoning = root.find("reasoning"); reasoning != root.end()) {
    if (!reasoning->is_string()) return Status::InvalidArgument("\"reasoning\" is not text");
    plan.reasoning = OneLine(reasoning->get<std::string>(), kMaxReasoningChars);
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < queries->size(); ++i) {
    const Json& entry = (*queries)[i];
    if (!entry.is_object())
      return Status::InvalidArgument(fmt::format("queries[{}] is not an object", i));
    auto text = entry.find("query");
    if (text == entry.end() || !text->is_string() || Trim(text->get<std::string>()).empty()) {
      return Status::InvalidArgument(fmt::format("queries[{}] has no query text", i));
    }
    auto type = entry.find("context_type");
    const std::string context_type = type != entry.end() && type->is_string()
                                         ? NormalizeContextType(type->get<std::string>())
                                         : "";
    if (context_type.empty()) {
      return Status::InvalidArgument(
          fmt::format("queries[{}] has no context_type of resource, memory or skill", i));
    }
    TypedQuery typed;
    typed.query = OneLine(text->get<std::string>(), max_query_chars);
    typed.context_type = context_type;
    if (auto intent = entry.find("intent"); intent != entry.end() && intent->is_string()) {
      typed.intent = OneLine(intent->get<std::string>(), kMaxIntentChars);
    }
    typed.priority = std::min(static_cast<int>(i) + 1, kMaxPriority);
    if (auto priority = entry.find("priority"); priority != entry.end() && priority->is_number()) {
      const double p = priority->get<double>();
      typed.priority = p < kMinPriority   ? kMinPriority
                       : p > kMaxPriority ? kMaxPriority
                                          : static_cast<int>(p);
    }
    if (!IsValidUtf8(typed.query) || !IsValidUtf8(typed.intent)) {
      return Status::InvalidArgument(fmt::format("queries[{}] is not valid UTF-8", i));
    }
    if (!seen.emplace(AsciiLower(typed.query), typed.context_type).second) continue;
    plan.queries.push_back(std::move(typed));
  }
  std::stable_sort(
      plan.queries.begin(), plan.queries.end(),
      [](const TypedQuery& a, const TypedQuery& b) { return a.priority < b.priority; });
  if (plan.queries.size() > static_cast<size_t>(RuleIntentAnalyzer::kMaxQueries)) {
    plan.queries.resize(static_cast<size_t>(RuleIntentAnalyzer::kMaxQueries));
  }
  return plan;
}

LlmIntentAnalyzer::LlmIntentAnalyzer(Llm* llm, const IntentAnalyzer* fallback,
                                     LlmIntentAnalyzerOptions options)
    : llm_(llm), fallback_(fallback), options_(options) {}

Result<QueryPlan> LlmIntentAnalyzer::Analyze(std::string_view query,
                                             const SessionHints& hints) const {
  if (Trim(query).empty()) return Status::InvalidArgument("query must not be empty");
  ChatRequest request;
  request.messages = PlannerMessages(query, hints, options_);
  request.json_output = true;
  request.temperature = 0.0;
  Result<ChatResponse> reply = llm_->Chat(request);
  Status failure;
  if (reply.ok()) {
    Result<QueryPlan> plan = ParsePlannerReply(reply->content, options_.max_query_chars);
    if (plan.ok()) {
      if (plan->reasoning.empty()) plan->reasoning = "Planned by the query planner model.";
      return plan;
    }
    failure = plan.status();
  } else {
    failure = reply.status();
  }
  spdlog::warn("query planner: {}; using the rule-based plan", failure.ToString());
  // The client rejects a reply that is not JSON itself: that, too, is a bad answer.
  const bool answered =
      reply.ok() || failure.message().find("not valid JSON") != std::string_view::npos;
  if (answered && !reply.ok()) failure = Status::InvalidArgument("the answer is not JSON");
  SKALD_ASSIGN_OR_RETURN(QueryPlan plan, fallback_->Analyze(query, hints));
  plan.reasoning = fmt::format("The query planner model was not used: {}. Rule-based plan: {}",
                               FailureReason(failure, answered), plan.reasoning);
  return plan;
}

}  // namespace skald
