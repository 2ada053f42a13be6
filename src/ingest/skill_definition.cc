#include "ingest/skill_definition.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "text/summarizer.h"

namespace skald {
namespace {

using nlohmann::json;

// A frontmatter value: a scalar or a list of scalars.
struct FrontValue {
  std::string scalar;
  std::vector<std::string> list;
  bool is_list = false;
};
using Frontmatter = std::map<std::string, FrontValue, std::less<>>;

bool IsIndented(std::string_view line) {
  return !line.empty() && (line[0] == ' ' || line[0] == '\t');
}

// A scalar as written: quotes removed ("…" with JSON escapes, '…' with ''),
// plain text trimmed.
Result<std::string> Unquote(std::string_view raw) {
  std::string_view v = Trim(raw);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    try {
      return json::parse(v).get<std::string>();
    } catch (const std::exception&) {
      return Status::InvalidArgument(fmt::format("bad double-quoted string: {}", v));
    }
  }
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    std::string out;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
      out += v[i];
      if (v[i] == '\'' && i + 2 < v.size() && v[i + 1] == '\'') ++i;
    }
    return out;
  }
  return std::string(v);
}

// "[a, 'b', \"c\"]" -> {a, b, c}.
Result<std::vector<std::string>> InlineList(std::string_view raw) {
  std::string_view v = Trim(raw);
  if (v.size() < 2 || v.front() != '[' || v.back() != ']') {
    return Status::InvalidArgument(fmt::format("bad list: {}", v));
  }
  std::vector<std::string> out;
  v = v.substr(1, v.size() - 2);
  std::string item;
  char quote = 0;
  for (size_t i = 0; i <= v.size(); ++i) {
    const char c = i < v.size() ? v[i] : ',';
    if (quote) {
      if (c == quote) quote = 0;
      item += c;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c != ',') {
      item += c;
      continue;
    }
    if (!Trim(item).empty()) {
      SKALD_ASSIGN_OR_RETURN(std::string s, Unquote(item));
      out.push_back(std::move(s));
    }
    item.clear();
  }
  if (quote) return Status::InvalidArgument("unterminated quote in a list");
  return out;
}

// The YAML subset skill frontmatter uses: `key: value` mappings whose
// values are plain or quoted scalars, flow lists ([a, b]), block lists
// ("- a" lines below the key), folded (>) or literal (|) block scalars, or
// plain scalars continued on indented lines. Comments and blank lines are
// skipped. Anything else is an error naming the line.
Result<Frontmatter> ParseFrontmatter(std::string_view text) {
  Frontmatter out;
  std::vector<std::string> lines = Split(text, '\n');
  std::string key;       // the key whose value continues on indented lines
  char block = 0;        // '>' or '|' while reading a block scalar, 0 otherwise
  for (size_t n = 0; n < lines.size(); ++n) {
    std::string line = lines[n];
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view t = Trim(line);
    if (t.empty()) {
      if (block == '|' && !key.empty()) out[key].scalar += '\n';
      continue;
    }
    if (t[0] == '#' && !block) continue;
    if (IsIndented(line)) {
      if (key.empty()) {
        return Status::InvalidArgument(
            fmt::format("frontmatter line {}: indented text outside a value", n + 1));
      }
      FrontValue& value = out[key];
      if (!block && t.size() >= 1 && t[0] == '-' && (t.size() == 1 || t[1] == ' ')) {
        if (!value.scalar.empty()) {
          return Status::InvalidArgument(
              fmt::format("frontmatter line {}: list item after text in '{}'", n + 1, key));
        }
        value.is_list = true;
        SKALD_ASSIGN_OR_RETURN(std::string item, Unquote(t.substr(1)));
        value.list.push_back(std::move(item));
        continue;
      }
      if (value.is_list) {
        return Status::InvalidArgument(
            fmt::format("frontmatter line {}: text after list items in '{}'", n + 1, key));
      }
      if (!value.scalar.empty()) value.scalar += block == '|' ? '\n' : ' ';
      value.scalar += t;
      continue;
    }
    const size_t colon = t.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Status::InvalidArgument(
          fmt::format("frontmatter line {}: expected 'key: value'", n + 1));
    }
    key = std::string(Trim(t.substr(0, colon)));
    std::string_view rest = Trim(t.substr(colon + 1));
    FrontValue value;
    block = 0;
    if (rest == ">" || rest == ">-" || rest == ">+") {
      block = '>';
    } else if (rest == "|" || rest == "|-" || rest == "|+") {
      block = '|';
    } else if (!rest.empty() && rest[0] == '[') {
      value.is_list = true;
      SKALD_ASSIGN_OR_RETURN(value.list, InlineList(rest));
    } else if (!rest.empty()) {
      SKALD_ASSIGN_OR_RETURN(value.scalar, Unquote(rest));
    }
    out[key] = std::move(value);
  }
  for (auto& [k, v] : out) {
    if (!v.is_list) v.scalar = std::string(Trim(v.scalar));
  }
  return out;
}

// Splits "---\nfrontmatter\n---\nbody". nullopt when the text does not open
// with a fence; InvalidArgument when the closing fence is missing.
Result<std::optional<std::pair<std::string, std::string>>> SplitFrontmatter(
    std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // BOM
  size_t start = 0;
  while (start < text.size() && (text[start] == '\n' || text[start] == '\r')) ++start;
  text.remove_prefix(start);
  auto fence_at = [&](size_t pos) {
    if (text.substr(pos, 3) != "---") return false;
    size_t end = pos + 3;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) ++end;
    return end == text.size() || text[end] == '\n';
  };
  if (!fence_at(0)) return std::optional<std::pair<std::string, std::string>>();
  const size_t first_end = text.find('\n');
  if (first_end == std::string_view::npos) {
    return Status::InvalidArgument("SKILL.md frontmatter is not closed by a '---' line");
  }
  for (size_t pos = first_end + 1; pos <= text.size();) {
    if (fence_at(pos)) {
      std::string front(text.substr(first_end + 1, pos - first_end - 1));
      size_t body = text.find('\n', pos);
      std::string rest = body == std::string_view::npos ? "" : std::string(text.substr(body + 1));
      while (!rest.empty() && (rest.front() == '\n' || rest.front() == '\r')) rest.erase(0, 1);
      return std::optional(std::make_pair(std::move(front), std::move(rest)));
    }
    const size_t next = text.find('\n', pos);
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return Status::InvalidArgument("SKILL.md frontmatter is not closed by a '---' line");
}

std::vector<std::string> ListOf(const Frontmatter& front, std::string_view key) {
  auto it = front.find(key);
  if (it == front.end()) return {};
  if (it->second.is_list) return it->second.list;
  if (it->second.scalar.empty()) return {};
  return {it->second.scalar};
}

std::string ScalarOf(const Frontmatter& front, std::string_view key) {
  auto it = front.find(key);
  return it == front.end() || it->second.is_list ? "" : it->second.scalar;
}

// Definition from parsed frontmatter and body; the name is not yet checked.
SkillDefinition FromFrontmatter(const Frontmatter& front, std::string body) {
  SkillDefinition skill;
  skill.name = std::string(Trim(ScalarOf(front, "name")));
  skill.description = CollapseWhitespace(ScalarOf(front, "description"));
  skill.body = std::move(body);
  skill.tags = ListOf(front, "tags");
  skill.allowed_tools = ListOf(front, "allowed-tools");
  if (skill.allowed_tools.empty()) skill.allowed_tools = ListOf(front, "allowed_tools");
  return skill;
}

// A JSON value as a list of strings: a string is one item, an array of
// strings its items. InvalidArgument otherwise.
Result<std::vector<std::string>> StringList(const json& value, std::string_view field) {
  if (value.is_null()) return std::vector<std::string>();
  if (value.is_string()) return std::vector<std::string>{value.get<std::string>()};
  if (!value.is_array()) {
    return Status::InvalidArgument(fmt::format("skill '{}' must be a list of strings", field));
  }
  std::vector<std::string> out;
  for (const json& item : value) {
    if (!item.is_string()) {
      return Status::InvalidArgument(fmt::format("skill '{}' must be a list of strings", field));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

// "search_web", "searchWeb" -> "search-web".
std::string KebabCase(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '_' || c == ' ' || c == '.') {
      if (!out.empty() && out.back() != '-') out += '-';
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])) && !out.empty() &&
          out.back() != '-') {
        out += '-';
      }
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

Result<SkillDefinition> FromMcpTool(const json& tool) {
  if (!tool.contains("name") || !tool["name"].is_string()) {
    return Status::InvalidArgument("Skill must have 'name' field").WithDetail("field", "name");
  }
  const std::string original = tool["name"].get<std::string>();
  SkillDefinition skill;
  skill.name = KebabCase(Trim(original));
  if (tool.contains("description") && tool["description"].is_string()) {
    skill.description = CollapseWhitespace(tool["description"].get<std::string>());
  }
  std::string body = fmt::format("# {}\n\n", skill.name);
  if (!skill.description.empty()) body += skill.description + "\n\n";
  const json& schema = tool["inputSchema"];
  std::vector<std::string> required;
  if (schema.is_object() && schema.contains("required") && schema["required"].is_array()) {
    for (const json& r : schema["required"]) {
      if (r.is_string()) required.push_back(r.get<std::string>());
    }
  }
  if (schema.is_object() && schema.contains("properties") && schema["properties"].is_object() &&
      !schema["properties"].empty()) {
    body += "## Parameters\n\n";
    for (const auto& [param, spec] : schema["properties"].items()) {
      std::string type = spec.is_object() && spec.contains("type") && spec["type"].is_string()
                             ? spec["type"].get<std::string>()
                             : "any";
      bool is_required = std::find(required.begin(), required.end(), param) != required.end();
      std::string what = spec.is_object() && spec.contains("description") &&
                                 spec["description"].is_string()
                             ? CollapseWhitespace(spec["description"].get<std::string>())
                             : "";
      body += fmt::format("- **{}** ({}, {}){}{}\n", param, type,
                          is_required ? "required" : "optional", what.empty() ? "" : ": ", what);
    }
    body += "\n";
  }
  body += fmt::format(
      "## Usage\n\nCalls the MCP tool `{}`. Use it when a request matches the description "
      "above.\n",
      original);
  skill.body = std::move(body);
  SKALD_RETURN_IF_ERROR(ValidateSkillName(skill.name));
  return skill;
}

// The first sentence of a section: its first line that is not a heading,
// a fence or blank, shortened.
std::string FirstSentence(const std::vector<std::string>& lines, size_t from) {
  for (size_t i = from; i < lines.size(); ++i) {
    std::string_view t = Trim(lines[i]);
    if (t.empty() || t.substr(0, 3) == "```") continue;
    if (t[0] == '#') break;
    if (t.size() > 2 && (t[0] == '-' || t[0] == '*' || t[0] == '>') && t[1] == ' ') {
      t = Trim(t.substr(2));  // a list item or quote: its text
    }
    return TruncateGeneratedText(CollapseWhitespace(t), 160);
  }
  return "";
}

}  // namespace

Status ValidateSkillName(std::string_view name) {
  std::string_view n = Trim(name);
  if (n.empty()) {
    return Status::InvalidArgument("Skill 'name' must be a non-empty string")
        .WithDetail("field", "name");
  }
  if (Utf8Length(n) > kMaxSkillNameChars) {
    return Status::InvalidArgument(
               fmt::format("Skill name cannot exceed {} characters", kMaxSkillNameChars))
        .WithDetail("field", "name");
  }
  for (char c : n) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || !(std::isalnum(u) || c == '_' || c == '-')) {
      return Status::InvalidArgument(fmt::format(
                 "Invalid skill name '{}': only ASCII letters, digits, '_' and '-' are allowed",
                 std::string(TruncateUtf8(n, 80))))
          .WithDetail("field", "name");
    }
  }
  return Status::Ok();
}

Result<SkillDefinition> ParseSkillMarkdown(std::string_view text) {
  if (!IsValidUtf8(text)) return Status::InvalidArgument("SKILL.md is not valid UTF-8");
  SKALD_ASSIGN_OR_RETURN(auto split, SplitFrontmatter(text));
  if (!split) {
    return Status::InvalidArgument(
        "SKILL.md must open with a YAML frontmatter block ('---', name: …, description: …, "
        "'---')");
  }
  auto front = ParseFrontmatter(split->first);
  if (!front.ok()) {
    return Status::InvalidArgument("SKILL.md frontmatter: " + front.status().message());
  }
  if (front->find("name") == front->end()) {
    return Status::InvalidArgument("Skill must have 'name' field").WithDetail("field", "name");
  }
  SkillDefinition skill = FromFrontmatter(*front, std::move(split->second));
  SKALD_RETURN_IF_ERROR(ValidateSkillName(skill.name));
  return skill;
}

Result<SkillDefinition> ParseSkillData(const json& data) {
  if (data.is_string()) return ParseSkillMarkdown(data.get<std::string>());
  if (!data.is_object()) {
    return Status::InvalidArgument(
        "skill data must be a SKILL.md text, an object {name, description, content} or an MCP "
        "tool {name, description, inputSchema}");
  }
  if (data.empty()) {
    return Status::InvalidArgument("skill data is empty: 'name' is required")
        .WithDetail("field", "name");
  }
  if (data.contains("inputSchema")) return FromMcpTool(data);

  SkillDefinition skill;
  if (data.contains("content") && !data["content"].is_null()) {
    if (!data["content"].is_string()) {
      return Status::InvalidArgument("skill 'content' must be a string");
    }
    const std::string content = data["content"].get<std::string>();
    if (!IsValidUtf8(content)) return Status::InvalidArgument("skill content is not valid UTF-8");
    SKALD_ASSIGN_OR_RETURN(auto split, SplitFrontmatter(content));
    if (split) {
      auto front = ParseFrontmatter(split->first);
      if (!front.ok()) {
        return Status::InvalidArgument("skill content frontmatter: " + front.status().message());
      }
      skill = FromFrontmatter(*front, std::move(split->second));
    } else {
      skill.body = content;
    }
  }
  if (data.contains("name")) {
    if (!data["name"].is_string()) {
      return Status::InvalidArgument("Skill 'name' must be a non-empty string")
          .WithDetail("field", "name");
    }
    skill.name = std::string(Trim(data["name"].get<std::string>()));
  } else if (skill.name.empty()) {
    return Status::InvalidArgument("Skill must have 'name' field").WithDetail("field", "name");
  }
  SKALD_RETURN_IF_ERROR(ValidateSkillName(skill.name));
  if (data.contains("description") && !data["description"].is_null()) {
    if (!data["description"].is_string()) {
      return Status::InvalidArgument("skill 'description' must be a string");
    }
    skill.description = CollapseWhitespace(data["description"].get<std::string>());
  }
  if (data.contains("tags")) {
    SKALD_ASSIGN_OR_RETURN(skill.tags, StringList(data["tags"], "tags"));
  }
  for (const char* field : {"allowed_tools", "allowed-tools"}) {
    if (data.contains(field) && !data[field].is_null()) {
      SKALD_ASSIGN_OR_RETURN(skill.allowed_tools, StringList(data[field], field));
    }
  }
  if (!IsValidUtf8(skill.description)) {
    return Status::InvalidArgument("skill description is not valid UTF-8");
  }
  return skill;
}

std::string RenderSkillMarkdown(const SkillDefinition& skill) {
  // JSON strings and arrays are valid YAML flow scalars and sequences, so
  // the frontmatter reads back exactly, whatever the text holds.
  std::string out = "---\nname: " + skill.name + "\n";
  out += "description: " + json(skill.description).dump() + "\n";
  if (!skill.tags.empty()) out += "tags: " + json(skill.tags).dump() + "\n";
  if (!skill.allowed_tools.empty()) {
    out += "allowed-tools: " + json(skill.allowed_tools).dump() + "\n";
  }
  out += "---\n\n";
  out += skill.body;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

std::string SkillAbstract(const SkillDefinition& skill) {
  std::string text = skill.name;
  if (!skill.description.empty()) text += ": " + skill.description;
  if (!skill.tags.empty()) text += " (tags: " + Join(skill.tags, ", ") + ")";
  if (!skill.allowed_tools.empty()) text += " (tools: " + Join(skill.allowed_tools, ", ") + ")";
  return TruncateGeneratedText(text, kAbstractMaxChars);
}

std::string SkillOverview(const SkillDefinition& skill) {
  std::string out = "# " + skill.name + "\n\n";
  out += skill.description.empty() ? "Skill " + skill.name + "." : skill.description;
  out += "\n";
  if (!skill.allowed_tools.empty()) {
    out += "\nAllowed tools: " + Join(skill.allowed_tools, ", ") + "\n";
  }
  if (!skill.tags.empty()) out += "\nTags: " + Join(skill.tags, ", ") + "\n";
  std::vector<std::string> lines = Split(skill.body, '\n');
  std::string sections;
  bool in_fence = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = Trim(lines[i]);
    if (t.substr(0, 3) == "```") in_fence = !in_fence;
    if (in_fence || t.empty() || t[0] != '#') continue;
    size_t level = t.find_first_not_of('#');
    if (level == std::string_view::npos || t[level] != ' ') continue;
    std::string heading = CollapseWhitespace(t.substr(level));
    if (heading == skill.name) continue;
    std::string first = FirstSentence(lines, i + 1);
    sections += "- " + heading + (first.empty() ? "" : ": " + first) + "\n";
  }
  if (!sections.empty()) out += "\n## Sections\n\n" + sections;
  return TruncateGeneratedText(out, kOverviewMaxChars);
}

SkillCheck ValidateSkillText(std::string_view text, bool strict,
                                  std::string_view skill_dir_name) {
  SkillCheck report;
  report.strict = strict;
  report.skill_dir_name = std::string(skill_dir_name);
  auto fail = [&](std::string code, std::string message, std::string field) {
    report.errors.push_back({std::move(code), std::move(message), std::move(field)});
  };
  auto rule = [&](std::string code, std::string message, std::string field) {
    (strict ? report.errors : report.warnings)
        .push_back({std::move(code), std::move(message), std::move(field)});
  };
  if (!IsValidUtf8(text)) {
    fail("encoding", "SKILL.md is not valid UTF-8", "data");
    return report;
  }
  auto split = SplitFrontmatter(text);
  if (!split.ok() || !*split) {
    fail("yaml_format",
         split.ok() ? "SKILL.md must open with a YAML frontmatter block" : split.status().message(),
         "data");
    return report;
  }
  auto front = ParseFrontmatter((*split)->first);
  if (!front.ok()) {
    fail("yaml_format", front.status().message(), "data");
    return report;
  }
  SkillDefinition skill = FromFrontmatter(*front, (*split)->second);
  report.name = skill.name;
  report.description = skill.description;
  report.tags = skill.tags;
  report.allowed_tools = skill.allowed_tools;
  report.body_lines = skill.body.empty() ? 0 : Split(Trim(skill.body), '\n').size();
  if (skill.name.empty()) fail("name_required", "name is required", "name");
  if (skill.description.empty()) fail("description_required", "description is required",
                                      "description");
  if (!skill.name.empty()) {
    if (!skill_dir_name.empty() && skill.name != skill_dir_name) {
      rule("name_matches_directory",
           fmt::format("name '{}' does not match the directory name '{}'", skill.name,
                       skill_dir_name),
           "name");
    }
    if (Utf8Length(skill.name) > kMaxSkillNameChars) {
      rule("name_max_length", fmt::format("name must not exceed {} characters", kMaxSkillNameChars),
           "name");
    } else if (!ValidateSkillName(skill.name).ok()) {
      rule("name_allowed_characters",
           "name may only contain ASCII letters, digits, underscores and hyphens", "name");
    }
  }
  if (Utf8Length(skill.description) > kMaxSkillDescriptionChars) {
    rule("description_max_length",
         fmt::format("description must not exceed {} characters", kMaxSkillDescriptionChars),
         "description");
  }
  if (strict && report.body_lines > 500) {
    report.warnings.push_back({"body_max_lines", "SKILL.md body exceeds 500 lines", "content"});
  }
  report.valid = report.errors.empty();
  return report;
}

}  // namespace skald
