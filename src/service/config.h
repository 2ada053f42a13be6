#pragma once

// Config: the server configuration file (`ov.conf`-compatible JSON).
//
// Key names follow OpenViking's `ov.conf` where Skald implements the same
// thing (reference §4). Loading is strict: an unknown key is an error naming
// its full path (`unknown config key "server.prot"`), and a value of the
// wrong type is an error naming the key. OpenViking sections and keys that
// Skald accepts but does not implement yet are not errors: each one present
// adds a line to Config::warnings. The documentation of every key is
// docs/config.md.
//
// Thread safety: Config is a value type; LoadConfig/ParseConfig are pure
// apart from reading the file and the environment.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_config.h"
#include "skald/options.h"
#include "skald/result.h"
#include "skald/status.h"

namespace skald {

// `server` section.
struct ServerConfig {
  // Interface to bind. Dev mode (no root key) only allows loopback hosts.
  std::string host = "127.0.0.1";
  // TCP port; 0 picks a free ephemeral port (tests use it).
  int port = 1933;
  // OpenViking's uvicorn worker count. Skald serves from one process with a
  // thread pool (`threads`), so values above 1 are accepted with a warning.
  int workers = 1;
  // Seconds an idle keep-alive connection is kept open. Short values free
  // pool threads sooner (cpp-httplib gives a connection one thread for its
  // whole keep-alive life); long values save reconnects.
  int timeout_keep_alive = 5;
  // "" = automatic: api_key when root_api_key is set, else dev. "dev",
  // "api_key" or "trusted" (server/auth.h); other modes are rejected by Validate().
  std::string auth_mode;
  // Root API key (ROOT role; the admin API). Setting one selects api_key
  // mode unless auth_mode says otherwise. "" is an error.
  std::optional<std::string> root_api_key;
  // Foreign origins ("scheme://host[:port]", "*" = any) allowed to call the
  // API from a browser: they get CORS headers and preflight answers. A
  // request with any other foreign Origin header is refused 403. Unlike
  // OpenViking (default ["*"]) the default allows only the server's own origin.
  std::vector<std::string> cors_origins;
  bool profile_enabled = false;

  // Skald extensions (not in OpenViking's ov.conf).
  // Request threads kept warm. A connection holds a thread while it stays
  // open; the pool grows past this on demand up to max_connections.
  int threads = 8;
  // Connections served at once (the thread pool's limit); more wait in order.
  int max_connections = 512;
  // Seconds a silent client may stall one read (or write) of a request.
  int read_timeout = 30;
  // Seconds within which a request's line and headers must have arrived.
  int header_timeout = 10;
  // Requests served on one keep-alive connection before it is closed.
  int keep_alive_max_count = 1000;
  // Largest request body accepted; larger bodies get HTTP 413.
  int64_t max_body_bytes = int64_t{32} << 20;
  // Largest body of POST /api/v1/resources/temp_upload (uploads of files and
  // zipped folders; OpenViking accepts 512 MiB there). Bodies are held in
  // memory while read, so this bounds one upload's memory. Skald extension.
  int64_t max_upload_bytes = int64_t{128} << 20;
  // One access log line per request (spdlog, level INFO: visible with
  // log.level INFO or DEBUG). Skald extension.
  bool access_log = true;

  // `observability.metrics.enabled`: GET /metrics serves Prometheus text.
  // OpenViking's default is false; Skald's is true (the figures are
  // aggregates: no account, user or path appears in them).
  bool metrics_enabled = true;
};

// `storage` section.
struct StorageConfig {
  // Workspace directory (skald.db, content/, index/, ...). Skald's default
  // differs from OpenViking's "./data" so the two never share a directory.
  std::string workspace = "./skald-data";
};

// `log` section.
struct LogConfig {
  // Python logging level name: DEBUG, INFO, WARNING (WARN), ERROR,
  // CRITICAL (FATAL); case-insensitive.
  std::string level = "WARNING";
  // "stderr", "stdout" or a file path. Skald defaults to stderr because
  // stdout carries the `skald: listening on ...` line.
  std::string output = "stderr";
};

struct Config {
  ServerConfig server;
  StorageConfig storage;
  LogConfig log;
  // `embedding` (the `dense` model plus section-wide settings). Default:
  // the built-in hashing embedder.
  EmbeddingConfig embedding;
  // `vlm`: the chat model. Not configured (no model) by default.
  LlmConfig vlm;
  // `query_planner`: a separate chat model for intent analysis; when not
  // configured, `vlm` is used (see QueryPlanner()).
  LlmConfig query_planner{"query_planner"};
  // `retrieval.recall_intent_timeout_s`: seconds search waits for the query
  // planner model (the shorter of this and the planner section's
  // `timeout`; no retries) before it plans without the model.
  double intent_timeout_s = 5.0;
  // `rerank`: its `threshold` applies even when no reranker is configured.
  RerankConfig rerank;
  // `retrieval`: hybrid weight, score propagation, hotness.
  RetrievalOptions retrieval;
  // `allow_private_networks`: add-resource may fetch URLs whose host is on
  // a private, loopback or link-local network (DbOptions).
  bool allow_private_networks = false;
  // One line per accepted-but-ignored section or key, e.g.
  // "section 'vlm' is not implemented by Skald yet and is ignored".
  std::vector<std::string> warnings;

  // The auth mode the server will run in: auth_mode when set, else "api_key"
  // when a root key is configured, else "dev".
  std::string EffectiveAuthMode() const;

  // The model for intent analysis: query_planner when configured, else vlm.
  const LlmConfig& QueryPlanner() const {
    return query_planner.configured() ? query_planner : vlm;
  }

  // Checks values and their combinations: port range, positive sizes, log
  // level, supported auth modes (api_key needs a root key), and that dev mode
  // — and trusted mode without a root key — binds a loopback host
  // (127.0.0.1, localhost or ::1) only, and the model sections
  // (EmbeddingConfig/LlmConfig/RerankConfig::Validate). InvalidArgument
  // naming the key.
  Status Validate() const;
};

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Expands `$NAME` and `${NAME}` (NAME = letters, digits, `_`) in the
// configuration text, as OpenViking does with os.path.expandvars, except
// that a variable that is not set is an error (InvalidArgument naming it)
// rather than left as written, and `$$` stands for a literal `$`. A `$` not
// followed by a name, `{` or `$` is kept, as is an unterminated `${`.
// Values are inserted as they are (inside a JSON string, a value holding `"`
// or `\` must be escaped by whoever sets it).
Result<std::string> ExpandEnvVars(std::string_view text, const EnvLookup& lookup);

// Parses configuration JSON text (after expanding variables with `lookup`,
// the process environment when null). Does not call Validate().
Result<Config> ParseConfig(std::string_view text, const EnvLookup& lookup = nullptr);

// Reads and parses the file at `path` (variables from `lookup`, the process
// environment when null). NotFound when it cannot be read.
Result<Config> LoadConfig(const std::string& path, const EnvLookup& lookup = nullptr);

// Where the server configuration was found (config_ops.cc).
struct ConfigSource {
  std::string path;    // "" = none: the built-in defaults
  std::string origin;  // "--config", "$SKALD_CONFIG", "~/.skald/skald.conf" or "defaults"
};

// The server's config file, looked up in this order: `flag_path` (--config)
// when non-empty; else $SKALD_CONFIG when set and non-empty; else
// $HOME/.skald/skald.conf when it exists; else none (built-in defaults).
// NotFound when --config or $SKALD_CONFIG names a file that does not exist
// (an explicit choice is never silently replaced). `lookup` reads the
// environment (the process's when null).
Result<ConfigSource> FindConfigFile(const std::string& flag_path,
                                    const EnvLookup& lookup = nullptr);

// FindConfigFile, then LoadConfig of what it found (a default Config when
// nothing). `*source` (optional) receives where it came from.
Result<Config> LoadServerConfig(const std::string& flag_path, const EnvLookup& lookup = nullptr,
                                ConfigSource* source = nullptr);

// The process environment as an EnvLookup.
EnvLookup ProcessEnv();

// Database options for serving `config`: its workspace and the embedder its
// `embedding` section describes (built and validated here, so callers need
// not know the model layer). `reindex_on_embedder_change` lets a workspace
// built with another embedder be opened for reindexing.
Result<DbOptions> DbOptionsFromConfig(const Config& config, bool reindex_on_embedder_change);

}  // namespace skald
