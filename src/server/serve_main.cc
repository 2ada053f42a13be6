#include "server/serve_main.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/strings.h"
#include "server/server.h"
#include "service/config.h"
#include "skald/db.h"

namespace skald {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitConfig = 2;

spdlog::level::level_enum LogLevel(const std::string& name) {
  const std::string lower = AsciiLower(name);
  if (lower == "debug") return spdlog::level::debug;
  if (lower == "info") return spdlog::level::info;
  if (lower == "error") return spdlog::level::err;
  if (lower == "critical" || lower == "fatal") return spdlog::level::critical;
  return spdlog::level::warn;
}

// Installs the process-wide logger described by `log`. InvalidArgument when
// the output file cannot be opened.
Status SetUpLogging(const LogConfig& log) {
  try {
    spdlog::sink_ptr sink;
    if (log.output == "stderr") {
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else if (log.output == "stdout") {
      sink = std::make_shared<spdlog::sinks::stdout_sink_mt>();
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(log.output);
    }
    auto logger = std::make_shared<spdlog::logger>("skald", std::move(sink));
    logger->set_level(LogLevel(log.level));
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(std::move(logger));
  } catch (const spdlog::spdlog_ex& e) {
    return Status::InvalidArgument(fmt::format("log.output \"{}\": {}", log.output, e.what()));
  }
  return Status::Ok();
}

std::string UrlHost(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

int RunServe(const ServeArgs& args) {
  // Block the shutdown signals before any thread starts (the Db's and the
  // server's threads inherit the mask); one thread below waits for them.
  sigset_t shutdown_signals;
  sigemptyset(&shutdown_signals);
  sigaddset(&shutdown_signals, SIGINT);
  sigaddset(&shutdown_signals, SIGTERM);
  sigset_t previous_mask;
  pthread_sigmask(SIG_BLOCK, &shutdown_signals, &previous_mask);
  struct MaskRestorer {
    sigset_t mask;
    ~MaskRestorer() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore_mask{previous_mask};

  ConfigSource config_source;
  Result<Config> loaded = LoadServerConfig(args.config_path, nullptr, &config_source);
  if (!loaded.ok()) {
    std::fprintf(stderr, "skald: config error: %s\n", loaded.status().message().c_str());
    return kExitConfig;
  }
  Config config = std::move(loaded).value();
  if (args.host.has_value()) config.server.host = *args.host;
  if (args.port.has_value()) config.server.port = *args.port;
  if (args.data_dir.has_value()) config.storage.workspace = *args.data_dir;
  if (Status valid = config.Validate(); !valid.ok()) {
    std::fprintf(stderr, "skald: config error: %s\n", valid.message().c_str());
    return kExitConfig;
  }
  if (Status logging = SetUpLogging(config.log); !logging.ok()) {
    std::fprintf(stderr, "skald: config error: %s\n", logging.message().c_str());
    return kExitConfig;
  }
  for (const std::string& warning : config.warnings) spdlog::warn("config: {}", warning);
  spdlog::info("config: {}", config_source.path.empty()
                                 ? std::string("built-in defaults")
                                 : config_source.path + " (" + config_source.origin + ")");

  Result<DbOptions> db_options = DbOptionsFromConfig(config, args.reindex_embeddings);
  if (!db_options.ok()) {
    std::fprintf(stderr, "skald: config error: %s\n", db_options.status().message().c_str());
    return kExitConfig;
  }
  Result<std::unique_ptr<Db>> db = Db::Open(*db_options);
  if (!db.ok()) {
    std::fprintf(stderr, "skald: cannot open workspace %s: %s\n",
                 config.storage.workspace.c_str(), db.status().message().c_str());
    return kExitFailure;
  }

  ServerOptions server_options;
  server_options.host = config.server.host;
  server_options.port = config.server.port;
  server_options.threads = config.server.threads;
  server_options.max_connections = config.server.max_connections;
  server_options.read_timeout_sec = config.server.read_timeout;
  server_options.header_timeout_sec = config.server.header_timeout;
  server_options.check_host = config.EffectiveAuthMode() == "dev";
  server_options.cors_origins = config.server.cors_origins;
  server_options.keep_alive_timeout_sec = config.server.timeout_keep_alive;
  server_options.keep_alive_max_count = config.server.keep_alive_max_count;
  server_options.max_body_bytes = config.server.max_body_bytes;
  server_options.max_upload_bytes = config.server.max_upload_bytes;
  server_options.auth_mode = config.EffectiveAuthMode();
  server_options.root_api_key = config.server.root_api_key.value_or("");
  server_options.metrics_enabled = config.server.metrics_enabled;
  server_options.access_log = config.server.access_log;
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Create(**db, server_options);
  if (!server.ok()) {
    std::fprintf(stderr, "skald: %s\n", server.status().message().c_str());
    return kExitFailure;
  }
  if (Status bound = (*server)->Bind(); !bound.ok()) {
    std::fprintf(stderr, "skald: %s\n", bound.message().c_str());
    return kExitFailure;
  }

  std::fprintf(stdout, "skald: listening on http://%s:%d (workspace %s)\n",
               UrlHost(config.server.host).c_str(), (*server)->port(),
               config.storage.workspace.c_str());
  std::fflush(stdout);

  HttpServer* http = server->get();
  std::atomic<bool> signalled{false};
  std::thread signal_waiter([&] {
    int signal_number = 0;
    sigwait(&shutdown_signals, &signal_number);
    signalled = true;
    spdlog::info("signal {} received, shutting down", signal_number);
    http->Stop();
  });

  Status served = http->Serve();
  if (!signalled) {
    // Serve() ended on its own: wake the waiter (the signal is blocked, so it
    // stays pending for that thread until sigwait() takes it).
    pthread_kill(signal_waiter.native_handle(), SIGTERM);
  }
  signal_waiter.join();

  server->reset();
  db->reset();  // closes the workspace and writes its clean-shutdown marker
  if (!served.ok()) {
    std::fprintf(stderr, "skald: %s\n", served.message().c_str());
    return kExitFailure;
  }
  spdlog::info("stopped");
  return kExitOk;
}

}  // namespace skald
