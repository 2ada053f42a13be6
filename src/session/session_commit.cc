// Commit of a session: phase 1 (SessionStore::Commit, synchronous) and
// phase 2 (the durable `session_commit` job, RunCommitJob). See
// session_store.h for the layout and the guarantees.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/file_util.h"
#include "common/strings.h"
#include "common/time_util.h"
#include "ingest/sidecar.h"
#include "session/archive_excerpts.h"
#include "session/archive_summary.h"
#include "session/message.h"
#include "session/session_policy.h"
#include "session/session_store.h"
#include "uri/access.h"

namespace skald {
namespace {

constexpr int64_t kMaxKeepRecentCount = 10000;
constexpr int kCommitJobAttempts = 5;

// Retention defaults of "turn_budget" (internals §4.3).
constexpr int64_t kDefaultKeepTurns = 3;
constexpr int64_t kDefaultRetainedTokens = 12000;
constexpr int64_t kDefaultTailSteps = 1;

std::string JsonLines(const std::vector<Json>& messages, const std::vector<size_t>& which) {
  std::string out;
  for (size_t i : which) {
    out += DumpJson(messages[i]);
    out += '\n';
  }
  return out;
}

// The canonical form of each distinct used URI that `owner` may see
// (uri/access.h); the others (another user's space, malformed) are dropped.
std::vector<std::string> VisibleUsage(const Identity& owner, const Json& uris) {
  std::set<std::string> out;
  if (!uris.is_array()) return {};
  for (const Json& text : uris) {
    if (!text.is_string()) continue;
    Result<VikingUri> uri = VikingUri::Parse(text.get<std::string>());
    if (uri.ok() && IsAccessible(owner, *uri)) out.insert(uri->str());
  }
  return {out.begin(), out.end()};
}

}  // namespace

Result<SessionCommitResult> SessionStore::Commit(const Identity& who, std::string_view session_id,
                                                 const SessionCommitRequest& request) {
  if (request.keep_recent_count < 0 || request.keep_recent_count > kMaxKeepRecentCount) {
    return Status::InvalidArgument("keep_recent_count must be between 0 and 10000");
  }
  const std::pair<const char*, const std::optional<int64_t>*> turn_fields[] = {
      {"keep_recent_turn_count", &request.keep_recent_turn_count},
      {"retained_message_token_budget", &request.retained_message_token_budget},
      {"min_raw_tail_steps", &request.min_raw_tail_steps}};
  for (const auto& [name, value] : turn_fields) {
    if (!value->has_value()) continue;
    if (!request.retention_mode) {
      return Status::InvalidArgument(
          fmt::format("{} requires retention_mode \"turn_budget\"", name));
    }
    if (**value < 0) return Status::InvalidArgument(fmt::format("{} must be >= 0", name));
  }
  if (request.retention_mode && *request.retention_mode != "turn_budget") {
    return Status::InvalidArgument("retention_mode must be \"turn_budget\"");
  }
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  auto session_mu = SessionMutex(who, session_id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto meta, ReadMeta(who, session));
  if (!meta) return SessionNotFound(session_id);
  SKALD_ASSIGN_OR_RETURN(SessionCommitResult out,
                         CommitLocked(who, session, session_id, &*meta, request, false));
  WatchIdle(who, session_id, *meta);
  return out;
}

Result<SessionCommitResult> SessionStore::CommitLocked(const Identity& who,
                                                       const VikingUri& session,
                                                       std::string_view session_id, Json* meta,
                                                       const SessionCommitRequest& request,
                                                       bool automatic) {
  SessionCommitResult out;
  out.session_id = std::string(session_id);
  out.trace_id = RandomHex128();
  SKALD_ASSIGN_OR_RETURN(auto messages, LiveMessages(who, session));
  const RetentionPlan plan =
      request.retention_mode
          ? PlanTurnBudget(messages, request.keep_recent_turn_count.value_or(kDefaultKeepTurns),
                           request.retained_message_token_budget.value_or(kDefaultRetainedTokens),
                           request.min_raw_tail_steps.value_or(kDefaultTailSteps))
          : PlanKeepRecent(messages.size(), static_cast<size_t>(request.keep_recent_count));
  if (plan.archived.empty()) {
    out.status = "skipped";
    out.reason = messages.empty() ? "no_messages" : "all_within_keep_window";
    return out;
  }

  // The next archive number: after every existing one (commit_count may lag
  // behind an archive left by a crash).
  SKALD_ASSIGN_OR_RETURN(auto names, ArchiveNames(who, session));
  int64_t next = meta->value("commit_count", int64_t{0}) + 1;
  for (const std::string& name : names) {
    long long n = 0;
    if (ParseInt64(std::string_view(name).substr(8), &n)) next = std::max<int64_t>(next, n + 1);
  }
  const std::string archive_name = fmt::format("archive_{:03d}", next);
  const VikingUri archive = session.Child("history").Child(archive_name);
  const int64_t now = NowNanos();

  std::set<std::string> usage;
  {
    std::lock_guard<std::mutex> map_lock(mu_);
    auto it = usage_.find(SessionKey(who, session_id));
    if (it != usage_.end()) usage.swap(it->second);
  }
  JobSpec spec;
  spec.kind = JobKind::kSessionCommit;
  spec.account = who.account;
  spec.user = who.user;
  // The session, as OpenViking names a commit's task (clients list a
  // session's commits with ?resource_id=<session_id>); the archive is in the
  // payload and the task's result.
  spec.resource_id = std::string(session_id);
  spec.priority = kJobPriorityInteractive;
  spec.max_attempts = kCommitJobAttempts;
  spec.payload =
      DumpJson(Json{{"session_id", std::string(session_id)},
                    {"session_uri", session.str()},
                    {"archive_uri", archive.str()},
                    {"committed_at_ns", now},
                    {"auto_commit", automatic},
                    {"usage_uris", Json(std::vector<std::string>(usage.begin(), usage.end()))}});
  // The archived messages and the phase-2 job commit together (the outbox):
  // an archive without its job is never visible.
  SKALD_ASSIGN_OR_RETURN(std::vector<Job> jobs,
                         files_->Write(who, archive.Child("messages.jsonl"),
                                       JsonLines(messages, plan.archived), {spec}));
  if (jobs.empty()) return Status::Internal("the session commit job was not queued");
  runner_->queue()->Notify();

  // The retained messages stay live.
  SKALD_RETURN_IF_ERROR(
      files_->Write(who, session.Child("messages.jsonl"), JsonLines(messages, plan.retained))
          .status());
  int64_t active_tokens = 0;
  for (size_t i : plan.retained) active_tokens += MessageTokens(messages[i]);
  Json& m = *meta;
  m["commit_count"] = next;
  m["message_count"] = static_cast<int64_t>(plan.retained.size());
  m["pending_tokens"] = active_tokens;
  m["keep_recent_count"] = request.keep_recent_count;
  if (request.retention_mode) {
    m["retention_mode"] = *request.retention_mode;
    m["keep_recent_turn_count"] = request.keep_recent_turn_count.value_or(kDefaultKeepTurns);
    m["retained_message_token_budget"] =
        request.retained_message_token_budget.value_or(kDefaultRetainedTokens);
    m["min_raw_tail_steps"] = request.min_raw_tail_steps.value_or(kDefaultTailSteps);
  } else {
    m["retention_mode"] = nullptr;
    m["keep_recent_turn_count"] = nullptr;
    m["retained_message_token_budget"] = nullptr;
    m["min_raw_tail_steps"] = nullptr;
  }
  m["last_commit_at"] = FormatIsoMillis(now);
  if (automatic) m["last_auto_commit_at"] = FormatIsoMillis(now);
  m["updated_at"] = FormatIsoMillis(now);
  SKALD_RETURN_IF_ERROR(WriteMeta(who, session, m));

  out.status = "accepted";
  out.task_id = jobs[0].task_id;
  out.archive_uri = archive.str();
  out.archived = true;
  out.estimated_active_tokens = active_tokens;
  out.budget_exceeded = plan.budget_exceeded;
  return out;
}

void SessionStore::RegisterJobs(JobRunner* runner) {
  runner->RegisterHandler(JobKind::kSessionCommit, [this](JobContext& context) {
    Status status = RunCommitJob(context);
    const Job& job = context.job();
    if (!status.ok() && !context.stopping() &&
        (IsPermanentJobError(status) || job.attempts >= job.max_attempts)) {
      RecordCommitFailure(job, status);  // the task ends failed with this error
    }
    return status;
  });
}

void SessionStore::RecordCommitFailure(const Job& job, const Status& status) {
  Result<Json> payload = ParseJson(job.payload);
  if (!payload.ok() || !payload->is_object()) return;
  Result<VikingUri> archive = VikingUri::Parse(payload->value("archive_uri", ""));
  if (!archive.ok()) return;
  Identity owner{job.account, job.user, Role::kUser};
  Result<std::optional<CatalogNode>> node = files_->Stat(owner, *archive);
  if (!node.ok() || !*node) return;  // the session is gone: nothing to mark
  Json failed{{"task_id", job.task_id},
              {"error", std::string(status.message())},
              {"failed_at", FormatIsoMillis(NowNanos())}};
  (void)files_->Write(owner, archive->Child(".failed.json"), DumpJson(failed));
}

Status SessionStore::RunCommitJob(JobContext& context) {
  const Job& job = context.job();
  Result<Json> payload = ParseJson(job.payload);
  if (!payload.ok() || !payload->is_object()) {
    return Status::InvalidArgument("session_commit: malformed job payload");
  }
  const std::string session_id = payload->value("session_id", "");
  Result<VikingUri> archive = VikingUri::Parse(payload->value("archive_uri", ""));
  Result<VikingUri> session = VikingUri::Parse(payload->value("session_uri", ""));
  if (session_id.empty() || !archive.ok() || !session.ok()) {
    return Status::InvalidArgument("session_commit: malformed job payload");
  }
  Identity owner{job.account, job.user, Role::kUser};
  JobProgress progress = context.Progress();

  // Idempotent: a job that runs again after its archive was finished (a
  // kill after .done, before the job was marked completed) ends at once.
  SKALD_ASSIGN_OR_RETURN(auto done, files_->Read(owner, archive->Child(".done")));
  if (done) {
    (void)files_->ForgetActiveCountBump(job.task_id);  // when a kill came before it
    return context.Complete(*done);
  }

  SKALD_ASSIGN_OR_RETURN(auto node, files_->Stat(owner, *archive));
  if (!node) {
    return Status::NotFound(
        fmt::format("session {} or its archive {} was deleted before the commit finished",
                    session_id, archive->name()));
  }
  ArchiveForExtraction input;
  input.owner = owner;
  input.session_id = session_id;
  input.session_uri = session->str();
  input.archive_uri = archive->str();
  input.committed_at_ns = payload->value("committed_at_ns", int64_t{0});
  SKALD_ASSIGN_OR_RETURN(input.messages, ReadMessages(owner, archive->Child("messages.jsonl")));

  // 1. The archive's L0/L1 (who, when, topics, key statements).
  progress("summarize");
  ArchiveSummary summary =
      SummarizeArchive(*summarizer_, session_id, archive->name(), input.messages);
  SKALD_RETURN_IF_ERROR(
      files_
          ->Write(
              owner, archive->Child(".overview.md"),
              RenderSidecar(SidecarFrontmatter(archive->str(), "SessionCommit", "session_commit"),
                            summary.overview))
          .status());
  SKALD_RETURN_IF_ERROR(
      files_
          ->Write(
              owner, archive->Child(".abstract.md"),
              RenderSidecar(SidecarFrontmatter(archive->str(), "SessionCommit", "session_commit"),
                            summary.abstract))
          .status());

  // 2. The conversation excerpts (archive_excerpts.h), then the index job
  // for the archive: its summaries and excerpts become searchable.
  progress("excerpts");
  for (const ArchiveExcerpt& excerpt : RenderArchiveExcerpts(session_id, input.messages)) {
    SKALD_RETURN_IF_ERROR(
        files_->Write(owner, archive->Child(excerpt.name), excerpt.text).status());
  }
  SKALD_RETURN_IF_ERROR(files_->QueueIndex(owner, *archive));

  // 3. Memory extraction (when wired).
  MemoryExtractionReport report;
  if (hook_) {
    progress("extract_memories");
    SKALD_ASSIGN_OR_RETURN(report, hook_(input, context));
  }
  int64_t total = 0;
  Json extracted = Json::object();
  for (const auto& [type, count] : report.extracted) {
    extracted[type] = count;
    total += count;
  }

  // 4. One use of each context the session used and its owner may see
  // (internals §4.7), for hotness. Exactly once: the catalog records the
  // task id with the bump, so a rerun after a crash between here and .done
  // does not count again; the key is forgotten once .done is written (a
  // rerun then ends at the .done check above).
  std::vector<std::string> counted =
      VisibleUsage(owner, payload->value("usage_uris", Json::array()));
  if (!counted.empty()) {
    progress("count_usage");
    SKALD_RETURN_IF_ERROR(files_->BumpActiveCount(owner, counted, job.task_id));
  }

  // 5. The session's counters, then the archive's done marker.
  progress("finalize");
  {
    auto session_mu = SessionMutex(owner, session_id);
    std::lock_guard<std::mutex> lock(*session_mu);
    SKALD_ASSIGN_OR_RETURN(auto meta, ReadMeta(owner, *session));
    if (meta) {
      Json& counters = (*meta)["memories_extracted"];
      if (!counters.is_object()) counters = Json{{"total", 0}};
      for (const auto& [type, count] : report.extracted) {
        counters[type] = counters.value(type, int64_t{0}) + count;
      }
      counters["total"] = counters.value("total", int64_t{0}) + total;
      if (report.prompt_tokens > 0 ||
          report.completion_tokens > 0) {  // memory extraction's chat call
        Json& usage = (*meta)["llm_token_usage"];
        if (!usage.is_object()) usage = Json::object();
        usage["prompt_tokens"] = usage.value("prompt_tokens", int64_t{0}) + report.prompt_tokens;
        usage["completion_tokens"] =
            usage.value("completion_tokens", int64_t{0}) + report.completion_tokens;
        usage["total_tokens"] = usage.value("total_tokens", int64_t{0}) + report.prompt_tokens +
                                report.completion_tokens;
      }
      SKALD_RETURN_IF_ERROR(WriteMeta(owner, *session, *meta));
    }
  }
  Json result{{"session_id", session_id},
              {"archive_uri", archive->str()},
              {"messages_archived", static_cast<int64_t>(input.messages.size())},
              {"memories_extracted", extracted},
              {"memories_extracted_total", total},
              {"usage_uris", payload->value("usage_uris", Json::array())},
              {"active_count_updated", counted}};
  if (!report.extractor.empty())
    result["extractor"] = report.extractor;  // llm | model_free[_fallback]
  if (!report.fallback_reason.empty()) result["extractor_fallback_reason"] = report.fallback_reason;
  if (report.prompt_tokens > 0 || report.completion_tokens > 0) {
    result["llm_token_usage"] = Json{{"prompt_tokens", report.prompt_tokens},
                                     {"completion_tokens", report.completion_tokens}};
  }
  const std::string result_text = DumpJson(result);
  SKALD_RETURN_IF_ERROR(files_->Write(owner, archive->Child(".done"), result_text).status());
  if (!counted.empty()) (void)files_->ForgetActiveCountBump(job.task_id);  // best effort
  return context.Complete(result_text);
}

}  // namespace skald
