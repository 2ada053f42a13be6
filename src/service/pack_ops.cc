#include "service/pack_ops.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <set>

#include "common/file_util.h"
#include "common/hash.h"
#include "common/tags.h"
#include "ingest/import_job.h"
#include "ingest/ingest_jobs.h"
#include "ingest/semantic_indexer.h"
#include "ingest/sidecar.h"
#include "ingest/source_import.h"
#include "service/resource_ops.h"
#include "storage/tree_swap.h"
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
  plan.strip = std::string(strip);
  std::vector<VikingUri>& dirs = plan.dirs;
  std::set<std::string> dir_paths;
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
    // Every directory on the way, listed in the package or implied.
    for (VikingUri up = e.is_dir ? uri : uri.Parent(); up.depth() > target.depth();
         up = up.Parent()) {
      if (!dir_paths.insert(std::string(up.path())).second) break;
      dirs.push_back(up);
    }
    if (!e.is_dir && !IsSidecarName(uri.name())) {  // the index job writes its own
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

Result<bool> PackOps::ReuseVectors(const Pack& pack, std::string_view vector_mode) const {
  if (vector_mode == "recompute") return false;
  // OpenViking's reasons, in its order; "auto" embeds again instead.
  auto cannot = [&](Status why) -> Result<bool> {
    if (vector_mode == "require") return why;
    return false;
  };
  if (!s_.indexing || s_.embedder == nullptr) {
    return cannot(Status::InvalidArgument("Vector restore requires a writable vector store"));
  }
  if (!pack.embedding) {
    return cannot(
        Status::InvalidArgument("ovpack package does not contain a dense vector snapshot"));
  }
  const size_t missing = std::count_if(pack.records.begin(), pack.records.end(),
                                       [](const PackRecord& r) { return r.vector.empty(); });
  if (missing > 0) {
    return cannot(Status::InvalidArgument("ovpack dense vector snapshot is incomplete")
                      .WithDetail("missing_record_count", std::to_string(missing)));
  }
  const PackEmbedding& packed = *pack.embedding;
  const char* mismatch = packed.provider != s_.embedder->provider() ? "embedding provider mismatch"
                         : packed.model != s_.embedder->model()     ? "embedding model mismatch"
                         : packed.dimensions != s_.embedder->Dimension()
                             ? "embedding dimensions mismatch"
                             : nullptr;
  if (mismatch != nullptr) {
    return cannot(Status::InvalidArgument(
                      "ovpack dense vector snapshot is incompatible with current embedding config")
                      .WithDetail("reason", mismatch));
  }
  return true;
}

Status PackOps::SeedVectors(const Identity& who, const Pack& pack,
                            const std::vector<TreePlan>& plans,
                            const std::vector<std::pair<VikingUri, std::string>>& batches) {
  std::map<std::string_view, const PackEntry*> files;
  for (const PackEntry& e : pack.entries) {
    if (!e.is_dir) files.emplace(e.path, &e);
  }
  // Per batch (one per index job, by the root it indexes): text hashes and
  // vectors.
  std::vector<std::vector<std::string>> hashes(batches.size());
  std::vector<std::vector<std::vector<float>>> vectors(batches.size());
  for (const TreePlan& plan : plans) {
    const std::string& strip = plan.strip;
    for (const PackRecord& r : pack.records) {
      if (!r.path.starts_with(strip) && r.path + "/" != strip) continue;
      const std::string_view rel =
          r.path.size() >= strip.size() ? std::string_view(r.path).substr(strip.size()) : "";
      Result<VikingUri> uri = VikingUri::Parse(
          rel.empty() ? plan.target.str() : fmt::format("{}/{}", plan.target.str(), rel));
      if (!uri.ok()) continue;
      size_t batch = batches.size();
      for (size_t b = 0; b < batches.size(); ++b) {
        if (batches[b].first.Contains(*uri)) batch = b;
      }
      if (batch == batches.size()) continue;  // indexed by no job of this import
      std::string text;
      if (r.level == 2 && !r.is_dir) {
        auto file = files.find(r.path);
        if (file == files.end()) continue;
        std::string description;
        const std::optional<std::string_view> indexed =
            IndexedTextOf(uri->name(), file->second->bytes, &description);
        if (!indexed) continue;
        text = FileEmbeddingText(uri->name(), *indexed, s_.max_input_tokens);
      } else if (!r.text.empty()) {
        text = DirectoryEmbeddingText(uri->str(), r.text);
      } else {
        continue;
      }
      hashes[batch].push_back(Sha256Hex(text));
      vectors[batch].push_back(r.vector);
    }
  }
  for (size_t b = 0; b < batches.size(); ++b) {
    if (hashes[b].empty()) continue;
    SKALD_RETURN_IF_ERROR(s_.catalog->PutCachedEmbeddings(
        who.account, PackVectorsKey(s_.embedder->Name(), batches[b].second), hashes[b],
        vectors[b]));
  }
  return Status::Ok();
}

std::vector<JobSpec> PackOps::IndexJobs(const Identity& who, const TreePlan& plan) const {
  std::vector<JobSpec> jobs;
  if (!s_.indexing) return jobs;
  // One for the target when one namespace root holds it (resources/x),
  // else one per namespace root the files are in (a restore of `user`:
  // each user's memories, resources, session archives, ...).
  const VikingUri& target = plan.target;
  std::set<std::string> roots;
  const int target_root = NamespaceRootDepth(target.path());
  if (target_root > 0 && static_cast<size_t>(target_root) <= target.depth()) {
    roots.emplace(target.path());
  } else {
    for (const auto& [uri, entry] : plan.files) {
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
      jobs.push_back(WithCarriedTags(std::move(*job), plan.carried));
    }
  }
  return jobs;
}

Result<bool> PackOps::SwapIn(const Identity& who, const Pack& pack,
                             const std::vector<TreePlan>& plans, const PackImportRequest& request) {
  std::vector<PathLockRequest> locks;
  for (const TreePlan& plan : plans) {
    locks.push_back({who.account, std::string(plan.target.path()), PathLockKind::kTree});
  }
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock(locks, &guard));
  // The conflict is settled under the targets' locks: of two imports
  // racing to one target, the second finds the first's tree. What an
  // overwrite removes is checked (delete access) before anything changes.
  std::vector<VikingUri> old;
  for (const TreePlan& plan : plans) {
    SKALD_ASSIGN_OR_RETURN(bool occupied, Occupied(*s_.catalog, who, plan.target));
    if (!occupied) continue;
    if (request.on_conflict == "skip") return false;
    if (request.on_conflict != "overwrite") return Conflict(plan.target);
    SKALD_ASSIGN_OR_RETURN(std::vector<VikingUri> here, ToClear(*s_.catalog, who, plan.target));
    old.insert(old.end(), here.begin(), here.end());
  }
  // Then whether the package's vectors are taken (as OpenViking decides
  // it, after the conflict).
  SKALD_ASSIGN_OR_RETURN(bool reuse, ReuseVectors(pack, request.vector_mode));
  // The directories the trees go into (a scope root is one).
  for (const TreePlan& plan : plans) {
    SKALD_RETURN_IF_ERROR(
        s_.nodes->EnsureDirectories(who, plan.target, /*include_self=*/plan.target.depth() == 1));
  }

  // The new trees are staged out of sight and swapped in as one unit
  // (storage/tree_swap.h): a crash leaves every old tree or every new one.
  // Each target is one tree, or for a scope root each child it gets.
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<TreeSwap> swap, TreeSwap::Begin(s_.content, who.account));
  std::map<std::string, size_t> items;  // target path -> swap target
  // Where a planned URI is staged: its item (added on first sight) and the
  // path below the item's root.
  auto staged_at = [&](const TreePlan& plan, const VikingUri& uri) -> std::string {
    const size_t item_depth = std::max<size_t>(plan.target.depth(), 2);
    std::string item_path;
    for (size_t i = 0; i < item_depth; ++i) {
      item_path += (i ? "/" : "") + uri.segments()[i];
    }
    auto [it, added] = items.emplace(item_path, 0);
    if (added) it->second = swap->AddTarget(item_path, /*staged=*/true);
    const std::string_view rel =
        std::string_view(uri.path()).substr(std::min(uri.path().size(), item_path.size() + 1));
    return swap->StagedPath(it->second, rel);
  };
  std::vector<std::string> staged_dirs;
  std::vector<std::string> staged_files;
  std::vector<const PackEntry*> file_entries;
  std::vector<CatalogNode> upserts;
  std::vector<JobSpec> jobs;
  // The vectors the package brings, left for each index job under a batch
  // of its own (never in the shared cache: only this import's records take
  // them). The built-in embedder makes the same ones again.
  std::vector<std::pair<VikingUri, std::string>> batches;  // job root, batch
  const bool seed = reuse && s_.embedder->worth_caching();
  for (const TreePlan& plan : plans) {
    if (plan.target.depth() > 1) staged_dirs.push_back(staged_at(plan, plan.target));
    for (const VikingUri& dir : plan.dirs) staged_dirs.push_back(staged_at(plan, dir));
    for (const auto& [uri, entry] : plan.files) {
      staged_files.push_back(staged_at(plan, uri));
      file_entries.push_back(entry);
    }
    for (JobSpec& job : IndexJobs(who, plan)) {
      if (seed) {
        Result<VikingUri> root = VikingUri::Parse(job.resource_id);
        if (root.ok()) {
          batches.emplace_back(*root, RandomHex128());
          job = WithPackagedVectors(std::move(job), batches.back().second);
        }
      }
      jobs.push_back(std::move(job));
    }
  }
  // What an overwrite removes and no new tree replaces.
  for (const VikingUri& u : old) {
    if (items.count(std::string(u.path()))) continue;
    swap->AddTarget(std::string(u.path()), /*staged=*/false);
    if (!s_.indexing) continue;
    if (auto refresh = IndexJobFor(who, u.path(), JobKind::kRefresh, kJobPriorityInteractive)) {
      jobs.push_back(std::move(*refresh));
    }
  }
  // Batches left behind by a swap that does not happen are dropped.
  struct BatchDropper {
    PackOps* ops;
    const Identity& who;
    std::vector<std::pair<VikingUri, std::string>>& batches;
    bool keep = false;
    ~BatchDropper() {
      if (keep) return;
      for (const auto& [root, batch] : batches) {
        Result<uint64_t> dropped = ops->s_.catalog->DeleteEmbeddingCacheOf(
            who.account, PackVectorsKey(ops->s_.embedder->Name(), batch));
        (void)dropped;
      }
    }
  } drop_batches{this, who, batches};
  if (seed) SKALD_RETURN_IF_ERROR(SeedVectors(who, pack, plans, batches));
  // Parents before children (a directory's path is a prefix of its children's).
  std::sort(staged_dirs.begin(), staged_dirs.end());
  staged_dirs.erase(std::unique(staged_dirs.begin(), staged_dirs.end()), staged_dirs.end());
  SKALD_RETURN_IF_ERROR(s_.content->MakeDirs(who.account, staged_dirs));
  std::vector<ContentStore::FileWrite> writes;
  for (size_t i = 0; i < staged_files.size(); ++i) {
    writes.push_back({staged_files[i], file_entries[i]->bytes});
  }
  SKALD_ASSIGN_OR_RETURN(std::vector<ContentAttr> attrs,
                         WriteFilesOnTwoThreads(s_.content, who.account, writes, s_.helpers));
  // The commit point: the plan names the jobs, so that a crash after it
  // still indexes the new trees as asked (their carried tags, the vectors).
  // Each job named now: recovery, which queues the plan's jobs again when
  // a crash came after the catalog transaction that queued them, finds
  // them queued and does not queue them twice.
  for (JobSpec& job : jobs) {
    if (job.task_id.empty()) job.task_id = NewTaskId();
  }
  SKALD_RETURN_IF_ERROR(swap->Commit(jobs));
  drop_batches.keep = true;
  if (Status applied = swap->Apply(); !applied.ok()) {
    // Still under the locks: put the old trees back (the swap then never
    // happened), else leave it to recovery at the next open.
    if (Status rolled_back = swap->RollBack(); !rolled_back.ok()) {
      s_.nodes->MarkNeedsRecovery();
    } else {
      drop_batches.keep = false;
    }
    return applied;
  }
  // The catalog follows in one transaction: the old nodes and their records
  // go, the new nodes come with the jobs (the outbox). A failure from here
  // on leaves the plan to recovery, which queues the jobs again.
  std::vector<std::string> deletes;
  for (const auto& [path, item] : items) deletes.push_back(path);
  for (const VikingUri& u : old) deletes.emplace_back(u.path());
  for (const TreePlan& plan : plans) {
    std::vector<VikingUri> dirs = plan.dirs;
    if (plan.target.depth() > 1) dirs.push_back(plan.target);
    for (const VikingUri& dir : dirs) {
      Result<ContentAttr> attr = s_.content->Stat(who.account, dir.path());
      if (!attr.ok()) {
        s_.nodes->MarkNeedsRecovery();
        return attr.status();
      }
      CatalogNode n;
      n.path = std::string(dir.path());
      n.is_dir = true;
      n.mtime_ns = n.ctime_ns = attr->mtime_ns;
      upserts.push_back(std::move(n));
    }
  }
  size_t f = 0;
  for (const TreePlan& plan : plans) {
    for (const auto& [uri, entry] : plan.files) {
      CatalogNode n;
      n.path = std::string(uri.path());
      n.size = entry->bytes.size();
      n.mtime_ns = n.ctime_ns = attrs[f++].mtime_ns;
      n.hash = Sha256Hex(entry->bytes);
      upserts.push_back(std::move(n));
    }
  }
  // Parents before children, as the catalog expects them.
  std::sort(upserts.begin(), upserts.end(),
            [](const CatalogNode& a, const CatalogNode& b) { return a.path < b.path; });
  if (Status recorded = s_.catalog->Apply(who.account, upserts, deletes, jobs); !recorded.ok()) {
    s_.nodes->MarkNeedsRecovery();  // the content changed, the catalog did not
    return recorded;
  }
  if (Status finished = swap->Finish(); !finished.ok()) {
    // The plan stays: recovery applies it again (a no-op now) at the next
    // open, which must therefore be a recovering one.
    s_.nodes->MarkNeedsRecovery();
    spdlog::warn("could not remove a pack import's staging area: {}", finished.ToString());
  }
  if (!jobs.empty()) s_.runner->queue()->Notify();
  // Search stops returning the old records now, not at the next catch-up
  // (the import itself is done: a failure here is the indexes' to retry).
  if (Status caught_up = s_.indexes->CatchUpIndexes(); !caught_up.ok()) {
    spdlog::warn("index catch-up after a pack import: {}", caught_up.ToString());
  }
  return true;
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
  std::vector<TreePlan> plans;
  plans.push_back(std::move(plan));
  SKALD_ASSIGN_OR_RETURN(bool written, SwapIn(who, pack, plans, request));
  (void)written;  // skipped or not, the answer names the target
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
  // Every scope planned before anything changes; the conflict is settled
  // and the trees swapped in as one unit (SwapIn).
  std::vector<TreePlan> plans;
  for (const std::string& scope : scopes) {
    SKALD_ASSIGN_OR_RETURN(VikingUri root, VikingUri::Parse(UriOfPath(scope)));
    SKALD_ASSIGN_OR_RETURN(TreePlan plan, PlanTree(who, root, pack, scope + "/"));
    plans.push_back(std::move(plan));
  }
  SKALD_ASSIGN_OR_RETURN(bool written, SwapIn(who, pack, plans, request));
  (void)written;
  return std::string("viking://");
}

}  // namespace skald
