#pragma once

// SkillOps: skills stored and served (Db::AddSkill, ListSkills, GetSkill,
// DeleteSkill, ValidateSkill). A skill is the directory
// `{root}/{name}/` with SKILL.md and the L0/L1 sidecars written from its
// definition (ingest/skill_definition.h) — they are the skill's own, so the
// indexer keeps them — and is indexed by one index task on the directory,
// queued in the same catalog transaction as SKILL.md (the outbox). Roots:
// the caller's `viking://user/{uid}/skills` (the default) and the account's
// shared `viking://agent/skills`.
//
// Thread safety: safe for concurrent use (each write takes its path locks
// through the file port). Everything passed in is borrowed and must outlive
// the object.

#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/skill_definition.h"
#include "service/uri_resolver.h"
#include "session/session_files.h"
#include "skald/db.h"
#include "storage/job_runner.h"

namespace skald {

class SkillOps {
 public:
  // `files` writes, lists and removes content (the service's file port);
  // `workspace` is where uploads are kept; without `indexing` skills are
  // stored but not indexed. `maintenance_mu` is held shared while a request
  // changes the tree.
  SkillOps(UriResolver* resolver, SessionFiles* files, JobRunner* runner,
           std::shared_mutex* maintenance_mu, std::string workspace, bool indexing)
      : resolver_(resolver),
        files_(files),
        runner_(runner),
        maintenance_mu_(*maintenance_mu),
        workspace_(std::move(workspace)),
        indexing_(indexing) {}

  Result<SkillResult> Add(const Identity& who, const SkillRequest& request);
  Result<std::vector<SkillInfo>> List(const Identity& who, std::string_view target_uri,
                                      int64_t limit);
  Result<SkillInfo> Get(const Identity& who, std::string_view name, std::string_view target_uri,
                        const SkillReadOptions& read);
  Result<SkillInfo> Delete(const Identity& who, std::string_view name,
                           std::string_view target_uri);
  Result<SkillValidationReport> Validate(std::string_view data_json, bool strict,
                                         std::string_view skill_dir_name);

 private:
  // The skills roots `target_uri` names ("" = the caller's own, then the
  // agent root); InvalidArgument for any other URI.
  Result<std::vector<VikingUri>> Roots(const Identity& who, std::string_view target_uri);
  // The skill `name` in the first of `roots` that holds it, with what
  // `read` asks for; NotFound otherwise.
  Result<SkillInfo> Locate(const Identity& who, const std::vector<VikingUri>& roots,
                           std::string_view name, const SkillReadOptions& read);
  // Every file and folder under the skill directory `dir`, by path (at
  // most kMaxListedSkillEntries); with `integrity` the files' sizes and
  // hashes, and the manifest's revision into `info`.
  Status ListSkillFiles(const Identity& who, const VikingUri& dir, bool integrity,
                        SkillInfo* info);
  // One skill of a source: its SKILL.md, its other files and where the
  // SKILL.md is in the source.
  struct SkillSource {
    std::string skill_md;
    std::vector<std::pair<std::string, std::string>> files;  // relative path, bytes
    std::string path;
  };
  // The skills of the upload `id` of `who`: a SKILL.md, or a zip (as `ov
  // add-skill DIR` sends) of one skill directory (SKILL.md at its root) or
  // of several (every folder holding a SKILL.md, up to kMaxSkillDepth
  // deep; a skill's files are those of its folder that no nested skill
  // claims). InvalidArgument when it holds no SKILL.md.
  Result<std::vector<SkillSource>> ReadUpload(const Identity& who, std::string_view id);
  // Writes one skill (definition, sidecars, auxiliary files) under `root`
  // and queues its index task; waits for it with request.wait.
  // `origin` is the JSON kept in the skill's kSkillSourceFile.
  Result<SkillResult> Install(const Identity& who, const SkillRequest& request,
                              const SkillDefinition& skill, const SkillSource& source,
                              const std::string& origin, const std::vector<VikingUri>& roots);

  UriResolver* const resolver_;
  SessionFiles* const files_;
  JobRunner* const runner_;
  std::shared_mutex& maintenance_mu_;
  const std::string workspace_;
  const bool indexing_;
};

}  // namespace skald
