// Background work: the indexes, the durable job queue and its workers, and
// the task API over them.
//
// Every change that needs follow-up work (a written file, an import) is
// committed together with its job (Catalog::Apply, the outbox); workers
// lease jobs by priority — single writes before bulk imports — run them,
// and then bring the vector and lexical indexes up to the catalog. A job
// that fails is retried with exponential backoff and ends `failed` with
// its error after max_attempts; a worker that dies mid-job leaves a lease
// that expires, and the job runs again after a restart.

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/time_util.h"
#include "model/embedder.h"
#include "model/embedder_identity.h"
#include "service/db_impl.h"
#include "uri/access.h"

namespace skald {
namespace {

constexpr int64_t kLeaseNs = int64_t{10} * 60 * 1'000'000'000;  // renewed by long jobs
constexpr int64_t kRetryBaseNs = 2'000'000'000;
constexpr int64_t kRetryMaxNs = int64_t{5} * 60 * 1'000'000'000;

// Errors no retry can fix (bad input, a source that is gone, a conflict
// with the tree's shape). Everything else — a provider that is down or
// rate-limiting (the circuit breaker fails fast meanwhile), lock timeouts,
// I/O errors — is retried with backoff.
bool IsPermanentJobError(const Status& st) {
  if (IsDiskFull(st)) return false;  // space may come back: retry with backoff
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kPermissionDenied:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
    case StatusCode::kCorruption:
    case StatusCode::kResourceExhausted:  // e.g. a source over the file-count limit
      return true;
    default:
      return false;
  }
}

std::string PathOfPayload(const Job& job) {
  nlohmann::json payload = nlohmann::json::parse(job.payload, nullptr, false);
  if (payload.is_object() && payload.contains("path") && payload["path"].is_string()) {
    return payload["path"].get<std::string>();
  }
  return "";
}

}  // namespace

Status DbImpl::StartBackground() {
  JobQueueOptions queue_options;
  queue_options.poll_interval = std::chrono::milliseconds(500);
  queue_options.env = env_;
  jobs_ = std::make_unique<JobQueue>(catalog_.get(), queue_options);
  // This process holds the workspace LOCK: jobs still marked running were
  // left by a process that died. Run them again now, not when their leases expire.
  SKALD_ASSIGN_OR_RETURN(uint64_t released, catalog_->ReleaseRunningJobs());
  if (released > 0) spdlog::warn("resuming {} background jobs interrupted by a crash", released);
  summarizer_ = NewExtractiveSummarizer();

  LexicalIndexOptions lexical_options;
  lexical_options.path = options_.workspace + "/index/lexical.db";
  // Tombstones are purged from the catalog once the lexical index applied
  // them, so its commits must be as durable as the catalog's.
  lexical_options.sync = options_.sync_writes;
  lexical_options.env = env_;
  SKALD_ASSIGN_OR_RETURN(lexical_, OpenFts5LexicalIndex(lexical_options));

  RetrievalOptions retrieval;
  retrieval.hybrid_weight = options_.retrieval.hybrid_weight;
  retrieval.score_propagation_alpha = options_.retrieval.score_propagation_alpha;
  retrieval.hotness_alpha = options_.retrieval.hotness_alpha;
  retrieval.rerank.threshold = options_.retrieval.score_threshold;
  retrieval.rerank.max_input_tokens = options_.retrieval.rerank_max_input_tokens;
  SKALD_RETURN_IF_ERROR(retrieval.Validate());
  retriever_ = std::make_unique<Retriever>(retrieval);

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
    indexer_options.stop = &stopping_;
    indexer_ = std::make_unique<SemanticIndexer>(content_.get(), catalog_.get(), &locks_,
                                                 options_.embedder.get(), summarizer_.get(),
                                                 indexer_options);
  }
  SKALD_RETURN_IF_ERROR(CatchUpIndexes());
  // Without an embedder nothing can be indexed: jobs wait in the queue for
  // an open with the configuration.
  if (indexer_) {
    for (int i = 0; i < options_.background_workers; ++i) {
      workers_.emplace_back([this] { WorkerLoop(); });
    }
  }
  return Status::Ok();
}

void DbImpl::StopBackground() {
  stopping_ = true;
  if (jobs_) jobs_->Shutdown();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  if (vectors_) {
    Status st = vectors_->SaveAll();
    if (!st.ok()) spdlog::error("could not save the vector indexes: {}", st.ToString());
  }
}

void DbImpl::WorkerLoop() {
  while (true) {
    Result<std::optional<Job>> leased =
        jobs_->WaitAndLease({}, kLeaseNs, std::chrono::milliseconds(1000));
    if (leased.ok() && !leased->has_value() && jobs_->is_shut_down()) return;
    if (!leased.ok()) {
      spdlog::error("job queue: {}", leased.status().ToString());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    if (!leased->has_value()) {
      MaybeRunMaintenance();
      continue;
    }
    const Job& job = **leased;
    std::shared_lock<std::shared_mutex> running(maintenance_mu_);
    Status st = RunJob(job);
    if (st.ok()) st = CatchUpIndexes();
    if (st.ok()) {
      // RunJob completes jobs that produce a result itself.
      Result<std::optional<Job>> now = catalog_->GetJobByTaskId(job.task_id);
      if (now.ok() && now->has_value() && (*now)->state == JobState::kRunning) {
        st = jobs_->Complete(job.id, "");
      }
      if (!st.ok()) spdlog::error("job {}: {}", job.task_id, st.ToString());
      continue;
    }
    int64_t delay = JobQueue::RetryDelay(job.attempts, kRetryBaseNs, kRetryMaxNs);
    bool permanent = IsPermanentJobError(st);
    spdlog::warn("job {} ({} {}) failed (attempt {}/{}{}): {}", job.task_id, job.kind,
                 job.resource_id, job.attempts, job.max_attempts,
                 permanent ? ", not retried" : "", st.ToString());
    Status failed = jobs_->Fail(job.id, st.ToString(), delay, permanent);
    if (!failed.ok()) spdlog::error("job {}: {}", job.task_id, failed.ToString());
  }
}

Status DbImpl::RunJob(const Job& job) {
  if (job.kind == "add_resource") return RunAddResource(job);
  std::string path = PathOfPayload(job);
  if (job.kind == "index") {
    SKALD_ASSIGN_OR_RETURN(IndexStats stats,
                           indexer_->IndexTree(job.account, path, ProgressFor(job)));
    (void)stats;
    return Status::Ok();
  }
  if (job.kind == "reindex") {
    // After an embedder change: every indexable tree of every account.
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> accounts, catalog_->ListAccounts());
    for (const std::string& account : accounts) {
      for (std::string_view top : {"resources", "agent", "user"}) {
        SKALD_ASSIGN_OR_RETURN(std::optional<CatalogNode> node, catalog_->Get(account, top));
        if (!node) continue;
        SKALD_RETURN_IF_ERROR(jobs_->SetStage(job.id, fmt::format("{}: {}", account, top)));
        SKALD_ASSIGN_OR_RETURN(IndexStats stats, indexer_->IndexTree(account, top, ProgressFor(job)));
        (void)stats;
      }
    }
    SKALD_RETURN_IF_ERROR(CatchUpIndexes());
    SKALD_ASSIGN_OR_RETURN(uint64_t dropped,
                           catalog_->PurgeEmbeddingCache(options_.embedder->Name()));
    (void)dropped;  // vectors of the old embedder are never used again
    return catalog_->SetMeta(kEmbedderReindexMetaKey, "");
  }
  if (job.kind == "refresh") {
    SKALD_ASSIGN_OR_RETURN(IndexStats stats, indexer_->RefreshAncestors(job.account, path));
    (void)stats;
    return Status::Ok();
  }
  return Status::InvalidArgument(fmt::format("unknown job kind '{}'", job.kind));
}

void DbImpl::MaybeRunMaintenance() {
  constexpr int64_t kEveryNs = int64_t{3600} * 1'000'000'000;
  int64_t now = env_->NowNanos();
  int64_t last = last_maintenance_ns_.load();
  if (now - last < kEveryNs) return;
  if (!last_maintenance_ns_.compare_exchange_strong(last, now)) return;  // another worker
  std::shared_lock<std::shared_mutex> running(maintenance_mu_);
  Status st = RunMaintenance();
  if (!st.ok()) spdlog::warn("maintenance: {}", st.ToString());
}

Status DbImpl::RunMaintenance() {
  constexpr int64_t kDayNs = int64_t{24} * 3600 * 1'000'000'000;
  const int64_t now = env_->NowNanos();
  // Uploads never imported expire after a day (TempUpload's contract).
  const std::string uploads = options_.workspace + "/temp/upload";
  if (Result<std::vector<std::string>> names = env_->ListDir(uploads); names.ok()) {
    for (const std::string& name : *names) {
      Result<FileInfo> info = env_->Stat(uploads + "/" + name);
      if (!info.ok()) continue;
      // An upload claimed by an import lives as long as its task may retry.
      bool claimed = name.size() > 8 && name.substr(name.size() - 8) == ".claimed";
      if (now - info->mtime_ns > (claimed ? 7 : 1) * kDayNs) {
        Status removed = env_->RemoveFile(uploads + "/" + name);
        (void)removed;  // retried at the next upkeep
      }
    }
  }
  SKALD_ASSIGN_OR_RETURN(uint64_t old_jobs, catalog_->PurgeFinishedJobs(now - 7 * kDayNs));
  // Tombstones can go once every index has applied them and saved that:
  // read the applied sequence first, then save (the saved files reflect at
  // least that much even if a catch-up runs in between).
  int64_t applied = lexical_->applied_seq();
  if (vectors_) applied = std::min(applied, vectors_->MinAppliedSeq());
  if (vectors_) SKALD_RETURN_IF_ERROR(vectors_->SaveAll());
  SKALD_ASSIGN_OR_RETURN(uint64_t tombstones, catalog_->PurgeTombstones(applied));
  if (old_jobs + tombstones > 0) {
    spdlog::info("maintenance: {} finished jobs and {} tombstones purged", old_jobs, tombstones);
  }
  return Status::Ok();
}

IndexProgress DbImpl::ProgressFor(const Job& job) {
  auto last_renew = std::make_shared<int64_t>(NowNanos());
  return [this, id = job.id, last_renew](std::string_view stage) {
    Status st = jobs_->SetStage(id, stage);
    if (NowNanos() - *last_renew > int64_t{30} * 1'000'000'000) {
      st = jobs_->Renew(id, kLeaseNs);
      *last_renew = NowNanos();
    }
    if (!st.ok()) spdlog::warn("job progress: {}", st.ToString());
  };
}

Status DbImpl::CatchUpIndexes() {
  if (!vectors_) return CatchUpLexical();
  // The two indexes are independent (each reads the catalog's changes
  // itself): update them side by side, on two cores.
  Status vector_status;
  std::thread vector_thread([&] {
    Result<uint64_t> applied = vectors_->CatchUp();
    vector_status = applied.status();
  });
  Status lexical_status = CatchUpLexical();
  vector_thread.join();
  SKALD_RETURN_IF_ERROR(vector_status);
  return lexical_status;
}

Status DbImpl::CatchUpLexical() {
  std::lock_guard<std::mutex> lock(lexical_mu_);
  int64_t seq = lexical_->applied_seq();
  while (true) {
    SKALD_ASSIGN_OR_RETURN(std::vector<VectorRecord> batch,
                           catalog_->RecordsChangedSince(seq, 1000));
    if (batch.empty()) return Status::Ok();
    std::vector<uint64_t> deletes;
    std::vector<LexicalDocument> docs;
    for (const VectorRecord& r : batch) {
      if (r.deleted) {
        deletes.push_back(static_cast<uint64_t>(r.key));
        continue;
      }
      LexicalDocument doc;
      doc.record.id = static_cast<uint64_t>(r.key);
      doc.record.account = r.account;
      doc.record.level = r.level;
      doc.record.context_type = r.context_type;
      doc.record.uri = r.uri;
      doc.record.owner = r.owner;
      doc.record.tags = r.tags;
      doc.record.created_ns = r.created_ns;
      doc.record.updated_ns = r.updated_ns;
      std::string_view uri = r.uri;
      doc.title = std::string(uri.substr(uri.rfind('/') + 1));
      if (r.level == 1) {
        doc.body = r.abstract;
      } else {
        doc.abstract = r.abstract;
      }
      if (r.level == 2 && uri.size() > 9) {
        // BM25 over the whole file text, not only its summary.
        Result<std::string> text = content_->ReadFile(r.account, uri.substr(9));
        if (text.ok()) doc.body = std::move(*text);
      }
      docs.push_back(std::move(doc));
    }
    if (!deletes.empty()) {
      SKALD_ASSIGN_OR_RETURN(uint64_t removed, lexical_->Delete(deletes));
      (void)removed;
    }
    if (!docs.empty()) SKALD_RETURN_IF_ERROR(lexical_->Upsert(docs));
    seq = batch.back().seq;
    SKALD_RETURN_IF_ERROR(lexical_->SetAppliedSeq(seq));
  }
}

std::optional<JobSpec> DbImpl::IndexJobFor(const Identity& who, std::string_view path,
                                           std::string_view kind, int priority) const {
  int root = NamespaceRootDepth(path);
  if (root == 0) return std::nullopt;
  JobSpec spec;
  spec.kind = std::string(kind);
  spec.account = who.account;
  spec.user = who.user;
  spec.resource_id = fmt::format("viking://{}", path);
  spec.priority = priority;
  spec.max_attempts = kModelJobAttempts;
  spec.payload = nlohmann::json{{"path", path}}.dump();
  return spec;
}

Result<Job> DbImpl::AwaitTask(const std::string& task_id, std::optional<double> timeout_s) {
  auto timeout = std::chrono::milliseconds(
      timeout_s.has_value() ? static_cast<int64_t>(*timeout_s * 1000) : int64_t{24} * 3600 * 1000);
  SKALD_ASSIGN_OR_RETURN(Job job, jobs_->WaitForTask(task_id, timeout));
  if (job.state == JobState::kFailed) {
    return Status::Internal(fmt::format("task {} failed: {}", task_id, job.error))
        .WithReason("PROCESSING_ERROR")
        .WithDetail("task_id", task_id);
  }
  return job;
}

TaskInfo DbImpl::ToTaskInfo(const Job& job) const {
  TaskInfo info;
  info.task_id = job.task_id;
  info.task_type = job.kind;
  info.status = std::string(JobStateName(job.state));
  info.created_ns = job.created_ns;
  info.updated_ns = job.updated_ns;
  info.resource_id = job.resource_id;
  info.stage = job.stage;
  info.result_json = job.result;
  info.error = job.error;
  return info;
}

Result<TaskInfo> DbImpl::GetTask(const Identity& who, std::string_view task_id) {
  SKALD_ASSIGN_OR_RETURN(std::optional<Job> job, catalog_->GetJobByTaskId(task_id));
  // Tasks name the caller's paths, stages and errors: a user sees their own
  // (OpenViking: "own; ROOT: all").
  bool visible = job && (who.role == Role::kRoot ||
                         (job->account == who.account && job->user == who.user));
  if (!visible) {
    return Status::NotFound("Task not found or expired")
        .WithDetail("resource", std::string(task_id))
        .WithDetail("type", "task");
  }
  return ToTaskInfo(*job);
}

Result<std::vector<TaskInfo>> DbImpl::ListTasks(const Identity& who, const TaskFilter& filter) {
  if (filter.limit < 0 || filter.limit > 200) {
    return Status::InvalidArgument("limit must be between 0 and 200");
  }
  JobFilter query;
  query.kind = filter.task_type;
  query.resource_id = filter.resource_id;
  if (!filter.status.empty()) {
    query.state = ParseJobState(filter.status);
    if (!query.state) {
      return Status::InvalidArgument(fmt::format("unknown task status '{}'", filter.status));
    }
  }
  if (who.role != Role::kRoot) {
    query.account = who.account;
    query.user = who.user;
  }
  std::vector<TaskInfo> out;
  if (filter.limit == 0) return out;
  query.limit = filter.limit;
  SKALD_ASSIGN_OR_RETURN(std::vector<Job> jobs, catalog_->ListJobs(query));
  for (const Job& job : jobs) out.push_back(ToTaskInfo(job));
  return out;
}

Status DbImpl::WaitIdle(int64_t timeout_ms, bool wait_for_retries) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    SKALD_ASSIGN_OR_RETURN(uint64_t pending, catalog_->CountJobs(JobState::kPending));
    SKALD_ASSIGN_OR_RETURN(uint64_t running, catalog_->CountJobs(JobState::kRunning));
    if (!wait_for_retries && pending > 0) {
      JobFilter waiting;
      waiting.state = JobState::kPending;
      waiting.limit = 0;
      SKALD_ASSIGN_OR_RETURN(std::vector<Job> jobs, catalog_->ListJobs(waiting));
      int64_t now = jobs_->Now();
      pending = 0;
      for (const Job& job : jobs) pending += job.not_before_ns <= now ? 1 : 0;
    }
    if (pending + running == 0) return Status::Ok();
    if (workers_.empty()) {
      return Status::FailedPrecondition(
          "background jobs are queued but no worker runs them (no embedder configured)");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::DeadlineExceeded(
          fmt::format("{} background jobs still pending or running", pending + running));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace skald
