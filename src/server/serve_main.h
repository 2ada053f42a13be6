#pragma once

// RunServe: the body of `skald serve`. Loads the configuration, opens the
// workspace, serves HTTP until SIGINT/SIGTERM and shuts down cleanly.
//
// Thread safety: call once per process from the main thread, before other
// threads exist (it blocks SIGINT/SIGTERM so that one thread can wait for them).

#include <optional>
#include <string>

namespace skald {

struct ServeArgs {
  // ov.conf-style JSON file; empty = look it up: $SKALD_CONFIG, then
  // ~/.skald/skald.conf, else built-in defaults (docs/config.md).
  std::string config_path;
  // Command-line overrides of server.host, server.port, storage.workspace.
  std::optional<std::string> host;
  std::optional<int> port;
  std::optional<std::string> data_dir;
  // Open a workspace whose vectors were made by another embedder, recording
  // the configured one (the vectors must then be rebuilt).
  bool reindex_embeddings = false;
};

// Exit codes: 0 after a clean shutdown on SIGINT/SIGTERM; 2 for a
// configuration error (message on stderr naming the problem); 1 when the
// workspace cannot be opened, the address cannot be bound or serving fails.
// Once listening it prints exactly one line to stdout and flushes it:
//   skald: listening on http://HOST:PORT (workspace DIR)
// where PORT is the real port (useful with port 0).
int RunServe(const ServeArgs& args);

}  // namespace skald
