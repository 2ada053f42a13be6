#include "session/session_store.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "common/strings.h"
#include "common/time_util.h"
#include "ingest/sidecar.h"
#include "session/message.h"
#include "session/session_policy.h"
#include "uri/access.h"

namespace skald {
namespace {

constexpr size_t kMaxSessionIdBytes = 255;

std::string GeneratedSessionId(int64_t now_ns) {
  // FormatRfc3339: "YYYY-MM-DDTHH:MM:SSZ" -> "YYYYMMDD-HHMMSS".
  const std::string t = FormatRfc3339(now_ns);
  std::string id = t.substr(0, 4) + t.substr(5, 2) + t.substr(8, 2) + "-" + t.substr(11, 2) +
                   t.substr(14, 2) + t.substr(17, 2);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{}-{:016x}", id, rng());
}

Json DefaultExtractionConfig() { return Json{{"events", Json{{"tags", Json::array()}}}}; }

Json ParseOr(const std::string& text, Json fallback) {
  if (text.empty()) return fallback;
  Result<Json> parsed = ParseJson(text);
  return parsed.ok() ? *parsed : fallback;
}

// The normalized policy of a request (validated by ValidateConfigRequest), null when none.
Json NormalizedPolicyOr(const std::string& text) {
  Result<Json> policy = NormalizeAutoCommitPolicy(ParseOr(text, nullptr));
  return policy.ok() ? *policy : Json(nullptr);
}

Status ValidateConfigRequest(const SessionCreateRequest& request) {
  if (!request.auto_commit_policy_json.empty()) {
    Result<Json> policy = ParseJson(request.auto_commit_policy_json);
    if (!policy.ok()) return Status::InvalidArgument("auto_commit_policy is not JSON");
    SKALD_RETURN_IF_ERROR(NormalizeAutoCommitPolicy(*policy).status());
  }
  if (!request.memory_extraction_config_json.empty()) {
    Result<Json> config = ParseJson(request.memory_extraction_config_json);
    if (!config.ok()) return Status::InvalidArgument("memory_extraction_config is not JSON");
    if (!config->is_null()) SKALD_RETURN_IF_ERROR(ValidateMemoryExtractionConfig(*config));
  }
  return Status::Ok();
}

}  // namespace

std::string SessionKey(const Identity& who, std::string_view session_id) {
  return fmt::format("{}/{}/{}", who.account, who.user, session_id);
}

Status SessionNotFound(std::string_view session_id) {
  return Status::NotFound(fmt::format("Session {} not found", session_id))
      .WithDetail("type", "session")
      .WithDetail("resource", std::string(session_id));
}

SessionStore::SessionStore(SessionFiles* files, JobRunner* runner, Summarizer* summarizer)
    : files_(files), runner_(runner), summarizer_(summarizer) {}

std::shared_ptr<std::mutex> SessionStore::SessionMutex(const Identity& who,
                                                       std::string_view session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = session_mu_[SessionKey(who, session_id)];
  if (!slot) slot = std::make_shared<std::mutex>();
  return slot;
}

Result<VikingUri> SessionStore::SessionUri(const Identity& who, std::string_view session_id) {
  if (session_id.empty() || session_id.size() > kMaxSessionIdBytes ||
      !VikingUri::IsValidSegment(session_id) || !IsValidUtf8(session_id)) {
    return Status::InvalidArgument(
               fmt::format("Invalid session_id '{}': must be one safe path segment", session_id))
        .WithDetail("session_id", std::string(session_id));
  }
  Result<VikingUri> uri = VikingUri::Parse(
      fmt::format("viking://user/{}/sessions/{}", who.user, session_id));
  if (!uri.ok()) {
    return Status::InvalidArgument(fmt::format("Invalid session_id '{}'", session_id));
  }
  if (Status access = CheckReadAccess(who, *uri); !access.ok()) return SessionNotFound(session_id);
  return uri;
}

Result<std::optional<Json>> SessionStore::ReadMeta(const Identity& who, const VikingUri& session) {
  // A .meta.json implies its session directory; only without one is the
  // directory looked up (a session whose meta was lost still exists).
  SKALD_ASSIGN_OR_RETURN(auto bytes, files_->Read(who, session.Child(".meta.json")));
  if (!bytes) {
    SKALD_ASSIGN_OR_RETURN(auto node, files_->Stat(who, session));
    if (!node || !node->is_dir) return std::optional<Json>();
  }
  Json meta = Json::object();
  if (bytes) {
    Result<Json> parsed = ParseJson(*bytes);
    if (parsed.ok() && parsed->is_object()) meta = std::move(*parsed);
  }
  if (!meta.contains("session_id")) meta["session_id"] = std::string(session.name());
  return std::optional<Json>(std::move(meta));
}

Status SessionStore::WriteMeta(const Identity& who, const VikingUri& session, const Json& meta) {
  return files_->Write(who, session.Child(".meta.json"), DumpJson(meta, 2)).status();
}

Result<Json> SessionStore::CreateLocked(const Identity& who, const VikingUri& session,
                                        std::string_view session_id,
                                        const SessionCreateRequest& request) {
  const std::string now = FormatIsoMillis(NowNanos());
  Json meta{
      {"session_id", std::string(session_id)},
      {"created_at", now},
      {"updated_at", now},
      {"created_by_account_id", who.account},
      {"created_by_user_id", who.user},
      {"message_count", 0},
      {"total_message_count", 0},
      {"commit_count", 0},
      {"memories_extracted", Json{{"total", 0}}},
      {"last_commit_at", ""},  // OpenViking's SessionMeta: "" until the first commit
      {"llm_token_usage", Json{{"prompt_tokens", 0},
                               {"completion_tokens", 0},
                               {"total_tokens", 0},
                               {"cached_tokens", 0},
                               {"reasoning_tokens", 0}}},
      {"embedding_token_usage", Json{{"total_tokens", 0}}},
      {"pending_tokens", 0},
      {"keep_recent_count", 0},
      {"retention_mode", nullptr},
      {"keep_recent_turn_count", nullptr},
      {"retained_message_token_budget", nullptr},
      {"min_raw_tail_steps", nullptr},
      {"memory_policy", nullptr},
      {"auto_commit_policy", NormalizedPolicyOr(request.auto_commit_policy_json)},
      {"last_message_at", nullptr},
      {"last_auto_commit_at", nullptr},
      {"memory_extraction_config",
       ParseOr(request.memory_extraction_config_json, DefaultExtractionConfig())},
  };
  SKALD_RETURN_IF_ERROR(files_->Mkdir(who, session.Child("history")));
  SKALD_RETURN_IF_ERROR(files_->Write(who, session.Child("messages.jsonl"), "").status());
  SKALD_RETURN_IF_ERROR(WriteMeta(who, session, meta));
  return meta;
}

Result<SessionCreated> SessionStore::Create(const Identity& who,
                                            const SessionCreateRequest& request) {
  const std::string id = request.session_id ? *request.session_id : GeneratedSessionId(NowNanos());
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, id));
  SKALD_RETURN_IF_ERROR(ValidateConfigRequest(request));
  auto session_mu = SessionMutex(who, id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto existing, files_->Stat(who, session));
  if (existing) {
    return Status::AlreadyExists(fmt::format("Session already exists: {}", id))
        .WithReason("ALREADY_EXISTS")
        .WithDetail("resource", id)
        .WithDetail("type", "session");
  }
  SKALD_ASSIGN_OR_RETURN(Json meta, CreateLocked(who, session, id, request));
  WatchIdle(who, id, meta);
  SessionCreated out;
  out.session_id = id;
  out.uri = session.str();
  out.account = who.account;
  out.user = who.user;
  out.auto_commit_policy_json = DumpJson(meta["auto_commit_policy"]);
  out.memory_extraction_config_json = DumpJson(meta["memory_extraction_config"]);
  return out;
}

Result<std::vector<SessionListEntry>> SessionStore::List(const Identity& who) {
  Result<VikingUri> root = VikingUri::Parse(fmt::format("viking://user/{}/sessions", who.user));
  if (!root.ok() || !IsAccessible(who, *root)) return std::vector<SessionListEntry>();
  SKALD_ASSIGN_OR_RETURN(auto children, files_->List(who, *root));
  std::vector<SessionListEntry> out;
  for (const SessionFileEntry& child : children) {
    if (!child.is_dir || child.name.empty() || child.name[0] == '.') continue;
    SessionListEntry entry;
    entry.session_id = child.name;
    entry.uri = root->Child(child.name).str();
    entry.mod_time_ns = child.mtime_ns;
    out.push_back(std::move(entry));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.mod_time_ns > b.mod_time_ns;
  });
  return out;
}

Result<std::string> SessionStore::GetMeta(const Identity& who, std::string_view session_id,
                                          bool auto_create) {
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  auto session_mu = SessionMutex(who, session_id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto meta, ReadMeta(who, session));
  if (!meta) {
    if (!auto_create) return SessionNotFound(session_id);
    SKALD_ASSIGN_OR_RETURN(Json created, CreateLocked(who, session, session_id, {}));
    meta = std::move(created);
  }
  Json out = std::move(*meta);
  if (out.value("last_commit_at", Json(nullptr)).is_null()) out["last_commit_at"] = "";  // older
  out["uri"] = session.str();
  out["user"] = Json{{"account_id", who.account}, {"user_id", who.user}};
  return DumpJson(out);
}

Status SessionStore::Delete(const Identity& who, std::string_view session_id) {
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  auto session_mu = SessionMutex(who, session_id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto node, files_->Stat(who, session));
  if (!node) return SessionNotFound(session_id);
  SKALD_RETURN_IF_ERROR(files_->RemoveTree(who, session));
  std::lock_guard<std::mutex> map_lock(mu_);
  usage_.erase(SessionKey(who, session_id));
  idle_.erase(SessionKey(who, session_id));
  return Status::Ok();
}

Result<SessionMessagesAdded> SessionStore::AddMessages(
    const Identity& who, std::string_view session_id,
    const std::vector<std::string>& messages_json) {
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  const int64_t now = NowNanos();
  std::string lines;
  int64_t tokens = 0;
  int64_t added = 0;  // stored messages (an aggregate of tool results is several)
  for (size_t i = 0; i < messages_json.size(); ++i) {
    Result<Json> request = ParseJson(messages_json[i]);
    if (!request.ok()) return request.status();
    Result<Json> message = BuildStoredMessage(*request, now);
    if (!message.ok()) {
      if (messages_json.size() == 1) return message.status();
      return Status::InvalidArgument(fmt::format("messages[{}]: {}", i, message.status().message()));
    }
    for (Json& stored : SplitToolResults(std::move(*message))) {
      tokens += MessageTokens(stored);
      lines += DumpJson(stored);
      lines += '\n';
      ++added;
    }
  }
  auto session_mu = SessionMutex(who, session_id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto meta, ReadMeta(who, session));
  if (!meta) {
    SKALD_ASSIGN_OR_RETURN(Json created, CreateLocked(who, session, session_id, {}));
    meta = std::move(created);
  }
  if (added > 0) {
    SKALD_RETURN_IF_ERROR(files_->Append(who, session.Child("messages.jsonl"), lines));
  }
  Json& m = *meta;
  m["message_count"] = m.value("message_count", int64_t{0}) + added;
  m["total_message_count"] = m.value("total_message_count", int64_t{0}) + added;
  m["pending_tokens"] = m.value("pending_tokens", int64_t{0}) + tokens;
  m["updated_at"] = FormatIsoMillis(now);
  if (added > 0) m["last_message_at"] = FormatIsoMillis(now);
  SKALD_RETURN_IF_ERROR(WriteMeta(who, session, m));
  if (added > 0) MaybeAutoCommitLocked(who, session, session_id, &m);
  SessionMessagesAdded out;
  out.session_id = std::string(session_id);
  out.message_count = m["message_count"].get<int64_t>();
  out.added = added;
  out.pending_tokens = m["pending_tokens"].get<int64_t>();
  return out;
}

Result<SessionUsageCounts> SessionStore::Used(const Identity& who, std::string_view session_id,
                                              const std::vector<std::string>& contexts,
                                              const std::string& skill_uri, bool skill_given) {
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  SKALD_ASSIGN_OR_RETURN(auto node, files_->Stat(who, session));
  if (!node) return SessionNotFound(session_id);
  std::lock_guard<std::mutex> lock(mu_);
  auto& uris = usage_[SessionKey(who, session_id)];
  for (const std::string& uri : contexts) {
    if (!uri.empty()) uris.insert(uri);
  }
  if (skill_given && !skill_uri.empty()) uris.insert(skill_uri);
  SessionUsageCounts out;
  out.session_id = std::string(session_id);
  out.contexts_used = static_cast<int64_t>(contexts.size());
  out.skills_used = skill_given ? 1 : 0;
  return out;
}

Result<std::vector<Json>> SessionStore::ReadMessages(const Identity& who, const VikingUri& file) {
  SKALD_ASSIGN_OR_RETURN(auto bytes, files_->Read(who, file));
  std::vector<Json> out;
  if (!bytes) return out;
  for (const std::string& line : Split(*bytes, '\n')) {
    if (Trim(line).empty()) continue;
    Result<Json> parsed = ParseJson(line);
    if (parsed.ok() && parsed->is_object()) out.push_back(std::move(*parsed));
  }
  return out;
}

Result<std::vector<Json>> SessionStore::LiveMessages(const Identity& who,
                                                     const VikingUri& session) {
  SKALD_ASSIGN_OR_RETURN(auto live, ReadMessages(who, session.Child("messages.jsonl")));
  SKALD_ASSIGN_OR_RETURN(auto archives, ArchiveNames(who, session));
  if (live.empty() || archives.empty()) return live;
  SKALD_ASSIGN_OR_RETURN(auto archived, ReadMessages(who, session.Child("history")
                                                              .Child(archives.back())
                                                              .Child("messages.jsonl")));
  if (archived.empty()) return live;
  // By id, not by position: a turn-budget commit archives messages from
  // between retained ones.
  std::set<std::string> ids;
  for (const Json& m : archived) {
    if (m.contains("id") && m["id"].is_string()) ids.insert(m["id"].get<std::string>());
  }
  std::erase_if(live, [&](const Json& m) {
    return m.contains("id") && m["id"].is_string() && ids.count(m["id"].get<std::string>()) > 0;
  });
  return live;
}

Result<std::vector<std::string>> SessionStore::ArchiveNames(const Identity& who,
                                                            const VikingUri& session) {
  SKALD_ASSIGN_OR_RETURN(auto children, files_->List(who, session.Child("history")));
  std::vector<std::string> names;
  for (const SessionFileEntry& child : children) {
    if (child.is_dir && child.name.rfind("archive_", 0) == 0) names.push_back(child.name);
  }
  auto number = [](const std::string& name) {
    long long n = 0;
    return ParseInt64(std::string_view(name).substr(8), &n) ? n : -1;
  };
  std::sort(names.begin(), names.end(),
            [&](const std::string& a, const std::string& b) { return number(a) < number(b); });
  return names;
}

Result<SessionContextResult> SessionStore::Context(const Identity& who,
                                                   std::string_view session_id,
                                                   int64_t token_budget) {
  if (token_budget < 0) return Status::InvalidArgument("token_budget must be >= 0");
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  auto session_mu = SessionMutex(who, session_id);
  std::lock_guard<std::mutex> lock(*session_mu);
  SKALD_ASSIGN_OR_RETURN(auto meta, ReadMeta(who, session));
  if (!meta) return SessionNotFound(session_id);
  SessionContextResult out;
  // As OpenViking: every live message is returned whatever the budget; the
  // budget left after them decides whether the latest overview fits.
  SKALD_ASSIGN_OR_RETURN(auto messages, LiveMessages(who, session));
  for (const Json& message : messages) {
    out.active_tokens += MessageTokens(message);
    out.messages_json.push_back(DumpJson(message));
  }
  int64_t remaining = std::max<int64_t>(0, token_budget - out.active_tokens);
  SKALD_ASSIGN_OR_RETURN(auto archives, ArchiveNames(who, session));
  out.total_archives = static_cast<int64_t>(archives.size());
  // The newest archive whose phase 2 finished gives the overview.
  for (auto it = archives.rbegin(); it != archives.rend(); ++it) {
    VikingUri dir = session.Child("history").Child(*it);
    SKALD_ASSIGN_OR_RETURN(auto failed, files_->Stat(who, dir.Child(".failed.json")));
    if (failed) ++out.failed_archives;
    SKALD_ASSIGN_OR_RETURN(auto done, files_->Stat(who, dir.Child(".done")));
    if (!done || !out.latest_archive_overview.empty()) continue;
    SKALD_ASSIGN_OR_RETURN(auto overview, files_->Read(who, dir.Child(".overview.md")));
    if (!overview) continue;
    std::string body = ParseSidecar(*overview).body;
    int64_t tokens = EstimateTokens(body);
    if (tokens <= remaining) {
      out.latest_archive_overview = std::move(body);
      out.archive_tokens = tokens;
      out.included_archives = 1;
      remaining -= tokens;
    }
  }
  out.dropped_archives = out.total_archives - out.included_archives - out.failed_archives;
  if (out.dropped_archives < 0) out.dropped_archives = 0;
  out.estimated_tokens = out.active_tokens + out.archive_tokens;
  return out;
}

Result<std::string> SessionStore::Archive(const Identity& who, std::string_view session_id,
                                          std::string_view archive_id) {
  SKALD_ASSIGN_OR_RETURN(VikingUri session, SessionUri(who, session_id));
  SKALD_ASSIGN_OR_RETURN(auto node, files_->Stat(who, session));
  if (!node) return SessionNotFound(session_id);
  auto not_found = [&] {
    return Status::NotFound(fmt::format("Archive {} not found", archive_id))
        .WithDetail("type", "archive")
        .WithDetail("resource", std::string(archive_id));
  };
  if (archive_id.empty() || !VikingUri::IsValidSegment(archive_id)) return not_found();
  VikingUri dir = session.Child("history").Child(archive_id);
  SKALD_ASSIGN_OR_RETURN(auto archive_node, files_->Stat(who, dir));
  if (!archive_node || !archive_node->is_dir) return not_found();
  SKALD_ASSIGN_OR_RETURN(auto messages, ReadMessages(who, dir.Child("messages.jsonl")));
  SKALD_ASSIGN_OR_RETURN(auto abstract, files_->Read(who, dir.Child(".abstract.md")));
  SKALD_ASSIGN_OR_RETURN(auto overview, files_->Read(who, dir.Child(".overview.md")));
  SKALD_ASSIGN_OR_RETURN(auto done, files_->Stat(who, dir.Child(".done")));
  SKALD_ASSIGN_OR_RETURN(auto failed, files_->Stat(who, dir.Child(".failed.json")));
  Json out{{"archive_id", std::string(archive_id)},
           {"uri", dir.str()},
           {"status", done ? "completed" : failed ? "failed" : "pending"},
           {"abstract", abstract ? ParseSidecar(*abstract).body : ""},
           {"overview", overview ? ParseSidecar(*overview).body : ""},
           {"messages", messages}};
  return DumpJson(out);
}

}  // namespace skald
