#pragma once

// Internal to server/: per-request observation (Prometheus counters and
// latency histograms, the access log line) and the /metrics text.
//
// Thread safety: Observe and Render may be called concurrently from any
// number of request threads.

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "skald/db.h"

namespace skald::server {

// One finished request as the post-routing handler sees it.
struct RequestRecord {
  std::string_view method;
  std::string_view path;        // without the query string (it may carry secrets)
  std::string_view route;       // route template, e.g. "/api/v1/tasks/{param}"; "" = unmatched
  std::string_view request_id;
  int status = 0;
  double seconds = 0;
  const Identity* who = nullptr;  // null when the request was not identified
};

class Metrics {
 public:
  // Latency histogram bucket upper bounds, seconds (the +Inf bucket is implied).
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                      0.25,  0.5,   1,    2.5,   5,    10};

  // `access_log`: Observe also logs one spdlog info line per request.
  explicit Metrics(bool access_log) : access_log_(access_log) {}

  // Counts the request (by method, route template and status, with its
  // latency) and logs the access line when enabled.
  void Observe(const RequestRecord& record);

  // The Prometheus text exposition (format 0.0.4) of the request counters
  // and of `stats`.
  std::string Render(const DbStats& stats) const;

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};  // non-cumulative counts
    uint64_t count = 0;
    double sum = 0;
  };

  const bool access_log_;
  mutable std::mutex mu_;
  // (method, route, status) -> requests. GUARDED_BY(mu_)
  std::map<std::tuple<std::string, std::string, int>, uint64_t> requests_;
  // (method, route) -> latency. GUARDED_BY(mu_)
  std::map<std::pair<std::string, std::string>, Histogram> latency_;
};

// The access log line of `record` (without the logger's prefix): method,
// path (control bytes escaped, cut to 512 bytes), status, milliseconds,
// request id, and account/user when known.
std::string AccessLogLine(const RequestRecord& record);

}  // namespace skald::server
