#pragma once

// EdgeGate: request gatekeeping at the HTTP edge, run from the pre-routing
// handler on a request's head, before its body is read and before any
// route does work.
//   - Host (when check_host, i.e. dev mode): the Host header must name a
//     loopback or the bound address with the bound port (DNS rebinding).
//   - Origin: a request carrying an Origin that is neither the server's own
//     (http or https with the authority of its Host header) nor listed in
//     cors_origins ("*" = any) is refused 403. Allowed foreign origins get
//     CORS response headers and OPTIONS preflights are answered here.
//   - Bodies: Content-Encoding other than identity and Transfer-Encoding
//     other than chunked -> 415; Content-Length above max_body_bytes -> 413;
//     a POST/PUT/PATCH body on a JSON route (every one but multipart
//     /api/v1/resources/temp_upload) needs a JSON Content-Type
//     (application/json, application/<x>+json, parameters allowed) -> 415.
// Error codes: 403 PERMISSION_DENIED, 413 RESOURCE_EXHAUSTED (as before),
// 415 UNKNOWN (the reference maps statuses it does not list to UNKNOWN),
// 400 INVALID_ARGUMENT for a malformed Content-Length.
//
// Thread safety: configured before serving (set_port from the owner thread
// before Serve()); Check/AddCorsHeaders are const and called concurrently.

#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skald::server {

struct EdgeOptions {
  // The configured bind host ("127.0.0.1", "localhost", "::1", ...).
  std::string bound_host = "127.0.0.1";
  // Enforce the Host check (dev mode: no authentication, loopback only).
  bool check_host = true;
  // Foreign origins allowed (exact "scheme://host[:port]"), "*" = any.
  std::vector<std::string> cors_origins;
  int64_t max_body_bytes = int64_t{32} << 20;
  // The larger cap of the upload route (temp_upload).
  int64_t max_upload_bytes = int64_t{128} << 20;
};

// A refusal: HTTP status, envelope code and message (no request data echoed
// beyond a short, sanitised excerpt).
struct EdgeRefusal {
  int status = 400;
  std::string code;
  std::string message;
  // A body refused as validation refuses it: details.validation_errors
  // [{"loc":["body"],"message":…,"type":"model_attributes_type"}].
  bool validation = false;
};

class EdgeGate {
 public:
  explicit EdgeGate(EdgeOptions options);

  // The body cap of requests to `path`: max_upload_bytes (or max_body_bytes
  // when larger) for temp_upload, max_body_bytes elsewhere.
  int64_t BodyLimitFor(std::string_view path) const;
  // The config key that sets BodyLimitFor(path), for messages.
  std::string_view BodyLimitKeyFor(std::string_view path) const;

  // The port actually bound (the ephemeral one when the server was given 0).
  void set_port(int port) { port_ = port; }

  enum class Verdict { kPass, kRefuse, kPreflight };
  // Looks at the request head. kRefuse fills *refusal; kPreflight means an
  // allowed CORS preflight: answer 204 with PreflightHeaders().
  Verdict Check(const httplib::Request& req, EdgeRefusal* refusal) const;

  // Adds CORS headers to `res` when `req` comes from an allowed foreign
  // origin (nothing for same-origin or Origin-less requests).
  void AddCorsHeaders(const httplib::Request& req, httplib::Response& res) const;
  // The extra headers of a preflight answer (call after AddCorsHeaders).
  void AddPreflightHeaders(const httplib::Request& req, httplib::Response& res) const;

 private:
  bool HostAllowed(std::string_view host_header) const;
  bool SameOrigin(const httplib::Request& req, std::string_view origin) const;
  bool ListedOrigin(std::string_view origin) const;

  const EdgeOptions options_;
  int port_ = 0;
};

// Helpers, exposed for tests.
// True for application/json and application/<anything>+json, any case,
// parameters allowed ("application/json; charset=utf-8").
bool IsJsonContentType(std::string_view content_type);
// Splits "host", "host:port", "[v6]", "[v6]:port" (lower-cased host, IPv6
// without brackets). port = -1 when absent. False when malformed.
bool SplitHostPort(std::string_view authority, std::string* host, int* port);

}  // namespace skald::server
