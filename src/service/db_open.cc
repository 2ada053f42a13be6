// Db lifecycle: open (workspace lock, catalog, recovery, the components
// wired together), close (clean shutdown marker).

#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <span>
#include <thread>

#include "common/strings.h"
#include "common/thread_name.h"
#include "common/time_util.h"
#include "common/two_threads.h"
#include "index/memory_lexical_index.h"
#include "ingest/ingest_jobs.h"
#include "ingest/llm_summarizer.h"
#include "model/embedder_identity.h"
#include "service/db_impl.h"
#include "session/memory_hook.h"
#include "session/search_hints.h"
#include "storage/reconcile.h"
#include "storage/tree_swap.h"
#include "uri/uri_path.h"

namespace skald {
namespace {

constexpr std::string_view kCleanShutdownKey = "clean_shutdown";
constexpr std::string_view kSessionStartKey = "session_started_ns";
constexpr std::string_view kContentBackendKey = "content_backend";
// File timestamps come from a coarse kernel clock; re-hash anything touched
// within this margin before the crashed session started.
constexpr int64_t kMtimeSlackNs = 2'000'000'000;
// Records the vector index may leave to its background linker (HnswParams::max_unlinked).
constexpr int kMaxUnlinkedRecords = 16384;

}  // namespace

Result<std::unique_ptr<Db>> Db::Open(const DbOptions& options) { return DbImpl::OpenImpl(options); }

Result<std::unique_ptr<Db>> DbImpl::OpenImpl(const DbOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  Env* env = EnvOrDefault(options.env);
  if (Status made = env->CreateDirs(options.workspace); !made.ok()) {
    spdlog::error("cannot create workspace {}: {}", options.workspace, made.ToString());
    return made;
  }
  std::unique_ptr<DbImpl> db(new DbImpl(env));
  db->options_ = options;
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
  db->nodes_ =
      std::make_unique<NodeWriter>(db->content_.get(), db->catalog_.get(), db->reserve_.get());
  db->resolver_ = std::make_unique<UriResolver>(db->content_.get(), db->catalog_.get(),
                                                &db->locks_, options.lock_timeout_ms);

  SKALD_ASSIGN_OR_RETURN(auto backend, db->catalog_->GetMeta(kContentBackendKey));
  if (backend && *backend != db->content_->Name()) {
    return Status::FailedPrecondition(
        fmt::format("the workspace was created with content backend '{}', not '{}'", *backend,
                    db->content_->Name()));
  }
  if (!backend) {
    SKALD_RETURN_IF_ERROR(db->catalog_->SetMeta(kContentBackendKey, db->content_->Name()));
  }

  // Vectors are only comparable within one embedder: refuse another one
  // unless the caller asked for the reindex.
  bool reindex = false;
  std::vector<ReconcileIssue> recovered;  // nodes recovery changed: to index again
  std::vector<RecoveredSwap> swaps;       // pack imports recovery finished
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
    // Tree swaps (pack imports) committed before the crash are finished
    // first: reconcile's leftover sweep would take their staging areas.
    SKALD_ASSIGN_OR_RETURN(swaps, RecoverTreeSwaps(*db->content_));
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
  auto mark_session_open = [&]() -> Status {
    SKALD_RETURN_IF_ERROR(
        db->catalog_->SetMeta(kSessionStartKey, std::to_string(env->NowNanos())));
    return db->catalog_->SetMeta(kCleanShutdownKey, "0");
  };
  Status marked = mark_session_open();
  if (IsDiskFull(marked)) {
    // Not even the marker fits (something filled the space the reserve
    // freed). The index files are caches rebuilt from the catalog: give
    // their space to the catalog rather than refuse to open.
    spdlog::warn("disk full at open: discarding the index files of {} (rebuilt from the "
                 "catalog) to make room",
                 options.workspace);
    Status discarded = env->RemoveTree(options.workspace + "/index");
    if (!discarded.ok()) spdlog::warn("could not discard the index files: {}", discarded.ToString());
    marked = mark_session_open();
  }
  SKALD_RETURN_IF_ERROR(marked);
  SKALD_RETURN_IF_ERROR(db->resolver_->EnsureAccount("default"));
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
    SKALD_ASSIGN_OR_RETURN(uint64_t queued, db->catalog_->CountJobs(JobState::kPending, JobKind::kReindex));
    reindex = queued == 0;
  }
  // A finished swap's trees are indexed by the jobs its plan named (their
  // tags, the package's vectors), not node by node.
  std::erase_if(recovered, [&](const ReconcileIssue& issue) {
    return std::any_of(swaps.begin(), swaps.end(), [&](const RecoveredSwap& swap) {
      return swap.jobs_complete && swap.account == issue.account &&
             std::any_of(swap.targets.begin(), swap.targets.end(),
                         [&](const std::string& t) {
                           return UriWithin(UriOfPath(issue.path), UriOfPath(t));
                         });
    });
  });
  SKALD_RETURN_IF_ERROR(db->upkeep_->IndexRepairedNodes(recovered));
  for (const RecoveredSwap& swap : swaps) {
    for (const JobSpec& job : swap.jobs) {
      // A named job that is there already was queued with the catalog
      // transaction before the crash.
      Result<Job> queued = db->runner_->queue()->Enqueue(job);
      if (!queued.ok() && queued.status().code() != StatusCode::kAlreadyExists) {
        return queued.status();
      }
    }
  }
  // Packaged vectors no pending job will take (an import stopped before
  // its swap, a job that failed) are dropped now, before any job runs.
  SKALD_ASSIGN_OR_RETURN(uint64_t unclaimed, DropUnclaimedPackagedVectors(*db->catalog_));
  if (unclaimed > 0) spdlog::info("dropped {} unclaimed packaged vectors", unclaimed);
  if (reindex) {
    // Every vector must be remade with the new embedder: one durable job.
    JobSpec spec;
    spec.kind = JobKind::kReindex;
    spec.resource_id = "viking://";
    spec.max_attempts = kModelJobAttempts;
    SKALD_ASSIGN_OR_RETURN(Job job, db->runner_->queue()->Enqueue(spec));
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
  if (catalog_ && opened_ && !nodes_->needs_recovery()) {
    Status st = catalog_->SetMeta(kCleanShutdownKey, "1");
    if (!st.ok()) spdlog::error("could not record clean shutdown: {}", st.ToString());
  }
}


Status DbImpl::StartBackground() {
  JobRunnerOptions runner_options;
  runner_options.queue.poll_interval = std::chrono::milliseconds(500);
  runner_options.queue.env = env_;
  if (reserve_) {
    // On a full disk, background work waits: the space the reserve gave
    // back is for deletes.
    runner_options.admit = [reserve = reserve_.get()] { return reserve->CheckWrite(); };
  }
  runner_options.job_lock = &maintenance_mu_;
  // Without an embedder nothing can be indexed: jobs wait in the queue for
  // an open with the configuration.
  runner_options.no_workers_note = " (no embedder configured)";
  runner_ = std::make_unique<JobRunner>(catalog_.get(), runner_options);
  // This process holds the workspace LOCK: jobs still marked running were
  // left by a process that died. Run them again now, not when their leases expire.
  SKALD_ASSIGN_OR_RETURN(uint64_t released, catalog_->ReleaseRunningJobs());
  if (released > 0) spdlog::warn("resuming {} background jobs interrupted by a crash", released);
  summarizer_ = NewExtractiveSummarizer();
  // With a chat model, resources and skills get its summaries (the
  // extractive ones when a call fails).
  if (options_.llm) {
    llm_summarizer_ = std::make_unique<LlmSummarizer>(options_.llm.get(), summarizer_.get());
  }

  SKALD_RETURN_IF_ERROR(options_.retrieval.Validate());
  const bool fts5 = options_.retrieval.lexical_index == "fts5";
  LexicalIndexOptions lexical_options;
  lexical_options.path = options_.workspace + (fts5 ? "/index/lexical.db" : "/index/lexical.mem");
  // Tombstones are purged from the catalog once the lexical index applied
  // them, so its commits must be as durable as the catalog's.
  lexical_options.sync = options_.sync_writes;
  lexical_options.env = env_;
  // The other kind's files go: the catalog purges tombstones once the index
  // in use applied them, so a file left behind would miss those deletes
  // when the setting is switched back (it is rebuilt from the catalog then).
  static constexpr const char* kMemoryFiles[] = {"lexical.mem", "lexical.mem.log"};
  static constexpr const char* kFts5Files[] = {"lexical.db", "lexical.db-wal", "lexical.db-shm"};
  for (const char* other : fts5 ? std::span<const char* const>(kMemoryFiles)
                                : std::span<const char* const>(kFts5Files)) {
    const std::string path = options_.workspace + "/index/" + other;
    if (env_->LinkStat(path).ok()) {
      if (Status removed = env_->RemoveFile(path); !removed.ok()) {
        spdlog::warn("could not remove the unused lexical index file {}: {}", path,
                     removed.ToString());
      }
    }
  }
  SKALD_ASSIGN_OR_RETURN(lexical_, fts5 ? OpenFts5LexicalIndex(lexical_options)
                                        : OpenMemoryLexicalIndex(lexical_options));

  retriever_ = std::make_unique<Retriever>(options_.retrieval);

  if (options_.embedder) {
    VectorIndexSetOptions set_options;
    set_options.dir = options_.workspace + "/index";
    set_options.index.embedder = options_.embedder->Name();
    set_options.index.dim = options_.embedder->Dimension();
    set_options.index.env = env_;
    // Linking new records into the HNSW graph is most of an import's CPU
    // time (ingest_bench + perf); large catch-up batches use every core.
    set_options.index.hnsw.build_threads =
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // The graph links a batch on several threads from 2048 records on.
    set_options.catch_up_batch = 8192;
    // Up to this many new records wait for the background linker instead
    // of holding up the catch-up (an import's wait); searches score them
    // exactly meanwhile (~16k 512-d records: a few ms a search).
    set_options.index.hnsw.max_unlinked = kMaxUnlinkedRecords;
    set_options.background_linker = options_.link_in_background;
    SKALD_ASSIGN_OR_RETURN(vectors_, VectorIndexSet::Open(set_options, catalog_.get()));
    for (const IndexOpenReport& report : vectors_->open_report()) {
      // A missing file with nothing to rebuild is just a new account.
      if (report.action == IndexOpenReport::Action::kRebuilt && report.records > 0) {
        spdlog::warn("vector index of account {} rebuilt from the catalog ({} records): {}",
                     report.account, report.records, report.reason);
      }
    }
    SemanticIndexerOptions indexer_options;
    indexer_options.max_input_tokens = options_.embedding_max_input_tokens;
    indexer_options.lock_timeout_ms = options_.lock_timeout_ms;
    indexer_options.stop = runner_->stop_flag();
    indexer_options.model_summarizer = llm_summarizer_.get();
    indexer_options.helpers = helpers_.get();
    indexer_ = std::make_unique<SemanticIndexer>(content_.get(), catalog_.get(), &locks_,
                                                 options_.embedder.get(), summarizer_.get(),
                                                 indexer_options);
  }
  indexes_ = std::make_unique<IndexCatchUp>(catalog_.get(), content_.get(), lexical_.get(),
                                            vectors_.get());
  const bool indexing = indexer_ != nullptr;
  if (indexing) {
    IngestServices ingest;
    ingest.content = content_.get();
    ingest.catalog = catalog_.get();
    ingest.locks = &locks_;
    ingest.nodes = nodes_.get();
    ingest.embedder = options_.embedder.get();
    ingest.summarizer = summarizer_.get();
    ingest.model_summarizer = llm_summarizer_.get();
    ingest.indexer = indexer_.get();
    ingest.indexes = indexes_.get();
    ingest.vectors = vectors_.get();
    ingest.embedding_max_input_tokens = options_.embedding_max_input_tokens;
    ingest.lock_timeout_ms = options_.lock_timeout_ms;
    ingest.staging_root = options_.workspace + "/temp/import";
    ingest.allow_private_networks = options_.allow_private_networks;
    ingest.link_after_imports = options_.link_after_imports;
    ingest.helpers = helpers_.get();
    // No job runs yet: what an interrupted import left in staging goes.
    if (Status cleared = env_->RemoveTree(ingest.staging_root); !cleared.ok()) {
      spdlog::warn("cannot clear {}: {}", ingest.staging_root, cleared.ToString());
    }
    RegisterIngestJobs(ingest, runner_.get());
  }
  upkeep_ = std::make_unique<Upkeep>(&options_, content_.get(), catalog_.get(), lexical_.get(),
                                     vectors_.get(), runner_->queue(), &maintenance_mu_,
                                     indexing);
  runner_->SetIdleTask([this] {
    upkeep_->MaybeRunMaintenance(runner_->running_jobs() > 0);
    if (sessions_) sessions_->RunIdleAutoCommits();  // sessions' idle timeouts
  });

  reader_ = std::make_unique<FsReader>(resolver_.get(), content_.get(), catalog_.get(), &locks_);
  FsWriterServices fs;
  fs.content = content_.get();
  fs.catalog = catalog_.get();
  fs.locks = &locks_;
  fs.nodes = nodes_.get();
  fs.indexes = indexes_.get();
  fs.runner = runner_.get();
  fs.reserve = reserve_.get();
  fs.indexing = indexing;
  fs.lock_timeout_ms = options_.lock_timeout_ms;
  writer_ = std::make_unique<FsWriter>(fs);
  finder_ = std::make_unique<Finder>(&options_, resolver_.get(), catalog_.get(), vectors_.get(),
                                     lexical_.get(), retriever_.get());
  context_ = std::make_unique<ContextAssembler>(finder_.get(), reader_.get(), resolver_.get());
  resources_ = std::make_unique<ResourceOps>(&options_, resolver_.get(), catalog_.get(), &locks_,
                                             nodes_.get(), runner_.get(), &maintenance_mu_,
                                             indexing, reserve_.get());
  PackOpsServices packs;
  packs.workspace = options_.workspace;
  packs.helpers = helpers_.get();
  packs.resolver = resolver_.get();
  packs.catalog = catalog_.get();
  packs.content = content_.get();
  packs.nodes = nodes_.get();
  packs.indexes = indexes_.get();
  packs.locks = &locks_;
  packs.runner = runner_.get();
  packs.maintenance_mu = &maintenance_mu_;
  packs.indexing = indexing;
  if (options_.embedder) {
    packs.embedding = {options_.embedder->provider(), options_.embedder->model(),
                       options_.embedder->Dimension()};
  }
  packs.embedder = options_.embedder.get();
  packs.max_input_tokens = options_.embedding_max_input_tokens;
  packs.lock_timeout_ms = options_.lock_timeout_ms;
  packs_ = std::make_unique<PackOps>(std::move(packs));
  SnapshotOpsServices snapshots;
  snapshots.env = env_;
  snapshots.resolver = resolver_.get();
  snapshots.catalog = catalog_.get();
  snapshots.content = content_.get();
  snapshots.nodes = nodes_.get();
  snapshots.indexes = indexes_.get();
  snapshots.locks = &locks_;
  snapshots.runner = runner_.get();
  snapshots.indexing = indexing;
  snapshots.lock_timeout_ms = options_.lock_timeout_ms;
  snapshots_ = std::make_unique<SnapshotOps>(snapshots);
  PrivacyOpsServices privacy;
  privacy.catalog = catalog_.get();
  privacy.content = content_.get();
  privacy.nodes = nodes_.get();
  privacy.writer = writer_.get();
  privacy.locks = &locks_;
  privacy.lock_timeout_ms = options_.lock_timeout_ms;
  privacy_ = std::make_unique<PrivacyOps>(privacy);
  OpsSources ops;
  ops.options = &options_;
  ops.env = env_;
  ops.catalog = catalog_.get();
  ops.runner = runner_.get();
  ops.lexical = lexical_.get();
  ops.vectors = vectors_.get();
  ops.locks = &locks_;
  ops.finder = finder_.get();
  ops.reserve = reserve_.get();
  ops_ = std::make_unique<OpsStats>(ops);

  AccountRegistryServices account_services;
  account_services.catalog = catalog_.get();
  account_services.content = content_.get();
  account_services.resolver = resolver_.get();
  account_services.writer = writer_.get();
  account_services.snapshots = snapshots_.get();
  account_services.indexes = indexes_.get();
  account_services.runner = runner_.get();
  account_services.locks = &locks_;
  account_services.env = env_;
  account_services.workspace = options_.workspace;
  account_services.lock_timeout_ms = options_.lock_timeout_ms;
  accounts_ = std::make_unique<AccountRegistry>(std::move(account_services));
  accounts_->RegisterJobs(runner_.get());

  // Sessions: the store works through the file port over the write path.
  session_files_ = std::make_unique<SessionFilesAdapter>(content_.get(), catalog_.get(), &locks_,
                                                         nodes_.get(), writer_.get(), runner_.get(),
                                                         indexing, options_.lock_timeout_ms);
  sessions_ = std::make_unique<SessionStore>(session_files_.get(), runner_.get(), summarizer_.get());
  relations_ = std::make_unique<RelationOps>(catalog_.get());
  tags_ = std::make_unique<TagOps>(catalog_.get(), indexes_.get());
  skills_ = std::make_unique<SkillOps>(resolver_.get(), session_files_.get(), runner_.get(),
                                       &maintenance_mu_, options_.workspace, indexing);
  // Commits extract memories with the configured chat model (`vlm`), else
  // without a model (session/memory_hook.h).
  memory_ = std::make_unique<MemoryExtraction>(session_files_.get(), options_.llm.get());
  sessions_->SetMemoryExtractionHook(memory_->Hook());
  sessions_->RegisterJobs(runner_.get());
  // search reads the caller's session for intent analysis.
  finder_->SetSessionHints([store = sessions_.get()](const Identity& who, std::string_view id) {
    return SearchHintsFor(store, who, id);
  });

  if (Status caught_up = indexes_->CatchUpIndexes(); !caught_up.ok()) {
    // On a full disk the indexes catch up later (after the next change, or
    // the next open); search meanwhile serves what they already hold.
    if (!IsDiskFull(caught_up)) return caught_up;
    spdlog::warn("the indexes could not catch up at open: {}", caught_up.ToString());
  }
  if (indexing) runner_->Start(options_.background_workers);
  return Status::Ok();
}

void DbImpl::StopBackground() {
  if (runner_) runner_->Stop();
  // What the closes of the lexical index (its snapshot) and of the catalog
  // (folding its log in) write is written beside the vector indexes.
  std::thread lexical_checkpoint;
  if (lexical_ && vectors_ && HasSecondCore()) {
    lexical_checkpoint = std::thread([this] {
      NameThisThread("skald-close");
      Status st = lexical_->Checkpoint();
      if (!st.ok()) spdlog::error("could not save the lexical index: {}", st.ToString());
      if (catalog_) {
        st = catalog_->Checkpoint();
        if (!st.ok()) spdlog::warn("catalog checkpoint at close: {}", st.ToString());
      }
    });
  }
  if (vectors_) {
    vectors_->StopLinker();
    Status st = vectors_->SaveAll();
    if (!st.ok()) spdlog::error("could not save the vector indexes: {}", st.ToString());
  }
  if (lexical_checkpoint.joinable()) lexical_checkpoint.join();
}

}  // namespace skald
