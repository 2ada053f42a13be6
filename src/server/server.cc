#include "server/server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>
#include <thread>

#include "common/strings.h"
#include "server/auth.h"
#include "server/connection.h"
#include "server/edge.h"
#include "server/http_util.h"
#include "server/metrics.h"
#include "server/routes.h"
#include "server/unbuilt_routes.h"
#include "server/worker_pool.h"
#include "service/json_codec.h"
#include "skald/db.h"

namespace skald {
namespace server {

namespace {

constexpr const char* kJsonType = "application/json";

// An OpenViking route Skald does not build (server/unbuilt_routes.h).
void RespondUnbuilt(httplib::Response& res) {
  res.status = 501;
  res.set_content(server::ErrorEnvelopeExcludeNone("UNIMPLEMENTED", server::kUnbuiltRouteMessage),
                  kJsonType);
}

// ---- per-request bookkeeping ------------------------------------------------

// cpp-httplib runs the pre-routing handler, the route handler, the error
// handler and the post-routing handler of one request on the same pool
// thread, so the request's id and start time travel in a thread_local.
struct RequestTrace {
  bool active = false;
  std::chrono::steady_clock::time_point start;
  std::string request_id;
  bool invalid_request_id = false;
  std::optional<Identity> who;  // set once the request is identified
};
thread_local RequestTrace t_trace;

void BeginTrace(const httplib::Request& req) {
  t_trace.active = true;
  t_trace.who.reset();
  t_trace.start = std::chrono::steady_clock::now();
  const size_t count = req.get_header_value_count(std::string(kRequestIdHeader));
  const std::string inbound =
      count == 1 ? req.get_header_value(std::string(kRequestIdHeader)) : std::string();
  if (count == 1 && IsValidRequestId(inbound)) {
    t_trace.request_id = inbound;
    t_trace.invalid_request_id = false;
  } else {
    t_trace.request_id = NewRequestId();
    t_trace.invalid_request_id = count > 0;
  }
}

// Details of a 5xx answer: only the request id, which finds the full error
// in the log.
Json RequestIdDetails() { return Json{{"request_id", t_trace.request_id}}; }

// Whether a 5xx answer keeps the Status message. Only statuses whose
// messages are written for clients do (501: not built yet; 503/504: a
// dependency is unavailable or slow, with redacted details); every other 5xx
// says "Internal server error" (507: "Insufficient storage: disk full") and
// the real error goes to the log with the request id.
bool KeepsServerMessage(int http_status) {
  return http_status == 501 || http_status == 503 || http_status == 504;
}

}  // namespace

// ---- Call ------------------------------------------------------------------

void Call::Ok(const Json& result, const Json* telemetry) {
  response_.status = 200;
  response_.set_content(OkEnvelope(result, telemetry), kJsonType);
}

void Call::OkWithStatus(int http_status, const Json& result) {
  response_.status = http_status;
  response_.set_content(OkEnvelope(result), kJsonType);
}

void Call::OkExcludeNone(const Json& result, const Json* telemetry) {
  response_.status = 200;
  response_.set_content(OkEnvelopeExcludeNone(result, telemetry), kJsonType);
}

void Call::Raw(const Json& body) {
  response_.status = 200;
  response_.set_content(DumpJson(body), kJsonType);
}

void Call::Bytes(std::string bytes, const std::string& content_type) {
  response_.status = 200;
  response_.body = std::move(bytes);
  response_.set_header("Content-Type", content_type);
}

void Call::Send(int http_status, std::string body, const std::string& content_type) {
  response_.status = http_status;
  response_.body = std::move(body);
  response_.set_header("Content-Type", content_type);
}

void Call::Fail(const Status& status, const Json* details) {
  const std::string code = WireErrorCode(status);
  const int http_status = HttpStatusFor(status, code);
  response_.status = http_status;
  // A failed task's error (PROCESSING_ERROR: a corrupt archive, a refused
  // entry) is written for its caller, who can read it at /api/v1/tasks/{id}
  // anyway; so is a partial restore's answer (which files did not follow
  // the new commit).
  if (http_status >= 500 && !KeepsServerMessage(http_status) && code != "PROCESSING_ERROR" &&
      code != "RESTORE_WRITEBACK_PARTIAL") {
    // The full error (it may name host paths or internals) goes to the log
    // only, under the request id the client sees.
    spdlog::error("{} {} failed: {} request_id={}", request_.method, request_.path,
                  status.ToString(), t_trace.request_id);
    const std::string message =
        http_status == 507 ? "Insufficient storage: disk full" : "Internal server error";
    response_.set_content(ErrorEnvelope(code, message, RequestIdDetails()), kJsonType);
    return;
  }
  if (http_status >= 500 && http_status != 501) {
    spdlog::error("{} {} failed: {} request_id={}", request_.method, request_.path,
                  status.ToString(), t_trace.request_id);
  }
  const Json own = details == nullptr ? ErrorToJson(status)["details"] : Json();
  if (details == nullptr) details = &own;
  if (code == "PROCESSING_ERROR") {
    // OpenViking turns a failed operation's result into its error answer
    // (response_from_result) without the null siblings.
    response_.set_content(ErrorEnvelopeExcludeNone(code, status.message(), details), kJsonType);
    return;
  }
  response_.set_content(ErrorEnvelope(code, status.message(), *details), kJsonType);
}

void Call::FailValidation(const ValidationErrors& errors) {
  Json details = errors.Details();
  response_.status = 400;
  response_.set_content(ErrorEnvelopeExcludeNone("INVALID_ARGUMENT", errors.Message(), &details),
                        kJsonType);
}

void Call::FailHttp(int http_status, std::string_view code, std::string_view message) {
  response_.status = http_status;
  response_.set_content(ErrorEnvelopeExcludeNone(code, message), kJsonType);
}

void Call::SetHeader(const std::string& name, const std::string& value) {
  response_.set_header(name, value);
}

std::optional<Json> Call::BodyObject() {
  ValidationErrors errors;
  BodyParse parsed = ParseBodyObject(request_.body, &errors);
  if (parsed.fatal_message.has_value()) {
    FailHttp(400, "INVALID_ARGUMENT", *parsed.fatal_message);
    return std::nullopt;
  }
  if (!errors.empty()) {
    FailValidation(errors);
    return std::nullopt;
  }
  return std::move(parsed.object);
}

// ---- Router ----------------------------------------------------------------

void Router::Add(const std::string& method, const std::string& path, RouteHandler handler) {
  routes_[path][method] = std::move(handler);
}

void Router::AddWithParameter(const std::string& method, const std::string& prefix,
                              RouteHandler handler) {
  parameter_routes_[prefix][method] = std::move(handler);
}

void Router::AddPattern(const std::string& method, const std::string& pattern,
                        RouteHandler handler) {
  pattern_routes_[pattern][method] = std::move(handler);
}

std::optional<std::vector<std::string>> MatchPattern(std::string_view pattern,
                                                     std::string_view path) {
  std::vector<std::string> out;
  size_t p = 0, q = 0;
  while (p < pattern.size()) {
    if (pattern.substr(p, 2) == "{}") {
      size_t end = path.find('/', q);
      if (end == std::string_view::npos) end = path.size();
      if (end == q) return std::nullopt;
      out.emplace_back(path.substr(q, end - q));
      q = end;
      p += 2;
    } else {
      if (q >= path.size() || path[q] != pattern[p]) return std::nullopt;
      ++p;
      ++q;
    }
  }
  if (q != path.size()) return std::nullopt;
  return out;
}

std::vector<std::string> PatternParameters(const Call& call, std::string_view pattern) {
  return MatchPattern(pattern, call.request().path).value_or(std::vector<std::string>());
}

const Router::Methods* Router::FindParameterRoute(std::string_view path) const {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == path.size()) return nullptr;
  auto route = parameter_routes_.find(path.substr(0, slash + 1));
  return route == parameter_routes_.end() ? nullptr : &route->second;
}

Router::Match Router::Find(std::string_view method, std::string_view path,
                           const RouteHandler** handler, std::vector<std::string>* allowed) const {
  const Methods* methods = nullptr;
  if (auto route = routes_.find(path); route != routes_.end()) {
    methods = &route->second;
  } else {
    methods = FindParameterRoute(path);
  }
  for (auto it = pattern_routes_.begin(); methods == nullptr && it != pattern_routes_.end(); ++it) {
    if (MatchPattern(it->first, path)) methods = &it->second;
  }
  if (methods == nullptr) return Match::kNotFound;
  std::string_view effective = method == "HEAD" ? std::string_view("GET") : method;
  for (const auto& [name, h] : *methods) {
    if (name == effective) {
      *handler = &h;
      return Match::kFound;
    }
  }
  allowed->clear();
  for (const auto& [name, unused] : *methods) allowed->push_back(name);
  return Match::kMethodNotAllowed;
}

bool Router::HasPath(std::string_view path) const {
  if (routes_.find(path) != routes_.end() || FindParameterRoute(path) != nullptr) return true;
  for (const auto& [pattern, unused] : pattern_routes_) {
    if (MatchPattern(pattern, path)) return true;
  }
  return false;
}

std::string Router::RouteTemplate(std::string_view path) const {
  if (routes_.find(path) != routes_.end()) return std::string(path);
  if (FindParameterRoute(path) != nullptr) {
    return std::string(path.substr(0, path.rfind('/') + 1)) + "{param}";
  }
  for (const auto& [pattern, unused] : pattern_routes_) {
    if (MatchPattern(pattern, path)) return pattern;  // "/a/{}/b": parameters stay unnamed
  }
  return std::string();
}

std::string PathParameter(const Call& call, std::string_view prefix) {
  std::string_view path = call.request().path;
  if (path.substr(0, prefix.size()) != prefix) return std::string();
  return std::string(path.substr(prefix.size()));
}

int ClampToInt(int64_t value) {
  if (value > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
  if (value < std::numeric_limits<int>::min()) return std::numeric_limits<int>::min();
  return static_cast<int>(value);
}

namespace {

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Request Entity Too Large";
    case 414:
      return "URI Too Long";
    case 416:
      return "Range Not Satisfiable";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "HTTP request failed";
  }
}

// Starlette HTTPException status -> envelope code (reference §1.3).
std::string_view FrameworkCode(int status) {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "CONFLICT";
    case 422:
      return "INVALID_ARGUMENT";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 502:
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "UNKNOWN";
  }
}

std::string InternalErrorBody() {
  return ErrorEnvelope("INTERNAL", "Internal server error", RequestIdDetails());
}

// 413 RESOURCE_EXHAUSTED naming the limit.
std::string BodyTooLargeBody(int64_t limit, std::string_view key) {
  Json details = {{"limit_bytes", limit}};
  return ErrorEnvelopeExcludeNone(
      "RESOURCE_EXHAUSTED",
      fmt::format("Request body too large: the limit is {} bytes ({})", limit, key), &details);
}

// cpp-httplib reads the bodies of POST, PUT, PATCH and DELETE only; the body
// of any other request would be parsed as the next request on the connection.
bool CarriesUnreadBody(const httplib::Request& req) {
  if (req.method == "POST" || req.method == "PUT" || req.method == "PATCH" ||
      req.method == "DELETE") {
    return false;
  }
  const std::string length = req.get_header_value("Content-Length");
  return req.has_header("Transfer-Encoding") || (!length.empty() && length != "0");
}

// Answers a request the edge refused (its body, if any, left unread: the
// connection closes after the answer).
void AnswerRefusal(const httplib::Request& req, httplib::Response& res, const EdgeRefusal& refusal,
                   const EdgeGate& gate) {
  CloseConnectionAfterResponse();
  res.status = refusal.status;
  if (req.get_header_value("Connection") != "close") res.set_header("Connection", "close");
  if (refusal.status == 413) {
    res.set_content(BodyTooLargeBody(gate.BodyLimitFor(req.path), gate.BodyLimitKeyFor(req.path)),
                    "application/json");
  } else if (refusal.validation) {
    res.set_content(BodyValidationEnvelope(refusal.code, refusal.message), "application/json");
  } else {
    res.set_content(ErrorEnvelopeExcludeNone(refusal.code, refusal.message), "application/json");
  }
}

// /health needs no identity; it reports the auth mode and, when the request
// establishes one (a valid key, or identity headers in dev/trusted mode), who it is.
void HealthRoute(Call& call, const Authenticator& auth) {
  Json body = {{"status", "ok"},
               {"healthy", true},
               {"version", std::string(kSkaldVersion)},
               {"auth_mode", std::string(AuthModeName(auth.mode()))}};
  std::optional<Identity> who = auth.Probe(call.db(), AuthHeaders::From(call.request()));
  if (who) {  // /health never fails on identity problems
    body["account_id"] = who->account;
    body["user_id"] = who->user;
    body["role"] = std::string(RoleName(who->role));
  }
  call.Raw(body);
}

}  // namespace
}  // namespace server

// ---- ServerOptions / HttpServer -----------------------------------------------

Status ServerOptions::Validate() const {
  if (host.empty()) return Status::InvalidArgument("server host must not be empty");
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument(fmt::format("port must be between 0 and 65535, got {}", port));
  }
  if (threads < 1) return Status::InvalidArgument("threads must be at least 1");
  if (max_connections < threads) {
    return Status::InvalidArgument(fmt::format("max_connections ({}) must be at least threads ({})",
                                               max_connections, threads));
  }
  if (read_timeout_sec < 1) return Status::InvalidArgument("read_timeout_sec must be at least 1");
  if (header_timeout_sec < 1) {
    return Status::InvalidArgument("header_timeout_sec must be at least 1");
  }
  if (keep_alive_timeout_sec < 1) {
    return Status::InvalidArgument("keep_alive_timeout_sec must be at least 1");
  }
  if (keep_alive_max_count < 1) {
    return Status::InvalidArgument("keep_alive_max_count must be at least 1");
  }
  if (max_body_bytes < 1) return Status::InvalidArgument("max_body_bytes must be positive");
  if (max_upload_bytes < 1) return Status::InvalidArgument("max_upload_bytes must be positive");
  return server::Authenticator::Create(auth_mode, root_api_key, host).status();
}

HttpServer::HttpServer(Db& db, ServerOptions options)
    : db_(db),
      options_(std::move(options)),
      router_(std::make_unique<server::Router>()),
      metrics_(std::make_unique<server::Metrics>(options_.access_log)),
      gate_(std::make_unique<server::EdgeGate>(
          server::EdgeOptions{options_.host, options_.check_host, options_.cors_origins,
                              options_.max_body_bytes, options_.max_upload_bytes})),
      http_(std::make_unique<server::GuardedHttpServer>(
          server::ConnectionLimits{std::chrono::seconds(options_.read_timeout_sec),
                                   std::chrono::seconds(options_.header_timeout_sec),
                                   std::chrono::seconds(options_.keep_alive_timeout_sec),
                                   options_.keep_alive_max_count, int64_t{64} << 10})) {}

HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Create(Db& db, const ServerOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  std::unique_ptr<HttpServer> server(new HttpServer(db, options));
  SKALD_ASSIGN_OR_RETURN(
      server::Authenticator auth,
      server::Authenticator::Create(options.auth_mode, options.root_api_key, options.host));
  server->auth_ = std::make_unique<server::Authenticator>(std::move(auth));
  const server::Authenticator* authenticator = server->auth_.get();
  server::Router& router = *server->router_;
  router.Add("GET", "/health",
             [authenticator](server::Call& call) { server::HealthRoute(call, *authenticator); });
  server::RegisterAdminRoutes(router, *authenticator);
  server::RegisterFsRoutes(router);
  server::RegisterContentRoutes(router);
  server::RegisterTagRoutes(router);
  server::RegisterSearchRoutes(router);
  server::RegisterResourceRoutes(router);
  server::RegisterTaskRoutes(router);
  server::RegisterSessionRoutes(router);
  server::RegisterSkillRoutes(router);
  server::RegisterPackRoutes(router);
  server::RegisterSnapshotRoutes(router);
  server::RegisterPrivacyRoutes(router);
  server::RegisterSystemRoutes(router, *server->metrics_, options.metrics_enabled);

  httplib::Server& http = *server->http_;
  server::WorkerPoolOptions pool;
  pool.min_threads = static_cast<size_t>(options.threads);
  pool.max_threads = static_cast<size_t>(options.max_connections);
  // cpp-httplib owns the queue it gets from this factory (its API takes a raw pointer).
  http.new_task_queue = [pool] { return new server::WorkerPool(pool); };
  http.set_tcp_nodelay(true);
  // Keep-alive, timeouts and the body budget are enforced per connection by
  // GuardedHttpServer; these are backstops for cpp-httplib's own checks.
  http.set_keep_alive_timeout(options.keep_alive_timeout_sec);
  http.set_keep_alive_max_count(static_cast<size_t>(options.keep_alive_max_count));
  http.set_read_timeout(options.read_timeout_sec);
  http.set_write_timeout(options.read_timeout_sec);
  http.set_payload_max_length(
      static_cast<size_t>(std::max(options.max_body_bytes, options.max_upload_bytes)));

  const server::EdgeGate* gate = server->gate_.get();
  HttpServer* self = server.get();
  http.set_pre_routing_handler([gate, self](const httplib::Request& req, httplib::Response& res) {
    // Runs once the request line and headers are read, before the body. A
    // multipart body of known length is read in whole reads
    // (server/connection.h: cpp-httplib's multipart parser needs its first
    // boundary line in one read).
    const bool whole_reads = req.is_multipart_form_data() && req.has_header("Content-Length") &&
                             !req.has_header("Transfer-Encoding");
    server::MarkHeadersRead(gate->BodyLimitFor(req.path), whole_reads);
    server::BeginTrace(req);
    // A multi-range request is answered with the whole body (RFC 9110 lets a
    // server ignore Range): never one copy of the content per range.
    // cpp-httplib parsed the ranges into the request it owns and passes here as const.
    if (req.ranges.size() > 1) const_cast<httplib::Request&>(req).ranges.clear();
    // A request with neither Content-Length nor Transfer-Encoding has no
    // body (RFC 9112 §6.3), as `curl -X POST URL` sends it; cpp-httplib
    // would refuse a POST, PUT, PATCH or DELETE so framed with a bare 400.
    if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
      const_cast<httplib::Request&>(req).set_header("Content-Length", "0");
    }
    server::EdgeRefusal refusal;
    switch (gate->Check(req, &refusal)) {
      case server::EdgeGate::Verdict::kPass:
        if (server::CarriesUnreadBody(req)) server::CloseConnectionAfterResponse();
        if (self->RefusedBeforeUpload(req, res)) return httplib::Server::HandlerResponse::Handled;
        return httplib::Server::HandlerResponse::Unhandled;
      case server::EdgeGate::Verdict::kPreflight:
        res.status = 204;
        gate->AddPreflightHeaders(req, res);
        return httplib::Server::HandlerResponse::Handled;
      case server::EdgeGate::Verdict::kRefuse:
        break;
    }
    server::AnswerRefusal(req, res, refusal, *gate);
    return httplib::Server::HandlerResponse::Handled;
  });

  // "Expect: 100-continue" is answered before pre-routing: a request the
  // edge refuses gets its final answer instead of an invitation to send the body.
  http.set_expect_100_continue_handler(
      [gate, self](const httplib::Request& req, httplib::Response& res) {
        server::EdgeRefusal refusal;
        if (gate->Check(req, &refusal) != server::EdgeGate::Verdict::kRefuse) {
          // An upload whose caller is unknown is not invited either.
          return self->RefusedBeforeUpload(req, res) ? res.status : 100;
        }
        server::AnswerRefusal(req, res, refusal, *gate);
        return refusal.status;
      });

  auto dispatch = [self](const httplib::Request& req, httplib::Response& res) {
    self->Dispatch(req, res);
  };
  // One catch-all per method: routing (404/405/redirects) is done by Router
  // so that unknown methods on known paths get 405 like Starlette.
  const std::string any = "[\\s\\S]*";
  http.Get(any, dispatch);
  http.Post(any, dispatch);
  http.Put(any, dispatch);
  http.Patch(any, dispatch);
  http.Delete(any, dispatch);
  http.Options(any, dispatch);

  http.set_error_handler(httplib::Server::HandlerWithResponse([gate](const httplib::Request& req,
                                                                     httplib::Response& res) {
    if (server::BodyLimitHit()) {
      // A chunked body passed the cap: it was cut there and the connection closes.
      res.status = 413;
      res.body.clear();
      if (req.get_header_value("Connection") != "close") res.set_header("Connection", "close");
    }
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string body;
    if (res.status == 413) {
      body =
          server::BodyTooLargeBody(gate->BodyLimitFor(req.path), gate->BodyLimitKeyFor(req.path));
    } else if (res.status >= 500) {
      body = server::InternalErrorBody();
    } else {
      body = server::ErrorEnvelopeExcludeNone(server::FrameworkCode(res.status),
                                              server::ReasonPhrase(res.status));
    }
    res.set_content(body, "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));

  http.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
        spdlog::error("{} {}: unexpected exception escaped a handler request_id={}", req.method,
                      req.path, server::t_trace.request_id);
        res.status = 500;
        res.set_content(server::InternalErrorBody(), "application/json");
      });

  http.set_post_routing_handler(
      [self = server.get()](const httplib::Request& req, httplib::Response& res) {
        self->gate_->AddCorsHeaders(req, res);
        server::RequestTrace& trace = server::t_trace;
        if (!trace.active) {  // the request never reached pre-routing (malformed request line)
          trace.start = std::chrono::steady_clock::now();
          trace.request_id = server::NewRequestId();
          trace.who.reset();
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - trace.start).count();
        res.set_header(std::string(server::kRequestIdHeader), trace.request_id);
        res.set_header("X-Process-Time", fmt::format("{:.6f}", seconds));
        self->metrics_->Observe({req.method, req.path, self->router_->RouteTemplate(req.path),
                                 trace.request_id, res.status, seconds,
                                 trace.who ? &*trace.who : nullptr});
        trace.active = false;
      });
  return server;
}

// An upload may be far larger than any other body (server.max_upload_bytes):
// its caller is identified from the headers before the body is read, so that
// no one without a valid identity can make the server hold one in memory.
bool HttpServer::RefusedBeforeUpload(const httplib::Request& req, httplib::Response& res) {
  if (req.path != "/api/v1/resources/temp_upload") return false;
  Result<Identity> who = auth_->Resolve(db_, req.path, server::AuthHeaders::From(req));
  if (who.ok()) return false;
  server::QueryParams no_query;
  server::Call call(req, res, db_, Identity(), no_query);
  call.Fail(who.status());
  server::CloseConnectionAfterResponse();  // the body stays unread
  return true;
}

void HttpServer::Dispatch(const httplib::Request& req, httplib::Response& res) {
  if (!server::t_trace.active) server::BeginTrace(req);
  if (server::t_trace.invalid_request_id) {
    res.status = 400;
    res.set_content(
        server::ErrorEnvelopeExcludeNone("INVALID_ARGUMENT", server::kInvalidRequestIdMessage),
        "application/json");
    return;
  }
  if (const int64_t limit = gate_->BodyLimitFor(req.path);
      req.body.size() > static_cast<size_t>(limit)) {
    // A chunked body within the framing allowance but over the cap once decoded.
    res.status = 413;
    res.set_content(server::BodyTooLargeBody(limit, gate_->BodyLimitKeyFor(req.path)),
                    "application/json");
    return;
  }
  const server::RouteHandler* handler = nullptr;
  std::vector<std::string> allowed;
  switch (router_->Find(req.method, req.path, &handler, &allowed)) {
    case server::Router::Match::kNotFound: {
      // Starlette redirects "/route/" to "/route" when only the latter exists.
      if (req.path.size() > 1 && req.path.back() == '/' &&
          router_->HasPath(std::string_view(req.path).substr(0, req.path.size() - 1))) {
        std::string location = req.path.substr(0, req.path.size() - 1);
        size_t q = req.target.find('?');
        if (q != std::string::npos) location += req.target.substr(q);
        res.status = 307;
        res.set_header("Location", location);
        return;
      }
      if (server::IsUnbuiltOpenVikingRoute(req.method, req.path)) {
        server::RespondUnbuilt(res);
        return;
      }
      res.status = 404;
      res.set_content(server::ErrorEnvelopeExcludeNone("NOT_FOUND", "Not Found"),
                      "application/json");
      return;
    }
    case server::Router::Match::kMethodNotAllowed:
      if (server::IsUnbuiltOpenVikingRoute(req.method, req.path)) {
        server::RespondUnbuilt(res);
        return;
      }
      res.status = 405;
      res.set_header("Allow", Join(allowed, ", "));
      res.set_content(server::ErrorEnvelopeExcludeNone("UNKNOWN", "Method Not Allowed"),
                      "application/json");
      return;
    case server::Router::Match::kFound:
      break;
  }

  const size_t q = req.target.find('?');
  Result<server::QueryParams> query = server::QueryParams::Parse(
      q == std::string::npos ? std::string_view() : std::string_view(req.target).substr(q + 1));
  server::QueryParams empty_query;
  server::Call call(req, res, db_, Identity(), query.ok() ? *query : empty_query);
  if (!query.ok()) {
    server::ValidationErrors errors;
    errors.Add({"query"}, query.status().message(), "unicode_error");
    call.FailValidation(errors);
    return;
  }
  // Who is calling (server/auth.h); /health, /ready and /metrics need no one.
  Result<Identity> who = Identity();
  if (!server::IsUnauthenticatedRoute(req.path)) {
    who = auth_->Resolve(db_, req.path, server::AuthHeaders::From(req));
  }
  if (!who.ok()) {
    call.Fail(who.status());
    return;
  }
  server::Call identified(req, res, db_, *who, *query);
  server::t_trace.who = identified.who();  // for the access log
  try {
    (*handler)(identified);
  } catch (const std::exception& e) {
    spdlog::error("{} {}: unexpected exception: {} request_id={}", req.method, req.path, e.what(),
                  server::t_trace.request_id);
    res = httplib::Response();
    res.status = 500;
    res.set_content(server::InternalErrorBody(), "application/json");
  } catch (...) {
    spdlog::error("{} {}: unexpected non-standard exception request_id={}", req.method, req.path,
                  server::t_trace.request_id);
    res = httplib::Response();
    res.status = 500;
    res.set_content(server::InternalErrorBody(), "application/json");
  }
}

namespace {

// Pending connections the kernel queues while every pool thread is busy.
constexpr int kListenBacklog = 1024;

// cpp-httplib is a compiled Debian library whose listen backlog is fixed at
// build time to 5. With many clients connecting at once the kernel drops
// SYNs past that, and clients wait 1-7 s for a retransmit. Linux lets a
// listening socket be re-listened with a larger backlog, so find ours (the
// listening socket bound to `port`) and raise it.
void RaiseListenBacklog(int port) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = std::atoi(entry.path().filename().c_str());
    int listening = 0;
    socklen_t len = sizeof(listening);
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) continue;
    sockaddr_storage addr{};
    socklen_t addr_len = sizeof(addr);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) continue;
    int bound = 0;
    if (addr.ss_family == AF_INET) {
      bound = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      bound = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    }
    if (bound == port) ::listen(fd, kListenBacklog);
  }
}

}  // namespace

Status HttpServer::Bind() {
  errno = 0;
  if (options_.port == 0) {
    int port = http_->bind_to_any_port(options_.host);
    if (port <= 0) {
      return Status::Unavailable(fmt::format("cannot bind {}: {}", options_.host,
                                             errno != 0 ? std::strerror(errno) : "bind failed"));
    }
    port_ = port;
  } else {
    if (!http_->bind_to_port(options_.host, options_.port)) {
      return Status::Unavailable(fmt::format("cannot bind {}:{}: {}", options_.host, options_.port,
                                             errno != 0 ? std::strerror(errno) : "bind failed"));
    }
    port_ = options_.port;
  }
  gate_->set_port(port_.load());
  RaiseListenBacklog(port_.load());
  return Status::Ok();
}

Status HttpServer::Serve() {
  serving_ = true;
  if (stop_requested_) {
    serving_ = false;
    return Status::Ok();
  }
  const bool ok = http_->listen_after_bind();
  serving_ = false;
  if (!ok && !stop_requested_) return Status::Internal("the HTTP listener stopped unexpectedly");
  return Status::Ok();
}

void HttpServer::Stop() {
  stop_requested_ = true;
  // listen_after_bind() only becomes stoppable once is_running() is true;
  // wait for that so a Stop() racing with Serve()'s start is not lost.
  for (int i = 0; i < 5000 && serving_ && !http_->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  http_->stop();
}

}  // namespace skald
