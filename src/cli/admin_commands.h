#pragma once

// `skald admin ...`: accounts, users, roles and keys (reference §3.3 admin,
// §2.9). Each command is one AdminRequest that a Backend runs: remotely as
// the matching /api/v1/admin/* call (AdminToHttp), embedded directly on the
// Db as ROOT (RunAdminOnDb); both give the route's `result` JSON.
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

// One HTTP call of the admin API.
struct AdminHttpCall {
  std::string method;  // GET, POST, PUT, DELETE
  std::string path;    // "/api/v1/admin/accounts/acme/users" (ids percent-encoded)
  std::vector<std::pair<std::string, std::string>> params;  // query
  std::string body;    // JSON text ("" for none)
};
AdminHttpCall AdminToHttp(const AdminRequest& request);

// Runs `request` on `db` as `who` and returns what the admin route would
// answer as its `result`.
Result<Json> RunAdminOnDb(Db& db, const Identity& who, const AdminRequest& request);

// Prints an admin result for people: objects as "key: value" lines, lists
// as a header line and one line per item.
void RenderAdmin(const Json& result, std::ostream& out);

// Registers `admin` and its subcommands on `app`. When one is parsed,
// *action is set to run `execute` with its request (the caller's Execute:
// open the backend, call Backend::Admin, print).
void AddAdminCommands(CLI::App& app, std::function<int(const AdminRequest&)> execute,
                      std::function<int()>* action);

}  // namespace skald::cli
