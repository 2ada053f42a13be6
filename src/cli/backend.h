#pragma once

// Backend: what a `skald` client command talks to — a workspace opened
// in-process (EmbeddedBackend) or a running server (RemoteBackend).
//
// Every operation returns the `result` payload of OpenViking's wire format
// (reference §2.2-2.4) as JSON, so one renderer serves both modes and
// `--json` prints the same bytes whichever backend produced them. Errors are
// Statuses whose WireErrorCode() is the wire code ("NOT_FOUND", ...); the
// two reasons below mark errors that come from the CLI itself rather than
// from the Db or the server.
//
// Thread safety: a Backend is used by one thread (one command per process).

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "skald/accounts.h"
#include "skald/db.h"
#include "skald/options.h"
#include "skald/result.h"
#include "skald/status.h"
#include "skald/types.h"

namespace skald::cli {

// Status::reason() of "the server could not be reached or did not answer in
// time" (exit code 3). The message names the URL.
inline constexpr std::string_view kConnectionErrorReason = "CONNECTION_ERROR";
// Status::reason() of "the command line asked for something impossible"
// (exit code 2), e.g. `fsck` against a remote server.
inline constexpr std::string_view kUsageErrorReason = "USAGE_ERROR";

// A Status carrying kUsageErrorReason.
Status UsageError(std::string message);

// `ls` arguments; field meanings as in LsOptions. `simple` asks for a plain
// list of URI strings.
struct LsArgs {
  std::string uri = "viking://";
  bool simple = false;
  LsOptions options;
};

struct ReadArgs {
  std::string uri;
  int64_t offset = 0;  // first line, 0-based
  int64_t limit = -1;  // number of lines, -1 = to the end
  bool raw = false;    // a memory file with its provenance header
};

// `find` / `search` arguments. The time window travels as the text the user
// gave ("2h", "7d", "2026-01-31", ISO 8601; "" = none): the server parses it
// for remote calls, ParseTimeBound for embedded ones. request.since_ns and
// request.until_ns are ignored.
struct FindArgs {
  FindRequest request;
  std::string since;
  std::string until;
  // POST /api/v1/search/search (list mode) instead of /api/v1/search/find.
  bool search = false;
  std::string session_id;  // search only: the session intent analysis reads ("" = none)
};

// One `skald admin ...` operation (accounts, users, keys; reference §2.9).
enum class AdminOp {
  kCreateAccount,  // account_id, user_id (the first admin)
  kListAccounts,
  kDeleteAccount,  // account_id
  kRegisterUser,   // account_id, user_id, role
  kListUsers,      // account_id, filter
  kRemoveUser,     // account_id, user_id
  kSetRole,        // account_id, user_id, role
  kRegenerateKey,  // account_id, user_id
};
// One `skald session ...` operation (reference §2.7; cli/session_commands.h).
enum class SessionOp {
  kNew,  // session_id ("" = generated), event_tags, auto_commit_policy_json
  kList,
  kGet,          // session_id
  kDelete,       // session_id
  kAddMessage,   // session_id, role, content, peer_id
  kAddMessages,  // session_id, messages_json (a JSON array of message objects)
  kCommit,       // session_id, keep_recent_count
  kContext,      // session_id, token_budget
  kArchive,      // session_id, archive_id
  kExtract,      // session_id: memories from the live messages now
  kConfigSet,    // session_id, event_tags / clear_event_tags, auto_commit_policy_json
};
struct SessionRequest {
  SessionOp op = SessionOp::kList;
  std::string session_id;
  std::string role = "user";
  std::string content;
  std::string peer_id;
  std::string messages_json;
  std::string archive_id;
  std::vector<std::string> event_tags;
  std::string auto_commit_policy_json;  // "" = not given, "null" = no auto-commit
  bool clear_event_tags = false;        // config set: --no-event-tags
  int64_t keep_recent_count = 0;
  int64_t token_budget = 128000;
};

struct AdminRequest {
  AdminOp op = AdminOp::kListAccounts;
  std::string account_id;
  std::string user_id;
  std::string role = "user";
  UserFilter filter;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "workspace ./skald-data" or "server http://127.0.0.1:1933", for messages.
  virtual std::string Describe() const = 0;

  // list of agent-format entries ({uri,size,isDir,modTime,abstract}, +rel_path
  // when recursive) or, with `simple`, a list of URI strings.
  virtual Result<Json> Ls(const LsArgs& args) = 0;
  // list of agent-format entries with rel_path. Uses uri and options.{abs_limit,
  // show_all_hidden, node_limit, level_limit}.
  virtual Result<Json> Tree(const LsArgs& args) = 0;
  // {name,size,mode,modTime,isDir,isLocked}
  virtual Result<Json> Stat(const std::string& uri) = 0;
  // {uri}
  virtual Result<Json> Mkdir(const std::string& uri, const std::string& description) = 0;
  // {uri, estimated_deleted_count}
  virtual Result<Json> Rm(const std::string& uri, bool recursive) = 0;
  // {from, to}
  virtual Result<Json> Mv(const std::string& from, const std::string& to) = 0;
  // A JSON string: the selected lines of the file.
  virtual Result<Json> Read(const ReadArgs& args) = 0;
  // JSON strings: the directory's L0 / L1 text (or the "not ready" placeholder).
  virtual Result<Json> Abstract(const std::string& uri) = 0;
  virtual Result<Json> Overview(const std::string& uri) = 0;
  // {uri,root_uri,context_type,mode,written_bytes,content_updated,...}
  virtual Result<Json> Write(const WriteRequest& request) = 0;
  // The raw bytes of a file.
  virtual Result<std::string> Download(const std::string& uri) = 0;
  // {matches:[uri...], count}
  virtual Result<Json> Glob(const GlobRequest& request) = 0;
  // {matches:[{uri,line,content}], count, match_count, files_scanned}
  virtual Result<Json> Grep(const GrepRequest& request) = 0;
  // {nodes_checked, clean, issues:[...]}; a usage error for remote backends.
  virtual Result<Json> Fsck(bool repair) = 0;

  // Starts importing request.path as a resource and returns without waiting
  // (request.wait is ignored; callers follow the task with GetTask). Remote:
  // a local file is uploaded with temp_upload first, a URL is passed on as
  // `path`, a local directory is a usage error (the HTTP API takes one file).
  // Result: {status, root_uri, temp_uri, source_path, meta, errors, task_id}.
  virtual Result<Json> AddResource(const AddResourceRequest& request) = 0;
  // Stores a skill (request.data_json; uploads are not used). Embedded:
  // waits until it is searchable. Result: the POST /api/v1/skills `result`
  // ({status, root_uri, uri, name, auxiliary_files, task_id|queue_status}).
  virtual Result<Json> AddSkill(const SkillRequest& request) = 0;
  // POST /api/v1/content/reindex; the result as the route answers
  // (service/json_codec.h ReindexResultToJson). Embedded: always waits.
  virtual Result<Json> Reindex(const ReindexRequest& request) = 0;
  // {memories:[...], resources:[...], skills:[...], total[, provenance]}.
  virtual Result<Json> Find(const FindArgs& args) = 0;
  // A task dict {task_id, task_type, status, created_at, ..., stage, result, error}.
  virtual Result<Json> GetTask(const std::string& task_id) = 0;
  // Pauses between two GetTask polls for `at_most`, or less: embedded, it
  // wakes as soon as the task ends (remote: a plain pause).
  virtual void PauseForTask(const std::string& task_id, std::chrono::milliseconds at_most);
  // A list of task dicts, newest first.
  virtual Result<Json> ListTasks(const TaskFilter& filter) = 0;
  // The `result` of the matching /api/v1/admin/* route (cli/admin_commands.h).
  // Embedded: acts as ROOT. Remote: needs the root key (or an ADMIN's key for
  // the user operations of its own account).
  virtual Result<Json> Admin(const AdminRequest& request) = 0;
  // The `result` of the matching /api/v1/sessions* route
  // (cli/session_commands.h). Embedded: as the CLI's identity (default user).
  // The default answers a usage error (backends without sessions).
  virtual Result<Json> Session(const SessionRequest& request) {
    (void)request;
    return UsageError("this backend has no sessions");
  }
  // OVPack (cli/pack_commands.h): the package of the directory `uri`, or of
  // everything the caller sees when `uri` is "" (a backup), as {name, bytes}.
  virtual Result<skald::Download> ExportPack(const std::string& uri, bool include_vectors) {
    (void)uri, (void)include_vectors;
    return UsageError("this backend has no packs");
  }
  // Imports the package `bytes` (uploaded as `filename`) below
  // request.parent, or restores a backup (`restore`); the route's result
  // ({"uri"}). Embedded: returns once the tree is indexed.
  virtual Result<Json> ImportPack(const std::string& filename, const std::string& bytes,
                                  PackImportRequest request, bool restore) {
    (void)filename, (void)bytes, (void)request, (void)restore;
    return UsageError("this backend has no packs");
  }
};

// Opens the workspace `data_dir` in this process; `who` is the identity every
// call is made with. A workspace held by a running server fails with
// Unavailable (see IsWorkspaceInUse).
Result<std::unique_ptr<Backend>> OpenEmbeddedBackend(const std::string& data_dir,
                                                     const Identity& who);

// True when `status` is the Db's "another process holds the workspace LOCK".
bool IsWorkspaceInUse(const Status& status);

// How to reach a server.
struct RemoteOptions {
  std::string url;              // "http://host:port" with an optional path prefix
  std::string api_key;          // sent as X-API-Key when non-empty
  std::string account;          // sent as X-OpenViking-Account when non-empty
  std::string user;             // sent as X-OpenViking-User when non-empty
  double timeout_seconds = 60;  // connect, read and write timeout of each request
};

// Validates the URL (usage error when malformed); does not connect.
Result<std::unique_ptr<Backend>> MakeRemoteBackend(const RemoteOptions& options);

}  // namespace skald::cli
