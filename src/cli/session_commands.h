#pragma once

// `skald session ...` and `skald add-memory` (reference §3.3, the `ov` flag
// names): each session command is one SessionRequest that a Backend runs —
// remotely as the matching /api/v1/sessions* call (SessionToHttp), embedded
// directly on the Db (RunSessionOnDb); both give the route's `result` JSON.
// `add-memory TEXT` is create + one user message + commit (AddMemory).
//
// Thread safety: as the CLI (one command per process).

#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "cli/backend.h"
#include "skald/db.h"

namespace CLI {
class App;
}  // namespace CLI

namespace skald::cli {

// One HTTP call of the sessions API.
struct SessionHttpCall {
  std::string method;
  std::string path;  // ids percent-encoded
  std::vector<std::pair<std::string, std::string>> params;
  std::string body;  // JSON text ("" for none)
};
// InvalidArgument when request.messages_json is not a JSON array (add-messages).
Result<SessionHttpCall> SessionToHttp(const SessionRequest& request);

// Runs `request` on `db` as `who`; the result is what the route answers.
Result<Json> RunSessionOnDb(Db& db, const Identity& who, const SessionRequest& request);

// Creates a session, adds `text` as one user message and commits it; the
// result is the commit's ({session_id, status, task_id, archive_uri, ...}).
Result<Json> AddMemory(Backend& backend, const std::string& text);

// Prints a session result for people: objects as "key: value" lines (nested
// values as JSON), lists as one line per item.
void RenderSession(const Json& result, std::ostream& out);

// Registers `session` with its subcommands and `add-memory` on `app`. When
// one is parsed, *action runs `execute` with its request, or `add_memory`
// with the text.
void AddSessionCommands(CLI::App& app, std::function<int(const SessionRequest&)> execute,
                        std::function<int(const std::string&)> add_memory,
                        std::function<int()>* action);

}  // namespace skald::cli
