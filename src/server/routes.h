#pragma once

// Internal to server/: the route table and the per-request Call object that
// route handlers receive. Each routes_*.cc registers one group of routes.
//
// Thread safety: the Router is filled once before serving and only read
// afterwards; a Call belongs to one request thread.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_util.h"
#include "server/http_util.h"
#include "skald/db.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace skald::server {

// One request as a route handler sees it, with the ways to answer it.
class Call {
 public:
  Call(const httplib::Request& request, httplib::Response& response, Db& db, Identity who,
       const QueryParams& query)
      : request_(request), response_(response), db_(db), who_(std::move(who)), query_(query) {}

  const httplib::Request& request() const { return request_; }
  Db& db() { return db_; }
  const Identity& who() const { return who_; }
  const QueryParams& query() const { return query_; }

  // 200 with the default envelope (null siblings kept; `telemetry` when given).
  void Ok(const Json& result, const Json* telemetry = nullptr);
  // The default envelope with another success status (e.g. 202 Accepted).
  void OkWithStatus(int http_status, const Json& result);
  // 200 with the exclude-none envelope (content/write and friends).
  void OkExcludeNone(const Json& result, const Json* telemetry = nullptr);
  // 200 with a body that is not enveloped (/health).
  void Raw(const Json& body);
  // 200 with raw bytes (download).
  void Bytes(std::string bytes, const std::string& content_type);
  // Any status with a body that is not enveloped (/ready's 503, /metrics).
  void Send(int http_status, std::string body, const std::string& content_type);
  // Error envelope for a Status: code from WireErrorCode, HTTP status from
  // the §1.4 table, details from the Status (or `details`, typed JSON, when
  // given).
  void Fail(const Status& status, const Json* details = nullptr);
  // 400 INVALID_ARGUMENT "Invalid request parameters: ..." with
  // details.validation_errors.
  void FailValidation(const ValidationErrors& errors);
  // Framework-style error (nulls omitted), e.g. 404 NOT_FOUND "Not Found".
  void FailHttp(int http_status, std::string_view code, std::string_view message);
  void SetHeader(const std::string& name, const std::string& value);

  // The body as a JSON object. On failure the error response has been
  // written and nullopt is returned.
  std::optional<Json> BodyObject();

 private:
  const httplib::Request& request_;
  httplib::Response& response_;
  Db& db_;
  Identity who_;
  const QueryParams& query_;
};

using RouteHandler = std::function<void(Call&)>;

// Exact-path routes and one-parameter routes ("/api/v1/tasks/{task_id}"),
// each with handlers per method.
class Router {
 public:
  enum class Match { kFound, kMethodNotAllowed, kNotFound };

  // REQUIRES: (method, path) not registered yet.
  void Add(const std::string& method, const std::string& path, RouteHandler handler);
  // Routes every path made of `prefix` and one non-empty segment without '/'
  // (a path parameter, read by the handler with PathParameter()). Exact
  // routes win over parameter routes. REQUIRES: `prefix` ends with '/'.
  void AddWithParameter(const std::string& method, const std::string& prefix, RouteHandler handler);
  // Routes every path that matches `pattern`, where each "{}" stands for one
  // non-empty segment without '/' (read with PatternParameters()), e.g.
  // "/api/v1/admin/accounts/{}/users/{}/role". Exact and one-parameter
  // routes win over patterns.
  void AddPattern(const std::string& method, const std::string& pattern, RouteHandler handler);
  // Looks up `method` (HEAD is served by GET handlers) on `path`. On
  // kMethodNotAllowed, *allowed lists the path's methods.
  Match Find(std::string_view method, std::string_view path, const RouteHandler** handler,
             std::vector<std::string>* allowed) const;
  // True when some route (exact or with a parameter) serves `path`.
  bool HasPath(std::string_view path) const;
  // The route serving `path` as a template for metrics labels: the path
  // itself for exact routes, "<prefix>{param}" for parameter routes, "" when
  // itself for exact routes, "<prefix>{param}" for parameter routes, the
  // pattern ("/a/{}/b") for pattern routes, "" when no route serves it.
  std::string RouteTemplate(std::string_view path) const;

 private:
  using Methods = std::map<std::string, RouteHandler>;
  // The parameter route whose prefix `path` extends by one segment, or null.
  const Methods* FindParameterRoute(std::string_view path) const;

  std::map<std::string, Methods, std::less<>> routes_;
  std::map<std::string, Methods, std::less<>> parameter_routes_;  // keyed by prefix
  std::map<std::string, Methods, std::less<>> pattern_routes_;    // keyed by pattern
};

// The segments of `path` that the "{}" of `pattern` stand for, in order;
// nullopt when `path` does not match `pattern`.
std::optional<std::vector<std::string>> MatchPattern(std::string_view pattern,
                                                     std::string_view path);
// MatchPattern on the request path (empty when it does not match).
std::vector<std::string> PatternParameters(const Call& call, std::string_view pattern);

// The segment after `prefix` in the request path (the {task_id} of a route
// registered with Router::AddWithParameter(prefix)); "" when the path does
// not start with `prefix`.
std::string PathParameter(const Call& call, std::string_view prefix);

// /api/v1/fs/{ls,tree,stat,mkdir,mv} and DELETE /api/v1/fs.
void RegisterFsRoutes(Router& router);
// /api/v1/content/{read,abstract,overview,download,write}.
void RegisterContentRoutes(Router& router);
// routes_tags.cc: fs/attrs, content/set_tags and fs/attrs/set_tags.
void RegisterTagRoutes(Router& router);
// /api/v1/search/{glob,grep,find,search}.
void RegisterSearchRoutes(Router& router);
// /api/v1/resources and /api/v1/resources/temp_upload.
void RegisterResourceRoutes(Router& router);
// GET /api/v1/tasks and GET /api/v1/tasks/{task_id}.
void RegisterTaskRoutes(Router& router);
// /api/v1/sessions* (routes_sessions.cc).
void RegisterSessionRoutes(Router& router);
// /api/v1/skills (add, list, find, validate) and /api/v1/skills/{name}.
void RegisterSkillRoutes(Router& router);
// /api/v1/pack/{export,backup,import,restore} (routes_pack.cc).
void RegisterPackRoutes(Router& router);
// /api/v1/snapshot/* (routes_snapshot.cc).
void RegisterSnapshotRoutes(Router& router);
// /api/v1/privacy-configs* (routes_privacy.cc).
void RegisterPrivacyRoutes(Router& router);

class Authenticator;
// /api/v1/admin/accounts* (reference §2.9). `auth` (which must outlive the
// router) tells whether keys are shown (not in trusted mode).
void RegisterAdminRoutes(Router& router, const Authenticator& auth);
class Metrics;  // server/metrics.h
// /api/v1/system/{status,wait}, /api/v1/debug/health, /api/v1/observer/*,
// /ready and /metrics (404 text when `metrics_enabled` is false).
// `metrics` must outlive the router.
void RegisterSystemRoutes(Router& router, const Metrics& metrics, bool metrics_enabled);

// Clamps a wire integer into the int range the option structs use.
int ClampToInt(int64_t value);

}  // namespace skald::server
