#pragma once

// DbImpl: the Db facade over the storage module. Operations are split by
// kind across db_open.cc (lifecycle, recovery, fsck), fs_read.cc,
// fs_write.cc and fs_search.cc.
//
// Thread safety: as Db. Writers take path locks (PathLockManager) for the
// nodes they change; readers take none and rely on atomic renames in the
// content store and SQLite snapshots in the catalog.

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "skald/db.h"
#include "index/lexical_index.h"
#include "index/vector_index_set.h"
#include "ingest/semantic_indexer.h"
#include "retrieve/retriever.h"
#include "storage/catalog.h"
#include "storage/job_queue.h"
#include "text/summarizer.h"
#include "common/env.h"
#include "storage/content_store.h"
#include "storage/disk_reserve.h"
#include "storage/path_lock.h"
#include "storage/reconcile.h"
#include "storage/workspace_lock.h"
#include "uri/viking_uri.h"

namespace skald {

class DbImpl final : public Db {
 public:
  ~DbImpl() override;

  static Result<std::unique_ptr<Db>> OpenImpl(const DbOptions& options);

  Result<std::vector<LsEntry>> Ls(const Identity& who, std::string_view uri,
                                  const LsOptions& options) override;
  Result<std::vector<LsEntry>> Tree(const Identity& who, std::string_view uri,
                                    const LsOptions& options) override;
  Result<NodeInfo> Stat(const Identity& who, std::string_view uri) override;
  Result<std::string> Mkdir(const Identity& who, std::string_view uri,
                            std::string_view description) override;
  Result<RmResult> Rm(const Identity& who, std::string_view uri, bool recursive) override;
  Result<MvResult> Mv(const Identity& who, std::string_view from, std::string_view to) override;
  Result<std::string> Read(const Identity& who, std::string_view uri, int64_t offset,
                           int64_t limit) override;
  Result<Download> DownloadFile(const Identity& who, std::string_view uri) override;
  Result<WriteResult> Write(const Identity& who, const WriteRequest& request) override;
  Result<std::string> Abstract(const Identity& who, std::string_view uri) override;
  Result<std::string> Overview(const Identity& who, std::string_view uri) override;
  Result<GlobResult> Glob(const Identity& who, const GlobRequest& request) override;
  Result<GrepResult> Grep(const Identity& who, const GrepRequest& request) override;
  Result<FsckReport> Fsck(bool repair) override;
  Result<std::string> TempUpload(const Identity& who, std::string_view filename,
                                 std::string_view bytes) override;
  Result<AddResourceResult> AddResource(const Identity& who,
                                        const AddResourceRequest& request) override;
  Result<FindResult> Find(const Identity& who, const FindRequest& request) override;
  Result<TaskInfo> GetTask(const Identity& who, std::string_view task_id) override;
  Result<std::vector<TaskInfo>> ListTasks(const Identity& who, const TaskFilter& filter) override;
  Status WaitIdle(int64_t timeout_ms, bool wait_for_retries) override;

 private:
  DbImpl() = default;

  // Parses a caller's URI (with `~` expansion for non-ROOT callers) and
  // checks that the caller may see it; creates the account's preset
  // directories on first use.
  Result<VikingUri> Resolve(const Identity& who, std::string_view text);

  // The catalog node at `uri`, NotFound ("File not found: <uri>") when missing.
  // The root is a virtual directory.
  Result<CatalogNode> GetNode(const Identity& who, const VikingUri& uri);

  // Directory listing shared by Ls and Tree.
  Result<std::vector<LsEntry>> List(const Identity& who, const VikingUri& uri,
                                    const LsOptions& options, bool recursive);
  // Body of a sidecar of directory `dir`, or nullopt when it does not exist.
  Result<std::optional<std::string>> ReadSidecarBody(const Identity& who, const VikingUri& dir,
                                                     std::string_view name);
  // Bytes of the file at `uri`; InvalidArgument (details expected/actual)
  // for a directory, NotFound when missing. `verb` names the operation.
  Result<std::string> ReadFileBytes(const Identity& who, const VikingUri& uri,
                                    std::string_view verb);
  NodeInfo ToNodeInfo(const Identity& who, const VikingUri& uri, const CatalogNode& node) const;

  // Creates the missing directories on the way to (and including, when
  // `include_self`) `dir`, in content and catalog. FailedPrecondition when a
  // file is in the way. REQUIRES: the caller holds a lock covering `dir`.
  Status EnsureDirectories(const Identity& who, const VikingUri& dir, bool include_self);

  // Writes bytes and records them in the catalog (the durable write path).
  // `jobs` are enqueued in the same catalog transaction (the outbox).
  Result<CatalogNode> StoreFile(const Identity& who, const VikingUri& uri, std::string_view bytes,
                                const std::optional<CatalogNode>& existing,
                                const std::vector<JobSpec>& jobs = {},
                                std::vector<Job>* enqueued = nullptr);

  // ---- background work (background.cc) ----
  // Opens the indexes and the job queue and starts the workers (at open).
  Status StartBackground();
  // Stops the workers and saves the vector indexes (at close).
  void StopBackground();
  void WorkerLoop();
  Status RunJob(const Job& job);
  Status RunAddResource(const Job& job);  // resource_ops.cc
  // Brings the vector and lexical indexes up to the catalog.
  Status CatchUpIndexes();
  Status CatchUpLexical();
  // Hourly upkeep from a worker: expired uploads, finished jobs older than a
  // week, tombstones every index has applied.
  void MaybeRunMaintenance();
  Status RunMaintenance();
  // The follow-up job that (re)indexes `path` after a change; nullopt for
  // paths that are never indexed (sessions, hidden files, namespace roots).
  // kind "index" indexes the subtree; "refresh" only its ancestors.
  std::optional<JobSpec> IndexJobFor(const Identity& who, std::string_view path,
                                     std::string_view kind, int priority) const;
  // Waits for the task when `wait`; maps a failed task to its error.
  // Queues an `index` job for every repaired node of a reconcile (recovery
  // at open, fsck --repair) so that search follows the repaired catalog.
  Status IndexRepairedNodes(const std::vector<ReconcileIssue>& issues);
  Result<Job> AwaitTask(const std::string& task_id, std::optional<double> timeout_s);
  TaskInfo ToTaskInfo(const Job& job) const;

  // Locks `requests` within the configured timeout.
  Status Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard);

  Status EnsureAccount(const std::string& account);

  DbOptions options_;
  Env* env_ = nullptr;                    // options_.env or Env::Default()
  std::unique_ptr<DiskReserve> reserve_;  // null when disk_reserve_bytes == 0
  std::unique_ptr<WorkspaceLock> workspace_lock_;
  std::unique_ptr<ContentStore> content_;
  std::unique_ptr<Catalog> catalog_;
  PathLockManager locks_;

  std::unique_ptr<VectorIndexSet> vectors_;     // null without an embedder
  std::unique_ptr<LexicalIndex> lexical_;
  std::unique_ptr<Summarizer> summarizer_;
  std::unique_ptr<SemanticIndexer> indexer_;    // null without an embedder
  std::unique_ptr<Retriever> retriever_;
  std::unique_ptr<JobQueue> jobs_;
  std::mutex lexical_mu_;                       // one lexical catch-up at a time
  // Jobs hold it shared while they run; Fsck holds it exclusively so it
  // never sees a sidecar whose catalog row a job is about to write.
  std::shared_mutex maintenance_mu_;
  std::vector<std::thread> workers_;
  std::atomic<int64_t> last_maintenance_ns_{0};
  std::atomic<bool> stopping_{false};        // running jobs stop at their next step
  // Progress reporting for a running job: its stage, plus a lease renewal
  // every 30 s so that a long job is never taken for a dead one.
  IndexProgress ProgressFor(const Job& job);
  bool opened_ = false;                      // set once OpenImpl succeeded
  // Set when content changed but its catalog commit failed: the close is
  // then recorded as unclean so that the next open reconciles.
  std::atomic<bool> needs_recovery_{false};

  std::mutex accounts_mu_;
  std::set<std::string> ready_accounts_;  // guarded by accounts_mu_
};

// Attempts of a job that needs the models: with backoff doubling from 2 s
// to at most 5 min, 20 attempts ride out a provider outage of about an hour
// before the task fails (errors no retry can fix fail at once).
inline constexpr int kModelJobAttempts = 20;

// InvalidArgument when a segment uses the prefix reserved for Skald's
// temporary files.
Status CheckNotReserved(const VikingUri& uri);

// NotFound "File not found: <uri>" with details {type: file, resource: uri}.
Status FileNotFound(const VikingUri& uri);

}  // namespace skald
