#include "server/edge.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/strings.h"

namespace skald::server {
namespace {

constexpr std::string_view kTempUploadPath = "/api/v1/resources/temp_upload";

// A printable excerpt (at most `limit` characters) of a header value.
std::string Excerpt(std::string_view value, size_t limit = 80) {
  std::string out;
  for (char c : value.substr(0, limit)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (value.size() > limit) out += "...";
  return out;
}

std::string LowerTrim(std::string_view value) { return AsciiLower(Trim(value)); }

bool IsLoopbackName(std::string_view host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

int DefaultPort(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

// "scheme://authority" -> scheme, host, port (default port of the scheme).
bool ParseOrigin(std::string_view origin, std::string* scheme, std::string* host, int* port) {
  const size_t sep = origin.find("://");
  if (sep == std::string_view::npos) return false;
  *scheme = AsciiLower(origin.substr(0, sep));
  if (*scheme != "http" && *scheme != "https") return false;
  std::string_view authority = origin.substr(sep + 3);
  if (!authority.empty() && authority.back() == '/') authority.remove_suffix(1);
  if (authority.find('/') != std::string_view::npos) return false;
  if (!SplitHostPort(authority, host, port)) return false;
  if (*port < 0) *port = DefaultPort(*scheme);
  return true;
}

std::string NormaliseOrigin(std::string_view origin) {
  std::string out = LowerTrim(origin);
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

bool IsJsonContentType(std::string_view content_type) {
  std::string media = LowerTrim(content_type.substr(0, content_type.find(';')));
  if (media == "application/json") return true;
  constexpr std::string_view kPrefix = "application/";
  constexpr std::string_view kSuffix = "+json";
  return media.size() > kPrefix.size() + kSuffix.size() && media.rfind(kPrefix, 0) == 0 &&
         media.compare(media.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0 &&
         media.find('/', kPrefix.size()) == std::string::npos;
}

bool SplitHostPort(std::string_view authority, std::string* host, int* port) {
  *port = -1;
  std::string_view rest;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    *host = AsciiLower(authority.substr(1, close - 1));
    rest = authority.substr(close + 1);
  } else {
    const size_t colon = authority.find(':');
    *host = AsciiLower(authority.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
  }
  if (host->empty()) return false;
  if (rest.empty()) return true;
  if (rest.front() != ':' || rest.size() < 2 || rest.size() > 6) return false;
  int value = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > 65535) return false;
  *port = value;
  return true;
}

EdgeGate::EdgeGate(EdgeOptions options) : options_(std::move(options)) {}

int64_t EdgeGate::BodyLimitFor(std::string_view path) const {
  if (path == kTempUploadPath) return std::max(options_.max_upload_bytes, options_.max_body_bytes);
  return options_.max_body_bytes;
}

std::string_view EdgeGate::BodyLimitKeyFor(std::string_view path) const {
  return path == kTempUploadPath && options_.max_upload_bytes >= options_.max_body_bytes
             ? "server.max_upload_bytes"
             : "server.max_body_bytes";
}

bool EdgeGate::HostAllowed(std::string_view host_header) const {
  if (!options_.check_host) return true;
  std::string host;
  int port = -1;
  if (!SplitHostPort(Trim(host_header), &host, &port)) return false;
  // A loopback name with any port: an SSH tunnel or a local proxy forwards
  // from a port of its own. DNS rebinding sends the attacker's name, which
  // no port makes acceptable.
  if (IsLoopbackName(host)) return true;
  if (port < 0) port = 80;
  return port == port_ && host == AsciiLower(options_.bound_host);
}

bool EdgeGate::SameOrigin(const httplib::Request& req, std::string_view origin) const {
  if (!req.has_header("Host")) return false;
  std::string scheme, origin_host, host;
  int origin_port = -1, port = -1;
  if (!ParseOrigin(Trim(origin), &scheme, &origin_host, &origin_port)) return false;
  if (!SplitHostPort(Trim(req.get_header_value("Host")), &host, &port)) return false;
  if (port < 0) port = DefaultPort(scheme);
  return host == origin_host && port == origin_port;
}

bool EdgeGate::ListedOrigin(std::string_view origin) const {
  const std::string wanted = NormaliseOrigin(origin);
  for (const std::string& allowed : options_.cors_origins) {
    if (allowed == "*" || NormaliseOrigin(allowed) == wanted) return true;
  }
  return false;
}

EdgeGate::Verdict EdgeGate::Check(const httplib::Request& req, EdgeRefusal* refusal) const {
  refusal->validation = false;
  auto refuse = [refusal](int status, std::string code, std::string message) {
    refusal->status = status;
    refusal->code = std::move(code);
    refusal->message = std::move(message);
    return Verdict::kRefuse;
  };

  if (req.get_header_value_count("Host") > 1 ||
      (req.has_header("Host") && !HostAllowed(req.get_header_value("Host")))) {
    const bool loopback = IsLoopbackName(AsciiLower(options_.bound_host));
    return refuse(403, "PERMISSION_DENIED",
                  fmt::format("Host header does not name this server: without authentication "
                              "(dev mode) only 127.0.0.1, localhost or [::1]{} are accepted",
                              loopback ? "" : fmt::format(" or {} with port {}",
                                                          options_.bound_host, port_)));
  }
  if (req.has_header("Origin")) {
    const std::string origin = req.get_header_value("Origin");
    if (req.get_header_value_count("Origin") > 1 ||
        !(SameOrigin(req, origin) || ListedOrigin(origin))) {
      return refuse(403, "PERMISSION_DENIED",
                    fmt::format("Origin '{}' is not allowed: cross-origin requests need the "
                                "origin listed in server.cors_origins",
                                Excerpt(origin)));
    }
    if (req.method == "OPTIONS" && req.has_header("Access-Control-Request-Method")) {
      return Verdict::kPreflight;
    }
  }

  const bool chunked = req.has_header("Transfer-Encoding");
  if (chunked) {
    const std::string coding = req.get_header_value("Transfer-Encoding");
    if (LowerTrim(coding) != "chunked") {
      return refuse(415, "UNKNOWN",
                    fmt::format("Transfer-Encoding '{}' is not supported: send the body "
                                "uncompressed, with Content-Length or chunked",
                                Excerpt(coding)));
    }
    if (req.has_header("Content-Length")) {
      return refuse(400, "INVALID_ARGUMENT",
                    "A request must not carry both Content-Length and Transfer-Encoding");
    }
  }
  if (req.has_header("Content-Encoding")) {
    const std::string coding = req.get_header_value("Content-Encoding");
    if (req.get_header_value_count("Content-Encoding") > 1 || LowerTrim(coding) != "identity") {
      return refuse(415, "UNKNOWN",
                    fmt::format("Compressed request bodies are not accepted (Content-Encoding: "
                                "'{}'): send the body uncompressed",
                                Excerpt(coding)));
    }
  }
  uint64_t length = 0;
  if (req.has_header("Content-Length")) {
    const std::string header = req.get_header_value("Content-Length");
    const std::string value(Trim(header));
    bool valid =
        req.get_header_value_count("Content-Length") == 1 && !value.empty() && value.size() <= 19;
    for (char c : value) valid = valid && c >= '0' && c <= '9';
    if (!valid) return refuse(400, "INVALID_ARGUMENT", "Invalid Content-Length header");
    length = std::stoull(value);
    if (const int64_t limit = BodyLimitFor(req.path); length > static_cast<uint64_t>(limit)) {
      return refuse(413, "RESOURCE_EXHAUSTED",
                    fmt::format("Request body too large: the limit is {} bytes ({})", limit,
                                BodyLimitKeyFor(req.path)));
    }
  }
  const bool has_body = chunked || length > 0;
  const bool json_method = req.method == "POST" || req.method == "PUT" || req.method == "PATCH";
  if (has_body && json_method && req.path != kTempUploadPath) {
    // As OpenViking's (FastAPI): a body without a type is read as JSON; one
    // of another type fails validation (400), here before it is read.
    const std::string type = req.get_header_value("Content-Type");
    if (req.get_header_value_count("Content-Type") > 1 ||
        (req.has_header("Content-Type") && !IsJsonContentType(type))) {
      refusal->validation = true;
      return refuse(400, "INVALID_ARGUMENT",
                    fmt::format("Invalid request parameters: body: unsupported Content-Type "
                                "'{}': request bodies must be JSON (Content-Type: "
                                "application/json)",
                                Excerpt(type)));
    }
  }
  return Verdict::kPass;
}

void EdgeGate::AddCorsHeaders(const httplib::Request& req, httplib::Response& res) const {
  if (!req.has_header("Origin")) return;
  const std::string origin = req.get_header_value("Origin");
  if (SameOrigin(req, origin) || !ListedOrigin(origin)) return;
  res.set_header("Access-Control-Allow-Origin", std::string(Trim(origin)));
  res.set_header("Access-Control-Allow-Credentials", "true");
  res.set_header("Access-Control-Expose-Headers", "X-Request-ID");
  res.set_header("Vary", "Origin");
}

void EdgeGate::AddPreflightHeaders(const httplib::Request& req, httplib::Response& res) const {
  res.set_header("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
  const std::string asked = req.get_header_value("Access-Control-Request-Headers");
  res.set_header("Access-Control-Allow-Headers",
                 asked.empty() ? std::string("Content-Type, Authorization, X-API-Key, "
                                             "X-OpenViking-Account, X-OpenViking-User, "
                                             "X-Request-ID")
                               : Excerpt(asked, 2000));
  res.set_header("Access-Control-Max-Age", "600");
}

}  // namespace skald::server
