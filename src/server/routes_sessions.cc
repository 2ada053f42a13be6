// Session routes (reference §2.7): create, list, get, delete, messages,
// messages/batch, used, commit, config, extract, context, archives and the
// tool-result routes. Answered with the
// default envelope (nulls kept), commit with the exclude-none envelope.
// The logic is in the session module (session/session_store.h) behind the
// Db facade; handlers only read the request and shape the answer.

#include <chrono>

#include <fmt/format.h>
#include <httplib.h>

#include "common/time_util.h"
#include "server/routes.h"

namespace skald::server {
namespace {

constexpr std::string_view kSessionPrefix = "/api/v1/sessions/";
constexpr size_t kMaxBatchMessages = 100;

// The body as an object; an empty body is {} (the body is optional).
std::optional<Json> OptionalBody(Call& call) {
  if (call.request().body.empty()) return Json::object();
  return call.BodyObject();
}

std::string SessionIdOf(Call& call, std::string_view pattern) {
  std::vector<std::string> params = PatternParameters(call, pattern);
  return params.empty() ? std::string() : params[0];
}

Json ParseOrNull(const std::string& text) {
  Result<Json> parsed = ParseJson(text);
  return parsed.ok() ? *parsed : Json(nullptr);
}

// The configuration fields create and PATCH …/config share: an
// `auto_commit_policy` object or null, a `memory_extraction_config` object
// (null = not given); anything else goes to `errors`.
SessionConfigUpdate ReadConfigFields(const Json& body, ValidationErrors* errors) {
  SessionConfigUpdate out;
  if (auto it = body.find("auto_commit_policy"); it != body.end()) {
    if (!it->is_null() && !it->is_object()) {
      errors->Add({"body", "auto_commit_policy"}, "Input should be a valid dictionary",
                  "dict_type");
    }
    out.auto_commit_policy_json = DumpJson(*it);
  }
  if (auto it = body.find("memory_extraction_config"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) {
      errors->Add({"body", "memory_extraction_config"}, "Input should be a valid dictionary",
                  "dict_type");
    }
    out.memory_extraction_config_json = DumpJson(*it);
  }
  return out;
}

void CreateSession(Call& call) {
  std::optional<Json> body = OptionalBody(call);
  if (!body) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  SessionCreateRequest request;
  request.session_id = b.OptionalString("session_id");
  bool summary = false;
  const bool telemetry = b.Telemetry("telemetry", &summary);
  const auto start = std::chrono::steady_clock::now();
  SessionConfigUpdate config = ReadConfigFields(*body, &errors);
  if (config.auto_commit_policy_json) request.auto_commit_policy_json = *config.auto_commit_policy_json;
  if (config.memory_extraction_config_json) {
    request.memory_extraction_config_json = *config.memory_extraction_config_json;
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SessionCreated> created = call.db().CreateSession(call.who(), request);
  if (!created.ok()) return call.Fail(created.status());
  const Json result{{"session_id", created->session_id},
               {"uri", created->uri},
               {"user", Json{{"account_id", created->account}, {"user_id", created->user}}},
               {"auto_commit_policy", ParseOrNull(created->auto_commit_policy_json)},
               {"memory_extraction_config", ParseOrNull(created->memory_extraction_config_json)}};
  const Json payload =
      telemetry ? TelemetryPayload("session.create", summary, start) : Json(nullptr);
  call.Ok(result, &payload);
}

void ListSessions(Call& call) {
  Result<std::vector<SessionListEntry>> sessions = call.db().ListSessions(call.who());
  Json out = Json::array();
  if (sessions.ok()) {  // OpenViking answers [] on errors
    for (const SessionListEntry& s : *sessions) {
      out.push_back(Json{{"session_id", s.session_id},
                         {"uri", s.uri},
                         {"is_dir", true},
                         {"mod_time", FormatIsoMillis(s.mod_time_ns)}});
    }
  }
  call.Ok(out);
}

void GetSession(Call& call) {
  const std::string id = PathParameter(call, kSessionPrefix);
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const bool auto_create = q.Bool("auto_create", false);
  if (!errors.empty()) return call.FailValidation(errors);
  Result<std::string> meta = call.db().GetSession(call.who(), id, auto_create);
  if (!meta.ok()) return call.Fail(meta.status());
  call.Ok(ParseOrNull(*meta));
}

void DeleteSession(Call& call) {
  const std::string id = PathParameter(call, kSessionPrefix);
  Status deleted = call.db().DeleteSession(call.who(), id);
  if (!deleted.ok()) return call.Fail(deleted);
  call.Ok(Json{{"session_id", id}});
}

Json AddedToJson(const SessionMessagesAdded& added, bool with_added) {
  Json out{{"session_id", added.session_id},
           {"message_count", added.message_count},
           {"pending_tokens", added.pending_tokens}};
  if (with_added) out["added"] = added.added;
  return out;
}

void AddMessage(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/messages");
  std::optional<Json> body = call.BodyObject();
  if (!body) return;
  ValidationErrors errors;
  bool summary = false;
  const bool telemetry = BodyReader(*body, &errors).Telemetry("telemetry", &summary);
  if (!errors.empty()) return call.FailValidation(errors);
  body->erase("telemetry");  // the request's, not the message's
  const auto start = std::chrono::steady_clock::now();
  Result<SessionMessagesAdded> added =
      call.db().AddSessionMessages(call.who(), id, {DumpJson(*body)});
  if (!added.ok()) return call.Fail(added.status());
  const Json payload =
      telemetry ? TelemetryPayload("session.add_message", summary, start) : Json(nullptr);
  call.Ok(AddedToJson(*added, false), &payload);
}

void AddMessagesBatch(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/messages/batch");
  std::optional<Json> body = call.BodyObject();
  if (!body) return;
  ValidationErrors errors;
  bool summary = false;
  const bool telemetry = BodyReader(*body, &errors).Telemetry("telemetry", &summary);
  const auto start = std::chrono::steady_clock::now();
  auto it = body->find("messages");
  std::vector<std::string> messages;
  if (it == body->end() || it->is_null()) {
    errors.Add({"body", "messages"}, "Field required", "missing");
  } else if (!it->is_array()) {
    errors.Add({"body", "messages"}, "Input should be a valid list", "list_type");
  } else if (it->size() > kMaxBatchMessages) {
    errors.Add({"body", "messages"}, "List should have at most 100 items after validation",
               "too_long");
  } else {
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_object()) {
        errors.Add({"body", "messages", std::to_string(i)}, "Input should be a valid dictionary",
                   "model_type");
      }
      messages.push_back(DumpJson((*it)[i]));
    }
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SessionMessagesAdded> added = call.db().AddSessionMessages(call.who(), id, messages);
  if (!added.ok()) return call.Fail(added.status());
  const Json payload =
      telemetry ? TelemetryPayload("session.add_messages", summary, start) : Json(nullptr);
  call.Ok(AddedToJson(*added, true), &payload);
}

void Used(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/used");
  std::optional<Json> body = OptionalBody(call);
  if (!body) return;
  ValidationErrors errors;
  std::vector<std::string> contexts;
  if (auto it = body->find("contexts"); it != body->end() && !it->is_null()) {
    if (!it->is_array()) {
      errors.Add({"body", "contexts"}, "Input should be a valid list", "list_type");
    } else {
      for (const Json& uri : *it) {
        if (!uri.is_string()) {
          errors.Add({"body", "contexts"}, "Input should be a valid string", "string_type");
          break;
        }
        contexts.push_back(uri.get<std::string>());
      }
    }
  }
  std::string skill_uri;
  bool skill_given = false;
  if (auto it = body->find("skill"); it != body->end() && !it->is_null()) {
    if (!it->is_object()) {
      errors.Add({"body", "skill"}, "Input should be a valid dictionary", "dict_type");
    } else {
      skill_given = true;
      if (it->contains("uri") && (*it)["uri"].is_string()) skill_uri = (*it)["uri"];
    }
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SessionUsageCounts> used =
      call.db().RecordSessionUsage(call.who(), id, contexts, skill_uri, skill_given);
  if (!used.ok()) return call.Fail(used.status());
  call.Ok(Json{{"session_id", used->session_id},
               {"contexts_used", used->contexts_used},
               {"skills_used", used->skills_used}});
}

void Commit(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/commit");
  std::optional<Json> body = OptionalBody(call);
  if (!body) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  SessionCommitRequest request;
  bool summary = false;
  const bool telemetry = b.Telemetry("telemetry", &summary);
  const auto start = std::chrono::steady_clock::now();
  request.keep_recent_count = b.Int("keep_recent_count", 0);
  if (errors.empty() && (request.keep_recent_count < 0 || request.keep_recent_count > 10000)) {
    errors.Add({"body", "keep_recent_count"},
               request.keep_recent_count < 0 ? "Input should be greater than or equal to 0"
                                             : "Input should be less than or equal to 10000",
               request.keep_recent_count < 0 ? "greater_than_equal" : "less_than_equal");
  }
  // Turn-budget retention: the turn fields only with retention_mode.
  request.retention_mode = b.OptionalLiteral("retention_mode", {"turn_budget"});
  const bool mode_rejected = !request.retention_mode && body->contains("retention_mode") &&
                             !(*body)["retention_mode"].is_null();  // reported already
  const std::pair<const char*, std::optional<int64_t>*> turn_fields[] = {
      {"keep_recent_turn_count", &request.keep_recent_turn_count},
      {"retained_message_token_budget", &request.retained_message_token_budget},
      {"min_raw_tail_steps", &request.min_raw_tail_steps}};
  for (const auto& [name, field] : turn_fields) {
    *field = b.NullableInt(name, std::nullopt);
    if (!field->has_value()) continue;
    if (**field < 0) {
      errors.Add({"body", name}, "Input should be greater than or equal to 0",
                 "greater_than_equal");
    } else if (!request.retention_mode && !mode_rejected) {
      errors.Add({"body"},
                 fmt::format("Value error, {} requires retention_mode='turn_budget'", name),
                 "value_error");
    }
  }
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SessionCommitResult> result = call.db().CommitSession(call.who(), id, request);
  if (!result.ok()) return call.Fail(result.status());
  Json out{{"session_id", result->session_id},
           {"status", result->status},
           {"task_id", result->task_id ? Json(*result->task_id) : Json(nullptr)},
           {"archive_uri", result->archive_uri ? Json(*result->archive_uri) : Json(nullptr)},
           {"archived", result->archived},
           {"trace_id", result->trace_id}};
  if (result->status == "accepted") {
    out["estimated_active_tokens"] = result->estimated_active_tokens;
    out["budget_exceeded"] = result->budget_exceeded;
  } else {
    out["reason"] = result->reason;
  }
  const Json payload =
      telemetry ? TelemetryPayload("session.commit", summary, start) : Json(nullptr);
  call.OkExcludeNone(out, &payload);
}

// PATCH …/config (extra fields forbidden).
void UpdateConfig(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/config");
  std::optional<Json> body = OptionalBody(call);
  if (!body) return;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  b.ForbidExtra({"memory_extraction_config", "auto_commit_policy", "telemetry"});
  bool summary = false;
  const bool telemetry = b.Telemetry("telemetry", &summary);
  SessionConfigUpdate update = ReadConfigFields(*body, &errors);
  if (!errors.empty()) return call.FailValidation(errors);
  const auto start = std::chrono::steady_clock::now();
  Result<SessionConfig> config = call.db().UpdateSessionConfig(call.who(), id, update);
  if (!config.ok()) return call.Fail(config.status());
  // OpenViking answers this route with the exclude-none envelope.
  Json result{{"session_id", config->session_id},
              {"auto_commit_policy", ParseOrNull(config->auto_commit_policy_json)},
              {"memory_extraction_config", ParseOrNull(config->memory_extraction_config_json)}};
  if (!telemetry) return call.OkExcludeNone(result);
  Json payload = TelemetryPayload("session.update_config", summary, start);
  call.OkExcludeNone(result, &payload);
}

void Context(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/context");
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const int64_t budget = q.IntAtLeast("token_budget", 128000, 0);
  if (!errors.empty()) return call.FailValidation(errors);
  Result<SessionContextResult> context = call.db().GetSessionContext(call.who(), id, budget);
  if (!context.ok()) return call.Fail(context.status());
  Json messages = Json::array();
  for (const std::string& m : context->messages_json) messages.push_back(ParseOrNull(m));
  call.Ok(Json{{"latest_archive_overview", context->latest_archive_overview},
               {"pre_archive_abstracts", context->pre_archive_abstracts},
               {"messages", messages},
               {"estimatedTokens", context->estimated_tokens},
               {"stats", Json{{"totalArchives", context->total_archives},
                              {"includedArchives", context->included_archives},
                              {"droppedArchives", context->dropped_archives},
                              {"failedArchives", context->failed_archives},
                              {"activeTokens", context->active_tokens},
                              {"archiveTokens", context->archive_tokens}}}});
}

void GetArchive(Call& call) {
  std::vector<std::string> params = PatternParameters(call, "/api/v1/sessions/{}/archives/{}");
  if (params.size() != 2) return call.FailHttp(404, "NOT_FOUND", "Not Found");
  Result<std::string> archive = call.db().GetSessionArchive(call.who(), params[0], params[1]);
  if (!archive.ok()) return call.Fail(archive.status());
  call.Ok(ParseOrNull(*archive));
}

// POST …/extract: memories from the live messages now, one item per
// candidate with the merge decision (the messages stay live).
void Extract(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/extract");
  std::optional<Json> body = OptionalBody(call);  // no fields; a body must still be an object
  if (!body) return;
  Result<std::vector<SessionExtractedMemory>> memories =
      call.db().ExtractSessionMemories(call.who(), id);
  if (!memories.ok()) return call.Fail(memories.status());
  Json out = Json::array();
  for (const SessionExtractedMemory& m : *memories) {
    out.push_back(Json{{"uri", m.uri},
                       {"memory_type", m.memory_type},
                       {"text", m.text},
                       {"decision", m.decision}});
  }
  call.Ok(out);
}

// ---- tool results (reference §2.7) -----------------------------------------
// OpenViking moves a tool output longer than its externalization threshold out
// of the message into a separate tool result, readable by these routes. Skald
// keeps every tool output inline in its message part, so a session has no
// tool results: the list is empty and any tool_result_id is unknown (404).
// Parameters are validated as OpenViking does, and a missing session is 404.

Status ToolResultNotFound(const std::string& tool_result_id) {
  return Status::NotFound(fmt::format("Tool result not found: {}", tool_result_id))
      .WithDetail("resource", tool_result_id)
      .WithDetail("type", "tool_result");
}

// The session must exist (NotFound "Session <id> not found" otherwise).
Status RequireSession(Call& call, const std::string& session_id) {
  Result<std::string> meta = call.db().GetSession(call.who(), session_id, false);
  return meta.ok() ? Status::Ok() : meta.status();
}

// GET /api/v1/sessions/{id}/tool-results?tool_name=&limit=50 (>= 1).
void ListToolResults(Call& call) {
  const std::string id = SessionIdOf(call, "/api/v1/sessions/{}/tool-results");
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  (void)q.String("tool_name", "");
  (void)q.IntAtLeast("limit", 50, 1);
  if (!errors.empty()) return call.FailValidation(errors);
  if (Status exists = RequireSession(call, id); !exists.ok()) return call.Fail(exists);
  call.Ok(Json{{"tool_results", Json::array()}});
}

// GET …/tool-results/{tid}?offset=0 (>= 0)&limit=20000 (>= -1)&include_metadata=true.
void ReadToolResult(Call& call) {
  const std::vector<std::string> params =
      PatternParameters(call, "/api/v1/sessions/{}/tool-results/{}");
  if (params.size() != 2) return call.FailHttp(404, "NOT_FOUND", "Not Found");
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  (void)q.IntAtLeast("offset", 0, 0);
  const int64_t limit = q.Int("limit", 20000);
  (void)q.Bool("include_metadata", true);
  if (!errors.empty()) return call.FailValidation(errors);
  if (limit < -1) {
    return call.Fail(Status::InvalidArgument("limit must be -1 or greater than or equal to 0")
                         .WithDetail("field", "limit")
                         .WithDetail("value", std::to_string(limit)));
  }
  if (Status exists = RequireSession(call, params[0]); !exists.ok()) return call.Fail(exists);
  call.Fail(ToolResultNotFound(params[1]));
}

// GET …/tool-results/{tid}/search?q= (required, non-empty)&limit=20 (>= 1)&context_chars=300 (>= 0).
void SearchToolResult(Call& call) {
  const std::vector<std::string> params =
      PatternParameters(call, "/api/v1/sessions/{}/tool-results/{}/search");
  if (params.size() != 2) return call.FailHttp(404, "NOT_FOUND", "Not Found");
  ValidationErrors errors;
  QueryReader q(call.query(), &errors);
  const std::string query = q.RequiredString("q");
  if (errors.empty() && query.empty()) {
    errors.Add({"query", "q"}, "String should have at least 1 character", "string_too_short");
  }
  (void)q.IntAtLeast("limit", 20, 1);
  (void)q.IntAtLeast("context_chars", 300, 0);
  if (!errors.empty()) return call.FailValidation(errors);
  if (Status exists = RequireSession(call, params[0]); !exists.ok()) return call.Fail(exists);
  call.Fail(ToolResultNotFound(params[1]));
}

}  // namespace

void RegisterSessionRoutes(Router& router) {
  router.Add("POST", "/api/v1/sessions", CreateSession);
  router.Add("GET", "/api/v1/sessions", ListSessions);
  router.AddWithParameter("GET", std::string(kSessionPrefix), GetSession);
  router.AddWithParameter("DELETE", std::string(kSessionPrefix), DeleteSession);
  router.AddPattern("POST", "/api/v1/sessions/{}/messages", AddMessage);
  router.AddPattern("POST", "/api/v1/sessions/{}/messages/batch", AddMessagesBatch);
  router.AddPattern("POST", "/api/v1/sessions/{}/used", Used);
  router.AddPattern("POST", "/api/v1/sessions/{}/commit", Commit);
  router.AddPattern("POST", "/api/v1/sessions/{}/extract", Extract);
  router.AddPattern("GET", "/api/v1/sessions/{}/context", Context);
  router.AddPattern("PATCH", "/api/v1/sessions/{}/config", UpdateConfig);
  router.AddPattern("GET", "/api/v1/sessions/{}/archives/{}", GetArchive);
  router.AddPattern("GET", "/api/v1/sessions/{}/tool-results", ListToolResults);
  router.AddPattern("GET", "/api/v1/sessions/{}/tool-results/{}", ReadToolResult);
  router.AddPattern("GET", "/api/v1/sessions/{}/tool-results/{}/search", SearchToolResult);
}

}  // namespace skald::server
