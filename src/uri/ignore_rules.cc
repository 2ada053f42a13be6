// The rules of a .ovgitignore (ignore_rules.h).

#include "uri/ignore_rules.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace skald {
namespace {

std::string_view TrimLine(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<IgnoreRules> IgnoreRules::Parse(std::string_view content) {
  if (content.size() > kMaxIgnoreBytes) {
    return Status::InvalidArgument(
        fmt::format(".ovgitignore is {} bytes, limit {} bytes", content.size(), kMaxIgnoreBytes));
  }
  if (!IsValidUtf8(content)) return Status::InvalidArgument(".ovgitignore is not valid UTF-8");
  IgnoreRules rules;
  size_t number = 0;
  for (size_t pos = 0; pos <= content.size();) {
    size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = TrimLine(content.substr(pos, end - pos));
    pos = end + 1;
    ++number;
    if (line.empty() || line.front() == '#') continue;
    auto refuse = [&](std::string_view why) {
      return Status::InvalidArgument(
          fmt::format(".ovgitignore line {}: {} ('{}')", number, why, line));
    };
    if (line.front() == '!') return refuse("negation (!) is not supported");
    if (line.find('\\') != std::string_view::npos) {
      return refuse("backslash escapes are not supported");
    }
    Rule rule{GlobPattern(), false};
    while (!line.empty() && line.back() == '/') {
      rule.dir_only = true;
      line.remove_suffix(1);
    }
    const bool anchored = line.find('/') != std::string_view::npos;
    while (!line.empty() && line.front() == '/') line.remove_prefix(1);
    if (line.empty()) continue;  // "/" alone names the root: nothing to keep out
    Result<GlobPattern> pattern =
        GlobPattern::Compile(anchored ? "/" + std::string(line) : std::string(line));
    if (!pattern.ok()) return refuse(pattern.status().message());
    rule.pattern = std::move(*pattern);
    rules.rules_.push_back(std::move(rule));
  }
  return rules;
}

bool IgnoreRules::Ignored(std::string_view path) const {
  if (rules_.empty()) return false;
  // The path's directories, shortest first, then the path itself.
  for (size_t end = path.find('/');; end = path.find('/', end + 1)) {
    const bool is_dir = end != std::string_view::npos;
    const std::string_view prefix = is_dir ? path.substr(0, end) : path;
    for (const Rule& rule : rules_) {
      if (rule.dir_only && !is_dir) continue;
      if (rule.pattern.Matches(prefix)) return true;
    }
    if (!is_dir) return false;
  }
}

}  // namespace skald
