#pragma once

// `skald export|backup|import|restore` (the `ov` commands of the same
// names): OVPack packages of a directory or of everything the caller sees,
// saved to and loaded from local files. Embedded they act as ROOT on the
// workspace; remote they need an ADMIN user's key (the root key is refused
// on data routes, as everywhere) or a server in dev or trusted mode.
//
// Thread safety: as the CLI (one command per process).

#include <functional>
#include <iosfwd>
#include <string>

#include "cli/backend.h"
#include "skald/db.h"

namespace CLI {
class App;
}  // namespace CLI

namespace skald::cli {

// Where a package named `name` (e.g. "handbook.ovpack") is saved for the
// argument `file`: inside it when it is a directory, else `file` with
// ".ovpack" appended when it has another ending.
std::string PackOutputPath(const std::string& file, const std::string& name);

// Saves the package of `uri` ("" = a backup) at PackOutputPath(file, ...);
// {file, bytes[, uri]}.
Result<Json> SavePack(Backend& backend, const std::string& uri, const std::string& file,
                      bool include_vectors);
// Reads the package at `file` and imports it (restore: restores it); the
// route's result ({"uri"}). A missing or unreadable file is a usage error.
Result<Json> LoadPack(Backend& backend, const std::string& file, const PackImportRequest& request,
                      bool restore);

// "saved <file> (N bytes)" or "imported <uri>".
void RenderPack(const Json& result, std::ostream& out);

// Registers export, backup, import and restore on `app`; when one is parsed,
// *action runs `execute` with its operation.
void AddPackCommands(CLI::App& app,
                     std::function<int(const std::function<Result<Json>(Backend&)>&)> execute,
                     std::function<int()>* action);

}  // namespace skald::cli
