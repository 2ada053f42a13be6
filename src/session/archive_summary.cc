#include "session/archive_summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/strings.h"
#include "session/message.h"
#include "text/stop_words.h"

namespace skald {
namespace {

constexpr size_t kMaxTopics = 8;
constexpr size_t kMaxStatements = 10;
constexpr size_t kMaxStatementChars = 240;

std::vector<std::string> ContentWords(std::string_view text) {
  static const std::set<std::string_view> stop = [] {
    std::set<std::string_view> s;
    for (std::string_view w : EnglishStopWords()) s.insert(w);
    return s;
  }();
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 4 && !stop.count(word)) out.push_back(word);
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

// The first sentence of `text`, white space collapsed, cut to a length.
std::string LeadingSentence(std::string_view text) {
  const std::string collapsed = CollapseWhitespace(text);
  std::string_view s = collapsed;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if ((s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i + 1] == ' ' && i >= 20) {
      s = s.substr(0, i + 1);
      break;
    }
  }
  std::string out(Utf8Prefix(s, kMaxStatementChars));
  if (out.size() < s.size()) out += "…";
  return out;
}

std::string Speaker(const Json& message) {
  std::string role = message.value("role", "user");
  if (message.contains("peer_id") && message["peer_id"].is_string()) {
    return fmt::format("{} ({})", role, message["peer_id"].get<std::string>());
  }
  return role;
}

}  // namespace

ArchiveSummary SummarizeArchive(Summarizer& summarizer, std::string_view session_id,
                                std::string_view archive_name,
                                const std::vector<Json>& messages) {
  std::map<std::string, int> speakers;
  std::map<std::string, int> word_counts;
  std::string transcript;
  std::string first_time, last_time;
  struct Candidate {
    size_t index;
    size_t score;
  };
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    ++speakers[Speaker(m)];
    std::string at = m.value("created_at", "");
    if (first_time.empty()) first_time = at;
    if (!at.empty()) last_time = at;
    std::string text = MessageText(m);
    std::vector<std::string> words = ContentWords(text);
    for (const std::string& w : words) ++word_counts[w];
    std::set<std::string> distinct(words.begin(), words.end());
    if (!Trim(text).empty()) candidates.push_back({i, distinct.size()});
    if (!Trim(text).empty()) transcript += fmt::format("{}: {}\n\n", Speaker(m), text);
  }

  std::vector<std::pair<std::string, int>> topics(word_counts.begin(), word_counts.end());
  std::stable_sort(topics.begin(), topics.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (topics.size() > kMaxTopics) topics.resize(kMaxTopics);
  std::vector<std::string> topic_words;
  for (const auto& [w, n] : topics) topic_words.push_back(w);

  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  if (candidates.size() > kMaxStatements) candidates.resize(kMaxStatements);
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.index < b.index; });

  std::vector<std::string> who;
  for (const auto& [name, n] : speakers) who.push_back(name);
  std::string description = fmt::format(
      "{} messages between {}{}.", messages.size(), Join(who, ", "),
      first_time.empty() ? "" : fmt::format(" from {} to {}", first_time, last_time));
  if (!topic_words.empty()) description += " Topics: " + Join(topic_words, ", ") + ".";

  std::string overview = fmt::format("# Session {} · {}\n\n{}\n\n", session_id, archive_name,
                                     description);
  overview += "## Participants\n\n";
  for (const auto& [name, n] : speakers) overview += fmt::format("- {}: {} messages\n", name, n);
  overview += fmt::format("\n## When\n\n- first message: {}\n- last message: {}\n",
                          first_time.empty() ? "unknown" : first_time,
                          last_time.empty() ? "unknown" : last_time);
  if (!topics.empty()) {
    overview += "\n## Topics\n\n";
    for (const auto& [w, n] : topics) overview += fmt::format("- {} ({})\n", w, n);
  }
  if (!candidates.empty()) {
    overview += "\n## Key statements\n\n";
    for (const Candidate& c : candidates) {
      const Json& m = messages[c.index];
      overview += fmt::format("- **{}** ({}): {}\n", Speaker(m), m.value("created_at", ""),
                              LeadingSentence(MessageText(m)));
    }
  }
  if (!transcript.empty()) {
    Result<std::string> summary = summarizer.SummarizeFile("transcript.md", transcript);
    if (summary.ok() && !Trim(*summary).empty()) {
      overview += "\n## Summary\n\n" + *summary + "\n";
    }
  }
  std::string cut(Utf8Prefix(overview, kOverviewMaxChars));
  ArchiveSummary out;
  out.overview = cut;
  out.abstract = AbstractFromOverview(out.overview);
  return out;
}

}  // namespace skald
