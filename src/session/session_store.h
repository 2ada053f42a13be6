#pragma once

// SessionStore: sessions and their messages (reference §2.7, internals
// §4.2–4.3), stored through the SessionFiles port:
//
//   viking://user/{uid}/sessions/{id}/
//     .meta.json                    SessionMeta (counts, times, policies)
//     messages.jsonl                live messages, one JSON document a line
//     history/archive_NNN/
//       messages.jsonl              the messages a commit archived
//       .abstract.md, .overview.md  L0/L1 of the archive (phase 2)
//       .done                       phase 2 finished (JSON: what it did)
//
// Visibility: a caller's sessions are in their own space
// (user/{who.user}/sessions); a session id is looked up only there, so
// another user's session answers the NotFound of a missing one
// (uri/access.h CheckReadAccess is applied to every session URI).
//
// Commit (Commit): phase 1 writes the archive's messages and the durable
// `session_commit` job in one catalog transaction (the outbox), then keeps
// the retained messages live and returns the task id at once; phase 2 (the
// job, RegisterJobs) writes the archive's L0/L1 with the extractive
// summarizer, calls the memory-extraction hook when one is set, counts one
// use (active_count, exactly once) of each context the session `used` that
// its owner may see, and marks the archive done. A process killed between the phases runs phase 2 at the
// next open (the job is durable; a running job is released at open).
//
// Thread safety: safe for concurrent use. Calls on one session are
// serialized by an in-process per-session mutex (the workspace LOCK keeps
// other processes out); the port's path locks cover each file.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "session/session_files.h"
#include "skald/result.h"
#include "skald/session.h"
#include "skald/types.h"
#include "storage/job_runner.h"
#include "text/summarizer.h"
#include "uri/viking_uri.h"

namespace skald {

// What phase 2 hands to memory extraction: one committed archive.
struct ArchiveForExtraction {
  Identity owner;            // the session's account and user (role kUser)
  std::string session_id;
  std::string session_uri;   // viking://user/{uid}/sessions/{id}
  std::string archive_uri;   // …/history/archive_NNN
  std::vector<Json> messages;  // stored messages (message.h), oldest first
  int64_t committed_at_ns = 0;  // when phase 1 ran (the session's "now")
};

// What memory extraction did, for the task result and the session's
// `memories_extracted` counters.
struct MemoryExtractionReport {
  std::map<std::string, int64_t> extracted;  // per memory type, e.g. {"events": 2}
  // Which extractor ran: "llm", "model_free" or "model_free_fallback" (""
  // when no extractor ran), and why the model's answer was not used.
  std::string extractor;
  std::string fallback_reason;
  // Chat tokens the extraction used (0 without a model).
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
};

// The memory-extraction step of phase 2 (the extractor, wired by the
// service). Runs on a job worker; `context` gives progress and the stop
// flag. An error fails the attempt: permanent errors (IsPermanentJobError)
// fail the task with that message, others are retried with backoff. It may
// run again for the same archive after a crash, so it must be idempotent.
using MemoryExtractionHook =
    std::function<Result<MemoryExtractionReport>(const ArchiveForExtraction&, JobContext&)>;

class SessionStore {
 public:
  // Borrowed; all must outlive the store (and the runner's workers).
  // REQUIRES: non-null.
  SessionStore(SessionFiles* files, JobRunner* runner, Summarizer* summarizer);

  // Sets the hook phase 2 calls after the archive's L0/L1; none (the
  // default) ends phase 2 there. REQUIRES: before the runner starts.
  void SetMemoryExtractionHook(MemoryExtractionHook hook) { hook_ = std::move(hook); }

  // Registers the `session_commit` handler with `runner`. REQUIRES: before
  // the runner starts.
  void RegisterJobs(JobRunner* runner);

  // Creates a session; AlreadyExists "Session already exists: <id>" when the
  // id is taken, InvalidArgument for an id that is not a safe path segment
  // or a malformed auto-commit policy or memory-extraction config
  // (session_policy.h; the policy is stored with its defaults filled in).
  Result<SessionCreated> Create(const Identity& who, const SessionCreateRequest& request);
  // The caller's sessions, newest change first.
  Result<std::vector<SessionListEntry>> List(const Identity& who);
  // SessionMeta as JSON text, with `uri` and `user` added. NotFound "Session
  // <id> not found" unless `auto_create`.
  Result<std::string> GetMeta(const Identity& who, std::string_view session_id, bool auto_create);
  // Deletes the session with its archives; NotFound when missing.
  Status Delete(const Identity& who, std::string_view session_id);
  // Appends messages (each the JSON text of an add-message body; all are
  // validated before any is stored); creates the session when missing.
  Result<SessionMessagesAdded> AddMessages(const Identity& who, std::string_view session_id,
                                           const std::vector<std::string>& messages_json);
  // Records contexts (URIs) and a skill the session used; they go to the
  // next commit's job. NotFound when the session is missing.
  Result<SessionUsageCounts> Used(const Identity& who, std::string_view session_id,
                                  const std::vector<std::string>& contexts,
                                  const std::string& skill_uri, bool skill_given);
  // Phase 1 of a commit (see the class comment). Skipped ("no_messages",
  // "all_within_keep_window") when nothing would be archived. What stays
  // live: the newest keep_recent_count messages, or with retention_mode
  // "turn_budget" the plan of session_policy.h PlanTurnBudget. NotFound when
  // the session is missing; InvalidArgument for keep_recent_count outside
  // 0..10000, a retention_mode other than "turn_budget", a negative turn
  // field or a turn field without retention_mode.
  Result<SessionCommitResult> Commit(const Identity& who, std::string_view session_id,
                                     const SessionCommitRequest& request);
  // PATCH …/config: replaces the memory-extraction config and/or the
  // auto-commit policy (normalized, session_policy.h; null turns auto-commit
  // off) in .meta.json. NotFound when the session is missing;
  // InvalidArgument for a malformed config or policy.
  Result<SessionConfig> UpdateConfig(const Identity& who, std::string_view session_id,
                                     const SessionConfigUpdate& update);
  // Commits every session with an auto-commit policy whose idle timeout has
  // passed since its last message (and whose min_commit_interval allows
  // it). The first call finds the sessions with a policy and live messages
  // (every account's .meta.json files, read once per process); afterwards
  // the store keeps that watch list as policies are set and messages added.
  // Checks at most once a second; errors are logged. Called from a job
  // worker's idle task.
  void RunIdleAutoCommits();
  // Every live message, and the latest completed archive's overview when it
  // fits what `token_budget` leaves after them (OpenViking's order).
  // InvalidArgument when token_budget < 0.
  Result<SessionContextResult> Context(const Identity& who, std::string_view session_id,
                                       int64_t token_budget);
  // One archive as JSON text: {archive_id, uri, status, abstract, overview,
  // messages}. NotFound when the session or archive is missing.
  Result<std::string> Archive(const Identity& who, std::string_view session_id,
                              std::string_view archive_id);

  // POST …/extract (memory_hook.h): the session's live messages as an
  // archive to extract from, dated now. NotFound when the session is
  // missing (or another user's). Defined in session_extract.cc.
  Result<ArchiveForExtraction> LiveForExtraction(const Identity& who, std::string_view session_id);

 private:
  // Serializes calls on one session (in process).
  std::shared_ptr<std::mutex> SessionMutex(const Identity& who, std::string_view session_id);
  // The session's URI in the caller's space after the access check.
  Result<VikingUri> SessionUri(const Identity& who, std::string_view session_id);
  // Reads .meta.json; nullopt when the session does not exist.
  Result<std::optional<Json>> ReadMeta(const Identity& who, const VikingUri& session);
  Status WriteMeta(const Identity& who, const VikingUri& session, const Json& meta);
  // Creates the session files (REQUIRES: the session mutex held, not existing).
  Result<Json> CreateLocked(const Identity& who, const VikingUri& session,
                            std::string_view session_id, const SessionCreateRequest& request);
  Result<std::vector<Json>> ReadMessages(const Identity& who, const VikingUri& file);
  // The live messages of a session: messages.jsonl without the messages the
  // latest archive already holds (left there when a process died between
  // writing an archive and rewriting the live file).
  Result<std::vector<Json>> LiveMessages(const Identity& who, const VikingUri& session);
  // The archives of a session ordered by number (names "archive_NNN").
  Result<std::vector<std::string>> ArchiveNames(const Identity& who, const VikingUri& session);

  // Phase 1 under the session mutex with the session's meta (updated in
  // place and written). `automatic` sets last_auto_commit_at.
  Result<SessionCommitResult> CommitLocked(const Identity& who, const VikingUri& session,
                                           std::string_view session_id, Json* meta,
                                           const SessionCommitRequest& request, bool automatic);
  // After messages were added (session mutex held): commits when the
  // session's auto-commit policy says so, and updates the idle watch
  // (session_config.cc). Errors are logged: the messages are stored.
  void MaybeAutoCommitLocked(const Identity& who, const VikingUri& session,
                             std::string_view session_id, Json* meta);
  // Reads every session's meta once to fill the idle watch (RunIdleAutoCommits).
  void WatchExistingSessions();
  // Records (or, for a session without a policy, drops) the idle watch of a session.
  void WatchIdle(const Identity& who, std::string_view session_id, const Json& meta);

  // Phase 2: the `session_commit` job (session_commit.cc).
  Status RunCommitJob(JobContext& context);
  // Records a phase-2 failure that ends the task in the archive's
  // .failed.json (best effort).
  void RecordCommitFailure(const Job& job, const Status& status);

  SessionFiles* const files_;
  JobRunner* const runner_;
  Summarizer* const summarizer_;
  MemoryExtractionHook hook_;

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::mutex>> session_mu_;  // GUARDED_BY(mu_)
  std::map<std::string, std::set<std::string>> usage_;             // GUARDED_BY(mu_)
  // Sessions with an auto-commit policy, by SessionKey (RunIdleAutoCommits).
  struct IdleWatch {
    Identity owner;
    std::string session_id;
    int64_t due_ns = 0;  // last message + idle timeout
  };
  std::map<std::string, IdleWatch> idle_;  // GUARDED_BY(mu_)
  int64_t last_idle_check_ns_ = 0;         // GUARDED_BY(mu_)
  bool existing_watched_ = false;          // GUARDED_BY(mu_)
};

// Key of a session in the in-process maps: "account/user/id".
std::string SessionKey(const Identity& who, std::string_view session_id);

// "Session <id> not found" (NotFound, details {type: session, resource: id}).
Status SessionNotFound(std::string_view session_id);

}  // namespace skald
