#pragma once

// SnapshotOps: OpenViking's git-style snapshots of an account's files
// (reference §2.11, internals §5.5; the routes /api/v1/snapshot/*).
//
// Each account has one history (shared by its users), stored in the catalog
// as content-addressed objects (storage/snapshot_objects.h) and branches
// ("main" by default; a branch starts with its first commit, from an empty
// tree).
//   Commit   records the current files — of the whole account (ROOT only),
//            or of the given URIs on top of the branch's last commit — as a
//            new commit; nothing changed: no commit ("noop"). Left out:
//            internal trees (_system, tasks, temp, queue, upload), lock and
//            index files, and what the account's .ovgitignore names
//            (uri/ignore_rules.h; the file itself is always recorded, at
//            the tree path ".ovgitignore"). Sidecars (.abstract.md,
//            .overview.md, .relations.json) are files like any other.
//   Log      walks a branch newest first along first parents, optionally
//            only commits that changed given URIs.
//   Show     a commit's metadata (ROOT only), or one file's bytes in it.
//   Diff     one file between two commits, as a unified diff.
//   Restore  makes a directory (or, for ROOT, the whole account) as it was
//            in a commit: a new commit on the branch when its tree changes
//            (the old head its parent; history is never rewritten), then the
//            files that differ from the commit deleted and written back, and
//            snapshot_restore_reindex tasks that re-index what was written.
// Roles follow OpenViking: callers other than ROOT must name the paths of
// commit and log and the directory of restore, need read access to what
// they read and write access to what they commit or restore, and cannot
// show a commit's metadata; the ignore rules are ROOT's and ADMIN's.
//
// Thread safety: safe for concurrent use. Two commits to one branch race
// on its head; the loser gets Conflict (409) and may retry. A commit reads
// files one by one without locking the tree: a file written meanwhile is
// recorded as it was when read. Restores of one account run one at a time
// (each reads and rewrites what they left to do). A restore's write-back
// holds a tree lock on the restored directory (the whole account for a full
// restore), so other writers there wait or time out meanwhile.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/env.h"
#include "ingest/index_catch_up.h"
#include "service/uri_resolver.h"
#include "skald/snapshot.h"
#include "skald/types.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/job_runner.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"
#include "storage/snapshot_objects.h"
#include "uri/ignore_rules.h"

namespace skald {

struct SnapshotOpsServices {
  Env* env = nullptr;
  UriResolver* resolver = nullptr;
  Catalog* catalog = nullptr;
  ContentStore* content = nullptr;
  NodeWriter* nodes = nullptr;
  IndexCatchUp* indexes = nullptr;
  PathLockManager* locks = nullptr;
  JobRunner* runner = nullptr;
  bool indexing = false;  // false without an embedder: no re-indexing task
  int lock_timeout_ms = 5000;
};

class SnapshotOps {
 public:
  explicit SnapshotOps(SnapshotOpsServices services) : s_(services) {}

  // A commit of the request's paths (nullopt both: the whole account, ROOT
  // only) on top of the branch's head; no commit when nothing changed.
  // Entries below a path that `who` cannot see are kept as the head has
  // them. InvalidArgument for a bad branch, over 1,000 paths or an
  // oversized message; PermissionDenied for a path `who` may not write;
  // Conflict when another commit moved the branch meanwhile.
  Result<SnapshotCommitResult> Commit(const Identity& who, const SnapshotCommitRequest& request);
  // The branch's commits, newest first along first parents; with paths,
  // those that changed what `who` can see below them (PermissionDenied for
  // a path with parts `who` cannot read, such as viking://user for a USER).
  // NotFound (type git_ref) for a branch without commits.
  Result<std::vector<SnapshotCommitInfo>> Log(const Identity& who,
                                              const SnapshotLogRequest& request);
  // A commit's metadata (ROOT only).
  Result<SnapshotCommitInfo> Show(const Identity& who, std::string_view ref);
  // The bytes of `uri` in the commit `ref`; with !raw, only UTF-8 text, and a
  // memory without its provenance header. NotFound (git_blob) when the
  // commit has no such file or its bytes were erased with their user.
  Result<SnapshotBlobContent> ShowFile(const Identity& who, std::string_view ref,
                                       std::string_view uri, bool raw);
  // `from` "" = an empty "before".
  Result<SnapshotDiffResult> Diff(const Identity& who, std::string_view uri, std::string_view from,
                                  std::string_view to);
  // Makes `project_dir` (nullopt: the whole account, ROOT only) as the
  // source commit has it. The plan applies what differs between the head
  // and the source (ignored files aside), plus what an earlier restore left
  // undone there (a crash, a failed file: recorded with each file's state
  // before the branch moved, until the files followed) where the source
  // agrees and the file is still in that state; work nobody committed
  // stays. The branch moves (a forward commit) only when its tree changes.
  // Every file to write or delete is access-checked before anything moves
  // (a dry run too). Files that fail are listed in the result's failed_*
  // fields and stay pending.
  Result<SnapshotRestoreResult> Restore(const Identity& who, const SnapshotRestoreRequest& request);

  // The mutex that lets one restore of `account` run at a time; held by
  // whoever must not run beside one (a user's deletion).
  std::shared_ptr<std::mutex> RestoreMutex(std::string_view account);

  // Takes the bytes of every blob that only `prefix` (an account path such
  // as "user/bo") references out of the account's history: the trees keep
  // the names, show and diff answer NotFound, restore leaves them out, and
  // what restores left to do below `prefix` is forgotten. Returns how many
  // blobs were erased. Used when a user is deleted.
  // REQUIRES: RestoreMutex(account) held.
  Result<uint64_t> EraseBlobsOnlyUnder(std::string_view account, std::string_view prefix);

  Result<std::string> GetIgnore(const Identity& who);
  // "" deletes the rules.
  Status SetIgnore(const Identity& who, std::string_view content);

 private:
  // A commit read back, with its tree.
  struct Loaded {
    std::string oid;
    SnapshotCommit commit;
    SnapshotTree tree;
  };
  // The commit `ref` names (id, unique prefix, branch or refs/...):
  // NotFound (resource `not_found_as`, type git_ref) when none.
  Result<std::string> ResolveCommit(std::string_view account, std::string_view ref,
                                    std::string_view not_found_as);
  // The commit `oid`, with its tree unless !with_tree (tree left empty).
  Result<Loaded> Load(std::string_view account, std::string_view oid, bool with_tree = true);
  // The branch's head, or nullopt.
  Result<std::optional<std::string>> Head(std::string_view account, std::string_view branch);
  enum class PathAccess {
    kReadAll,  // read access to the URI and everything below it
    kWrite,    // write access to the URI
  };
  // The account-relative path of a caller's URI inside snapshots, after the
  // access check. InvalidArgument for the account root and for paths
  // snapshots never hold.
  Result<std::string> TreePath(const Identity& who, std::string_view uri, PathAccess access);
  // Adds the current files at or below `path` to `tree` (kept out: internal
  // paths, invisible ones, and those `rules` ignore, counted in *ignored).
  // New blobs go to `blobs`.
  Status AddCurrentFiles(const Identity& who, std::string_view path, const IgnoreRules& rules,
                         SnapshotTree* tree, uint64_t* ignored,
                         std::map<std::string, SnapshotObject>* blobs);
  // The blob of the file `node` (stored already, or read now into `blobs`).
  Result<std::optional<std::string>> BlobOf(std::string_view account, const CatalogNode& node,
                                            std::map<std::string, SnapshotObject>* blobs);
  // Stores `blobs` and a commit of `tree` on `branch` (whose head was
  // `head`); returns the commit's id.
  Result<std::string> Record(const Identity& who, std::string_view branch,
                             const std::optional<std::string>& head, const SnapshotTree& tree,
                             std::string_view message, const std::optional<std::string>& name,
                             const std::optional<std::string>& email,
                             std::map<std::string, SnapshotObject>* blobs);
  // The files at or below `dir` that a restore compares with the source:
  // path relative to `dir` -> the id of a stored blob with the same bytes
  // ("" when none has them); a file at `dir` itself is keyed "". Left out:
  // what `who` cannot see, what `rules` ignore, paths snapshots never hold.
  // For the whole account, the .ovgitignore too.
  // `states`, when given, gets each file's content hash ("?" when unknown).
  Result<SnapshotTree> WorkspaceBlobs(const Identity& who, std::string_view dir,
                                      const IgnoreRules& rules, SnapshotTree* states = nullptr);
  struct WriteBackPlan {
    std::vector<std::pair<std::string, std::string>> writes;  // account path -> blob id
    std::vector<std::string> deletes;                         // account paths
    // Files changed only if still in this state (FileState) under the lock.
    std::map<std::string, std::string> expect;
  };
  struct WriteBackResult {
    std::vector<std::string> written, deleted, failed_writes, failed_deletes;
    std::string task_id;  // the re-indexing task of the first file written; "" when none
  };
  // Restore's write-back under a tree lock on `root`: the deletes (with the
  // directories they leave empty), then the writes, then one re-indexing
  // task per namespace child written. A file that fails is listed and the
  // rest go on; a blob erased with its user is left out.
  Result<WriteBackResult> WriteBack(const Identity& who, std::string_view root,
                                    const WriteBackPlan& plan);
  Status DeleteForRestore(const Identity& who, std::string_view root, const std::string& path);
  // false when the blob was erased (nothing written).
  Result<bool> WriteForRestore(const Identity& who, const std::string& path,
                               const std::string& oid);

  // The state a restore records of the file at `path`: its content hash
  // ("?" when unknown; the .ovgitignore's blob id), "" when there is none.
  Result<std::string> FileState(std::string_view account, const std::string& path);
  // Forgets what restores left to do at or below `prefix` (a deleted user's
  // space: a new user of the same id starts with nothing pending).
  // REQUIRES: RestoreMutex(account) held.
  Status DropPendingUnder(std::string_view account, std::string_view prefix);

  SnapshotOpsServices s_;
  std::mutex restore_mu_;  // guards restoring_
  std::map<std::string, std::shared_ptr<std::mutex>> restoring_;  // account -> its restores' mutex
};

}  // namespace skald
