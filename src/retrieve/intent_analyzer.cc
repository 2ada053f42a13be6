// The model-free intent analyzer (intent_analyzer.h).

#include "retrieve/intent_analyzer.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "common/strings.h"

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

namespace {

// Greetings, thanks and acknowledgements: a query made only of these (and
// function words) asks for nothing.
const std::unordered_set<std::string_view>& ChitChatWords() {
  static const std::unordered_set<std::string_view> kWords = {
      "hi",       "hello",  "hey",     "hiya",    "yo",       "thanks",    "thank",   "thx",
      "ty",       "cheers", "bye",     "goodbye", "good",     "morning",   "afternoon", "evening",
      "night",    "ok",     "okay",    "cool",    "great",    "nice",      "awesome", "lol",
      "haha",     "sure",   "yes",     "yep",     "nope",     "no",        "fine",    "doing",
      "sup",      "welcome", "please", "much",    "lot",      "see",       "later",   "bro",
      "morning",  "gm",     "gn",      "wow",     "alright",  "right",     "got",     "perfect",
      "\xe4\xbd\xa0\xe5\xa5\xbd",                      // 你好
      "\xe6\x82\xa8\xe5\xa5\xbd",                      // 您好
      "\xe8\xb0\xa2\xe8\xb0\xa2",                      // 谢谢
      "\xe5\x86\x8d\xe8\xa7\x81",                      // 再见
      "\xe6\x97\xa9\xe4\xb8\x8a\xe5\xa5\xbd"};      // 早上好
  return kWords;
}

// Verbs that open a request to do something ("write a haiku", "please
// deploy the site"): a skill may carry it out.
const std::unordered_set<std::string_view>& ActionVerbs() {
  static const std::unordered_set<std::string_view> kWords = {
      "write",     "create",  "build",    "generate", "make",     "send",    "deploy",
      "run",       "execute", "convert",  "translate", "summarize", "summarise", "fix",
      "book",      "schedule", "draft",   "compose",  "calculate", "compute", "analyze",
      "analyse",   "install", "update",   "delete",   "remove",   "refactor", "debug",
      "plot",      "download", "upload",  "email",    "fetch",    "open",    "configure",
      "rename",    "format",  "review",   "compare",  "organize", "organise", "post",
      "publish",   "export",  "import",   "clean",    "merge",    "push",    "order",
      "buy",       "cancel",  "remind",   "draw",     "design",   "implement", "set",
      "add",       "scrape",  "crawl",    "resize",   "compress", "encrypt", "backup",
      "restore",   "migrate", "monitor",  "test",     "lint",     "search",  "look"};
  return kWords;
}

// Words of the caller speaking about themselves.
const std::unordered_set<std::string_view>& SelfWords() {
  static const std::unordered_set<std::string_view> kWords = {
      "i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll", "we", "us", "our", "ours"};
  return kWords;
}

// Words that ask about the caller's tastes and habits.
const std::unordered_set<std::string_view>& PreferenceWords() {
  static const std::unordered_set<std::string_view> kWords = {
      "prefer",   "prefers", "preferred", "preference", "preferences", "favorite", "favourite",
      "favorites", "favourites", "like",  "likes",     "love",        "loves",    "hate",
      "dislike",  "usually", "habit",     "habits",     "remember",    "remind",   "allergic"};
  return kWords;
}

// Politeness before a request: "please", "can you", "help me", ...
size_t SkipPoliteness(const std::vector<std::string>& words) {
  size_t i = 0;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (w == "please" || w == "kindly" || w == "just") {
      ++i;
    } else if ((w == "can" || w == "could" || w == "would" || w == "will") && i + 1 < words.size() &&
               words[i + 1] == "you") {
      i += 2;
    } else if (w == "help" && i + 1 < words.size() && words[i + 1] == "me") {
      i += 2;
    } else if ((w == "i" && i + 2 < words.size() && (words[i + 1] == "want" ||
                                                      words[i + 1] == "need") &&
                words[i + 2] == "you") ||
               (w == "let's" || w == "lets")) {
      i += w == "i" ? 3 : 1;
      if (i < words.size() && words[i] == "to") ++i;
    } else {
      break;
    }
  }
  return i;
}

// What a query asks for, from its words alone.
struct QueryShape {
  bool chit_chat = false;   // greetings and thanks only
  bool request = false;     // an imperative: something to do
  bool procedure = false;   // "how do I / how to / how can I …"
  bool about_user = false;  // the caller's own facts, plans or preferences
  bool topic = false;       // content words beyond the caller and their tastes
};

QueryShape ShapeOf(std::string_view query) {
  QueryShape shape;
  const std::vector<std::string> words = Words(query);
  if (words.empty()) return shape;
  bool chat_word = false;
  bool other_word = false;
  for (const std::string& w : words) {
    if (ChitChatWords().count(w) > 0) {
      chat_word = true;
    } else if (FunctionWords().count(w) == 0 && SelfWords().count(w) == 0) {
      other_word = true;
    }
  }
  shape.chit_chat = chat_word && !other_word && words.size() <= 8;
  if (shape.chit_chat) return shape;
  const size_t start = SkipPoliteness(words);
  shape.request = start < words.size() && ActionVerbs().count(words[start]) > 0;
  shape.procedure = (words.size() >= 2 && words[0] == "how" &&
                     (words[1] == "to" || ((words[1] == "do" || words[1] == "can" ||
                                            words[1] == "should") &&
                                           words.size() >= 3 && SelfWords().count(words[2]) > 0)));
  for (const std::string& w : words) {
    if (SelfWords().count(w) > 0 || PreferenceWords().count(w) > 0) shape.about_user = true;
    if (IsContentWord(w) && PreferenceWords().count(w) == 0 && SelfWords().count(w) == 0 &&
        ActionVerbs().count(w) == 0) {
      shape.topic = true;
    }
  }
  return shape;
}

}  // namespace

Result<QueryPlan> RuleIntentAnalyzer::Analyze(std::string_view query,
                                              const SessionHints& hints) const {
  if (query.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Status::InvalidArgument("query must not be empty");
  }
  QueryPlan plan;
  const QueryShape shape = ShapeOf(query);
  if (shape.chit_chat) {
    plan.reasoning = "Greeting or small talk: nothing to retrieve.";
    return plan;
  }

  // The text every typed query searches: the query, completed from the
  // session when it only makes sense there.
  std::string text(query);
  std::string how = "searched as asked";
  if (!hints.empty() && IsFollowUpQuery(query)) {
    std::set<std::string> asked;
    for (std::string& w : Words(query)) asked.insert(std::move(w));
    std::vector<std::string> sources(hints.recent_messages.rbegin(), hints.recent_messages.rend());
    const bool from_messages = !sources.empty();
    if (!from_messages) sources.push_back(hints.archive_overview);
    const std::vector<std::string> words =
        SalientWords(sources, asked, static_cast<size_t>(kMaxContextWords));
    if (words.empty()) {
      how = "a follow-up, but the session offers no topic words: searched as asked";
    } else {
      std::string added;
      for (const std::string& w : words) added += (added.empty() ? "" : " ") + w;
      text = fmt::format("{} {}", query, added);
      how = fmt::format(
          "the query refers back to the conversation; completed with words of the session's {}: "
          "{}",
          from_messages ? "recent messages" : "latest archive overview", added);
    }
  }

  auto add = [&](const char* type, const char* intent) {
    if (plan.queries.size() >= static_cast<size_t>(kMaxQueries)) return;
    TypedQuery typed;
    typed.query = text;
    typed.context_type = type;
    typed.intent = intent;
    typed.priority = static_cast<int>(plan.queries.size()) + 1;
    plan.queries.push_back(std::move(typed));
  };
  std::vector<std::string> kinds;
  if (shape.request) {
    add("skill", "a skill that carries out the request");
    kinds.push_back("a request (skill)");
  }
  if (shape.about_user) {
    add("memory", "what is known about the user: facts, plans and preferences");
    kinds.push_back("about the user (memory)");
  }
  if (shape.topic || plan.queries.empty()) {
    add("resource", "documents on the topic");
    kinds.push_back("a topic (resource)");
  }
  if (!shape.about_user) {
    // Past conversations hold topics too (people, events, decisions).
    add("memory", "memories of past conversations on the topic");
  }
  if (shape.procedure && !shape.request) {
    add("skill", "a skill for the procedure asked about");
    kinds.push_back("a procedure (skill)");
  }
  plan.reasoning = fmt::format("The query reads as {}; {}.", Join(kinds, " and "), how);
  return plan;
}

}  // namespace skald
