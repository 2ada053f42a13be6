// Request metrics, the access log line and the Prometheus text of /metrics.

#include "server/metrics.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>

namespace skald::server {
namespace {

constexpr size_t kMaxLoggedPathBytes = 512;

// Path text safe for one log line: control bytes, backslash and DEL escaped.
std::string LoggablePath(std::string_view path) {
  std::string out;
  const size_t n = std::min(path.size(), kMaxLoggedPathBytes);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(path[i]);
    if (c < 0x20 || c == 0x7f || c == '\\') {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (path.size() > n) out += "...";
  return out;
}

// A label value in the exposition format: \ " and newline escaped.
std::string LabelValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// HTTP methods Skald routes keep their name; anything else shares one label.
std::string_view MethodLabel(std::string_view method) {
  for (std::string_view known : {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
    if (method == known) return known;
  }
  return "OTHER";
}

std::string Number(double value) { return fmt::format("{}", value); }

// Appends the HELP and TYPE lines of a metric family.
void Family(std::string* out, std::string_view name, std::string_view type,
            std::string_view help) {
  *out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string AccessLogLine(const RequestRecord& r) {
  std::string line = fmt::format("{} {} {} {:.2f}ms request_id={}", r.method, LoggablePath(r.path),
                                 r.status, r.seconds * 1000.0, r.request_id);
  if (r.who != nullptr) {
    line += fmt::format(" account={} user={}", LoggablePath(r.who->account),
                        LoggablePath(r.who->user));
  }
  return line;
}

void Metrics::Observe(const RequestRecord& r) {
  // Unmatched paths and unknown methods share one label each, so that
  // scanners cannot grow the number of series.
  const std::string route = r.route.empty() ? "unmatched" : std::string(r.route);
  const std::string method(MethodLabel(r.method));
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_[{method, route, r.status}];
    Histogram& h = latency_[{method, route}];
    ++h.count;
    h.sum += r.seconds;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      if (r.seconds <= kBuckets[i]) {
        ++h.buckets[i];
        break;
      }
    }
  }
  // The line is built only when it will be written (log.level INFO or DEBUG).
  if (access_log_ && spdlog::should_log(spdlog::level::info)) {
    spdlog::info("access: {}", AccessLogLine(r));
  }
}

std::string Metrics::Render(const DbStats& stats) const {
  std::string out;
  Family(&out, "skald_build_info", "gauge", "Skald version.");
  out += fmt::format("skald_build_info{{version=\"{}\"}} 1\n", LabelValue(kSkaldVersion));
  {
    std::lock_guard<std::mutex> lock(mu_);
    Family(&out, "skald_http_requests_total", "counter",
           "HTTP requests answered, by method, route template and status.");
    for (const auto& [key, count] : requests_) {
      const auto& [method, route, status] = key;
      out += fmt::format("skald_http_requests_total{{method=\"{}\",route=\"{}\",status=\"{}\"}} {}\n",
                         LabelValue(method), LabelValue(route), status, count);
    }
    Family(&out, "skald_http_request_duration_seconds", "histogram",
           "Time to answer HTTP requests, by method and route template.");
    for (const auto& [key, h] : latency_) {
      const std::string labels =
          fmt::format("method=\"{}\",route=\"{}\"", LabelValue(key.first), LabelValue(key.second));
      uint64_t cumulative = 0;
      for (size_t i = 0; i < kBuckets.size(); ++i) {
        cumulative += h.buckets[i];
        out += fmt::format("skald_http_request_duration_seconds_bucket{{{},le=\"{}\"}} {}\n", labels,
                           Number(kBuckets[i]), cumulative);
      }
      out += fmt::format("skald_http_request_duration_seconds_bucket{{{},le=\"+Inf\"}} {}\n", labels,
                         h.count);
      out += fmt::format("skald_http_request_duration_seconds_sum{{{}}} {}\n", labels,
                         Number(h.sum));
      out += fmt::format("skald_http_request_duration_seconds_count{{{}}} {}\n", labels, h.count);
    }
  }

  Family(&out, "skald_jobs", "gauge",
         "Background jobs in the durable queue, by kind and state (finished jobs are purged after "
         "a while).");
  for (const JobKindStats& k : stats.jobs) {
    for (const auto& [state, n] : {std::pair{"pending", k.pending}, std::pair{"running", k.running},
                                   std::pair{"completed", k.completed},
                                   std::pair{"failed", k.failed}}) {
      out += fmt::format("skald_jobs{{kind=\"{}\",state=\"{}\"}} {}\n", LabelValue(k.kind), state, n);
    }
  }
  Family(&out, "skald_jobs_processed_total", "counter",
         "Background jobs completed since the server started.");
  for (const JobKindStats& k : stats.jobs) {
    out += fmt::format("skald_jobs_processed_total{{kind=\"{}\"}} {}\n", LabelValue(k.kind),
                       k.processed);
  }
  Family(&out, "skald_job_retries_total", "counter",
         "Failed job attempts put back in the queue for a retry since the server started.");
  for (const JobKindStats& k : stats.jobs) {
    out += fmt::format("skald_job_retries_total{{kind=\"{}\"}} {}\n", LabelValue(k.kind),
                       k.requeued);
  }
  Family(&out, "skald_job_failures_total", "counter",
         "Background jobs failed for good since the server started.");
  for (const JobKindStats& k : stats.jobs) {
    out += fmt::format("skald_job_failures_total{{kind=\"{}\"}} {}\n", LabelValue(k.kind),
                       k.errors);
  }
  Family(&out, "skald_background_workers", "gauge", "Background worker threads.");
  out += fmt::format("skald_background_workers {}\n", stats.workers);

  Family(&out, "skald_index_records", "gauge", "Live records in each index (all accounts).");
  for (const IndexSizeStats& i : stats.indexes) {
    out += fmt::format("skald_index_records{{index=\"{}\"}} {}\n", LabelValue(i.name), i.records);
  }
  Family(&out, "skald_index_bytes", "gauge", "Size of each index's files on disk.");
  for (const IndexSizeStats& i : stats.indexes) {
    out += fmt::format("skald_index_bytes{{index=\"{}\"}} {}\n", LabelValue(i.name), i.bytes);
  }
  Family(&out, "skald_index_memory_bytes", "gauge", "Memory held by each index.");
  for (const IndexSizeStats& i : stats.indexes) {
    out += fmt::format("skald_index_memory_bytes{{index=\"{}\"}} {}\n", LabelValue(i.name),
                       i.memory_bytes);
  }
  Family(&out, "skald_catalog_bytes", "gauge", "Size of the catalog database on disk.");
  out += fmt::format("skald_catalog_bytes {}\n", stats.catalog_bytes);

  const RetrievalStats& r = stats.retrieval;
  Family(&out, "skald_retrieval_requests_total", "counter",
         "Find and search calls since the server started.");
  out += fmt::format("skald_retrieval_requests_total {}\n", r.finds);
  Family(&out, "skald_retrieval_failures_total", "counter", "Find and search calls that failed.");
  out += fmt::format("skald_retrieval_failures_total {}\n", r.failures);
  Family(&out, "skald_retrieval_zero_hit_total", "counter",
         "Successful find and search calls that returned nothing.");
  out += fmt::format("skald_retrieval_zero_hit_total {}\n", r.zero_hit);
  Family(&out, "skald_retrieval_hits_total", "counter", "Results returned by find and search.");
  out += fmt::format("skald_retrieval_hits_total {}\n", r.hits);
  Family(&out, "skald_retrieval_seconds_total", "counter", "Time spent in find and search.");
  out += fmt::format("skald_retrieval_seconds_total {}\n", Number(r.seconds_total));

  Family(&out, "skald_model_calls_total", "counter", "Calls to each model client.");
  for (const ModelClientStats& m : stats.models) {
    out += fmt::format("skald_model_calls_total{{role=\"{}\",provider=\"{}\"}} {}\n",
                       LabelValue(m.role), LabelValue(m.provider), m.calls);
  }
  Family(&out, "skald_model_failures_total", "counter", "Failed calls to each model client.");
  for (const ModelClientStats& m : stats.models) {
    out += fmt::format("skald_model_failures_total{{role=\"{}\",provider=\"{}\"}} {}\n",
                       LabelValue(m.role), LabelValue(m.provider), m.failures);
  }
  Family(&out, "skald_path_locks_held", "gauge", "Path locks held right now.");
  out += fmt::format("skald_path_locks_held {}\n", stats.locks_held);
  return out;
}

}  // namespace skald::server
