#pragma once

// HttpServer: Skald's HTTP API, wire-compatible with OpenViking's HTTP API v1
// (reference §1-2), served by cpp-httplib.
//
// Requests pass the edge checks of server/edge.h (Host, Origin, content
// type and encoding, body size) before any route runs; connections are
// served by server/connection.h (bounded reads, timeouts) on the growing
// thread pool of server/worker_pool.h.
//
// Thread safety: Bind() and Serve() are called by one owner thread; Stop()
// may be called from any thread (not from a signal handler). Requests are
// served concurrently on the server's own thread pool and call the Db,
// which is thread-safe.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skald/result.h"
#include "skald/status.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace skald {

class Db;

namespace server {
class Authenticator;
class Metrics;
class EdgeGate;
class Router;
}  // namespace server

struct ServerOptions {
  // Interface to bind; dev mode requires a loopback host (checked by Validate).
  std::string host = "127.0.0.1";
  // 0 binds an ephemeral port; HttpServer::port() reports the real one.
  int port = 1933;
  // Request threads kept warm. cpp-httplib gives a connection one thread for
  // its whole keep-alive life; the pool starts this many threads, grows by
  // one whenever a connection finds none idle, up to max_connections, and
  // threads idle for 30 s above this number exit.
  int threads = 8;
  // Connections served at once (= the pool's thread limit). Connections
  // past it wait, in order, for a thread.
  int max_connections = 512;
  // Idle keep-alive connections are closed after this many seconds.
  int keep_alive_timeout_sec = 5;
  // A keep-alive connection is closed after this many requests.
  int keep_alive_max_count = 1000;
  // Longest wait for one read or write while a request is read or answered
  // (a silent client is disconnected after it).
  int read_timeout_sec = 30;
  // The request line and headers must arrive within this many seconds
  // (slowly trickled headers are cut off).
  int header_timeout_sec = 10;
  // Larger request bodies are refused with HTTP 413: by Content-Length before
  // they are read, chunked ones as soon as they pass the limit (the
  // connection is then closed).
  int64_t max_body_bytes = int64_t{32} << 20;
  // Body cap of POST /api/v1/resources/temp_upload (at least max_body_bytes
  // applies there).
  int64_t max_upload_bytes = int64_t{128} << 20;
  // Authentication (server/auth.h): "" = api_key when root_api_key is set,
  // else dev; "dev", "api_key" or "trusted".
  std::string auth_mode;
  // The ROOT key ("" = none). Required by api_key mode, and by trusted mode
  // off loopback.
  std::string root_api_key;
  // GET /metrics serves Prometheus text; false answers 404 (config
  // server.observability.metrics.enabled).
  bool metrics_enabled = true;
  // One spdlog info line per request (config server.access_log).
  bool access_log = true;
  // Dev mode (no authentication): refuse requests whose Host header does
  // not name a loopback or the bound address with the bound port (DNS
  // rebinding). Off when requests are authenticated.
  bool check_host = true;
  // Foreign origins (exact "scheme://host[:port]", "*" = any) allowed to
  // call the API from a browser; they get CORS headers. Requests with any
  // other foreign Origin are refused 403.
  std::vector<std::string> cors_origins;

  Status Validate() const;
};

class HttpServer {
 public:
  // Creates a server for `db` with every route registered; nothing is bound
  // yet. `db` must outlive the server. InvalidArgument for bad options.
  static Result<std::unique_ptr<HttpServer>> Create(Db& db, const ServerOptions& options);

  // REQUIRES: Serve() is not running (call Stop() and let Serve() return first).
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port. Unavailable (with the OS reason) when the address is
  // taken or cannot be bound.
  Status Bind();
  // The bound port (the ephemeral one when options.port was 0); 0 before Bind().
  int port() const { return port_.load(); }
  // Serves until Stop(). REQUIRES: Bind() succeeded. Returns Ok after Stop(),
  // Internal if the listener failed.
  Status Serve();
  // Makes Serve() return: stops accepting, lets in-flight requests finish
  // and closes idle keep-alive connections. Idempotent.
  void Stop();

 private:
  HttpServer(Db& db, ServerOptions options);
  // Routes one request (every method and path arrives here).
  void Dispatch(const httplib::Request& req, httplib::Response& res);
  // Before the body of an upload is read: answers the error and returns true
  // when the caller cannot be identified from the headers.
  bool RefusedBeforeUpload(const httplib::Request& req, httplib::Response& res);

  Db& db_;
  const ServerOptions options_;
  std::unique_ptr<server::Authenticator> auth_;  // set by Create
  std::unique_ptr<server::Router> router_;
  std::unique_ptr<server::Metrics> metrics_;  // request counters, access log
  std::unique_ptr<server::EdgeGate> gate_;
  std::unique_ptr<httplib::Server> http_;
  std::atomic<int> port_{0};
  std::atomic<bool> serving_{false};
  std::atomic<bool> stop_requested_{false};
};

}  // namespace skald
