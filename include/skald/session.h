#pragma once

// Value types of the sessions API (reference §2.7), shared by the session
// module (src/session/) and the Db facade (skald/db.h). Messages, parts and
// session metadata are JSON documents on the wire and in storage; they cross
// this boundary as JSON text so that every layer keeps the exact fields.
//
// Thread safety: value types.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skald {

// POST /api/v1/sessions.
struct SessionCreateRequest {
  // nullopt: a generated id "YYYYMMDD-HHMMSS-<16 hex>" (UTC).
  std::optional<std::string> session_id;
  // JSON text of `auto_commit_policy` ("null" when not given).
  std::string auto_commit_policy_json = "null";
  // JSON text of `memory_extraction_config` ("" = {"events":{"tags":[]}}).
  std::string memory_extraction_config_json;
};

// What create answers (and what a session's owner is).
struct SessionCreated {
  std::string session_id;
  std::string uri;  // viking://user/{uid}/sessions/{id}
  std::string account, user;
  std::string auto_commit_policy_json = "null";
  std::string memory_extraction_config_json;
};

// One entry of GET /api/v1/sessions.
struct SessionListEntry {
  std::string session_id;
  std::string uri;
  int64_t mod_time_ns = 0;
};

// POST …/messages and …/messages/batch.
struct SessionMessagesAdded {
  std::string session_id;
  int64_t message_count = 0;   // live (not yet committed) messages
  int64_t added = 0;           // messages added by this call
  int64_t pending_tokens = 0;  // token estimate of the live messages
};

// POST …/used: counts for this request only.
struct SessionUsageCounts {
  std::string session_id;
  int64_t contexts_used = 0;
  int64_t skills_used = 0;
};

// POST …/commit.
struct SessionCommitRequest {
  int64_t keep_recent_count = 0;  // 0..10000: the newest N messages stay live
  // Turn-budget retention (internals §4.3): "turn_budget" or nullopt. With
  // it the newest whole user turns stay live instead of keep_recent_count
  // messages; the turn fields are an error without it. nullopt fields take
  // the defaults (3 turns, 12000 tokens, 1 tail step).
  std::optional<std::string> retention_mode;
  std::optional<int64_t> keep_recent_turn_count;         // >= 0
  std::optional<int64_t> retained_message_token_budget;  // >= 0
  std::optional<int64_t> min_raw_tail_steps;             // >= 0
};

struct SessionCommitResult {
  std::string session_id;
  std::string status;  // "accepted" | "skipped"
  std::optional<std::string> task_id;
  std::optional<std::string> archive_uri;
  bool archived = false;
  std::string reason;  // skipped only: "no_messages" | "all_within_keep_window"
  std::string trace_id;
  int64_t estimated_active_tokens = 0;  // accepted only
  bool budget_exceeded = false;         // accepted only
};

// PATCH …/config: what changes (nullopt = unchanged).
struct SessionConfigUpdate {
  std::optional<std::string> memory_extraction_config_json;  // a JSON object
  // A JSON object (the policy; missing fields take their defaults) or
  // "null" (auto-commit off).
  std::optional<std::string> auto_commit_policy_json;
};

// What PATCH …/config answers: the session's configuration after it.
struct SessionConfig {
  std::string session_id;
  std::string auto_commit_policy_json = "null";
  std::string memory_extraction_config_json;
};

// GET …/context.
struct SessionContextResult {
  std::string latest_archive_overview;
  std::vector<std::string> pre_archive_abstracts;
  std::vector<std::string> messages_json;  // stored messages, oldest first
  int64_t estimated_tokens = 0;
  int64_t total_archives = 0, included_archives = 0, dropped_archives = 0, failed_archives = 0;
  int64_t active_tokens = 0, archive_tokens = 0;
};

// POST …/extract: one extracted memory candidate and what became of it.
struct SessionExtractedMemory {
  std::string uri;          // viking://user/{uid}/memories/{type}/….md (written or matched)
  std::string memory_type;  // "profile", "preferences", "events", …
  std::string text;         // the extracted statement
  std::string decision;     // "create" | "merge" | "replace" | "skip"
};

}  // namespace skald
