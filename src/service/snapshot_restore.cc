// Snapshot restore (snapshot_ops.h): a forward commit, then the write-back.

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "common/json_util.h"
#include "ingest/ingest_jobs.h"
#include "ingest/sidecar.h"
#include "service/snapshot_ops.h"
#include "service/snapshot_rules.h"
#include "uri/access.h"
#include "uri/uri_path.h"
#include "uri/viking_uri.h"

namespace skald {
namespace {

// The path at which a re-index of `path` starts: the child of its namespace
// root on the way to it (the root's summary follows from its children), or
// "" for a path that is never indexed or is a sidecar of the root itself
// (restored as it was; nothing below it changed).
std::string IndexRootOf(std::string_view path) {
  const int depth = NamespaceRootDepth(path);
  if (depth == 0) return "";
  std::vector<std::string_view> segs = PathSegments(path);
  if (static_cast<int>(segs.size()) <= depth || segs[depth].starts_with('.')) return "";
  std::string root;
  for (int i = 0; i <= depth; ++i) root = JoinPath(root, segs[i]);
  return root;
}

// Fails closed: a path that is no URI is refused like one the caller may
// not write.
Status CheckWritable(const Identity& who, std::string_view path) {
  if (path == kSnapshotIgnorePath) return Status::Ok();  // ROOT's whole restore only
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, VikingUri::Parse(UriOfPath(path)));
  return CheckWriteAccess(who, uri);
}

// What restores of an account have yet to do, each file with the state it
// was in when the restore planned it (its content hash; "" when missing,
// "?" when its hash is unknown): only a file still in that state is
// changed later, so work done on it since is never overwritten. Kept in the
// catalog's metadata from before a restore moves its branch until the
// files followed.
constexpr std::string_view kUnknownState = "?";
struct PendingOp {
  std::string oid;  // the blob to write; "" for a delete
  std::string was;
};
using PendingRestore = std::map<std::string, PendingOp>;  // account path -> op

// The state recorded of a file node: its content hash, or "?".
std::string StateOf(const CatalogNode& node) {
  return node.hash.empty() ? std::string(kUnknownState) : node.hash;
}

std::string PendingRestoreKey(std::string_view account) {
  return fmt::format("{}{}/pending", kSnapshotPendingMetaPrefix, account);
}

// A record that does not parse is dropped with a warning (what it held is
// then left as it is, like work nobody committed).
Result<PendingRestore> LoadPendingRestore(Catalog& catalog, const std::string& key) {
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> text, catalog.GetMeta(key));
  PendingRestore out;
  if (!text || text->empty()) return out;
  try {
    const Json j = Json::parse(*text);
    for (const auto& [path, op] : j.items()) {
      out.emplace(path,
                  PendingOp{op.at("oid").get<std::string>(), op.at("was").get<std::string>()});
    }
  } catch (const Json::exception& e) {
    spdlog::warn("snapshot restore: the pending record {} is unreadable ({}); dropped", key,
                 e.what());
    return PendingRestore{};
  }
  return out;
}

Status SavePendingRestore(Catalog* catalog, const std::string& key,
                          const PendingRestore& pending) {
  if (pending.empty()) return catalog->SetMeta(key, "");
  Json j = Json::object();
  for (const auto& [path, op] : pending) j[path] = Json{{"oid", op.oid}, {"was", op.was}};
  return catalog->SetMeta(key, DumpJson(j));
}

}  // namespace

Result<SnapshotTree> SnapshotOps::WorkspaceBlobs(const Identity& who, std::string_view dir,
                                                 const IgnoreRules& rules, SnapshotTree* states) {
  const std::string& account = who.account;
  SnapshotTree out;
  SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> nodes, s_.catalog->ListSubtree(account, dir, 0));
  if (!dir.empty()) {
    SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> self, s_.catalog->Get(account, dir));
    if (self && !self->is_dir) nodes.push_back(std::move(*self));
  }
  for (const CatalogNode& node : nodes) {
    if (node.is_dir || NeverInSnapshots(node.path) || rules.Ignored(node.path) ||
        !VisibleTo(who, node.path)) {
      continue;
    }
    // A file whose bytes no stored blob has differs from every commit ("").
    std::optional<std::string> oid;
    if (!node.hash.empty()) {
      SKALD_ASSIGN_OR_RETURN(oid, s_.catalog->FindSnapshotBlob(account, node.hash));
    }
    // (A file at `dir` itself is keyed "".)
    std::string rel = RelativeTo(node.path, dir);
    if (states) states->emplace(rel, StateOf(node));
    out.emplace(std::move(rel), oid.value_or(""));
  }
  if (dir.empty()) {
    SKALD_ASSIGN_OR_RETURN(std::string ignore_text, s_.catalog->GetSnapshotIgnore(account));
    if (!ignore_text.empty()) {
      std::string oid = SnapshotBlob(ignore_text, "").oid;
      if (states) states->emplace(kSnapshotIgnorePath, oid);  // its state: its blob id (FileState)
      out.emplace(kSnapshotIgnorePath, std::move(oid));
    }
  }
  return out;
}

Result<SnapshotRestoreResult> SnapshotOps::Restore(const Identity& who,
                                                   const SnapshotRestoreRequest& request) {
  const std::string& account = who.account;
  const SnapshotRestoreRequest& req = request;
  SKALD_RETURN_IF_ERROR(CheckBranch(req.branch));
  SKALD_RETURN_IF_ERROR(
      CheckCommitText(req.message.value_or(""), req.author_name, req.author_email));
  const bool whole = !req.project_dir || req.project_dir->empty();
  if (whole && who.role != Role::kRoot) {
    return Status::PermissionDenied("Snapshot restore requires an explicit project_dir")
        .WithDetail("resource", "viking://");
  }
  std::string dir;
  if (!whole) {
    SKALD_ASSIGN_OR_RETURN(dir, TreePath(who, *req.project_dir, PathAccess::kWrite));
  }
  SKALD_RETURN_IF_ERROR(s_.resolver->EnsureAccount(who));
  // One restore of an account at a time: each reads and replaces its
  // pending files.
  std::shared_ptr<std::mutex> account_mu = RestoreMutex(account);
  std::lock_guard<std::mutex> restoring(*account_mu);
  SKALD_ASSIGN_OR_RETURN(std::string source_oid,
                         ResolveCommit(account, req.source_commit, req.source_commit));
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> head, Head(account, req.branch));
  if (!head) return RefNotFound(req.source_commit);
  SKALD_ASSIGN_OR_RETURN(Loaded source, Load(account, source_oid));
  SKALD_ASSIGN_OR_RETURN(Loaded current, Load(account, *head));
  // What the source holds below `dir` that the caller can see (what it
  // cannot see stays as it is; a file at `dir` itself is no directory).
  SnapshotTree wanted;
  for (auto& [rel, oid] : SnapshotSubtree(source.tree, dir)) {
    if ((!rel.empty() || dir.empty()) && VisibleTo(who, JoinTreePath(dir, rel))) {
      wanted.emplace(rel, oid);
    }
  }
  if (!dir.empty() && wanted.empty()) {
    return Status::NotFound(fmt::format("Git ref not found: {} (it holds no directory {})",
                                        req.source_commit, UriOfPath(dir)))
        .WithDetail("resource", req.source_commit)
        .WithDetail("type", "git_ref");
  }
  // The plan applies what differs between the head and the source (as
  // OpenViking does), and what an earlier restore that was cut short (a
  // crash, a failed file) left to do here, where the source agrees and the
  // file is still as that restore found it. Left alone: files the caller
  // cannot see, ignored files and internal ones; files whose bytes were
  // erased with their user are left out.
  SKALD_ASSIGN_OR_RETURN(std::string ignore_text, s_.catalog->GetSnapshotIgnore(account));
  SKALD_ASSIGN_OR_RETURN(IgnoreRules rules, IgnoreRules::Parse(ignore_text));
  SnapshotTree states;  // rel -> content hash of each file on disk
  SKALD_ASSIGN_OR_RETURN(SnapshotTree on_disk, WorkspaceBlobs(who, dir, rules, &states));
  auto state_of = [&](const std::string& rel) {
    auto it = states.find(rel);
    return it == states.end() ? std::string() : it->second;
  };
  const SnapshotTree at_head = SnapshotSubtree(current.tree, dir);
  const std::string pending_key = PendingRestoreKey(account);
  SKALD_ASSIGN_OR_RETURN(PendingRestore pending, LoadPendingRestore(*s_.catalog, pending_key));
  // The pending files this restore takes over (keyed relative to `dir`);
  // the others stay pending.
  PendingRestore carried, here;
  for (const auto& [path, op] : pending) {
    if (!PathAtOrBelow(path, dir) || !VisibleTo(who, path)) {
      carried.emplace(path, op);
      continue;
    }
    here.emplace(RelativeTo(path, dir), op);
  }
  // Whether the pending op at `rel` still applies: the source wants what it
  // does (`oid`, "" for a delete) and the file is as the op found it.
  auto still_pending = [&](const std::string& rel, const std::string& oid) {
    auto it = here.find(rel);
    return it != here.end() && it->second.oid == oid && it->second.was != kUnknownState &&
           state_of(rel) == it->second.was;
  };
  auto ignored = [&](const std::string& rel) { return rules.Ignored(JoinTreePath(dir, rel)); };
  // What only a pending op asks for (account path -> the state it needs):
  // done only if the file is still in that state once the tree is locked
  // (a write may land meanwhile).
  std::map<std::string, std::string> only_pending;
  SnapshotRestoreResult plan;
  for (const auto& [rel, oid] : wanted) {
    auto head_it = at_head.find(rel);
    bool write = head_it == at_head.end() || head_it->second != oid;
    if (!write) {
      auto disk_it = on_disk.find(rel);
      write = still_pending(rel, oid) && (disk_it == on_disk.end() || disk_it->second != oid);
      if (write && !ignored(rel)) only_pending.emplace(JoinTreePath(dir, rel), here.at(rel).was);
    }
    if (!write || ignored(rel)) {
      plan.unchanged_paths.push_back(rel);
      continue;
    }
    SKALD_ASSIGN_OR_RETURN(bool stored, s_.catalog->HasSnapshotObject(account, oid));
    if (stored) plan.to_write.push_back({rel, oid});
  }
  std::set<std::string> doomed;  // in order
  for (const auto& [rel, oid] : at_head) {
    if (!wanted.count(rel) && !ignored(rel) && VisibleTo(who, JoinTreePath(dir, rel))) {
      doomed.insert(rel);
    }
  }
  for (const auto& [rel, op] : here) {
    if (!wanted.count(rel) && !op.was.empty() && still_pending(rel, "") &&
        doomed.insert(rel).second) {
      only_pending.emplace(JoinTreePath(dir, rel), op.was);
    }
  }
  plan.to_delete.assign(doomed.begin(), doomed.end());
  // Who may write what is checked before the history moves (and before a
  // dry run answers, which would otherwise name what the caller may not
  // change).
  for (const std::string& rel : plan.to_delete) {
    SKALD_RETURN_IF_ERROR(CheckWritable(who, JoinTreePath(dir, rel)));
  }
  for (const SnapshotRestoreResult::Write& w : plan.to_write) {
    SKALD_RETURN_IF_ERROR(CheckWritable(who, JoinTreePath(dir, w.path)));
  }
  plan.head = *head;
  plan.source = source_oid;
  if (req.dry_run) {
    plan.outcome = SnapshotRestoreOutcome::kDryRun;
    return plan;
  }
  // The new commit: the head's tree with what the caller sees of `dir` as
  // the source has it.
  SnapshotTree tree = current.tree;
  EraseVisibleSubtree(who, dir, &tree);
  for (const auto& [rel, oid] : wanted) tree[JoinTreePath(dir, rel)] = oid;
  const bool moves = tree != current.tree;
  if (!moves && plan.to_write.empty() && plan.to_delete.empty()) {
    // What was pending here is done, or no longer wanted, or changed since.
    if (!here.empty()) SKALD_RETURN_IF_ERROR(SavePendingRestore(s_.catalog, pending_key, carried));
    plan.outcome = SnapshotRestoreOutcome::kNoop;
    plan.unchanged_paths.clear();
    return plan;
  }
  // Everything this restore will change is pending before the branch
  // moves, so a crash in between leaves the next restore of the branch
  // something to finish.
  PendingRestore to_do = carried;
  for (const SnapshotRestoreResult::Write& w : plan.to_write) {
    to_do[JoinTreePath(dir, w.path)] = {w.oid, state_of(w.path)};
  }
  for (const std::string& rel : plan.to_delete) {
    to_do[JoinTreePath(dir, rel)] = {"", state_of(rel)};
  }
  SKALD_RETURN_IF_ERROR(SavePendingRestore(s_.catalog, pending_key, to_do));
  std::string new_oid = *head;  // the files only catch up with the head
  if (moves) {
    const std::string message =
        req.message && !req.message->empty() ? *req.message
        : dir.empty() ? fmt::format("restore full tree from {}", source_oid.substr(0, 12))
                      : fmt::format("restore {} from {}", dir, source_oid.substr(0, 12));
    std::map<std::string, SnapshotObject> no_blobs;  // every blob is stored already
    Result<std::string> recorded = Record(who, req.branch, head, tree, message, req.author_name,
                                          req.author_email, &no_blobs);
    if (!recorded.ok()) {
      if (Status kept = SavePendingRestore(s_.catalog, pending_key, pending); !kept.ok()) {
        spdlog::warn("snapshot restore: pending files not put back: {}", kept.ToString());
      }
      return recorded.status();
    }
    new_oid = std::move(*recorded);
  }

  WriteBackPlan files;
  for (const SnapshotRestoreResult::Write& w : plan.to_write) {
    files.writes.emplace_back(JoinTreePath(dir, w.path), w.oid);
  }
  for (const std::string& rel : plan.to_delete) files.deletes.push_back(JoinTreePath(dir, rel));
  files.expect = std::move(only_pending);
  SKALD_ASSIGN_OR_RETURN(WriteBackResult done, WriteBack(who, dir, files));
  // What failed stays pending (with what was pending elsewhere). The files
  // are written either way: a record not saved now only leaves the next
  // restore some ops that find their files changed and drop them.
  PendingRestore left = std::move(carried);
  for (const std::string& path : done.failed_writes) left[path] = to_do[path];
  for (const std::string& path : done.failed_deletes) left[path] = to_do[path];
  if (Status saved = SavePendingRestore(s_.catalog, pending_key, left); !saved.ok()) {
    spdlog::warn("snapshot restore: what is left to do was not recorded: {}", saved.ToString());
  }

  SnapshotRestoreResult applied;
  applied.outcome = SnapshotRestoreOutcome::kApplied;
  applied.new_commit_oid = new_oid;
  applied.source_commit = source_oid;
  applied.parent_commit = *head;
  applied.unchanged = plan.unchanged_paths.size();
  applied.written_paths = std::move(done.written);
  applied.deleted_paths = std::move(done.deleted);
  applied.failed_writes = std::move(done.failed_writes);
  applied.failed_deletes = std::move(done.failed_deletes);
  applied.written = applied.written_paths.size();
  applied.deleted = applied.deleted_paths.size();
  applied.task_id = std::move(done.task_id);
  if (!applied.failed_writes.empty() || !applied.failed_deletes.empty()) {
    spdlog::warn("snapshot restore {} -> {}: {} of {} files not written, {} of {} not deleted",
                 source_oid, new_oid, applied.failed_writes.size(), files.writes.size(),
                 applied.failed_deletes.size(), files.deletes.size());
  }
  return applied;
}

Result<std::string> SnapshotOps::FileState(std::string_view account, const std::string& path) {
  if (path == kSnapshotIgnorePath) {
    SKALD_ASSIGN_OR_RETURN(std::string text, s_.catalog->GetSnapshotIgnore(account));
    return text.empty() ? std::string() : SnapshotBlob(text, "").oid;
  }
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, s_.catalog->Get(account, path));
  if (!node || node->is_dir) return std::string();
  return StateOf(*node);
}

std::shared_ptr<std::mutex> SnapshotOps::RestoreMutex(std::string_view account) {
  std::lock_guard<std::mutex> lock(restore_mu_);
  std::shared_ptr<std::mutex>& mu = restoring_[std::string(account)];
  if (!mu) mu = std::make_shared<std::mutex>();
  return mu;
}

Status SnapshotOps::DropPendingUnder(std::string_view account, std::string_view prefix) {
  const std::string key = PendingRestoreKey(account);
  SKALD_ASSIGN_OR_RETURN(PendingRestore pending, LoadPendingRestore(*s_.catalog, key));
  const size_t before = pending.size();
  std::erase_if(pending, [&](const auto& entry) { return PathAtOrBelow(entry.first, prefix); });
  if (pending.size() == before) return Status::Ok();
  return SavePendingRestore(s_.catalog, key, pending);
}

Status SnapshotOps::DeleteForRestore(const Identity& who, std::string_view root,
                                     const std::string& path) {
  const std::string& account = who.account;
  if (path == kSnapshotIgnorePath) return s_.catalog->SetSnapshotIgnore(account, "");
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, s_.catalog->Get(account, path));
  // Gone already; or a directory stands there now (the file is gone, and
  // what the directory holds is not the restore's to delete).
  if (!node || node->is_dir) return Status::Ok();
  if (Status removed = s_.content->Remove(account, path); !removed.ok()) {
    return s_.nodes->NoteContentFailure(std::move(removed));
  }
  if (Status recorded = s_.catalog->Apply(account, {}, {path}); !recorded.ok()) {
    s_.nodes->MarkNeedsRecovery();
    return recorded;
  }
  // Directories the delete left empty go too (a snapshot holds files only),
  // up to the restored directory and never a namespace root.
  for (std::string_view dir = ParentPath(path); !dir.empty() && dir.size() > root.size();
       dir = ParentPath(dir)) {
    SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> children,
                           s_.catalog->ListChildren(account, dir));
    // Summaries alone do not keep a directory: they summarize nothing now.
    const bool only_summaries =
        std::all_of(children.begin(), children.end(), [](const CatalogNode& child) {
          return !child.is_dir && IsSidecarName(BaseName(child.path));
        });
    // Never a scope, a user's space or an agent tree, nor a namespace root.
    const std::vector<std::string_view> segs = PathSegments(dir);
    const int depth = static_cast<int>(segs.size());
    const bool space = depth == 2 && (segs[0] == "user" || segs[0] == "agent");
    if (!only_summaries || depth == 1 || space || NamespaceRootDepth(dir) == depth) break;
    std::vector<std::string> gone;
    for (const CatalogNode& child : children) {
      if (!s_.content->Remove(account, child.path).ok()) break;
      gone.push_back(child.path);
    }
    const bool emptied = gone.size() == children.size() && s_.content->Remove(account, dir).ok();
    if (emptied) gone.emplace_back(dir);
    if (!gone.empty() && !s_.catalog->Apply(account, {}, gone).ok()) {
      s_.nodes->MarkNeedsRecovery();
      break;
    }
    if (!emptied) break;
  }
  return Status::Ok();
}

Result<bool> SnapshotOps::WriteForRestore(const Identity& who, const std::string& path,
                                          const std::string& oid) {
  const std::string& account = who.account;
  SKALD_ASSIGN_OR_RETURN(std::optional<SnapshotObject> blob,
                         s_.catalog->GetSnapshotObject(account, oid));
  if (!blob) return false;  // erased with its user: not brought back
  if (path == kSnapshotIgnorePath) {
    SKALD_RETURN_IF_ERROR(s_.catalog->SetSnapshotIgnore(account, blob->data));
    return true;
  }
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, VikingUri::Parse(UriOfPath(path)));
  SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> existing, s_.catalog->Get(account, path));
  if (existing && existing->is_dir) {
    // A directory that holds no file (summaries at most) gives way.
    SKALD_ASSIGN_OR_RETURN(std::vector<CatalogNode> below,
                           s_.catalog->ListSubtree(account, path, 0));
    const bool holds_files = std::any_of(below.begin(), below.end(), [](const CatalogNode& n) {
      return !n.is_dir && !IsSidecarName(BaseName(n.path));
    });
    if (holds_files) {
      return Status::FailedPrecondition(fmt::format("{} is a directory", uri.str()));
    }
    // Deepest first: files, then their directories.
    std::sort(below.begin(), below.end(), [](const CatalogNode& a, const CatalogNode& b) {
      return a.path.size() > b.path.size();
    });
    for (const CatalogNode& n : below) {
      if (n.path == path) continue;
      if (Status removed = s_.content->Remove(account, n.path); !removed.ok()) {
        return s_.nodes->NoteContentFailure(std::move(removed));
      }
    }
    if (Status removed = s_.content->Remove(account, path); !removed.ok()) {
      return s_.nodes->NoteContentFailure(std::move(removed));
    }
    if (Status recorded = s_.catalog->Apply(account, {}, {path}); !recorded.ok()) {
      s_.nodes->MarkNeedsRecovery();
      return recorded;
    }
    existing.reset();
  }
  SKALD_RETURN_IF_ERROR(s_.nodes->EnsureDirectories(who, uri, /*include_self=*/false));
  SKALD_ASSIGN_OR_RETURN(CatalogNode stored, s_.nodes->StoreFile(who, uri, blob->data, existing));
  (void)stored;
  return true;
}

Result<SnapshotOps::WriteBackResult> SnapshotOps::WriteBack(const Identity& who,
                                                            std::string_view root,
                                                            const WriteBackPlan& plan) {
  const std::string& account = who.account;
  WriteBackResult out;
  std::map<std::string, std::string> index_roots;  // root -> its task id
  std::string first_root;                          // of the first file written
  {
    PathLockGuard guard;
    if (Status locked = s_.locks->Acquire({{account, std::string(root), PathLockKind::kTree}},
                                          std::chrono::milliseconds(s_.lock_timeout_ms), &guard);
        !locked.ok()) {
      // The branch moved already: every file failed (and stays pending).
      spdlog::warn("snapshot restore: {} not locked: {}", root, locked.ToString());
      for (const auto& [path, oid] : plan.writes) out.failed_writes.push_back(path);
      out.failed_deletes = plan.deletes;
      return out;
    }
    // Whether a file a pending op alone asks for is no longer as that op
    // found it (then it is left as it is).
    auto changed_since = [&](const std::string& path) -> Result<bool> {
      auto it = plan.expect.find(path);
      if (it == plan.expect.end()) return false;
      SKALD_ASSIGN_OR_RETURN(std::string state, FileState(account, path));
      if (state == it->second) return false;
      spdlog::info("snapshot restore: {} changed since a restore left it pending; left as it is",
                   path);
      return true;
    };
    // Deletes first: a file that replaces a directory of the same name (or
    // the reverse) finds its place free.
    for (const std::string& path : plan.deletes) {
      Result<bool> changed = changed_since(path);
      if (changed.ok() && *changed) continue;
      if (Status st = changed.ok() ? DeleteForRestore(who, root, path) : changed.status();
          !st.ok()) {
        spdlog::warn("snapshot restore: {} not deleted: {}", path, st.ToString());
        out.failed_deletes.push_back(path);
        continue;
      }
      out.deleted.push_back(path);
      if (std::string r = IndexRootOf(path); !r.empty()) index_roots.emplace(std::move(r), "");
    }
    for (const auto& [path, oid] : plan.writes) {
      Result<bool> changed = changed_since(path);
      if (changed.ok() && *changed) continue;
      Result<bool> written = changed.ok() ? WriteForRestore(who, path, oid) : changed.status();
      if (!written.ok()) {
        spdlog::warn("snapshot restore: {} not written: {}", path, written.status().ToString());
        out.failed_writes.push_back(path);
        continue;
      }
      if (!*written) {
        spdlog::info("snapshot restore: {} left out (its bytes were erased)", path);
        continue;
      }
      out.written.push_back(path);
      if (std::string r = IndexRootOf(path); !r.empty()) {
        if (first_root.empty()) first_root = r;
        index_roots.emplace(std::move(r), "");
      }
    }
  }
  // The deletes reach the indexes now (their records are gone from the
  // catalog already, so search cannot return them meanwhile).
  if (Status caught_up = s_.indexes->CatchUpIndexes(); !caught_up.ok()) {
    spdlog::warn("snapshot restore: the indexes will apply it later: {}", caught_up.ToString());
  }
  if (!s_.indexing) return out;
  // What was written is summarized and embedded again; roots whose tree is
  // gone only refresh the summaries above them. The answer names the task
  // of the first file written (else the first one queued).
  for (auto& [r, task_id] : index_roots) {
    std::optional<JobSpec> job =
        IndexJobFor(who, r, JobKind::kSnapshotRestoreReindex, kJobPriorityInteractive);
    if (!job) continue;
    Result<Job> queued = s_.runner->queue()->Enqueue(*job);
    if (!queued.ok()) {  // the files are written: the next index pass finds them
      spdlog::warn("snapshot restore: re-index of {} not queued: {}", r,
                   queued.status().ToString());
      continue;
    }
    task_id = queued->task_id;
    if (out.task_id.empty()) out.task_id = task_id;
  }
  if (auto it = index_roots.find(first_root); it != index_roots.end() && !it->second.empty()) {
    out.task_id = it->second;
  }
  return out;
}

}  // namespace skald
