#pragma once

// HttpTransport: the one HTTP client every model provider uses. The libcurl
// implementation keeps connections alive and shares its connection cache,
// DNS cache and TLS sessions between all requests, so consecutive batches to
// the same provider reuse one connection; it verifies TLS certificates
// unless told otherwise.
//
// Thread safety: Send may be called concurrently from any number of threads.

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "skald/result.h"

namespace skald {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "POST";  // "GET" or "POST"
  std::string url;              // http:// or https://
  HttpHeaders headers;
  std::string body;
  // Whole request, connection included. Exceeding it is DeadlineExceeded.
  std::chrono::milliseconds timeout{30000};
  // TCP + TLS connect alone (capped at `timeout`).
  std::chrono::milliseconds connect_timeout{10000};
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // names as received
  std::string body;

  // Value of the first header named `name` (case-insensitive), "" when absent.
  std::string Header(std::string_view name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Sends one request and returns the response, whatever its status.
  // Transport failures are errors: DeadlineExceeded on timeout, Unavailable
  // when the host cannot be resolved or reached or TLS fails. Error messages
  // name the method and the URL, never header values.
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;

  // Number of new TCP connections opened so far (connection reuse check).
  virtual uint64_t connections_opened() const = 0;
};

struct CurlTransportOptions {
  // Verify the server's certificate and host name (leave on outside tests).
  bool verify_tls = true;
  // CA bundle file; "" = the system's.
  std::string ca_file;
  // Sent as User-Agent.
  std::string user_agent = "skald/0.1";
  // Idle connections kept for reuse.
  int max_idle_connections = 32;

  Status Validate() const;
};

// A libcurl transport. Unavailable when libcurl cannot be initialized.
Result<std::unique_ptr<HttpTransport>> NewCurlTransport(const CurlTransportOptions& options = {});

// Initializes libcurl once per process (every libcurl user calls it first;
// later calls return the first outcome). Unavailable when it failed.
Status CurlGlobalInit();

}  // namespace skald
