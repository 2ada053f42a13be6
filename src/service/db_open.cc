// Db lifecycle: open (workspace lock, catalog, recovery), close (clean
// shutdown marker), fsck, and the helpers every operation shares.

#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include "common/strings.h"
#include "common/time_util.h"
#include "model/embedder_identity.h"
#include "service/db_impl.h"
#include "storage/reconcile.h"
#include "uri/access.h"

namespace skald {
namespace {

constexpr std::string_view kCleanShutdownKey = "clean_shutdown";
constexpr std::string_view kSessionStartKey = "session_started_ns";
constexpr std::string_view kContentBackendKey = "content_backend";
// File timestamps come from a coarse kernel clock; re-hash anything touched
// within this margin before the crashed session started.
constexpr int64_t kMtimeSlackNs = 2'000'000'000;

}  // namespace

Status FileNotFound(const VikingUri& uri) {
  return Status::NotFound("File not found: " + uri.str())
      .WithDetail("type", "file")
      .WithDetail("resource", uri.str());
}

Result<std::unique_ptr<Db>> Db::Open(const DbOptions& options) { return DbImpl::OpenImpl(options); }

Result<std::unique_ptr<Db>> DbImpl::OpenImpl(const DbOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  Env* env = EnvOrDefault(options.env);
  if (Status made = env->CreateDirs(options.workspace); !made.ok()) {
    spdlog::error("cannot create workspace {}: {}", options.workspace, made.ToString());
    return made;
  }
  std::unique_ptr<DbImpl> db(new DbImpl());
  db->options_ = options;
  db->env_ = env;
  SKALD_ASSIGN_OR_RETURN(db->workspace_lock_, WorkspaceLock::Acquire(options.workspace));
  SKALD_RETURN_IF_ERROR(env->CreateDirs(options.workspace + "/temp"));
  if (options.disk_reserve_bytes > 0) {
    db->reserve_ = std::make_unique<DiskReserve>(env, options.workspace + "/temp/reserve",
                                                 options.disk_reserve_bytes);
    // On a full disk, give the reserve back first: the catalog's migrations
    // and the clean-shutdown marker need room to commit.
    db->reserve_->ReleaseIfLow();
  }

  LocalContentStoreOptions content_options;
  content_options.root = options.workspace + "/content";
  content_options.trash_dir = options.workspace + "/temp/trash";
  content_options.sync = options.sync_writes;
  content_options.env = env;
  content_options.reserve = db->reserve_.get();
  SKALD_ASSIGN_OR_RETURN(db->content_, NewLocalContentStore(content_options));

  CatalogOptions catalog_options;
  catalog_options.path = options.workspace + "/skald.db";
  catalog_options.sync = options.sync_writes;
  catalog_options.env = env;
  SKALD_ASSIGN_OR_RETURN(db->catalog_, Catalog::Open(catalog_options));

  SKALD_ASSIGN_OR_RETURN(auto backend, db->catalog_->GetMeta(kContentBackendKey));
  if (backend && *backend != db->content_->Name()) {
    return Status::FailedPrecondition(
        fmt::format("the workspace was created with content backend '{}', not '{}'", *backend,
                    db->content_->Name()));
  }
  SKALD_RETURN_IF_ERROR(db->catalog_->SetMeta(kContentBackendKey, db->content_->Name()));

  // Vectors are only comparable within one embedder: refuse another one
  // unless the caller asked for the reindex.
  bool reindex = false;
  std::vector<ReconcileIssue> recovered;  // nodes recovery changed: to index again
  if (!db->options_.embedder) {
    SKALD_ASSIGN_OR_RETURN(db->options_.embedder, EmbedderForUnconfiguredOpen(*db->catalog_));
  }
  if (db->options_.embedder) {
    SKALD_ASSIGN_OR_RETURN(EmbedderCheck embedder_check,
                           CheckEmbedderIdentity(*db->catalog_, *db->options_.embedder,
                                                 options.reindex_on_embedder_change,
                                                 options.workspace));
    reindex = embedder_check == EmbedderCheck::kReindexRequired;
  }

  // A session that did not end cleanly may have left content ahead of the
  // catalog (a write renamed into place but not yet recorded): reconcile.
  SKALD_ASSIGN_OR_RETURN(auto clean, db->catalog_->GetMeta(kCleanShutdownKey));
  SKALD_ASSIGN_OR_RETURN(auto started, db->catalog_->GetMeta(kSessionStartKey));
  bool fresh = !clean.has_value();
  if (!fresh && *clean != "1") {
    long long started_ns = 0;
    ReconcileOptions recover;
    recover.repair = true;
    recover.rehash_modified_since_ns =
        started && ParseInt64(*started, &started_ns) ? started_ns - kMtimeSlackNs : 0;
    SKALD_ASSIGN_OR_RETURN(ReconcileReport report,
                           Reconcile(*db->content_, *db->catalog_, recover));
    recovered = report.issues;
    spdlog::warn("recovered workspace {} after an unclean shutdown: {} nodes checked, {} fixed, "
                 "{} leftovers removed",
                 options.workspace, report.nodes_checked, report.issues.size(),
                 report.leftovers_removed);
  }
  // After a clean shutdown there are no temporary files to sweep, so opening
  // does not walk the content tree (startup stays independent of its size).
  SKALD_RETURN_IF_ERROR(db->catalog_->SetMeta(kSessionStartKey, std::to_string(env->NowNanos())));
  SKALD_RETURN_IF_ERROR(db->catalog_->SetMeta(kCleanShutdownKey, "0"));
  SKALD_RETURN_IF_ERROR(db->EnsureAccount("default"));
  SKALD_RETURN_IF_ERROR(db->StartBackground());
  db->opened_ = true;
  if (db->reserve_) {
    // Space may be short now; the first write that finds room re-makes it.
    if (Status refilled = db->reserve_->Refill(); !refilled.ok()) {
      spdlog::warn("no disk reserve yet: {}", refilled.ToString());
    }
  }
  // A reindex is due when the identity changed now, or when a previous open
  // recorded the change but stopped before its job was queued.
  SKALD_ASSIGN_OR_RETURN(auto reindex_from, db->catalog_->GetMeta(kEmbedderReindexMetaKey));
  if (!reindex && reindex_from && !reindex_from->empty() && db->indexer_) {
    SKALD_ASSIGN_OR_RETURN(uint64_t queued, db->catalog_->CountJobs(JobState::kPending, "reindex"));
    reindex = queued == 0;
  }
  SKALD_RETURN_IF_ERROR(db->IndexRepairedNodes(recovered));
  if (reindex) {
    // Every vector must be remade with the new embedder: one durable job.
    JobSpec spec;
    spec.kind = "reindex";
    spec.resource_id = "viking://";
    spec.max_attempts = kModelJobAttempts;
    SKALD_ASSIGN_OR_RETURN(Job job, db->jobs_->Enqueue(spec));
    spdlog::warn("embedder changed: re-embedding every record in the background (task {})",
                 job.task_id);
  }
  return std::unique_ptr<Db>(std::move(db));
}

DbImpl::~DbImpl() {
  StopBackground();
  // Only a workspace that opened (and recovered) completely and whose
  // content never got ahead of the catalog is marked clean; otherwise the
  // next open reconciles.
  if (catalog_ && opened_ && !needs_recovery_.load()) {
    Status st = catalog_->SetMeta(kCleanShutdownKey, "1");
    if (!st.ok()) spdlog::error("could not record clean shutdown: {}", st.ToString());
  }
}

Status DbImpl::EnsureAccount(const std::string& account) {
  {
    std::lock_guard<std::mutex> lock(accounts_mu_);
    if (ready_accounts_.count(account)) return Status::Ok();
  }
  if (!IsValidIdentifier(account, /*is_account=*/true)) {
    return Status::InvalidArgument("invalid account id: " + account);
  }
  // Every account has viking://resources (reference §6 "Preset dirs").
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(Lock({{account, "resources", PathLockKind::kExact}}, &guard));
  SKALD_RETURN_IF_ERROR(content_->MakeDir(account, ""));
  SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(account, "resources"));
  if (!existing) {
    SKALD_RETURN_IF_ERROR(content_->MakeDir(account, "resources"));
    SKALD_ASSIGN_OR_RETURN(ContentAttr attr, content_->Stat(account, "resources"));
    CatalogNode node;
    node.path = "resources";
    node.is_dir = true;
    node.mtime_ns = node.ctime_ns = attr.mtime_ns;
    SKALD_RETURN_IF_ERROR(catalog_->Put(account, node));
  }
  std::lock_guard<std::mutex> lock(accounts_mu_);
  ready_accounts_.insert(account);
  return Status::Ok();
}

Result<VikingUri> DbImpl::Resolve(const Identity& who, std::string_view text) {
  SKALD_RETURN_IF_ERROR(EnsureAccount(who.account));
  UriParseOptions parse;
  parse.identity = &who;
  SKALD_ASSIGN_OR_RETURN(VikingUri uri, VikingUri::Parse(text, parse));
  SKALD_RETURN_IF_ERROR(CheckReadAccess(who, uri));
  return uri;
}

Result<CatalogNode> DbImpl::GetNode(const Identity& who, const VikingUri& uri) {
  if (uri.is_root()) {
    CatalogNode root;
    root.is_dir = true;
    return root;
  }
  SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, uri.path()));
  if (!node) return FileNotFound(uri);
  return *node;
}

NodeInfo DbImpl::ToNodeInfo(const Identity& who, const VikingUri& uri,
                            const CatalogNode& node) const {
  NodeInfo info;
  info.uri = uri.str();
  info.name = std::string(uri.name());
  info.is_dir = node.is_dir;
  info.size = node.size;
  info.mtime_ns = node.mtime_ns;
  info.mode = node.is_dir ? 0755 : 0644;
  info.is_locked = locks_.IsLocked(who.account, uri.path());
  info.content_hash = node.hash;
  return info;
}

Status DbImpl::Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard) {
  return locks_.Acquire(requests, std::chrono::milliseconds(options_.lock_timeout_ms), guard);
}

Status DbImpl::IndexRepairedNodes(const std::vector<ReconcileIssue>& issues) {
  if (!indexer_) return Status::Ok();
  // Adopted content gets records; a dropped path's records went with its
  // node, and the job refreshes the summaries above it.
  for (const ReconcileIssue& issue : issues) {
    if (!issue.repaired) continue;
    Identity who;
    who.account = issue.account;
    who.user = "";
    if (std::optional<JobSpec> job =
            IndexJobFor(who, issue.path, "index", kJobPriorityInteractive)) {
      SKALD_ASSIGN_OR_RETURN(Job queued, jobs_->Enqueue(*job));
      (void)queued;
    }
  }
  return Status::Ok();
}

Result<FsckReport> DbImpl::Fsck(bool repair) {
  std::unique_lock<std::shared_mutex> no_jobs(maintenance_mu_);
  ReconcileOptions check;
  check.repair = repair;
  check.verify_hashes = true;
  SKALD_ASSIGN_OR_RETURN(ReconcileReport report, Reconcile(*content_, *catalog_, check));
  no_jobs.unlock();
  if (repair) SKALD_RETURN_IF_ERROR(IndexRepairedNodes(report.issues));
  FsckReport out;
  out.nodes_checked = report.nodes_checked;
  for (ReconcileIssue& issue : report.issues) {
    std::string uri = "viking://" + issue.path;
    out.issues.push_back(FsckIssue{std::move(issue.kind), std::move(issue.account),
                                   std::move(uri), std::move(issue.detail), issue.repaired});
  }
  return out;
}

}  // namespace skald
