// A session's configuration (PATCH …/config) and auto-commit (internals
// §4.3): the thresholds checked after messages are added, and the idle
// timeout checked from a job worker's idle task. See session_store.h.

#include <ctime>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/time_util.h"
#include "session/session_policy.h"
#include "session/session_store.h"

namespace skald {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kIdleCheckEveryNs = kNanosPerSecond;
constexpr int64_t kRetryFailedNs = 60 * kNanosPerSecond;

// Nanoseconds of a stored "YYYY-MM-DDTHH:MM:SS[.mmm]Z" (FormatIsoMillis);
// nullopt for anything else (null included).
std::optional<int64_t> ParseIsoNanos(const Json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  std::tm tm{};
  int millis = 0;
  int n = std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d", &tm.tm_year, &tm.tm_mon,
                      &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &millis);
  if (n < 6) return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const time_t seconds = timegm(&tm);
  if (seconds == static_cast<time_t>(-1)) return std::nullopt;
  return static_cast<int64_t>(seconds) * kNanosPerSecond + int64_t{millis} * 1'000'000;
}

// True when the policy's min_commit_interval has passed since the last commit.
bool IntervalAllows(const AutoCommitPolicy& policy, const Json& meta, int64_t now_ns) {
  std::optional<int64_t> last = ParseIsoNanos(meta.value("last_commit_at", Json(nullptr)));
  return !last || now_ns - *last >= policy.min_commit_interval_seconds * kNanosPerSecond;
}

SessionCommitRequest AutoCommitRequest(const AutoCommitPolicy& policy) {
  SessionCommitRequest request;
  request.keep_recent_count = policy.keep_recent_count;
  return request;
}

}  // namespace

Result<SessionConfig> SessionStore::UpdateConfig(const Identity& who, std::string_view session_id,
                                                 const SessionConfigUpdate& update) {
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  std::optional<Json> policy, config;
  if (update.auto_commit_policy_json) {
    Result<Json> parsed = ParseJson(*update.auto_commit_policy_json);
    if (!parsed.ok()) return Status::InvalidArgument("auto_commit_policy is not JSON");
    SKALD_ASSIGN_OR_RETURN(policy, NormalizeAutoCommitPolicy(*parsed));
  }
  if (update.memory_extraction_config_json) {
    Result<Json> parsed = ParseJson(*update.memory_extraction_config_json);
    if (!parsed.ok()) return Status::InvalidArgument("memory_extraction_config is not JSON");
    SKALD_RETURN_IF_ERROR(ValidateMemoryExtractionConfig(*parsed));
    config = std::move(*parsed);
  }
  auto session_mu = SessionMutex(who, session_id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto meta, ReadMeta(who, session));
  if (!meta) return SessionNotFound(session_id);
  Json& m = *meta;
  if (policy) m["auto_commit_policy"] = *policy;
  if (config) m["memory_extraction_config"] = *config;
  if (policy || config) {
    m["updated_at"] = FormatIsoMillis(NowNanos());
    SKALD_RETURN_IF_ERROR(WriteMeta(who, session, m));
  }
  WatchIdle(who, session_id, m);
  SessionConfig out;
  out.session_id = std::string(session_id);
  out.auto_commit_policy_json = DumpJson(m.value("auto_commit_policy", Json(nullptr)));
  out.memory_extraction_config_json = DumpJson(m.value("memory_extraction_config", Json(nullptr)));
  return out;
}

void SessionStore::MaybeAutoCommitLocked(const Identity& who, const VikingUri& session,
                                         std::string_view session_id, Json* meta) {
  std::optional<AutoCommitPolicy> policy =
      ParseAutoCommitPolicy(meta->value("auto_commit_policy", Json(nullptr)));
  if (policy) {
    const bool crossed =
        meta->value("pending_tokens", int64_t{0}) >= policy->pending_token_threshold ||
        meta->value("message_count", int64_t{0}) >= policy->message_count_threshold;
    if (crossed && IntervalAllows(*policy, *meta, NowNanos())) {
      Result<SessionCommitResult> committed =
          CommitLocked(who, session, session_id, meta, AutoCommitRequest(*policy), true);
      if (!committed.ok()) {
        spdlog::warn("session {}: auto-commit: {}", session_id, committed.status().ToString());
      }
    }
  }
  WatchIdle(who, session_id, *meta);
}

void SessionStore::WatchIdle(const Identity& who, std::string_view session_id, const Json& meta) {
  std::optional<AutoCommitPolicy> policy =
      ParseAutoCommitPolicy(meta.value("auto_commit_policy", Json(nullptr)));
  const std::string key = SessionKey(who, session_id);
  std::lock_guard<std::mutex> lock(mu_);
  // Nothing live: nothing to commit until the next message.
  if (!policy || meta.value("message_count", int64_t{0}) <= policy->keep_recent_count) {
    idle_.erase(key);
    return;
  }
  const int64_t since =
      ParseIsoNanos(meta.value("last_message_at", Json(nullptr))).value_or(NowNanos());
  IdleWatch& watch = idle_[key];
  watch.owner = Identity{who.account, who.user, Role::kUser};
  watch.session_id = std::string(session_id);
  watch.due_ns = since + policy->idle_timeout_seconds * kNanosPerSecond;
}

void SessionStore::WatchExistingSessions() {
  Result<std::vector<std::string>> accounts = files_->ListAccounts();
  if (!accounts.ok()) {
    spdlog::warn("sessions: idle auto-commit scan: {}", accounts.status().ToString());
    return;
  }
  const VikingUri users_root = VikingUri::FromSegments({"user"});
  for (const std::string& account : *accounts) {
    const Identity any{account, "", Role::kRoot};
    Result<std::vector<SessionFileEntry>> users = files_->List(any, users_root);
    if (!users.ok()) continue;
    for (const SessionFileEntry& user : *users) {
      if (!user.is_dir || user.name.empty() || user.name[0] == '.') continue;
      const Identity owner{account, user.name, Role::kUser};
      const VikingUri root = users_root.Child(user.name).Child("sessions");
      Result<std::vector<SessionFileEntry>> sessions = files_->List(owner, root);
      if (!sessions.ok()) continue;
      for (const SessionFileEntry& entry : *sessions) {
        if (!entry.is_dir || entry.name.empty() || entry.name[0] == '.') continue;
        Result<std::optional<Json>> meta = ReadMeta(owner, root.Child(entry.name));
        if (meta.ok() && *meta && !(**meta)["auto_commit_policy"].is_null()) {
          WatchIdle(owner, entry.name, **meta);
        }
      }
    }
  }
}

void SessionStore::RunIdleAutoCommits() {
  const int64_t now = NowNanos();
  bool scan = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (now - last_idle_check_ns_ < kIdleCheckEveryNs) return;
    last_idle_check_ns_ = now;
    scan = !existing_watched_;
    existing_watched_ = true;
  }
  if (scan) WatchExistingSessions();
  std::vector<IdleWatch> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, watch] : idle_) {
      if (watch.due_ns <= now) due.push_back(watch);
    }
  }
  for (const IdleWatch& watch : due) {
    Result<VikingUri> session = SessionUri(watch.owner, watch.session_id);
    if (!session.ok()) continue;
    auto session_mu = SessionMutex(watch.owner, watch.session_id);
    std::lock_guard<std::mutex> lock(*session_mu);
    Result<std::optional<Json>> meta = ReadMeta(watch.owner, *session);
    if (!meta.ok() || !*meta) {  // deleted meanwhile
      std::lock_guard<std::mutex> map_lock(mu_);
      idle_.erase(SessionKey(watch.owner, watch.session_id));
      continue;
    }
    Json& m = **meta;
    std::optional<AutoCommitPolicy> policy =
        ParseAutoCommitPolicy(m.value("auto_commit_policy", Json(nullptr)));
    std::optional<int64_t> last_message = ParseIsoNanos(m.value("last_message_at", Json(nullptr)));
    const bool idle = policy && last_message &&
                      NowNanos() - *last_message >= policy->idle_timeout_seconds * kNanosPerSecond;
    if (idle && IntervalAllows(*policy, m, NowNanos())) {
      Result<SessionCommitResult> committed = CommitLocked(
          watch.owner, *session, watch.session_id, &m, AutoCommitRequest(*policy), true);
      if (!committed.ok()) {
        spdlog::warn("session {}: idle auto-commit: {}", watch.session_id,
                     committed.status().ToString());
        std::lock_guard<std::mutex> map_lock(mu_);
        auto it = idle_.find(SessionKey(watch.owner, watch.session_id));
        if (it != idle_.end()) it->second.due_ns = NowNanos() + kRetryFailedNs;  // back off
        continue;
      }
    }
    WatchIdle(watch.owner, watch.session_id, m);
  }
}

}  // namespace skald
