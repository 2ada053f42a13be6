// Conversation excerpts of an archive (archive_excerpts.h).

#include "session/archive_excerpts.h"

#include <cctype>

#include <fmt/format.h>

#include "common/strings.h"
#include "session/date_resolver.h"
#include "session/message.h"

namespace skald {
namespace {

constexpr size_t kMaxLineChars = 2000;

// "YYYY-MM-DD" of a message time (created_at), "" when it has none.
std::string DayOf(std::string_view created_at) {
  Result<CivilDateTime> when = ParseDateTime(created_at);
  return when.ok() ? when->date.ToString() : "";
}

std::string SpeakerOf(const Json& message) {
  if (message.contains("peer_id") && message["peer_id"].is_string() &&
      !message["peer_id"].get<std::string>().empty()) {
    return message["peer_id"].get<std::string>();
  }
  std::string role = message.value("role", "user");
  if (role.empty() || role == "user") return "User";
  role[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(role[0])));
  return role;
}

std::string OneLine(std::string_view text) {
  const std::string out = CollapseWhitespace(text);
  std::string_view cut = Utf8Prefix(out, kMaxLineChars);
  if (cut.size() < out.size()) return std::string(cut) + "…";
  return out;
}

}  // namespace

std::string ExcerptLine(const Json& message) {
  if (!message.is_object()) return "";
  std::string text = OneLine(MessageText(message));
  if (text.empty()) return "";
  return fmt::format("{}: {}", SpeakerOf(message), text);
}

std::vector<ArchiveExcerpt> RenderArchiveExcerpts(std::string_view session_id,
                                                  const std::vector<Json>& messages) {
  // The lines of the messages that say something, with their positions and days.
  struct Line {
    size_t position;
    std::string text;
    std::string day;
  };
  std::vector<Line> lines;
  for (size_t i = 0; i < messages.size(); ++i) {
    std::string line = ExcerptLine(messages[i]);
    if (line.empty()) continue;
    lines.push_back({i + 1, std::move(line), DayOf(messages[i].value("created_at", ""))});
  }
  std::vector<ArchiveExcerpt> out;
  out.reserve(lines.size());
  const int n = static_cast<int>(lines.size());
  for (int i = 0; i < n; ++i) {
    ArchiveExcerpt excerpt;
    excerpt.name = fmt::format("excerpt_{:04d}.md", lines[i].position);
    excerpt.text = lines[i].day.empty()
                       ? fmt::format("[session {}]\n", session_id)
                       : fmt::format("[session {} · {}]\n", session_id, lines[i].day);
    for (int j = std::max(0, i - kExcerptRadius); j <= std::min(n - 1, i + kExcerptRadius); ++j) {
      excerpt.text += lines[j].text;
      excerpt.text += '\n';
    }
    // Neighbouring windows can hold the same lines (a conversation of two
    // messages): a search would answer the same words twice.
    if (!out.empty() && out.back().text == excerpt.text) continue;
    out.push_back(std::move(excerpt));
  }
  return out;
}

}  // namespace skald
