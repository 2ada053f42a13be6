// Session hints for search (search_hints.h).

#include "session/search_hints.h"

#include "session/message.h"

namespace skald {
namespace {

// Tokens of session context read for hints: the overview and a few messages.
constexpr int64_t kHintTokenBudget = 8000;

}  // namespace

SessionHints SearchHintsFor(SessionStore* store, const Identity& who, std::string_view session_id) {
  SessionHints hints;
  Result<SessionContextResult> context = store->Context(who, session_id, kHintTokenBudget);
  if (!context.ok()) return hints;  // unknown, foreign or unreadable: no hints
  hints.archive_overview = context->latest_archive_overview;
  const std::vector<std::string>& messages = context->messages_json;
  const size_t first = messages.size() > kSearchHintMessages ? messages.size() - kSearchHintMessages : 0;
  for (size_t i = first; i < messages.size(); ++i) {
    Result<Json> message = ParseJson(messages[i]);
    if (!message.ok() || !message->is_object()) continue;
    std::string text = MessageText(*message);
    if (!text.empty()) hints.recent_messages.push_back(std::move(text));
  }
  return hints;
}

}  // namespace skald
