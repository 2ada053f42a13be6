// The model-free intent analyzer (intent_analyzer.h).

#include "retrieve/intent_analyzer.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

namespace skald {
namespace {

// Lower-case words of `text`: runs of ASCII letters, digits and
// apostrophes, and of any non-ASCII bytes (kept as they are).
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && word.back() == '\'') word.pop_back();
    if (!word.empty()) out.push_back(std::move(word));
    word.clear();
  };
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80 || (c == '\'' && !word.empty())) {
      word += static_cast<char>(u < 0x80 ? std::tolower(u) : u);
    } else {
      flush();
    }
  }
  flush();
  return out;
}

// Words that carry no topic of their own: function words, question words,
// pronouns and the verbs of asking.
const std::unordered_set<std::string_view>& FunctionWords() {
  static const std::unordered_set<std::string_view> kWords = {
      "a",      "an",     "the",   "and",    "or",     "but",    "if",     "of",    "to",
      "in",     "on",     "at",    "for",    "with",   "by",     "from",   "about", "as",
      "into",   "over",   "is",    "are",    "was",    "were",   "be",     "been",  "being",
      "am",     "do",     "does",  "did",    "have",   "has",    "had",    "will",  "would",
      "can",    "could",  "should", "shall", "may",    "might",  "must",   "what",  "which",
      "who",    "whom",   "whose", "when",   "where",  "why",    "how",    "that",  "this",
      "these",  "those",  "it",    "its",    "it's",   "i",      "me",     "my",    "you",
      "your",   "he",     "him",   "his",    "she",    "her",    "we",     "us",    "our",
      "they",   "them",   "their", "one",    "ones",   "other",  "another", "there", "here",
      "then",   "so",     "not",   "no",     "yes",    "also",   "too",    "just",  "please",
      "tell",   "show",   "give",  "find",   "know",   "any",    "some",   "more",  "same",
      "again",  "else",   "ok",    "okay",   "thanks", "thank",  "hi",     "hello", "let's",
      "let",    "i'm",    "you're", "don't", "what's", "how's",  "that's", "there's"};
  return kWords;
}

// Words that point back into the conversation.
const std::unordered_set<std::string_view>& ReferringWords() {
  static const std::unordered_set<std::string_view> kWords = {
      "it",   "its",  "it's", "that", "this",  "these", "those", "they", "them",
      "their", "one", "ones", "he",   "him",   "his",   "she",   "her",  "there",
      "other", "another", "same", "former", "latter", "previous", "above"};
  return kWords;
}

bool IsContentWord(const std::string& word) {
  if (FunctionWords().count(word) > 0) return false;
  if (word.size() < 2) return false;
  return !std::all_of(word.begin(), word.end(), [](char c) { return c == '\''; });
}

// The content words of `texts` (newest text first), most recent first,
// distinct, none of `exclude`, at most `limit`.
std::vector<std::string> SalientWords(const std::vector<std::string>& texts_newest_first,
                                      const std::set<std::string>& exclude, size_t limit) {
  std::vector<std::string> out;
  std::set<std::string> seen = exclude;
  for (const std::string& text : texts_newest_first) {
    for (std::string& word : Words(text)) {
      if (out.size() >= limit) return out;
      if (!IsContentWord(word) || !seen.insert(word).second) continue;
      out.push_back(std::move(word));
    }
  }
  return out;
}

}  // namespace

bool IsFollowUpQuery(std::string_view query) {
  const std::vector<std::string> words = Words(query);
  if (words.empty()) return false;
  const std::string& first = words.front();
  if (first == "and" || first == "or" || first == "also") return true;
  if (words.size() >= 2 && (first == "what" || first == "how") && words[1] == "about") return true;
  size_t content = 0;
  bool refers = false;
  for (const std::string& w : words) {
    if (IsContentWord(w)) ++content;
    if (ReferringWords().count(w) > 0) refers = true;
  }
  return content == 0 || (refers && content <= 3);
}

Result<QueryPlan> RuleIntentAnalyzer::Analyze(std::string_view query,
                                              const SessionHints& hints) const {
  if (query.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Status::InvalidArgument("query must not be empty");
  }
  QueryPlan plan;
  TypedQuery typed;
  typed.query = std::string(query);
  typed.intent = "the query as asked";
  if (hints.empty() || !IsFollowUpQuery(query)) {
    plan.reasoning = hints.empty() ? "No session context: the query is searched as asked."
                                   : "The query stands on its own: searched as asked.";
    plan.queries.push_back(std::move(typed));
    return plan;
  }
  std::set<std::string> asked;
  for (std::string& w : Words(query)) asked.insert(std::move(w));
  std::vector<std::string> sources(hints.recent_messages.rbegin(), hints.recent_messages.rend());
  const bool from_messages = !sources.empty();
  if (!from_messages) sources.push_back(hints.archive_overview);
  const std::vector<std::string> words =
      SalientWords(sources, asked, static_cast<size_t>(kMaxContextWords));
  if (words.empty()) {
    plan.reasoning = "A follow-up, but the session offers no topic words: searched as asked.";
    plan.queries.push_back(std::move(typed));
    return plan;
  }
  std::string added;
  for (const std::string& w : words) {
    if (!added.empty()) added += ' ';
    added += w;
  }
  typed.query = fmt::format("{} {}", query, added);
  typed.intent = "the follow-up made self-contained from the session";
  plan.reasoning = fmt::format(
      "The query refers back to the conversation; completed with words of the session's {}: {}.",
      from_messages ? "recent messages" : "latest archive overview", added);
  plan.queries.push_back(std::move(typed));
  return plan;
}

}  // namespace skald
