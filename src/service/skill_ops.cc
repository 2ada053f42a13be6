#include "service/skill_ops.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "common/file_util.h"
#include "common/hash.h"
#include "ingest/archive_extract.h"
#include "ingest/import_job.h"
#include "ingest/ingest_jobs.h"
#include "ingest/sidecar.h"
#include "ingest/skill_definition.h"
#include "ingest/source_import.h"
#include "ingest/source_stage.h"
#include "service/resource_ops.h"
#include "uri/access.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kSkillFile = "SKILL.md";
constexpr std::string_view kComponent = "SkillOps";
// A SKILL.md upload larger than this is refused (OpenViking keeps skill
// bodies short; 500 lines is its strict limit); a zipped skill directory may
// expand to 8 times as much, in at most kMaxSkillFiles entries.
constexpr uintmax_t kMaxSkillUploadBytes = uintmax_t{10} << 20;
constexpr uint64_t kMaxSkillFiles = 1000;
// GetSkill lists at most this many files and folders of a skill; with
// integrity (every file read and hashed on each request) at most
// kMaxIntegrityEntries, each file at most kMaxIntegrityFileBytes and all of
// them at most kMaxIntegrityBytes (OpenViking's bounds).
constexpr size_t kMaxListedSkillEntries = 10000;
constexpr size_t kMaxIntegrityEntries = 512;
constexpr uint64_t kMaxIntegrityFileBytes = uint64_t{16} << 20;
constexpr uint64_t kMaxIntegrityBytes = uint64_t{64} << 20;
// How deep in a zip a skill folder may be (a repository's skills/NAME/).
constexpr int kMaxSkillDepth = 3;

SkillValidationReport ToReport(const SkillCheck& v) {
  SkillValidationReport r;
  r.valid = v.valid;
  r.strict = v.strict;
  r.name = v.name;
  r.description = v.description;
  r.tags = v.tags;
  r.allowed_tools = v.allowed_tools;
  r.body_lines = static_cast<int64_t>(v.body_lines);
  r.skill_dir_name = v.skill_dir_name;
  for (const SkillFinding& i : v.errors) r.errors.push_back({i.rule, i.message, i.field});
  for (const SkillFinding& i : v.warnings) r.warnings.push_back({i.rule, i.message, i.field});
  return r;
}

bool IsSkillMetaFile(std::string_view name) {
  return name == kSkillFile || IsSidecarName(name);
}

}  // namespace

Result<std::vector<VikingUri>> SkillOps::Roots(const Identity& who, std::string_view target_uri) {
  // Spelled out: ROOT callers (dev mode) have no home alias.
  if (who.user.empty()) return Status::InvalidArgument("skills need a user identity");
  SKALD_ASSIGN_OR_RETURN(VikingUri own,
                         resolver_->Resolve(who, "viking://user/" + who.user + "/skills"));
  SKALD_ASSIGN_OR_RETURN(VikingUri agent, resolver_->Resolve(who, "viking://agent/skills"));
  if (Trim(target_uri).empty()) return std::vector<VikingUri>{own, agent};
  SKALD_ASSIGN_OR_RETURN(VikingUri target, resolver_->Resolve(who, Trim(target_uri)));
  if (target.str() == own.str()) return std::vector<VikingUri>{own};
  if (target.str() == agent.str()) return std::vector<VikingUri>{agent};
  return Status::InvalidArgument(fmt::format("Unsupported skill root URI: {}; use {} or {}",
                                             target.str(), own.str(), agent.str()))
      .WithDetail("field", "target_uri");
}

Result<std::vector<SkillOps::SkillSource>> SkillOps::ReadUpload(const Identity& who,
                                                               std::string_view id) {
  SKALD_ASSIGN_OR_RETURN(UploadRef upload, FindUpload(workspace_, who, id));
  const fs::path path = upload.path;
  std::error_code ec;
  std::string head(4, '\0');
  std::ifstream(path, std::ios::binary).read(head.data(), 4);
  if (head != "PK\x03\x04") {
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) return Status::IOError("could not read the uploaded skill");
    if (size > kMaxSkillUploadBytes) {
      return Status::InvalidArgument(fmt::format(
          "the uploaded SKILL.md is {} bytes; at most {} are accepted", size, kMaxSkillUploadBytes));
    }
    SkillSource source;
    source.path = std::string(kSkillFile);
    SKALD_ASSIGN_OR_RETURN(source.skill_md, ReadFileToString(Env::Default(), path.string()));
    return std::vector<SkillSource>{std::move(source)};
  }
  // A zip: expanded privately, then read.
  const std::string staging =
      (fs::path(workspace_) / "temp" / "import" / ("skill_" + RandomHex128())).string();
  struct Cleanup {
    std::string dir;
    ~Cleanup() { RemoveStaging(dir); }
  } cleanup{staging};
  ArchiveLimits limits;
  limits.max_entries = kMaxSkillFiles;
  limits.max_total_bytes = kMaxSkillUploadBytes * 8;
  SKALD_ASSIGN_OR_RETURN(ArchiveStats stats, ExtractArchive(path.string(), staging, limits));
  (void)stats;
  // Skill folders: the outermost folders holding a SKILL.md (what lies
  // below one, SKILL.md files included, is that skill's), hidden ones
  // skipped. A SKILL.md at the root makes the whole archive one skill.
  const fs::path root = staging;
  std::vector<fs::path> dirs;
  if (fs::is_regular_file(root / kSkillFile, ec)) {
    dirs.push_back(root);
  } else {
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!it->is_directory(ec)) continue;
      if ((!name.empty() && name[0] == '.') || it.depth() + 1 > kMaxSkillDepth) {
        it.disable_recursion_pending();
        continue;
      }
      if (fs::is_regular_file(it->path() / kSkillFile, ec)) {
        dirs.push_back(it->path());
        it.disable_recursion_pending();
      }
    }
  }
  if (ec) return Status::IOError("could not read the expanded skill archive");
  if (dirs.empty()) return Status::InvalidArgument("the uploaded archive holds no SKILL.md");
  std::sort(dirs.begin(), dirs.end());
  std::vector<SkillSource> sources;
  for (const fs::path& dir : dirs) {
    SkillSource source;
    source.path = (fs::relative(dir, root, ec) / kSkillFile).lexically_normal().generic_string();
    SKALD_ASSIGN_OR_RETURN(source.skill_md,
                           ReadFileToString(Env::Default(), (dir / kSkillFile).string()));
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const bool is_dir = it->is_directory(ec);
      if (!name.empty() && name[0] == '.') {  // hidden files and folders, sidecars
        if (is_dir) it.disable_recursion_pending();
        continue;
      }
      if (is_dir || !it->is_regular_file(ec)) continue;
      const std::string rel = fs::relative(it->path(), dir, ec).generic_string();
      if (ec || rel == kSkillFile) continue;
      SKALD_ASSIGN_OR_RETURN(std::string bytes,
                             ReadFileToString(Env::Default(), it->path().string()));
      source.files.emplace_back(rel, std::move(bytes));
    }
    if (ec) return Status::IOError("could not read the expanded skill archive");
    sources.push_back(std::move(source));
  }
  return sources;
}

Result<SkillResult> SkillOps::Add(const Identity& who, const SkillRequest& request) {
  SKALD_RETURN_IF_ERROR(request.Validate());
  SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
  std::vector<SkillSource> sources;
  std::vector<SkillDefinition> skills;
  if (!request.temp_file_id.empty()) {
    SKALD_ASSIGN_OR_RETURN(sources, ReadUpload(who, request.temp_file_id));
    for (const SkillSource& source : sources) {
      Result<SkillDefinition> skill = ParseSkillMarkdown(source.skill_md);
      if (!skill.ok()) {
        if (sources.size() == 1) return skill.status();
        return Status(skill.status().code(),
                      fmt::format("{}: {}", source.path, skill.status().message()));
      }
      skills.push_back(std::move(skill).value());
    }
  } else {
    json data = json::parse(request.data_json, nullptr, /*allow_exceptions=*/false);
    if (data.is_discarded()) return Status::InvalidArgument("skill data is not valid JSON");
    SKALD_ASSIGN_OR_RETURN(SkillDefinition skill, ParseSkillData(data));
    skills.push_back(std::move(skill));
    sources.emplace_back();
  }
  for (size_t i = 1; i < skills.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (skills[i].name == skills[j].name) {
        return Status::InvalidArgument(fmt::format("the source holds two skills named '{}' ({}, {})",
                                                   skills[i].name, sources[j].path,
                                                   sources[i].path));
      }
    }
  }
  SkillResult result;
  if (request.list_only) {
    for (size_t i = 0; i < skills.size(); ++i) {
      result.listed.push_back({skills[i].name, skills[i].description, sources[i].path});
    }
    return result;
  }
  // The skills asked for (every one when none is named, or "*").
  std::vector<size_t> chosen;
  const bool all = request.skills.empty() ||
                   std::find(request.skills.begin(), request.skills.end(), "*") !=
                       request.skills.end();
  for (size_t i = 0; i < skills.size(); ++i) {
    if (all || std::find(request.skills.begin(), request.skills.end(), skills[i].name) !=
                   request.skills.end()) {
      chosen.push_back(i);
    }
  }
  if (!all) {
    for (const std::string& name : request.skills) {
      if (std::none_of(skills.begin(), skills.end(),
                       [&](const SkillDefinition& d) { return d.name == name; })) {
        std::vector<std::string> held;
        for (const SkillDefinition& d : skills) held.push_back(d.name);
        return Status::InvalidArgument(fmt::format("the source holds no skill named '{}' ({})",
                                                   name, Join(held, ", ")))
            .WithDetail("field", "skills");
      }
    }
  }
  if (!request.update_name.empty() && chosen.size() > 1) {
    return Status::InvalidArgument("an update replaces one skill; the source holds several")
        .WithDetail("field", "skills");
  }
  SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> roots, Roots(who, request.target_uri));
  // Every skill may be written before the first is.
  for (size_t i : chosen) {
    SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, roots.front().Child(skills[i].name)));
  }
  // Where the skills come from, kept with each (the caller's description,
  // or the request's own).
  json origin = json::parse(request.source_metadata_json, nullptr, /*allow_exceptions=*/false);
  if (!origin.is_object()) {
    origin = {{"type", "api"},
              {"source", request.temp_file_id.empty() ? "inline_content" : "temp_upload"},
              {"operation", request.update_name.empty() ? "add" : "update"}};
    if (!request.temp_file_id.empty()) {
      origin["upload_mode"] = "local";
      Result<UploadRef> upload = FindUpload(workspace_, who, request.temp_file_id);
      if (upload.ok() && !upload->original_filename.empty()) {
        origin["original_filename"] = upload->original_filename;
      }
    }
  }
  std::vector<std::string> installed;
  for (size_t i : chosen) {
    origin["skill_name"] = skills[i].name;
    Result<SkillResult> one =
        Install(who, request, skills[i], sources[i], origin.dump(), roots);
    if (!one.ok()) {
      if (installed.empty()) return one.status();
      // Those already written stay (each is whole): say which, keeping the
      // failure's code, reason and details (a full disk stays a 507).
      Status failed = one.status();
      return std::move(failed).WithDetail("installed", Join(installed, ","));
    }
    if (installed.empty()) result = std::move(one).value();
    installed.push_back(skills[i].name);
  }
  result.installed = std::move(installed);
  if (!request.temp_file_id.empty()) {
    // The upload is consumed; a leftover is swept with the other expired ones.
    const fs::path upload = fs::path(workspace_) / "temp" / "upload" / request.temp_file_id;
    std::error_code ec;
    fs::remove(upload, ec);
    fs::remove(upload.string() + std::string(kUploadMetaSuffix), ec);
  }
  return result;
}

Result<SkillResult> SkillOps::Install(const Identity& who, const SkillRequest& request,
                                      const SkillDefinition& skill, const SkillSource& source,
                                      const std::string& origin,
                                      const std::vector<VikingUri>& roots) {
  VikingUri root = roots.front();
  if (!request.update_name.empty()) {
    if (skill.name != request.update_name) {
      return Status::InvalidArgument(fmt::format(
                 "the skill data is named '{}', not '{}': an update keeps the skill's name",
                 skill.name, request.update_name))
          .WithDetail("field", "name");
    }
    SKALD_ASSIGN_OR_RETURN(SkillInfo existing, Locate(who, roots, skill.name, SkillReadOptions()));
    SKALD_ASSIGN_OR_RETURN(root, resolver_->Resolve(who, existing.root_uri));
  }
  const VikingUri dir = root.Child(skill.name);
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, dir));

  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  // What a replaced skill held besides its definition goes: the directory
  // is the new skill and nothing else.
  SKALD_ASSIGN_OR_RETURN(std::vector<SessionFileEntry> old, files_->List(who, dir));
  for (const SessionFileEntry& entry : old) {
    if (IsSkillMetaFile(entry.name)) continue;
    SKALD_RETURN_IF_ERROR(files_->RemoveTree(who, dir.Child(entry.name)));
  }
  // Auxiliary files (scripts, references, assets) under their paths, each
  // segment made a valid URI segment.
  for (const auto& [rel, bytes] : source.files) {
    VikingUri uri = dir;
    for (const std::string& segment : Split(rel, '/')) {
      if (!segment.empty()) uri = uri.Child(SegmentFor(segment));
    }
    SKALD_ASSIGN_OR_RETURN(std::vector<Job> unused, files_->Write(who, uri, bytes));
    (void)unused;
  }
  SKALD_ASSIGN_OR_RETURN(std::vector<Job> kept,
                         files_->Write(who, dir.Child(kSkillSourceFile), origin + "\n"));
  (void)kept;
  const std::string front = SidecarFrontmatter(dir.str(), kComponent, "add_skill");
  SKALD_ASSIGN_OR_RETURN(
      std::vector<Job> none,
      files_->Write(who, dir.Child(kAbstractName), RenderSidecar(front, SkillAbstract(skill))));
  SKALD_ASSIGN_OR_RETURN(
      none, files_->Write(who, dir.Child(kOverviewName), RenderSidecar(front, SkillOverview(skill))));
  // SKILL.md last, with the task that indexes the directory (one transaction).
  std::vector<JobSpec> jobs;
  if (std::optional<JobSpec> job =
          IndexJobFor(who, dir.path(), JobKind::kAddSkill, kJobPriorityInteractive);
      job && indexing_) {
    jobs.push_back(std::move(*job));
  }
  SKALD_ASSIGN_OR_RETURN(std::vector<Job> enqueued,
                         files_->Write(who, dir.Child(kSkillFile), RenderSkillMarkdown(skill), jobs));
  no_fsck.unlock();  // the job takes its own share

  SkillResult result;
  result.uri = result.root_uri = dir.str();
  result.name = skill.name;
  result.auxiliary_files = static_cast<int64_t>(source.files.size());
  if (enqueued.empty()) {
    result.task_status = TaskState::kCompleted;  // nothing to index
    return result;
  }
  runner_->queue()->Notify();
  if (!request.wait) {
    result.task_id = enqueued.front().task_id;
    return result;
  }
  SKALD_ASSIGN_OR_RETURN(Job done, runner_->AwaitTask(enqueued.front().task_id, request.timeout_s));
  result.task_status = done.state;
  if (done.state != JobState::kCompleted) result.task_id = done.task_id;
  return result;
}

Result<SkillInfo> SkillOps::Locate(const Identity& who, const std::vector<VikingUri>& roots,
                                   std::string_view name, const SkillReadOptions& read) {
  SKALD_RETURN_IF_ERROR(ValidateSkillName(name));
  for (const VikingUri& root : roots) {
    const VikingUri dir = root.Child(Trim(name));
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, files_->Stat(who, dir));
    if (!node || !node->is_dir) continue;
    SkillInfo info;
    info.name = std::string(Trim(name));
    info.uri = dir.str();
    info.root_uri = root.str();
    SKALD_ASSIGN_OR_RETURN(std::optional<std::string> abstract,
                           files_->Read(who, dir.Child(kAbstractName)));
    if (abstract) info.abstract = ParseSidecar(*abstract).body;
    SKALD_ASSIGN_OR_RETURN(std::optional<std::string> text, files_->Read(who, dir.Child(kSkillFile)));
    if (text) {
      if (Result<SkillDefinition> skill = ParseSkillMarkdown(*text); skill.ok()) {
        info.description = skill->description;
        info.tags = skill->tags;
        info.allowed_tools = skill->allowed_tools;
      }
      if (read.content) {
        info.content = *text;
        info.content_sha256 = Sha256Hex(*text);
      }
    }
    if (read.overview) {
      SKALD_ASSIGN_OR_RETURN(std::optional<std::string> overview,
                             files_->Read(who, dir.Child(kOverviewName)));
      if (overview) info.overview = ParseSidecar(*overview).body;
    }
    if (read.files) SKALD_RETURN_IF_ERROR(ListSkillFiles(who, dir, read.integrity, &info));
    if (read.source) {
      SKALD_ASSIGN_OR_RETURN(std::optional<std::string> origin,
                             files_->Read(who, dir.Child(kSkillSourceFile)));
      if (origin) info.source_json = std::move(*origin);
    }
    return info;
  }
  return Status::NotFound(fmt::format("Skill not found: {}", Trim(name)))
      .WithDetail("resource", std::string(Trim(name)))
      .WithDetail("type", "skill");
}

Status SkillOps::ListSkillFiles(const Identity& who, const VikingUri& dir, bool integrity,
                                SkillInfo* info) {
  // Breadth first: (folder, its path relative to the skill).
  std::deque<std::pair<VikingUri, std::string>> folders = {{dir, ""}};
  const size_t max_entries = integrity ? kMaxIntegrityEntries : kMaxListedSkillEntries;
  uint64_t hashed_bytes = 0;
  while (!folders.empty()) {
    auto [folder, prefix] = std::move(folders.front());
    folders.pop_front();
    SKALD_ASSIGN_OR_RETURN(std::vector<SessionFileEntry> entries, files_->List(who, folder));
    for (const SessionFileEntry& e : entries) {
      if (prefix.empty() && e.name == kSkillSourceFile) continue;  // Skald's record, not the skill's
      if (info->files.size() >= max_entries) {
        return Status::ResourceExhausted(
            fmt::format("the skill holds more than {} files and folders{}", max_entries,
                        integrity ? " to hash (include_integrity)" : ""));
      }
      SkillFile file;
      file.name = e.name;
      file.uri = folder.Child(e.name).str();
      file.path = prefix + e.name;
      file.is_dir = e.is_dir;
      file.kind = e.is_dir                  ? SkillFileKind::kDirectory
                  : file.path == kSkillFile ? SkillFileKind::kDefinition
                  : IsSidecarName(e.name)   ? SkillFileKind::kSummary
                                            : SkillFileKind::kAuxiliary;
      if (e.is_dir) {
        folders.emplace_back(folder.Child(e.name), file.path + "/");
      } else if (integrity) {
        // The size first: a file over the bounds is not read at all.
        SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node,
                               files_->Stat(who, folder.Child(e.name)));
        const uint64_t size = node ? node->size : 0;
        if (size > kMaxIntegrityFileBytes || hashed_bytes + size > kMaxIntegrityBytes) {
          return Status::ResourceExhausted(fmt::format(
              "the skill's files are too large to hash (include_integrity): at most {} MiB "
              "each and {} MiB in all",
              kMaxIntegrityFileBytes >> 20, kMaxIntegrityBytes >> 20));
        }
        SKALD_ASSIGN_OR_RETURN(std::optional<std::string> bytes,
                               files_->Read(who, folder.Child(e.name)));
        const std::string& data = bytes ? *bytes : std::string();
        hashed_bytes += data.size();
        if (data.size() > kMaxIntegrityFileBytes || hashed_bytes > kMaxIntegrityBytes) {
          return Status::ResourceExhausted("the skill's files grew while they were hashed");
        }
        file.size = static_cast<int64_t>(data.size());
        file.sha256 = Sha256Hex(data);
      }
      info->files.push_back(std::move(file));
    }
  }
  std::sort(info->files.begin(), info->files.end(),
            [](const SkillFile& a, const SkillFile& b) { return a.path < b.path; });
  if (!integrity) return Status::Ok();
  // The manifest as OpenViking hashes it: the entries by path, each
  // {is_dir, path, sha256, size} (null for folders), as compact JSON with
  // sorted keys and non-ASCII escaped. Skald's own summaries are left out:
  // an indexing after the write (or with another model) rewrites them while
  // the skill stays the same.
  json manifest = json::array();
  for (const SkillFile& f : info->files) {
    if (f.kind == SkillFileKind::kSummary) continue;
    manifest.push_back({{"path", f.path},
                        {"is_dir", f.is_dir},
                        {"size", f.size ? json(*f.size) : json(nullptr)},
                        {"sha256", f.is_dir ? json(nullptr) : json(f.sha256)}});
  }
  info->revision = Sha256Hex(manifest.dump(-1, ' ', /*ensure_ascii=*/true));
  return Status::Ok();
}

Result<std::vector<SkillInfo>> SkillOps::List(const Identity& who, std::string_view target_uri,
                                              int64_t limit) {
  SKALD_RETURN_IF_ERROR(resolver_->EnsureAccount(who));
  SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> roots, Roots(who, target_uri));
  std::vector<SkillInfo> out;
  for (const VikingUri& root : roots) {
    SKALD_ASSIGN_OR_RETURN(std::vector<SessionFileEntry> entries, files_->List(who, root));
    for (const SessionFileEntry& e : entries) {
      if (!e.is_dir || e.name.empty() || e.name[0] == '.') continue;
      if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) return out;
      if (!ValidateSkillName(e.name).ok()) continue;  // not a skill directory
      SKALD_ASSIGN_OR_RETURN(SkillInfo info, Locate(who, {root}, e.name, SkillReadOptions()));
      out.push_back(std::move(info));
    }
  }
  return out;
}

Result<SkillInfo> SkillOps::Get(const Identity& who, std::string_view name,
                                std::string_view target_uri, const SkillReadOptions& read) {
  SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> roots, Roots(who, target_uri));
  return Locate(who, roots, name, read);
}

Result<SkillInfo> SkillOps::Delete(const Identity& who, std::string_view name,
                                   std::string_view target_uri) {
  SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> roots, Roots(who, target_uri));
  SKALD_ASSIGN_OR_RETURN(SkillInfo info, Locate(who, roots, name, SkillReadOptions()));
  SKALD_ASSIGN_OR_RETURN(VikingUri dir, resolver_->Resolve(who, info.uri));
  SKALD_RETURN_IF_ERROR(CheckDeleteAccess(who, dir));
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_RETURN_IF_ERROR(files_->RemoveTree(who, dir));
  return info;
}

Result<SkillValidationReport> SkillOps::Validate(std::string_view data_json, bool strict,
                                                 std::string_view skill_dir_name) {
  json data = json::parse(data_json, nullptr, /*allow_exceptions=*/false);
  if (data.is_discarded()) return Status::InvalidArgument("skill data is not valid JSON");
  if (data.is_string()) return ToReport(ValidateSkillText(data.get<std::string>(), strict,
                                                          skill_dir_name));
  if (!data.is_object()) {
    return Status::InvalidArgument("skill data must be a SKILL.md text or an object");
  }
  Result<SkillDefinition> skill = ParseSkillData(data);
  if (!skill.ok()) {
    SkillValidationReport report;
    report.strict = strict;
    report.skill_dir_name = std::string(skill_dir_name);
    report.errors.push_back({"invalid_data", skill.status().message(), "data"});
    return report;
  }
  return ToReport(ValidateSkillText(RenderSkillMarkdown(*skill), strict, skill_dir_name));
}

}  // namespace skald
