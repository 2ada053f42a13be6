#pragma once

// The skill types of the Db facade (skald/db.h): what add-skill, get,
// list and validate answer. Reference §2.5–2.6; service/skill_ops.h.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "skald/types.h"

namespace skald {

// What add-skill and update answer.
struct SkillResult {
  std::string uri;       // the skill directory, viking://…/skills/{name}
  std::string root_uri;  // = uri (OpenViking reports the skill directory as both)
  std::string name;
  int64_t auxiliary_files = 0;  // files besides SKILL.md
  std::string task_id;          // the index task; "" when the call waited for it
  // With `wait`: the task's final state, or kPending/kRunning when timeout_s
  // expired first. Without `wait`: kPending.
  TaskState task_status = TaskState::kPending;
  // A source of several skills: every skill installed, in source order (the
  // fields above are the first's).
  std::vector<std::string> installed;
  // list_only: the skills the source holds (nothing installed).
  struct Listed {
    std::string name;
    std::string description;
    std::string path;  // SKILL.md's path in the source
  };
  std::vector<Listed> listed;
};

// What a file or folder of a stored skill is.
enum class SkillFileKind {
  kDefinition,  // SKILL.md
  kSummary,     // a folder's L0/L1 sidecar, written by Skald
  kAuxiliary,   // any other file of the skill (scripts, references, assets)
  kDirectory,
};

// One file or folder of a stored skill (GetSkill with `files`).
struct SkillFile {
  std::string name;  // the last segment
  std::string uri;
  std::string path;  // relative to the skill directory ("scripts/run.py")
  bool is_dir = false;
  SkillFileKind kind = SkillFileKind::kAuxiliary;
  // With `integrity`, for files: the size and SHA-256 (hex) of the bytes.
  std::optional<int64_t> size;
  std::string sha256;
};

// What GetSkill reads besides the skill's name, description and abstract.
struct SkillReadOptions {
  bool overview = false;   // L1
  bool content = false;    // SKILL.md and its SHA-256
  bool files = false;      // every file and folder under the skill directory
  bool integrity = false;  // with `files`: sizes, hashes and the revision
  bool source = false;     // where the skill came from (SkillInfo::source_json)
};

// One stored skill.
struct SkillInfo {
  std::string name;
  std::string uri;             // the skill directory
  std::string root_uri;        // the skills root it is in
  std::string abstract;        // L0
  std::string overview;        // L1 ("" unless asked for)
  std::string content;         // SKILL.md ("" unless asked for)
  std::string content_sha256;  // with content
  std::string description;
  std::vector<std::string> tags;
  std::vector<std::string> allowed_tools;
  std::vector<SkillFile> files;  // with SkillReadOptions::files
  // With integrity: the SHA-256 (hex) of the files' manifest, which
  // changes when any file or folder of the skill does.
  std::string revision;
  // With `source`: the JSON object kept when the skill was written (its
  // source metadata and skill_name); "" when none is kept.
  std::string source_json;
};

// One finding of skill validation.
struct SkillIssue {
  std::string rule;  // "name_required", "yaml_format", …
  std::string message;
  std::string field;  // "" when the finding is about no one field
};

// The report of skill validation (POST /api/v1/skills/validate).
struct SkillValidationReport {
  bool valid = false;
  bool strict = false;
  std::string name;
  std::string description;
  std::vector<std::string> tags;
  std::vector<std::string> allowed_tools;
  int64_t body_lines = 0;
  std::string source_path;  // as the request gave it
  std::string skill_dir_name;
  std::vector<SkillIssue> errors;
  std::vector<SkillIssue> warnings;
};

}  // namespace skald
