// Conversation excerpts of an archive (archive_excerpts.h).

#include "session/archive_excerpts.h"

#include <cctype>

#include <fmt/format.h>

#include "common/strings.h"
#include "session/message.h"

namespace skald {
namespace {

constexpr size_t kMaxLineChars = 2000;

// "YYYY-MM-DD" of an ISO time ("2023-05-08T13:56:00.000Z"), "" when `iso`
// does not start with one.
std::string DayOf(std::string_view iso) {
  if (iso.size() < 10) return "";
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(iso[i]))) return "";
  }
  if (iso[4] != '-' || iso[7] != '-') return "";
  return std::string(iso.substr(0, 10));
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
    out.push_back(std::move(excerpt));
  }
  return out;
}

}  // namespace skald
