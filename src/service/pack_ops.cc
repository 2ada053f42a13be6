#include "service/pack_ops.h"

#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <map>
#include <set>

#include "common/tags.h"
#include "ingest/import_job.h"
#include "ingest/ingest_jobs.h"
#include "ingest/sidecar.h"
#include "service/resource_ops.h"
#include "uri/access.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

using Json = nlohmann::json;

// Scopes a package may come from or go to (OpenViking's format 3).
constexpr std::array<std::string_view, 2> kPackScopes = {"resources", "user"};

bool IsPackScope(std::string_view scope) {
  return std::find(kPackScopes.begin(), kPackScopes.end(), scope) != kPackScopes.end();
}

std::string_view ScopeOf(const VikingUri& uri) {
  return uri.depth() == 0 ? std::string_view() : std::string_view(uri.segments()[0]);
}

Status RequireAdmin(const Identity& who) {
  if (who.role == Role::kRoot || who.role == Role::kAdmin) return Status::Ok();
  return Status::PermissionDenied("Requires role: root, admin");
}

bool IsRelationFile(std::string_view name) { return name.ends_with(".relations.json"); }

Status Conflict(const VikingUri& at) {
  return Status::AlreadyExists(
             fmt::format(
                 "Resource already exists at {}. Use on_conflict='overwrite' to replace it.",
                 at.str()))
      .WithReason("CONFLICT")
      .WithDetail("resource", at.str());
}

// The children of `uri` that `who` may see.
Result<std::vector<VikingUri>> VisibleChildren(Catalog& catalog, const Identity& who,
                                               const VikingUri& uri) {
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> below,
                         catalog.ListSubtree(who.account, uri.path(), 1));
  std::vector<VikingUri> out;
  for (const CatalogNode& n : below) {
    Result<VikingUri> child = VikingUri::Parse(UriOfPath(n.path));
    if (child.ok() && IsAccessible(who, *child)) out.push_back(std::move(*child));
  }
  return out;
}

// Whether `uri` holds something `who` can see: a scope root when it has a
// visible child (scope roots are always there), any other node when it
// exists and is visible.
Result<bool> Occupied(Catalog& catalog, const Identity& who, const VikingUri& uri) {
  if (uri.depth() > 1) {
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, catalog.Get(who.account, uri.path()));
    return node.has_value() && IsAccessible(who, uri);
  }
  SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> children, VisibleChildren(catalog, who, uri));
  return !children.empty();
}

// What an overwrite of `uri` deletes: `uri` itself, or for a scope root
// each child `who` sees; every one checked for delete access, so that a
// refusal comes before anything is deleted.
Result<std::vector<VikingUri>> ToClear(Catalog& catalog, const Identity& who,
                                       const VikingUri& uri) {
  std::vector<VikingUri> out;
  if (uri.depth() > 1) {
    out.push_back(uri);
  } else {
    SKALD_ASSIGN_OR_RETURN(out, VisibleChildren(catalog, who, uri));
  }
  for (const VikingUri& u : out) SKALD_RETURN_IF_ERROR(CheckDeleteAccess(who, u));
  return out;
}

Status Clear(FsWriter& writer, const Identity& who, const std::vector<VikingUri>& uris) {
  for (const VikingUri& u : uris) {
    SKALD_RETURN_IF_ERROR(writer.Rm(who, u, /*recursive=*/true).status());
  }
  return Status::Ok();
}

}  // namespace

Status PackOps::Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard) {
  return s_.locks->Acquire(requests, std::chrono::milliseconds(s_.lock_timeout_ms), guard);
}

Status PackOps::Collect(const Identity& who, const VikingUri& root, const std::string& prefix,
                        bool include_vectors, Pack* pack, uint64_t* bytes) {
  const std::string& account = who.account;
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> nodes,
                         s_.catalog->ListSubtree(account, root.path(), 0));
  for (const CatalogNode& node : nodes) {
    Result<VikingUri> uri = VikingUri::Parse(UriOfPath(node.path));
    if (!uri.ok() || !IsAccessible(who, *uri) || IsRelationFile(uri->name())) continue;
    const std::string rel =
        JoinPath(prefix, std::string_view(node.path).substr(root.path().size() + 1));
    SKALD_RETURN_IF_ERROR(CheckPackRelPath(rel));
    PackEntry entry{rel, node.is_dir, ""};
    if (!node.is_dir) {
      SKALD_ASSIGN_OR_RETURN(entry.bytes, s_.content->ReadFile(account, node.path));
      *bytes += entry.bytes.size();
      if (*bytes > kMaxPackBytes) {
        return Status::ResourceExhausted(
            fmt::format("{} holds more than {} MiB of content: too large for one package",
                        root.str(), kMaxPackBytes >> 20));
      }
    }
    pack->entries.push_back(std::move(entry));
  }
  // (Only records of `root` and below.)
  SKALD_ASSIGN_OR_RETURN(std::vector<Record> records,
                         s_.catalog->GetRecordsUnder(account, root.str()));
  if (include_vectors && !records.empty()) {
    std::vector<uint64_t> keys;
    for (const Record& r : records) keys.push_back(r.key);
    SKALD_ASSIGN_OR_RETURN(records, s_.catalog->GetRecordsByKeys(account, keys, true));
  }
  uint64_t missing = 0;
  for (const Record& r : records) {
    Result<VikingUri> uri = VikingUri::Parse(r.uri);
    if (!uri.ok() || !IsAccessible(who, *uri)) continue;
    const bool is_root = uri->str() == root.str();
    PackRecord out;
    out.path = is_root
                   ? prefix
                   : JoinPath(prefix, std::string_view(uri->str()).substr(root.str().size() + 1));
    out.is_dir = r.level != 2;
    out.level = r.level;
    if (out.is_dir) out.text = r.abstract;
    out.scalars = {{"context_type", ContextTypeName(r.context_type)},
                   {"level", r.level},
                   {"abstract", r.abstract}};
    if (!r.tags.empty()) out.scalars["tags"] = r.tags;
    if (include_vectors) {
      if (r.vector.empty()) {
        ++missing;
        continue;
      }
      out.vector = r.vector;
    }
    pack->records.push_back(std::move(out));
  }
  if (missing > 0) {
    return Status::InvalidArgument(
               "Cannot export an incomplete vector snapshot: some records have no vector yet "
               "(wait for indexing, or export without include_vectors)")
        .WithDetail("missing_record_count", std::to_string(missing));
  }
  return Status::Ok();
}

Result<Download> PackOps::Export(const Identity& who, std::string_view uri_text,
                                 bool include_vectors) {
  SKALD_RETURN_IF_ERROR(RequireAdmin(who));
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, s_.resolver->Resolve(who, uri_text));
  if (uri.depth() == 0) {
    return Status::InvalidArgument("ovpack export is not supported for root URI");
  }
  if (!IsPackScope(ScopeOf(uri))) {
    return Status::InvalidArgument(
        fmt::format("ovpack export is not supported for scope: {}", ScopeOf(uri)));
  }
  if (IsRelationFile(uri.name())) {
    return Status::InvalidArgument(
        fmt::format("cannot export internal ovpack file: {}", uri.str()));
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, s_.catalog->Get(who.account, uri.path()));
  if (!node || !IsAccessible(who, uri)) return FileNotFound(uri);
  if (!node->is_dir) {
    return Status::InvalidArgument(
        fmt::format("ovpack export takes a directory; {} is a file", uri.str()));
  }
  Pack pack;
  pack.root = {std::string(uri.name()), uri.str(), std::string(ScopeOf(uri)), false, {}};
  uint64_t bytes = 0;
  SKALD_RETURN_IF_ERROR(Collect(who, uri, "", include_vectors, &pack, &bytes));
  if (include_vectors) pack.embedding = s_.embedding;
  SKALD_ASSIGN_OR_RETURN(std::string zip, WriteOvpack(pack));
  return Download{pack.root.name + ".ovpack", std::move(zip)};
}

Result<Download> PackOps::Backup(const Identity& who, bool include_vectors) {
  SKALD_RETURN_IF_ERROR(RequireAdmin(who));
  Pack pack;
  pack.root = {std::string(kOvpackBackupName), "viking://", "root", true, {}};
  uint64_t bytes = 0;
  for (std::string_view scope : kPackScopes) {
    pack.root.scopes.emplace_back(scope);
    pack.entries.push_back({std::string(scope), true, ""});
    SKALD_ASSIGN_OR_RETURN(VikingUri root, VikingUri::Parse(UriOfPath(scope)));
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node,
                           s_.catalog->Get(who.account, root.path()));
    if (!node) continue;
    SKALD_RETURN_IF_ERROR(Collect(who, root, std::string(scope), include_vectors, &pack, &bytes));
  }
  if (include_vectors) pack.embedding = s_.embedding;
  SKALD_ASSIGN_OR_RETURN(std::string zip, WriteOvpack(pack));
  return Download{std::string(kOvpackBackupName) + ".ovpack", std::move(zip)};
}

Result<Pack> PackOps::ReadUpload(const Identity& who, const PackImportRequest& request) {
  SKALD_RETURN_IF_ERROR(RequireAdmin(who));
  if (request.on_conflict != "fail" && request.on_conflict != "overwrite" &&
      request.on_conflict != "skip") {
    return Status::InvalidArgument(
        fmt::format("Invalid on_conflict value: {}. Must be one of: fail, overwrite, skip",
                    request.on_conflict));
  }
  if (request.vector_mode != "auto" && request.vector_mode != "recompute" &&
      request.vector_mode != "require") {
    return Status::InvalidArgument(
        fmt::format("Invalid vector_mode value: {}. Must be one of: auto, recompute, require",
                    request.vector_mode));
  }
  SKALD_ASSIGN_OR_RETURN(UploadRef upload, FindUpload(s_.workspace, who, request.temp_file_id));
  if (request.vector_mode == "require") {
    return Status::InvalidArgument(
        "vector_mode 'require' cannot be met: Skald does not restore packaged vectors, it embeds "
        "imported content again (use auto or recompute)");
  }
  ArchiveLimits limits;
  limits.max_total_bytes = kMaxPackBytes;
  Result<Pack> pack = ReadOvpack(upload.path, limits);
  // The upload is used up, read or refused, as OpenViking's is.
  std::error_code ec;
  std::filesystem::remove(upload.path, ec);
  std::filesystem::remove(upload.path + std::string(kUploadMetaSuffix), ec);
  return pack;
}

Result<PackOps::TreePlan> PackOps::PlanTree(const Identity& who, const VikingUri& target,
                                            const Pack& pack, std::string_view strip) {
  TreePlan plan;
  plan.target = target;
  std::vector<VikingUri>& dirs = plan.dirs;
  auto& files = plan.files;
  for (const PackEntry& e : pack.entries) {
    if (!std::string_view(e.path).starts_with(strip)) continue;
    const std::string_view rel = std::string_view(e.path).substr(strip.size());
    if (rel.empty()) continue;
    const std::string text = fmt::format("viking://{}/{}", target.path(), rel);
    SKALD_ASSIGN_OR_RETURN(VikingUri uri, VikingUri::Parse(text));
    // Each entry names its own place below the target, nothing the parser
    // rewrote (ReadOvpack admits only plain segments; this holds it).
    if (uri.str() != text || !target.Contains(uri)) {
      return Status::InvalidArgument(fmt::format("ovpack entry '{}' is not a plain path", rel));
    }
    SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
    SKALD_RETURN_IF_ERROR(CheckNotReserved(uri));
    if (IsRelationFile(uri.name())) continue;
    if (e.is_dir) {
      dirs.push_back(std::move(uri));
    } else if (!IsSidecarName(uri.name())) {  // the index job writes its own
      files.emplace_back(std::move(uri), &e);
    }
  }
  // Tags the package's records carried, by the URI they now have.
  std::map<std::string, std::vector<std::string>>& carried = plan.carried;
  for (const PackRecord& r : pack.records) {
    if (!std::string_view(r.path).starts_with(strip) && r.path + "/" != strip) continue;
    const Json tags = r.scalars.is_object() ? r.scalars.value("tags", Json()) : Json();
    if (!tags.is_array()) continue;
    std::vector<std::string> normalized = NormalizeTagsLeniently(StringsOf(tags));
    if (normalized.empty()) continue;
    const std::string_view rel =
        r.path.size() >= strip.size() ? std::string_view(r.path).substr(strip.size()) : "";
    carried[rel.empty() ? target.str() : fmt::format("{}/{}", target.str(), rel)] =
        std::move(normalized);
  }
  return plan;
}

Status PackOps::WriteTree(const Identity& who, const TreePlan& plan) {
  const VikingUri& target = plan.target;
  const auto& files = plan.files;
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(
      Lock({{who.account, std::string(target.path()), PathLockKind::kTree}}, &guard));
  // Another import may have written here since the conflict was settled:
  // under the tree's lock the target must still be empty.
  SKALD_ASSIGN_OR_RETURN(bool occupied, Occupied(*s_.catalog, who, target));
  if (occupied) return Conflict(target);
  SKALD_RETURN_IF_ERROR(s_.nodes->EnsureDirectories(who, target, /*include_self=*/true));
  SKALD_RETURN_IF_ERROR(s_.nodes->EnsureDirectories(who, plan.dirs));
  // The index jobs: one for the target when one namespace root holds it
  // (resources/x), else one per namespace root the files are in (a restore
  // of `user`: each user's memories, resources, session archives, ...).
  std::vector<JobSpec> index_jobs;
  if (s_.indexing) {
    std::set<std::string> roots;
    const int target_root = NamespaceRootDepth(target.path());
    if (target_root > 0 && static_cast<size_t>(target_root) <= target.depth()) {
      roots.emplace(target.path());
    } else {
      for (const auto& [uri, entry] : files) {
        const int depth = NamespaceRootDepth(uri.path());
        if (depth <= 0) continue;  // never indexed (live sessions)
        const auto& segments = uri.segments();
        const size_t keep = std::max<size_t>(static_cast<size_t>(depth), target.depth());
        std::string root;
        for (size_t i = 0; i < keep && i < segments.size(); ++i) {
          root += (i ? "/" : "") + segments[i];
        }
        roots.insert(std::move(root));
      }
    }
    for (const std::string& root : roots) {
      if (auto job = IndexJobFor(who, root, JobKind::kIndex, kJobPriorityInteractive)) {
        index_jobs.push_back(WithCarriedTags(std::move(*job), plan.carried));
      }
    }
  }
  bool job_queued = false;
  for (const auto& [uri, entry] : files) {
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> existing,
                           s_.catalog->Get(who.account, uri.path()));
    if (existing && existing->is_dir) {
      return Status::FailedPrecondition(
          fmt::format("cannot write the file {}: a directory is there", uri.str()));
    }
    std::vector<JobSpec> jobs;
    if (!job_queued) jobs = index_jobs;
    SKALD_ASSIGN_OR_RETURN(CatalogNode stored,
                           s_.nodes->StoreFile(who, uri, entry->bytes, existing, jobs));
    (void)stored;
    if (!jobs.empty()) {
      job_queued = true;
      s_.runner->queue()->Notify();
    }
  }
  // Once more at the end (a tree job covers its files), as cp does.
  for (const JobSpec& job : index_jobs) {
    SKALD_ASSIGN_OR_RETURN(Job queued, s_.runner->queue()->Enqueue(job));
    (void)queued;
  }
  return Status::Ok();
}

Result<std::string> PackOps::Import(const Identity& who, const PackImportRequest& request) {
  SKALD_ASSIGN_OR_RETURN(Pack pack, ReadUpload(who, request));
  std::shared_lock<std::shared_mutex> no_fsck(*s_.maintenance_mu);
  if (pack.root.backup) {
    return Status::InvalidArgument(
        "Backup ovpack packages must be restored with ov restore or the restore API");
  }
  SKALD_ASSIGN_OR_RETURN(VikingUri parent, s_.resolver->Resolve(who, request.parent));
  SKALD_ASSIGN_OR_RETURN(VikingUri source, VikingUri::Parse(pack.root.uri));
  const bool top_level = source.depth() == 1;
  VikingUri target;
  if (parent.depth() == 0) {
    if (!top_level) {
      return Status::InvalidArgument(
          "Only top-level scope ovpack packages can be imported to viking://");
    }
    target = source;
  } else {
    if (!IsPackScope(ScopeOf(parent))) {
      return Status::InvalidArgument(
          fmt::format("ovpack import is not supported for scope: {}", ScopeOf(parent)));
    }
    if (top_level) {
      return Status::InvalidArgument(
          "Top-level scope ovpack packages must be imported to viking://");
    }
    target = parent.Child(pack.root.name);
  }
  if (!IsPackScope(ScopeOf(source)) || ScopeOf(source) != ScopeOf(target)) {
    return Status::InvalidArgument("ovpack source scope does not match target scope")
        .WithDetail("source", source.str())
        .WithDetail("target", target.str());
  }
  if (ScopeOf(target) == "user" && source.depth() != target.depth()) {
    return Status::InvalidArgument("ovpack source path is incompatible with target path")
        .WithDetail("source", source.str())
        .WithDetail("target", target.str());
  }
  // A scope root (a top-level package) is never written itself: its
  // entries are checked one by one.
  if (target.depth() > 1) SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, target));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(target));
  // Everything is checked before anything changes.
  SKALD_ASSIGN_OR_RETURN(TreePlan plan, PlanTree(who, target, pack, ""));
  SKALD_ASSIGN_OR_RETURN(bool occupied, Occupied(*s_.catalog, who, target));
  if (occupied) {
    if (request.on_conflict == "skip") return target.str();
    if (request.on_conflict == "fail") return Conflict(target);
    SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> old, ToClear(*s_.catalog, who, target));
    SKALD_RETURN_IF_ERROR(Clear(*s_.writer, who, old));
  }
  SKALD_RETURN_IF_ERROR(WriteTree(who, plan));
  return target.str();
}

Result<std::string> PackOps::Restore(const Identity& who, const PackImportRequest& request) {
  SKALD_ASSIGN_OR_RETURN(Pack pack, ReadUpload(who, request));
  std::shared_lock<std::shared_mutex> no_fsck(*s_.maintenance_mu);
  if (!pack.root.backup || pack.root.uri != "viking://") {
    return Status::InvalidArgument(
        "Only backup ovpack packages can be restored with ov restore or the restore API");
  }
  std::set<std::string> top_dirs;
  for (const PackEntry& e : pack.entries) {
    const std::string top = e.path.substr(0, e.path.find('/'));
    if (!IsPackScope(top)) {
      return Status::InvalidArgument("Backup ovpack contains unsupported roots")
          .WithDetail("root", top);
    }
    if (e.is_dir && top == e.path) top_dirs.insert(top);
  }
  const std::set<std::string> scopes(pack.root.scopes.begin(), pack.root.scopes.end());
  if (scopes != top_dirs) {
    return Status::InvalidArgument("Backup ovpack scopes do not match entries");
  }
  // Every scope planned, and what an overwrite deletes checked, before
  // anything changes.
  std::vector<TreePlan> plans;
  std::vector<VikingUri> old;
  for (const std::string& scope : scopes) {
    SKALD_ASSIGN_OR_RETURN(VikingUri root, VikingUri::Parse(UriOfPath(scope)));
    SKALD_ASSIGN_OR_RETURN(TreePlan plan, PlanTree(who, root, pack, scope + "/"));
    SKALD_ASSIGN_OR_RETURN(bool occupied, Occupied(*s_.catalog, who, root));
    if (occupied) {
      if (request.on_conflict == "skip") return std::string("viking://");
      if (request.on_conflict == "fail") return Conflict(root);
      SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> here, ToClear(*s_.catalog, who, root));
      old.insert(old.end(), here.begin(), here.end());
    }
    plans.push_back(std::move(plan));
  }
  SKALD_RETURN_IF_ERROR(Clear(*s_.writer, who, old));
  for (const TreePlan& plan : plans) SKALD_RETURN_IF_ERROR(WriteTree(who, plan));
  return std::string("viking://");
}

}  // namespace skald
