// OpsStats: Db::Stats and Db::CheckReady (see ops_stats.h).

#include "service/ops_stats.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <string_view>

#include "model/embedder.h"
#include "model/reranker.h"

namespace skald {
namespace {

// Size of a file and its SQLite WAL, 0 for what does not exist.
uint64_t FileBytes(const std::string& path, bool with_wal) {
  uint64_t total = 0;
  std::error_code ec;
  for (const std::string& p : {path, path + "-wal"}) {
    if (p != path && !with_wal) break;
    const auto size = std::filesystem::file_size(p, ec);
    if (!ec) total += static_cast<uint64_t>(size);
  }
  return total;
}

ModelClientStats ModelClient(std::string role, std::string provider, std::string model,
                             const ModelStats& stats) {
  ModelClientStats out;
  out.role = std::move(role);
  out.provider = std::move(provider);
  out.model = std::move(model);
  out.calls = stats.calls;
  out.requests = stats.requests;
  out.retries = stats.retries;
  out.failures = stats.failures;
  out.fast_fails = stats.fast_fails;
  return out;
}

bool IsBuiltInEmbedder(const Embedder& embedder) { return embedder.provider() == "hashing"; }

}  // namespace

Result<DbStats> OpsStats::Stats(const Identity& who) {
  DbStats stats;
  stats.workers = s_.runner->workers();
  for (JobKind kind : KnownJobKinds()) {
    JobKindStats k;
    k.kind = std::string(JobKindName(kind));
    SKALD_ASSIGN_OR_RETURN(k.pending, s_.catalog->CountJobs(JobState::kPending, kind));
    SKALD_ASSIGN_OR_RETURN(k.running, s_.catalog->CountJobs(JobState::kRunning, kind));
    SKALD_ASSIGN_OR_RETURN(k.completed, s_.catalog->CountJobs(JobState::kCompleted, kind));
    SKALD_ASSIGN_OR_RETURN(k.failed, s_.catalog->CountJobs(JobState::kFailed, kind));
    JobOutcomeCounts outcomes = s_.runner->Outcomes(kind);
    k.processed = outcomes.processed;
    k.requeued = outcomes.requeued;
    k.errors = outcomes.failed;
    for (const JobOutcomeCounts::Error& e : outcomes.recent_errors) {
      // Job errors name paths: a user sees those of the jobs they enqueued.
      const bool own = !who.account.empty() && e.account == who.account && e.user == who.user;
      if (who.role == Role::kRoot || own) {
        k.recent_errors.push_back(e.message);
      }
    }
    stats.jobs.push_back(std::move(k));
  }

  const std::string index_dir = s_.options->workspace + "/index";
  IndexSizeStats lexical;
  lexical.name = "lexical";
  SKALD_ASSIGN_OR_RETURN(lexical.records, s_.lexical->Count(RecordFilter{}));
  if (s_.lexical->Kind() == "fts5") {
    lexical.bytes = FileBytes(index_dir + "/lexical.db", /*with_wal=*/true);
  } else {  // the snapshot and its log
    lexical.bytes = FileBytes(index_dir + "/lexical.mem", false) +
                    FileBytes(index_dir + "/lexical.mem.log", false);
  }
  stats.indexes.push_back(lexical);
  if (s_.vectors != nullptr) {
    IndexSizeStats vectors;
    vectors.name = "vector";
    for (const std::string& account : s_.vectors->Accounts()) {
      if (const VectorIndex* index = s_.vectors->Find(account); index != nullptr) {
        vectors.records += index->size();
        vectors.memory_bytes += index->MemoryBytes();
      }
      vectors.bytes += FileBytes(VectorIndexSet::PathFor(index_dir, account), false);
    }
    stats.indexes.push_back(vectors);
  }

  if (const auto& embedder = s_.options->embedder; embedder) {
    stats.models.push_back(
        ModelClient("embedding", embedder->provider(), embedder->model(), embedder->stats()));
  }
  if (const auto& reranker = s_.options->reranker; reranker) {
    stats.models.push_back(
        ModelClient("rerank", reranker->provider(), reranker->model(), reranker->stats()));
  }
  stats.retrieval = s_.finder->counts();
  stats.locks_held = s_.locks->held();
  stats.lock_waiters = s_.locks->waiting();
  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> accounts, s_.catalog->ListAccounts());
  stats.accounts = accounts.size();
  stats.catalog_bytes = FileBytes(s_.options->workspace + "/skald.db", /*with_wal=*/true);
  stats.disk_full = s_.reserve != nullptr && !s_.reserve->CheckWrite().ok();
  if (s_.options->embedder && IsBuiltInEmbedder(*s_.options->embedder)) {
    stats.embedding_probe = "ok";
  } else {
    std::lock_guard<std::mutex> lock(cache_mu_);
    stats.embedding_probe = probe_result_;
  }
  return stats;
}

ReadyReport OpsStats::CheckReady() {
  ReadyReport report;
  Result<std::optional<std::string>> meta = s_.catalog->GetMeta("content_backend");
  if (meta.ok()) {
    report.checks.emplace_back("catalog", "ok");
  } else {
    spdlog::warn("/ready: the catalog does not answer: {}", meta.status().ToString());
    report.checks.emplace_back("catalog", "error: the catalog does not answer");
  }
  const bool vectors_expected = s_.options->embedder != nullptr;
  if (s_.lexical != nullptr && (!vectors_expected || s_.vectors != nullptr)) {
    report.checks.emplace_back("indexes", "ok");
  } else {
    report.checks.emplace_back("indexes", "error: an index is not open");
  }
  if (!s_.options->embedder) {
    report.checks.emplace_back("embedding", "not_configured");
  } else if (IsBuiltInEmbedder(*s_.options->embedder)) {
    report.checks.emplace_back("embedding", "ok");
  } else {
    report.checks.emplace_back("embedding", ProbeEmbedding());
  }
  report.ready = true;
  for (const auto& [name, status] : report.checks) {
    report.ready = report.ready && (status == "ok" || status == "not_configured");
  }
  return report;
}

std::string OpsStats::ProbeEmbedding() {
  Env* env = EnvOrDefault(s_.env);
  const int64_t ttl_ns = std::chrono::nanoseconds(kProbeTtl).count();
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (probed_at_ns_ != 0 && env->MonotonicNanos() - probed_at_ns_ < ttl_ns) {
      return probe_result_;
    }
  }
  std::unique_lock<std::mutex> probing(probe_mu_, std::try_to_lock);
  if (!probing.owns_lock()) {  // another request is probing: its last answer
    std::lock_guard<std::mutex> lock(cache_mu_);
    return probe_result_ == "not_probed" ? "error: probe in progress" : probe_result_;
  }
  const std::string text = "ready";
  Result<std::vector<std::vector<float>>> vectors =
      s_.options->embedder->Embed(std::span<const std::string>(&text, 1), EmbedKind::kQuery);
  std::string result = "ok";
  if (!vectors.ok()) {
    // The details (provider URL, HTTP status) go to the log, not to this
    // unauthenticated endpoint.
    spdlog::warn("/ready: the embedding provider did not answer: {}", vectors.status().ToString());
    result = "error: the embedding provider did not answer (" +
             std::string(StatusCodeName(vectors.status().code())) + ")";
  }
  std::lock_guard<std::mutex> lock(cache_mu_);
  probe_result_ = result;
  probed_at_ns_ = env->MonotonicNanos();
  if (probed_at_ns_ == 0) probed_at_ns_ = 1;
  return result;
}

}  // namespace skald
