// Snapshot restore (snapshot_ops.h): a forward commit, then the write-back.

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <set>

#include "ingest/ingest_jobs.h"
#include "service/snapshot_ops.h"
#include "uri/access.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

constexpr std::string_view kRestoreIgnorePath = ".ovgitignore";

std::string JoinTreePath(std::string_view dir, std::string_view rel) {
  if (dir.empty()) return std::string(rel);
  if (rel.empty()) return std::string(dir);
  return fmt::format("{}/{}", dir, rel);
}

// The entries of `tree` at or below `dir`, keyed relative to it.
SnapshotTree Below(const SnapshotTree& tree, std::string_view dir) {
  SnapshotTree out;
  for (auto it = tree.lower_bound(dir); it != tree.end() && it->first.starts_with(dir); ++it) {
    const std::string& path = it->first;
    if (dir.empty()) {
      out.emplace(path, it->second);
    } else if (path.size() > dir.size() && path[dir.size()] == '/') {
      out.emplace(path.substr(dir.size() + 1), it->second);
    }
  }
  return out;
}

// The path at which a re-index of `path` starts: the child of its namespace
// root on the way to it (the root's summary follows from its children), or
// "" for a path that is never indexed.
std::string IndexRootOf(std::string_view path) {
  const int depth = NamespaceRootDepth(path);
  if (depth == 0) return "";
  std::vector<std::string_view> segs = PathSegments(path);
  if (static_cast<int>(segs.size()) <= depth) return "";
  std::string root;
  for (int i = 0; i <= depth; ++i) root = JoinTreePath(root, segs[i]);
  return root;
}

}  // namespace

Result<SnapshotRestoreResult> SnapshotOps::Restore(const Identity& who,
                                                   const SnapshotRestoreRequest& request) {
  const std::string& account = who.account;
  SnapshotRestoreRequest req = request;
  if (req.project_dir && req.project_dir->empty()) req.project_dir.reset();
  if (!req.project_dir && who.role != Role::kRoot) {
    return Status::PermissionDenied("Snapshot restore requires an explicit project_dir")
        .WithDetail("resource", "viking://");
  }
  if (Result<std::optional<std::string>> branch_ok = Head(account, req.branch); !branch_ok.ok()) {
    return branch_ok.status();
  }
  std::string dir;
  if (req.project_dir) {
    SKALD_ASSIGN_OR_RETURN(dir, TreePath(who, *req.project_dir, /*write=*/true));
  }
  SKALD_RETURN_IF_ERROR(s_.resolver->EnsureAccount(who));
  SKALD_ASSIGN_OR_RETURN(std::string source_oid,
                         ResolveCommit(account, req.source_commit, req.source_commit));
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> head, Head(account, req.branch));
  if (!head) {
    return Status::NotFound(fmt::format("Git ref not found: {}", req.source_commit))
        .WithDetail("resource", req.source_commit)
        .WithDetail("type", "git_ref");
  }
  SKALD_ASSIGN_OR_RETURN(Loaded source, Load(account, source_oid));
  SKALD_ASSIGN_OR_RETURN(Loaded current, Load(account, *head));
  const SnapshotTree wanted = Below(source.tree, dir);
  const SnapshotTree have = Below(current.tree, dir);
  if (!dir.empty() && wanted.empty()) {
    return Status::NotFound(fmt::format("Git ref not found: {} (it holds nothing at {})",
                                        req.source_commit, UriOfPath(dir)))
        .WithDetail("resource", req.source_commit)
        .WithDetail("type", "git_ref");
  }
  SnapshotRestoreResult result;
  for (const auto& [rel, oid] : wanted) {
    auto it = have.find(rel);
    if (it != have.end() && it->second == oid) {
      result.unchanged_paths.push_back(rel);
    } else {
      result.to_write.push_back({rel, oid});
    }
  }
  for (const auto& [rel, oid] : have) {
    if (!wanted.count(rel)) result.to_delete.push_back(rel);
  }
  if (req.dry_run) {
    result.result = "dry_run";
    result.head = *head;
    result.source = source_oid;
    return result;
  }
  if (result.to_write.empty() && result.to_delete.empty()) {
    SnapshotRestoreResult noop;
    noop.result = "noop";
    noop.head = *head;
    noop.source = source_oid;
    return noop;
  }
  // Who may write what is checked before the history moves.
  for (const auto* rel_list : {&result.to_delete}) {
    for (const std::string& rel : *rel_list) {
      Result<VikingUri> uri = VikingUri::Parse(UriOfPath(JoinTreePath(dir, rel)));
      if (uri.ok()) SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, *uri));
    }
  }
  for (const SnapshotRestoreResult::Write& w : result.to_write) {
    const std::string path = JoinTreePath(dir, w.path);
    if (path == kRestoreIgnorePath) continue;
    Result<VikingUri> uri = VikingUri::Parse(UriOfPath(path));
    if (!uri.ok()) return uri.status();
    SKALD_RETURN_IF_ERROR(CheckWriteAccess(who, *uri));
  }
  // The new commit: the head's tree with `dir` as the source has it.
  SnapshotTree tree;
  if (dir.empty()) {
    tree = source.tree;
  } else {
    tree = current.tree;
    for (const std::string& rel : result.to_delete) tree.erase(JoinTreePath(dir, rel));
    for (const auto& [rel, oid] : wanted) tree[JoinTreePath(dir, rel)] = oid;
  }
  const std::string message =
      req.message && !req.message->empty() ? *req.message
      : dir.empty() ? fmt::format("restore full tree from {}", source_oid.substr(0, 12))
                    : fmt::format("restore {} from {}", dir, source_oid.substr(0, 12));
  std::map<std::string, SnapshotObject> no_blobs;  // every blob is stored already
  SKALD_ASSIGN_OR_RETURN(std::string new_oid, Record(who, req.branch, head, tree, message,
                                                     req.author_name, req.author_email, &no_blobs));

  std::vector<std::pair<std::string, std::string>> writes;
  for (const SnapshotRestoreResult::Write& w : result.to_write) {
    writes.emplace_back(JoinTreePath(dir, w.path), w.oid);
  }
  std::vector<std::string> deletes;
  for (const std::string& rel : result.to_delete) deletes.push_back(JoinTreePath(dir, rel));
  std::vector<std::string> failed_writes, failed_deletes;
  SKALD_ASSIGN_OR_RETURN(std::string task_id,
                         WriteBack(who, dir, writes, deletes, &failed_writes, &failed_deletes));

  SnapshotRestoreResult applied;
  applied.result = "applied";
  applied.new_commit_oid = new_oid;
  applied.source_commit = source_oid;
  applied.parent_commit = *head;
  applied.unchanged = result.unchanged_paths.size();
  for (const auto& [path, oid] : writes) {
    if (std::find(failed_writes.begin(), failed_writes.end(), path) == failed_writes.end()) {
      applied.written_paths.push_back(path);
    }
  }
  for (const std::string& path : deletes) {
    if (std::find(failed_deletes.begin(), failed_deletes.end(), path) == failed_deletes.end()) {
      applied.deleted_paths.push_back(path);
    }
  }
  applied.written = applied.written_paths.size();
  applied.deleted = applied.deleted_paths.size();
  applied.task_id = task_id;
  if (!failed_writes.empty() || !failed_deletes.empty()) {
    // The history moved; some files could not follow.
    return Status::Internal(
               fmt::format("snapshot restore partial: {} of {} files not written, {} of {} "
                           "not deleted (the new commit {} is the branch's head)",
                           failed_writes.size(), writes.size(), failed_deletes.size(),
                           deletes.size(), new_oid))
        .WithReason("RESTORE_WRITEBACK_PARTIAL")
        .WithDetail("new_commit_oid", new_oid)
        .WithDetail("source_commit", source_oid)
        .WithDetail("parent_commit", *head)
        .WithDetail("written", std::to_string(applied.written))
        .WithDetail("deleted", std::to_string(applied.deleted))
        .WithDetail("failed_writes", Join(failed_writes, ","))
        .WithDetail("failed_deletes", Join(failed_deletes, ","))
        .WithDetail("task_id", task_id);
  }
  return applied;
}

Result<std::string> SnapshotOps::WriteBack(
    const Identity& who, std::string_view root,
    const std::vector<std::pair<std::string, std::string>>& writes,
    const std::vector<std::string>& deletes, std::vector<std::string>* failed_writes,
    std::vector<std::string>* failed_deletes) {
  const std::string& account = who.account;
  std::set<std::string> index_roots;
  {
    PathLockGuard guard;
    SKALD_RETURN_IF_ERROR(s_.locks->Acquire({{account, std::string(root), PathLockKind::kTree}},
                                            std::chrono::milliseconds(s_.lock_timeout_ms), &guard));
    for (const auto& [path, oid] : writes) {
      Status st = [&]() -> Status {
        SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> blob,
                               s_.catalog->GetSnapshotObject(account, oid));
        if (!blob) return Status::Corruption(fmt::format("snapshot blob {} is missing", oid));
        if (path == kRestoreIgnorePath) return s_.catalog->SetSnapshotIgnore(account, blob->data);
        SKALD_ASSIGN_OR_RETURN(VikingUri uri, VikingUri::Parse(UriOfPath(path)));
        SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> existing, s_.catalog->Get(account, path));
        if (existing && existing->is_dir) {
          return Status::FailedPrecondition(fmt::format("{} is a directory", uri.str()));
        }
        SKALD_RETURN_IF_ERROR(s_.nodes->EnsureDirectories(who, uri, /*include_self=*/false));
        SKALD_ASSIGN_OR_RETURN(CatalogNode stored,
                               s_.nodes->StoreFile(who, uri, blob->data, existing));
        (void)stored;
        return Status::Ok();
      }();
      if (!st.ok()) {
        spdlog::warn("snapshot restore: {} not written: {}", path, st.ToString());
        failed_writes->push_back(path);
        continue;
      }
      if (std::string r = IndexRootOf(path); !r.empty()) index_roots.insert(std::move(r));
    }
    for (const std::string& path : deletes) {
      Status st = [&]() -> Status {
        if (path == kRestoreIgnorePath) return s_.catalog->SetSnapshotIgnore(account, "");
        SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, s_.catalog->Get(account, path));
        if (!node) return Status::Ok();  // gone already
        if (node->is_dir) return Status::FailedPrecondition(fmt::format("{} is a directory", path));
        if (Status removed = s_.content->Remove(account, path); !removed.ok()) {
          return s_.nodes->NoteContentFailure(std::move(removed));
        }
        Status recorded = s_.catalog->Apply(account, {}, {path});
        if (!recorded.ok()) s_.nodes->MarkNeedsRecovery();
        return recorded;
      }();
      if (!st.ok()) {
        spdlog::warn("snapshot restore: {} not deleted: {}", path, st.ToString());
        failed_deletes->push_back(path);
        continue;
      }
      if (std::string r = IndexRootOf(path); !r.empty()) index_roots.insert(std::move(r));
      // Directories the delete left empty go too (a snapshot holds files
      // only), up to the restored directory.
      for (std::string_view dir = ParentPath(path); !dir.empty() && dir.size() > root.size();
           dir = ParentPath(dir)) {
        SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> children,
                               s_.catalog->ListChildren(account, dir));
        if (!children.empty() ||
            NamespaceRootDepth(dir) == static_cast<int>(PathSegments(dir).size())) {
          break;
        }
        if (!s_.content->Remove(account, dir).ok()) break;
        if (!s_.catalog->Apply(account, {}, {std::string(dir)}).ok()) {
          s_.nodes->MarkNeedsRecovery();
          break;
        }
      }
    }
  }
  // The deletes reach the indexes now (their records are gone from the
  // catalog already, so search cannot return them meanwhile).
  if (Status caught_up = s_.indexes->CatchUpIndexes(); !caught_up.ok()) {
    spdlog::warn("snapshot restore: the indexes will apply it later: {}", caught_up.ToString());
  }
  if (!s_.indexing) return std::string();
  // What was written is summarized and embedded again; roots whose tree is
  // gone only refresh the summaries above them.
  std::string task_id;
  for (const std::string& r : index_roots) {
    std::optional<JobSpec> job =
        IndexJobFor(who, r, JobKind::kSnapshotRestoreReindex, kJobPriorityInteractive);
    if (!job) continue;
    SKALD_ASSIGN_OR_RETURN(Job queued, s_.runner->queue()->Enqueue(*job));
    if (task_id.empty()) task_id = queued.task_id;
  }
  return task_id;
}

}  // namespace skald
