#pragma once

// Pieces of RemoteBackend exposed for unit tests: URL handling and the
// unwrapping of OpenViking's response envelope.
//
// Thread safety: pure functions.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/json_util.h"
#include "skald/result.h"
#include "skald/status.h"

namespace skald::cli {

// A server URL split the way httplib::Client wants it.
struct ServerUrl {
  std::string scheme_host_port;  // "http://127.0.0.1:1933"
  std::string base_path;         // "" or a prefix such as "/skald" (no trailing slash)
  std::string host;              // "127.0.0.1", "localhost", "::1" (no brackets, no port)
};

// Accepts "http(s)://host[:port][/prefix][/]"; a usage error otherwise.
Result<ServerUrl> ParseServerUrl(std::string_view url);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string PercentEncode(std::string_view s);

// "a=1&b=x%2Fy" from ordered key/value pairs (both encoded).
std::string BuildQuery(const std::vector<std::pair<std::string, std::string>>& params);

// The wire code's Status code ("NOT_FOUND" -> kNotFound; unknown -> kInternal).
StatusCode StatusCodeFromWire(std::string_view wire_code);

// Turns one HTTP response into its `result`, or into the error the envelope
// carries: a Status whose reason() is the wire code and whose message is the
// server's message, so that it prints exactly as the embedded error would.
// A body that is not an envelope gives an INTERNAL error naming `url` and
// the HTTP status.
Result<Json> UnwrapEnvelope(int http_status, std::string_view body, std::string_view url);

}  // namespace skald::cli
