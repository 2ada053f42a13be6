#pragma once

// Skills (reference API §2.5–2.6): what an agent can do, stored as a
// directory `{skills root}/{name}/` holding SKILL.md (YAML frontmatter with
// name, description, tags, allowed-tools; then the Markdown body), its
// auxiliary files, and the L0/L1 sidecars written here rather than by the
// summarizer (the abstract is the skill's name and description).
//
// This header is the model-free part: parsing what a client sends (a
// SKILL.md text, a {name, description, content} object, or an MCP tool
// {name, description, inputSchema}), validating it, and rendering SKILL.md,
// the abstract and the overview. Storing it is the service's SkillOps.
//
// Thread safety: pure functions.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "skald/result.h"

namespace skald {

// Longest skill name (characters), as OpenViking.
inline constexpr size_t kMaxSkillNameChars = 64;
// The hidden file in a skill's directory that records where the skill came
// from (OpenViking's name for it); never listed among the skill's files.
inline constexpr std::string_view kSkillSourceFile = ".source.json";
// Longest description `validate` accepts without an issue.
inline constexpr size_t kMaxSkillDescriptionChars = 1024;

struct SkillDefinition {
  std::string name;         // validated: ASCII letters, digits, '_' and '-'
  std::string description;  // may be empty
  std::string body;         // Markdown after the frontmatter
  std::vector<std::string> tags;
  std::vector<std::string> allowed_tools;
};

// The name rule: non-empty after trimming, at most kMaxSkillNameChars, only
// ASCII letters, digits, '_' and '-'. InvalidArgument names what is wrong.
Status ValidateSkillName(std::string_view name);

// A SKILL.md text: frontmatter between `---` fences, then the body.
// InvalidArgument when there is no frontmatter, it does not parse, or the
// name is missing or invalid.
Result<SkillDefinition> ParseSkillMarkdown(std::string_view text);

// The `data` of POST /api/v1/skills: a SKILL.md string, an object with
// `inputSchema` (an MCP tool: converted, its name in kebab-case, its
// parameters listed in the body), or an object {name, description?,
// content?, tags?, allowed_tools?|allowed-tools?} where `content` may itself
// be a SKILL.md text (its frontmatter then fills what the object leaves out).
// InvalidArgument for anything else, `{}`, or a missing/invalid name.
Result<SkillDefinition> ParseSkillData(const nlohmann::json& data);

// SKILL.md for `skill`: frontmatter (name, description, tags,
// allowed-tools) and the body.
std::string RenderSkillMarkdown(const SkillDefinition& skill);

// L0: "name: description" (then tags and allowed tools when room is left),
// at most 256 characters.
std::string SkillAbstract(const SkillDefinition& skill);

// L1 (at most 4000 characters): `# name`, the description, the allowed
// tools and tags, and one line per section of the body (its heading and
// first sentence) — what the skill covers and where to look.
std::string SkillOverview(const SkillDefinition& skill);

// One finding of ValidateSkillText.
struct SkillFinding {
  std::string rule;   // e.g. "name_required", "yaml_format"
  std::string message;
  std::string field;  // "name", "description", "content", "data"
};

// The report of POST /api/v1/skills/validate (and `ov skills validate`).
struct SkillCheck {
  bool valid = false;
  bool strict = false;
  std::string name;
  std::string description;
  std::vector<std::string> tags;
  std::vector<std::string> allowed_tools;
  size_t body_lines = 0;
  std::string skill_dir_name;
  std::vector<SkillFinding> errors;
  std::vector<SkillFinding> warnings;
};

// Checks a SKILL.md text: frontmatter parses; name and description present;
// name rule; description length; the name matches `skill_dir_name` when
// given. In strict mode the rule findings are errors (else warnings), and a
// body over 500 lines is a warning.
SkillCheck ValidateSkillText(std::string_view text, bool strict,
                                  std::string_view skill_dir_name);

}  // namespace skald
