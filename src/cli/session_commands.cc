#include "cli/session_commands.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "cli/remote_backend.h"
#include "common/strings.h"
#include "common/time_util.h"

namespace skald::cli {
namespace {

std::string SessionPath(const std::string& id) {
  return "/api/v1/sessions/" + PercentEncode(id);
}

Json EventTags(const std::vector<std::string>& tags) {
  return Json{{"events", Json{{"tags", tags}}}};
}

Json ParseOrNull(const std::string& text) {
  Result<Json> parsed = ParseJson(text);
  return parsed.ok() ? *parsed : Json(nullptr);
}

// --auto-commit-policy-json must be a JSON object (or null): checked before
// anything is sent, so that a typo is not stored as null (no auto-commit).
Status CheckAutoCommitPolicy(const SessionRequest& r) {
  if (r.auto_commit_policy_json.empty()) return Status::Ok();
  Result<Json> parsed = ParseJson(r.auto_commit_policy_json);
  if (!parsed.ok() || !(parsed->is_object() || parsed->is_null())) {
    return UsageError("--auto-commit-policy-json must be a JSON object, e.g. "
                      "'{\"message_count_threshold\":50}'");
  }
  return Status::Ok();
}

Json CreateBody(const SessionRequest& r) {
  Json body = Json::object();
  if (!r.session_id.empty()) body["session_id"] = r.session_id;
  if (!r.event_tags.empty()) body["memory_extraction_config"] = EventTags(r.event_tags);
  if (!r.auto_commit_policy_json.empty()) {
    body["auto_commit_policy"] = ParseOrNull(r.auto_commit_policy_json);
  }
  return body;
}

// PATCH …/config body: only what the command sets.
Json ConfigBody(const SessionRequest& r) {
  Json body = Json::object();
  if (!r.event_tags.empty() || r.clear_event_tags) {
    body["memory_extraction_config"] = EventTags(r.clear_event_tags ? std::vector<std::string>()
                                                                     : r.event_tags);
  }
  if (!r.auto_commit_policy_json.empty()) {
    body["auto_commit_policy"] = ParseOrNull(r.auto_commit_policy_json);
  }
  return body;
}

Json MessageBody(const SessionRequest& r) {
  Json body{{"role", r.role}, {"content", r.content}};
  if (!r.peer_id.empty()) body["peer_id"] = r.peer_id;
  return body;
}

// A usage error (exit 2) when the argument is not a JSON array, before
// anything is sent.
Result<Json> MessagesArray(const SessionRequest& r) {
  Result<Json> messages = ParseJson(r.messages_json);
  if (!messages.ok() || !messages->is_array()) {
    return UsageError("messages must be a JSON array of message objects, e.g. "
                      "'[{\"role\":\"user\",\"content\":\"hi\"}]'");
  }
  return messages;
}

}  // namespace

Result<SessionHttpCall> SessionToHttp(const SessionRequest& r) {
  SKALD_RETURN_IF_ERROR(CheckAutoCommitPolicy(r));
  switch (r.op) {
    case SessionOp::kNew:
      return SessionHttpCall{"POST", "/api/v1/sessions", {}, DumpJson(CreateBody(r))};
    case SessionOp::kList:
      return SessionHttpCall{"GET", "/api/v1/sessions", {}, ""};
    case SessionOp::kGet:
      return SessionHttpCall{"GET", SessionPath(r.session_id), {}, ""};
    case SessionOp::kDelete:
      return SessionHttpCall{"DELETE", SessionPath(r.session_id), {}, ""};
    case SessionOp::kAddMessage:
      return SessionHttpCall{"POST", SessionPath(r.session_id) + "/messages", {},
                             DumpJson(MessageBody(r))};
    case SessionOp::kAddMessages: {
      SKALD_ASSIGN_OR_RETURN(Json messages, MessagesArray(r));
      return SessionHttpCall{"POST", SessionPath(r.session_id) + "/messages/batch", {},
                             DumpJson(Json{{"messages", messages}})};
    }
    case SessionOp::kCommit:
      return SessionHttpCall{"POST", SessionPath(r.session_id) + "/commit", {},
                             DumpJson(Json{{"keep_recent_count", r.keep_recent_count}})};
    case SessionOp::kContext:
      return SessionHttpCall{"GET",
                             SessionPath(r.session_id) + "/context",
                             {{"token_budget", std::to_string(r.token_budget)}},
                             ""};
    case SessionOp::kArchive:
      return SessionHttpCall{
          "GET", SessionPath(r.session_id) + "/archives/" + PercentEncode(r.archive_id), {}, ""};
    case SessionOp::kExtract:
      return SessionHttpCall{"POST", SessionPath(r.session_id) + "/extract", {}, "{}"};
    case SessionOp::kConfigSet:
      return SessionHttpCall{"PATCH", SessionPath(r.session_id) + "/config", {},
                             DumpJson(ConfigBody(r))};
  }
  return Status::InvalidArgument("unknown session operation");
}

Result<Json> RunSessionOnDb(Db& db, const Identity& who, const SessionRequest& r) {
  SKALD_RETURN_IF_ERROR(CheckAutoCommitPolicy(r));
  switch (r.op) {
    case SessionOp::kNew: {
      SessionCreateRequest request;
      if (!r.session_id.empty()) request.session_id = r.session_id;
      if (!r.event_tags.empty()) request.memory_extraction_config_json = DumpJson(EventTags(r.event_tags));
      if (!r.auto_commit_policy_json.empty()) request.auto_commit_policy_json = r.auto_commit_policy_json;
      SKALD_ASSIGN_OR_RETURN(SessionCreated c, db.CreateSession(who, request));
      return Json{{"session_id", c.session_id},
                  {"uri", c.uri},
                  {"user", Json{{"account_id", c.account}, {"user_id", c.user}}},
                  {"auto_commit_policy", ParseOrNull(c.auto_commit_policy_json)},
                  {"memory_extraction_config", ParseOrNull(c.memory_extraction_config_json)}};
    }
    case SessionOp::kList: {
      SKALD_ASSIGN_OR_RETURN(std::vector<SessionListEntry> list, db.ListSessions(who));
      Json out = Json::array();
      for (const SessionListEntry& s : list) {
        out.push_back(Json{{"session_id", s.session_id},
                           {"uri", s.uri},
                           {"is_dir", true},
                           {"mod_time", FormatIsoMillis(s.mod_time_ns)}});
      }
      return out;
    }
    case SessionOp::kGet: {
      SKALD_ASSIGN_OR_RETURN(std::string meta, db.GetSession(who, r.session_id, false));
      return ParseOrNull(meta);
    }
    case SessionOp::kDelete:
      SKALD_RETURN_IF_ERROR(db.DeleteSession(who, r.session_id));
      return Json{{"session_id", r.session_id}};
    case SessionOp::kAddMessage:
    case SessionOp::kAddMessages: {
      std::vector<std::string> messages;
      if (r.op == SessionOp::kAddMessage) {
        messages.push_back(DumpJson(MessageBody(r)));
      } else {
        SKALD_ASSIGN_OR_RETURN(Json array, MessagesArray(r));
        for (const Json& m : array) messages.push_back(DumpJson(m));
      }
      SKALD_ASSIGN_OR_RETURN(SessionMessagesAdded added,
                             db.AddSessionMessages(who, r.session_id, messages));
      Json out{{"session_id", added.session_id},
               {"message_count", added.message_count},
               {"pending_tokens", added.pending_tokens}};
      if (r.op == SessionOp::kAddMessages) out["added"] = added.added;
      return out;
    }
    case SessionOp::kCommit: {
      SessionCommitRequest request;
      request.keep_recent_count = r.keep_recent_count;
      SKALD_ASSIGN_OR_RETURN(SessionCommitResult c, db.CommitSession(who, r.session_id, request));
      Json out{{"session_id", c.session_id},
               {"status", c.status},
               {"task_id", c.task_id ? Json(*c.task_id) : Json(nullptr)},
               {"archive_uri", c.archive_uri ? Json(*c.archive_uri) : Json(nullptr)},
               {"archived", c.archived},
               {"trace_id", c.trace_id}};
      if (c.status == "accepted") {
        out["estimated_active_tokens"] = c.estimated_active_tokens;
        out["budget_exceeded"] = c.budget_exceeded;
      } else {
        out["reason"] = c.reason;
      }
      return out;
    }
    case SessionOp::kContext: {
      SKALD_ASSIGN_OR_RETURN(SessionContextResult c,
                             db.GetSessionContext(who, r.session_id, r.token_budget));
      Json messages = Json::array();
      for (const std::string& m : c.messages_json) messages.push_back(ParseOrNull(m));
      return Json{{"latest_archive_overview", c.latest_archive_overview},
                  {"pre_archive_abstracts", c.pre_archive_abstracts},
                  {"messages", messages},
                  {"estimatedTokens", c.estimated_tokens},
                  {"stats", Json{{"totalArchives", c.total_archives},
                                 {"includedArchives", c.included_archives},
                                 {"droppedArchives", c.dropped_archives},
                                 {"failedArchives", c.failed_archives},
                                 {"activeTokens", c.active_tokens},
                                 {"archiveTokens", c.archive_tokens}}}};
    }
    case SessionOp::kArchive: {
      SKALD_ASSIGN_OR_RETURN(std::string archive,
                             db.GetSessionArchive(who, r.session_id, r.archive_id));
      return ParseOrNull(archive);
    }
    case SessionOp::kExtract: {
      SKALD_ASSIGN_OR_RETURN(std::vector<SessionExtractedMemory> memories,
                             db.ExtractSessionMemories(who, r.session_id));
      Json out = Json::array();
      for (const SessionExtractedMemory& m : memories) {
        out.push_back(Json{{"uri", m.uri},
                           {"memory_type", m.memory_type},
                           {"text", m.text},
                           {"decision", m.decision}});
      }
      return out;
    }
    case SessionOp::kConfigSet: {
      const Json body = ConfigBody(r);
      SessionConfigUpdate update;
      if (body.contains("memory_extraction_config")) {
        update.memory_extraction_config_json = DumpJson(body["memory_extraction_config"]);
      }
      if (body.contains("auto_commit_policy")) {
        update.auto_commit_policy_json = DumpJson(body["auto_commit_policy"]);
      }
      SKALD_ASSIGN_OR_RETURN(SessionConfig c, db.UpdateSessionConfig(who, r.session_id, update));
      return Json{{"session_id", c.session_id},
                  {"auto_commit_policy", ParseOrNull(c.auto_commit_policy_json)},
                  {"memory_extraction_config", ParseOrNull(c.memory_extraction_config_json)}};
    }
  }
  return Status::InvalidArgument("unknown session operation");
}

Result<Json> AddMemory(Backend& backend, const std::string& text) {
  SessionRequest create;
  create.op = SessionOp::kNew;
  SKALD_ASSIGN_OR_RETURN(Json created, backend.Session(create));
  SessionRequest add;
  add.op = SessionOp::kAddMessages;
  add.session_id = created.value("session_id", "");
  add.messages_json = DumpJson(Json::array({Json{{"role", "user"}, {"content", text}}}));
  SKALD_RETURN_IF_ERROR(backend.Session(add).status());
  SessionRequest commit;
  commit.op = SessionOp::kCommit;
  commit.session_id = add.session_id;
  return backend.Session(commit);
}

void RenderSession(const Json& result, std::ostream& out) {
  if (result.is_array()) {
    if (result.empty()) out << "(none)\n";
    for (const Json& item : result) {
      if (item.is_object() && item.contains("decision")) {  // extract: decision, type, uri, text
        out << ScalarText(item["decision"]) << '\t' << ScalarText(item.value("memory_type", Json(""))) << '\t'
            << ScalarText(item.value("uri", Json(""))) << '\t' << ScalarText(item.value("text", Json("")))
            << '\n';
      } else if (item.is_object() && item.contains("session_id")) {
        out << ScalarText(item["session_id"]) << '\t' << ScalarText(item.value("uri", Json(""))) << '\t'
            << ScalarText(item.value("mod_time", Json(""))) << '\n';
      } else {
        out << ScalarText(item) << '\n';
      }
    }
    return;
  }
  if (!result.is_object()) {
    out << ScalarText(result) << '\n';
    return;
  }
  if (result.contains("latest_archive_overview")) {  // context: the text first
    const std::string overview = result["latest_archive_overview"];
    if (!overview.empty()) out << overview << "\n\n";
    for (const Json& m : result.value("messages", Json::array())) {
      std::string text;
      for (const Json& p : m.value("parts", Json::array())) {
        if (p.value("type", "") == "text") text += p.value("text", "");
      }
      out << "[" << m.value("role", "") << "] " << text << '\n';
    }
    out << "estimatedTokens: " << ScalarText(result["estimatedTokens"]) << '\n';
    return;
  }
  for (const auto& [key, value] : result.items()) out << key << ": " << ScalarText(value) << '\n';
}

void AddSessionCommands(CLI::App& app, std::function<int(const SessionRequest&)> execute,
                        std::function<int(const std::string&)> add_memory,
                        std::function<int()>* action) {
  auto args = std::make_shared<SessionRequest>();
  // Flag storage bound by CLI11; shared with the callbacks so it outlives this call.
  struct Flags {
    std::string tags;
    bool no_auto_commit = false;
    bool no_event_tags = false;  // accepted for `ov` compatibility
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* session = app.add_subcommand("session", "Sessions: conversations committed to memory");
  session->require_subcommand(1);
  auto on = [args, flags, execute, action](CLI::App* sub, SessionOp op) {
    sub->callback([args, flags, execute, action, op] {
      args->op = op;
      args->event_tags.clear();
      for (const std::string& t : Split(flags->tags, ',')) {
        std::string_view trimmed = Trim(t);
        if (!trimmed.empty()) args->event_tags.emplace_back(trimmed);
      }
      if (flags->no_auto_commit) args->auto_commit_policy_json = "null";
      args->clear_event_tags = flags->no_event_tags && op == SessionOp::kConfigSet;
      *action = [args, execute] { return execute(*args); };
    });
  };

  CLI::App* create = session->add_subcommand("new", "Create a session");
  create->add_option("--session-id", args->session_id, "Session id (default: generated)");
  create->add_option("--event-tags", flags->tags, "Comma-separated event tags for memory extraction");
  create->add_option("--auto-commit-policy-json", args->auto_commit_policy_json,
                     "Auto-commit policy as a JSON object");
  create->add_flag("--no-auto-commit", flags->no_auto_commit, "Disable auto-commit");
  on(create, SessionOp::kNew);

  on(session->add_subcommand("list", "List your sessions, newest first"), SessionOp::kList);

  CLI::App* get = session->add_subcommand("get", "Show a session's metadata");
  get->add_option("session_id", args->session_id, "Session id")->required();
  on(get, SessionOp::kGet);

  CLI::App* del = session->add_subcommand("delete", "Delete a session and its archives");
  del->add_option("session_id", args->session_id, "Session id")->required();
  on(del, SessionOp::kDelete);

  CLI::App* add = session->add_subcommand("add-message", "Add one message (creates the session)");
  add->add_option("session_id", args->session_id, "Session id")->required();
  add->add_option("--role", args->role, "user, assistant or system")->required();
  add->add_option("--content", args->content, "Message text")->required();
  add->add_option("--peer-id", args->peer_id, "Peer the message is from");
  on(add, SessionOp::kAddMessage);

  CLI::App* batch = session->add_subcommand("add-messages", "Add messages from a JSON array");
  batch->add_option("session_id", args->session_id, "Session id")->required();
  batch->add_option("messages", args->messages_json,
                    "JSON array of {role, content | parts} objects")
      ->required();
  on(batch, SessionOp::kAddMessages);

  CLI::App* commit = session->add_subcommand(
      "commit", "Archive the session's messages now; memories are extracted in the background");
  commit->add_option("session_id", args->session_id, "Session id")->required();
  commit->add_option("--keep-recent-count", args->keep_recent_count,
                     "Newest messages to keep live (0-10000)")
      ->capture_default_str();
  commit->add_option("--event-tags", flags->tags, "Comma-separated event tags (accepted)");
  commit->add_flag("--no-event-tags", flags->no_event_tags, "No event tags (accepted)");
  on(commit, SessionOp::kCommit);

  CLI::App* context = session->add_subcommand(
      "context", "The latest archive overview and live messages within a token budget");
  context->alias("get-session-context");
  context->add_option("session_id", args->session_id, "Session id")->required();
  context->add_option("--token-budget", args->token_budget, "Token budget")->capture_default_str();
  on(context, SessionOp::kContext);

  CLI::App* archive = session->add_subcommand("archive", "Show one archive of a session");
  archive->alias("get-session-archive");
  archive->add_option("session_id", args->session_id, "Session id")->required();
  archive->add_option("archive_id", args->archive_id, "Archive id, e.g. archive_001")->required();
  on(archive, SessionOp::kArchive);

  CLI::App* extract = session->add_subcommand(
      "extract", "Extract memories from the session's live messages now and write them");
  extract->add_option("session_id", args->session_id, "Session id")->required();
  on(extract, SessionOp::kExtract);

  CLI::App* config = session->add_subcommand("config", "Change a session's configuration");
  config->require_subcommand(1);
  CLI::App* set = config->add_subcommand(
      "set", "Set the event tags and/or the auto-commit policy (only what is given changes)");
  set->add_option("session_id", args->session_id, "Session id")->required();
  set->add_option("--event-tags", flags->tags, "Comma-separated key=value event-memory tags");
  set->add_flag("--no-event-tags", flags->no_event_tags, "Clear the event-memory tags");
  set->add_option("--auto-commit-policy-json", args->auto_commit_policy_json,
                  "Auto-commit policy fields as a JSON object");
  set->add_flag("--no-auto-commit", flags->no_auto_commit, "Disable auto-commit");
  on(set, SessionOp::kConfigSet);

  auto text = std::make_shared<std::string>();
  CLI::App* memory = app.add_subcommand(
      "add-memory", "Remember a text: a session with one message, committed");
  memory->add_option("content", *text, "What to remember")->required();
  memory->callback([text, add_memory, action] {
    *action = [text, add_memory] { return add_memory(*text); };
  });
}

}  // namespace skald::cli
