// Mutating file-system operations: mkdir, rm, mv, write.
//
// Every mutation follows one order: lock the paths, change the content
// store (atomic renames, fsync'd), then record the result in one catalog
// transaction, then acknowledge. A crash before the catalog commit leaves
// content ahead of the catalog, which startup recovery reconciles; a crash
// after it loses nothing that was acknowledged.

#include <array>

#include <fmt/format.h>

#include "common/hash.h"
#include "common/strings.h"
#include "common/time_util.h"
#include "service/db_impl.h"
#include "ingest/sidecar.h"
#include "uri/access.h"

namespace skald {
namespace {

// Extensions a `create` write may use (reference §2.3).
constexpr std::array<std::string_view, 9> kCreatableExtensions = {
    ".md", ".txt", ".json", ".yaml", ".yml", ".toml", ".py", ".js", ".ts"};

// Name prefix the content store uses for its temporary files.
constexpr std::string_view kReservedPrefix = ".skald-tmp.";

bool HasCreatableExtension(std::string_view name) {
  for (std::string_view ext : kCreatableExtensions) {
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) return true;
  }
  return false;
}


// content/write may not reach into user-managed subtrees
// (user/{uid}/{skills,peers,privacy,sessions}).
Status CheckContentWriteTarget(const VikingUri& uri) {
  const auto& s = uri.segments();
  if (s.size() >= 3 && s[0] == "user" &&
      (s[2] == "skills" || s[2] == "peers" || s[2] == "privacy" || s[2] == "sessions")) {
    return Status::PermissionDenied(
        fmt::format("content write is not allowed under viking://user/{}/{}: {}", s[1], s[2],
                    uri.str()));
  }
  return Status::Ok();
}

// The top-level context directory a URI belongs to: the first directory
// below the scope root (resources/<x>, user/<u>/<kind>/<x>, agent/skills/<x>).
VikingUri ContextRoot(const VikingUri& uri) {
  const auto& s = uri.segments();
  size_t root_depth = 2;  // resources/<x>
  if (!s.empty() && s[0] == "user") {
    root_depth = (s.size() > 2 && s[2] == "peers") ? 6 : 4;
  } else if (!s.empty() && s[0] == "agent") {
    root_depth = 3;
  }
  // A file directly in the scope root belongs to its parent directory.
  size_t depth = std::min(root_depth, s.size() > 0 ? s.size() - 1 : 0);
  if (depth == 0) return uri.Parent();
  std::vector<std::string> segs(s.begin(), s.begin() + static_cast<long>(depth));
  return VikingUri::FromSegments(std::move(segs));
}

}  // namespace

Status CheckNotReserved(const VikingUri& uri) {
  for (const std::string& seg : uri.segments()) {
    if (seg.rfind(kReservedPrefix, 0) == 0) {
      return Status::InvalidArgument(
          fmt::format("name '{}' is reserved for Skald's temporary files", seg));
    }
  }
  return Status::Ok();
}

Status DbImpl::EnsureDirectories(const Identity& who, const VikingUri& dir, bool include_self) {
  std::vector<VikingUri> chain;
  for (VikingUri d = include_self ? dir : dir.Parent(); !d.is_root(); d = d.Parent()) {
    chain.push_back(d);
  }
  std::vector<CatalogNode> created;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, it->path()));
    if (node) {
      if (!node->is_dir) {
        return Status::FailedPrecondition(
            fmt::format("parent is a file, not a directory: {}", it->str()));
      }
      continue;
    }
    Status made = content_->MakeDir(who.account, it->path());
    if (ContentChangedDespiteError(made)) needs_recovery_ = true;
    if (made.code() == StatusCode::kAlreadyExists) {
      return Status::FailedPrecondition(
          fmt::format("parent is a file, not a directory: {}", it->str()));
    }
    SKALD_RETURN_IF_ERROR(made);
    Result<ContentAttr> attr = content_->Stat(who.account, it->path());
    if (!attr.ok()) {
      needs_recovery_ = true;  // made in content, not recorded
      return attr.status();
    }
    CatalogNode n;
    n.path = std::string(it->path());
    n.is_dir = true;
    n.mtime_ns = n.ctime_ns = attr->mtime_ns;
    created.push_back(std::move(n));
  }
  if (!created.empty()) {
    Status recorded = catalog_->Apply(who.account, created, {});
    if (!recorded.ok()) {
      needs_recovery_ = true;  // directories exist in content only
      return recorded;
    }
  }
  return Status::Ok();
}

Result<CatalogNode> DbImpl::StoreFile(const Identity& who, const VikingUri& uri,
                                      std::string_view bytes,
                                      const std::optional<CatalogNode>& existing,
                                      const std::vector<JobSpec>& jobs,
                                      std::vector<Job>* enqueued) {
  Result<ContentAttr> written = content_->WriteFile(who.account, uri.path(), bytes);
  if (!written.ok()) {
    // A failure after the rename leaves content ahead of the catalog.
    if (ContentChangedDespiteError(written.status())) needs_recovery_ = true;
    return written.status();
  }
  const ContentAttr& attr = *written;
  CatalogNode node;
  node.path = std::string(uri.path());
  node.size = bytes.size();
  node.mtime_ns = attr.mtime_ns;
  node.ctime_ns = existing ? existing->ctime_ns : attr.mtime_ns;
  node.hash = Sha256Hex(bytes);
  Status recorded = catalog_->Apply(who.account, {node}, {}, jobs, enqueued);
  if (IsDiskFull(recorded) && reserve_ && reserve_->Release()) {
    // The bytes are in place: spend the reserve on recording them rather
    // than leaving content the catalog does not know (later writes are
    // refused until space is back).
    recorded = catalog_->Apply(who.account, {node}, {}, jobs, enqueued);
  }
  if (!recorded.ok()) {
    needs_recovery_ = true;  // the bytes are on disk, the catalog does not know
    return recorded;
  }
  return node;
}

Result<std::string> DbImpl::Mkdir(const Identity& who, std::string_view uri_text,
                                  std::string_view description) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(uri));
  if (!IsValidUtf8(description)) return Status::InvalidArgument("description is not valid UTF-8");
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock({{who.account, std::string(uri.path()), PathLockKind::kExact}},
                             &guard));
  SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(who.account, uri.path()));
  if (existing) {
    return Status::AlreadyExists(fmt::format("Directory already exists: {}", uri.str()))
        .WithReason("CONFLICT")
        .WithDetail("resource", uri.str())
        .WithDetail("type", existing->is_dir ? "directory" : "file");
  }
  SKALD_RETURN_IF_ERROR(EnsureDirectories(who, uri, /*include_self=*/true));
  std::string_view abstract = Trim(description);
  if (!abstract.empty()) {
    VikingUri sidecar = uri.Child(kAbstractName);
    std::string text = RenderSidecar(SidecarFrontmatter(uri.str(), "Mkdir", "mkdir"), abstract);
    std::vector<JobSpec> jobs;
    if (std::optional<JobSpec> job =
            IndexJobFor(who, uri.path(), "index", kJobPriorityInteractive);
        job && indexer_) {
      jobs.push_back(*job);
    }
    SKALD_ASSIGN_OR_RETURN(CatalogNode stored, StoreFile(who, sidecar, text, std::nullopt, jobs));
    (void)stored;
    if (!jobs.empty()) jobs_->Notify();
  }
  return uri.str();
}

Result<RmResult> DbImpl::Rm(const Identity& who, std::string_view uri_text, bool recursive) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, uri_text));
  SKALD_RETURN_IF_ERROR(CheckDeleteAccess(who, uri));
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock({{who.account, std::string(uri.path()), PathLockKind::kTree}},
                             &guard));
  RmResult result;
  result.uri = uri.str();
  // On a (nearly) full disk the reserve makes room for the catalog and
  // index commits of the delete: deleting must always work.
  if (reserve_) reserve_->ReleaseIfLow();
  SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, uri.path()));
  if (!node) return result;  // idempotent: nothing to delete
  if (node->is_dir && !recursive) {
    SKALD_ASSIGN_OR_RETURN(uint64_t count, catalog_->CountSubtree(who.account, uri.path()));
    if (count > 1) {
      return Status::FailedPrecondition(fmt::format(
                 "Directory is not empty: {} (use recursive to delete it and its contents)",
                 uri.str()))
          .WithDetail("resource", uri.str());
    }
  }
  // Content first (one atomic rename out of the tree), then the catalog: a
  // crash in between leaves rows without content, which recovery drops.
  SKALD_ASSIGN_OR_RETURN(uint64_t count, catalog_->CountSubtree(who.account, uri.path()));
  if (Status removed = content_->Remove(who.account, uri.path()); !removed.ok()) {
    if (ContentChangedDespiteError(removed)) needs_recovery_ = true;
    return removed;
  }
  // One transaction drops the nodes, tombstones their records and queues the
  // refresh of the summaries above (the outbox).
  std::vector<JobSpec> jobs;
  if (std::optional<JobSpec> job =
          IndexJobFor(who, uri.path(), "refresh", kJobPriorityInteractive);
      job && indexer_) {
    jobs.push_back(*job);
  }
  Status recorded = catalog_->Apply(who.account, {}, {std::string(uri.path())}, jobs);
  if (!recorded.ok()) {
    needs_recovery_ = true;
    return recorded;
  }
  result.deleted_count = count;
  if (!jobs.empty()) jobs_->Notify();
  // Deleted content must not be found, not even until a job runs.
  SKALD_RETURN_IF_ERROR(CatchUpIndexes());
  if (uri.depth() == 1) {
    // A scope root (ROOT may empty `viking://resources`) comes back empty:
    // every account always has its resources root.
    SKALD_RETURN_IF_ERROR(EnsureDirectories(who, uri, /*include_self=*/true));
  }
  return result;
}

Result<MvResult> DbImpl::Mv(const Identity& who, std::string_view from_text,
                            std::string_view to_text) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri from, Resolve(who, from_text));
  SKALD_ASSIGN_OR_RETURN(VikingUri to, Resolve(who, to_text));
  SKALD_RETURN_IF_ERROR(CheckDeleteAccess(who, from));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, from));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, to));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(to));
  if (from.Contains(to)) {
    return Status::InvalidArgument(
        fmt::format("cannot move {} into itself ({})", from.str(), to.str()));
  }
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock({{who.account, std::string(from.path()), PathLockKind::kTree},
                              {who.account, std::string(to.path()), PathLockKind::kTree}},
                             &guard));
  SKALD_ASSIGN_OR_RETURN(auto source, catalog_->Get(who.account, from.path()));
  if (!source) return FileNotFound(from);
  SKALD_ASSIGN_OR_RETURN(auto target, catalog_->Get(who.account, to.path()));
  if (target) {
    return Status::AlreadyExists(fmt::format("Target already exists: {}", to.str()))
        .WithReason("CONFLICT")
        .WithDetail("resource", to.str());
  }
  // Creating the target's missing parents is idempotent, and our tree lock
  // on `to` keeps any delete of those parents out until we are done.
  SKALD_RETURN_IF_ERROR(EnsureDirectories(who, to, /*include_self=*/false));
  if (Status renamed = content_->Rename(who.account, from.path(), to.path()); !renamed.ok()) {
    if (ContentChangedDespiteError(renamed)) needs_recovery_ = true;
    return renamed;
  }
  Result<ContentAttr> moved_attr = content_->Stat(who.account, to.path());
  if (!moved_attr.ok()) {
    needs_recovery_ = true;  // moved in content, not in the catalog
    return moved_attr.status();
  }
  const ContentAttr& attr = *moved_attr;
  int64_t mtime = source->is_dir ? source->mtime_ns : attr.mtime_ns;
  Status moved = catalog_->MoveSubtree(who.account, from.path(), to.path(), mtime);
  if (!moved.ok()) {
    // Put the content back where the catalog says it is, so that a retry
    // works now; the next open reconciles whatever this could not undo.
    needs_recovery_ = true;
    Status undone = content_->Rename(who.account, to.path(), from.path());
    (void)undone;
    return moved;
  }
  // Records are keyed by URI: the move tombstoned the old ones (search
  // stops returning them now), the moved tree is indexed again (cached
  // vectors make that cheap) and both parents' summaries refresh.
  SKALD_RETURN_IF_ERROR(CatchUpIndexes());
  if (indexer_) {
    for (auto job : {IndexJobFor(who, from.path(), "refresh", kJobPriorityInteractive),
                     IndexJobFor(who, to.path(), "index", kJobPriorityInteractive)}) {
      if (!job) continue;
      SKALD_ASSIGN_OR_RETURN(Job queued, jobs_->Enqueue(*job));
      (void)queued;
    }
  }
  return MvResult{from.str(), to.str()};
}

Result<WriteResult> DbImpl::Write(const Identity& who, const WriteRequest& request) {
  std::shared_lock<std::shared_mutex> no_fsck(maintenance_mu_);
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, Resolve(who, request.uri));
  SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, uri));
  SKALD_RETURN_IF_ERROR(CheckContentWriteTarget(uri));
  SKALD_RETURN_IF_ERROR(CheckNotReserved(uri));
  if (!IsValidUtf8(request.content)) return Status::InvalidArgument("content is not valid UTF-8");
  if (uri.depth() < 2) {
    return Status::InvalidArgument(fmt::format("cannot write to a scope root: {}", uri.str()));
  }
  WriteMode mode = request.mode;
  bool sidecar = IsSidecarName(uri.name());
  if (mode == WriteMode::kCreate && sidecar) {
    return Status::InvalidArgument(
        fmt::format("{} cannot be created through the API, only updated", uri.name()));
  }
  if (mode == WriteMode::kCreate && !HasCreatableExtension(uri.name())) {
    return Status::InvalidArgument(fmt::format(
        "cannot create {}: the extension must be one of .md .txt .json .yaml .yml .toml .py .js "
        ".ts",
        uri.str()));
  }

  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock({{who.account, std::string(uri.path()), PathLockKind::kExact}},
                             &guard));
  SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(who.account, uri.path()));
  if (existing && existing->is_dir) {
    return Status::InvalidArgument(fmt::format("Cannot write to a directory: {}", uri.str()))
        .WithDetail("expected", "file")
        .WithDetail("actual", "directory")
        .WithDetail("resource", uri.str());
  }
  if (mode != WriteMode::kCreate && !existing) return FileNotFound(uri);
  if (mode == WriteMode::kCreate && existing) {
    return Status::AlreadyExists(fmt::format("File already exists: {}", uri.str()))
        .WithReason("ALREADY_EXISTS")
        .WithDetail("resource", uri.str())
        .WithDetail("type", "file");
  }

  std::string bytes;
  if (mode == WriteMode::kCreate) {
    SKALD_RETURN_IF_ERROR(EnsureDirectories(who, uri, /*include_self=*/false));
    bytes = request.content;
  } else {
    SKALD_ASSIGN_OR_RETURN(std::string old, content_->ReadFile(who.account, uri.path()));
    if (sidecar) {
      // Public writes change a sidecar's body; its frontmatter is kept.
      // The body is the user's from now on: the indexer keeps it.
      Sidecar parsed = ParseSidecar(old);
      std::string body = mode == WriteMode::kAppend ? parsed.body + request.content
                                                    : request.content;
      bytes = RenderSidecar(
          SidecarFrontmatter(uri.Parent().str(), "ContentWrite", "content_write"), body);
    } else {
      bytes = mode == WriteMode::kAppend ? old + request.content : request.content;
    }
  }

  WriteResult result;
  result.uri = uri.str();
  result.root_uri = ContextRoot(uri).str();
  result.context_type = uri.context_type();
  result.mode = mode;
  result.written_bytes = request.content.size();
  if (existing && existing->hash == Sha256Hex(bytes)) {
    result.content_updated = false;  // identical bytes: nothing to rewrite
    return result;
  }
  // The file and the job that re-indexes it commit together (outbox). A
  // written sidecar refreshes its directory and the directories above.
  std::optional<JobSpec> job =
      sidecar ? IndexJobFor(who, uri.path(), "refresh", kJobPriorityInteractive)
              : IndexJobFor(who, uri.path(), "index", kJobPriorityInteractive);
  std::vector<JobSpec> jobs;
  if (job && indexer_) jobs.push_back(*job);
  std::vector<Job> enqueued;
  SKALD_ASSIGN_OR_RETURN(CatalogNode stored, StoreFile(who, uri, bytes, existing, jobs, &enqueued));
  (void)stored;
  result.content_updated = true;
  if (enqueued.empty()) return result;
  jobs_->Notify();
  guard = PathLockGuard();  // the job takes its own locks
  no_fsck.unlock();          // and its own share of the maintenance lock
  result.semantic_status = result.vector_status = "queued";
  if (request.wait) {
    SKALD_ASSIGN_OR_RETURN(Job done, AwaitTask(enqueued[0].task_id, request.timeout_s));
    if (done.state == JobState::kCompleted) {
      result.semantic_status = result.vector_status = "completed";
    }
  }
  return result;
}

}  // namespace skald
