// System, debug and observer routes (reference §2.1, §2.10) and the
// operational endpoints /ready and /metrics:
//
//   GET  /api/v1/system/status             {initialized, user}
//   POST /api/v1/system/wait               per-queue status once background work is done
//   POST /api/v1/system/consistency        index records the content calls for, missing
//   POST /api/v1/system/backend/sync-*     {path, entry_count} / {path, retried, failed}
//   GET  /api/v1/debug/health              {healthy}
//   GET  /api/v1/observer/{component}      {name, is_healthy, has_errors, status}
//   GET  /api/v1/observer/system           {is_healthy, errors, components}
//   GET  /ready                            200 ready / 503 not_ready (not enveloped)
//   GET  /metrics                          Prometheus text (or 404 when disabled)
//
// OpenViking's two queues map onto Skald's job kinds: "Semantic" = add_resource,
// index, refresh (parsing and summaries), "Embedding" = index, reindex
// (vectors). An `index` job summarizes and embeds in one run, so it counts in
// both (as content/write's queue_status reports it).

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "server/metrics.h"
#include "server/routes.h"

namespace skald::server {
namespace {

// Waits without a timeout are bounded all the same: a request thread is not
// held forever.
constexpr int64_t kMaxWaitMs = int64_t{24} * 3600 * 1000;

const std::set<std::string>& SemanticKinds() {
  static const std::set<std::string> kinds = {"add_resource", "index", "refresh", "add_skill",
                                              "content_write", "snapshot_restore_reindex"};
  return kinds;
}
const std::set<std::string>& EmbeddingKinds() {
  static const std::set<std::string> kinds = {"index", "reindex", "add_skill", "content_write",
                                              "snapshot_restore_reindex"};
  return kinds;
}

// {processed, requeue_count, error_count, errors:[{message}]} over `kinds`.
Json QueueStatus(const DbStats& stats, const std::set<std::string>& kinds) {
  uint64_t processed = 0, requeued = 0, errors = 0;
  Json messages = Json::array();
  for (const JobKindStats& k : stats.jobs) {
    if (kinds.count(k.kind) == 0) continue;
    processed += k.processed;
    requeued += k.requeued;
    errors += k.errors;
    for (const std::string& m : k.recent_errors) messages.push_back({{"message", m}});
  }
  return {{"processed", processed},
          {"requeue_count", requeued},
          {"error_count", errors},
          {"errors", messages}};
}

// A plain text table (OpenViking's observers return tabulated text).
std::string Table(const std::vector<std::string>& headers,
                  const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(headers.size());
  for (size_t i = 0; i < headers.size(); ++i) width[i] = headers[i].size();
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string rule = "+";
  for (size_t w : width) rule += std::string(w + 2, '-') + "+";
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < cells.size() ? cells[i] : "";
      out += " " + cell + std::string(width[i] - cell.size(), ' ') + " |";
    }
    return out + "\n";
  };
  std::string out = rule + "\n" + line(headers) + rule + "\n";
  for (const auto& row : rows) out += line(row);
  return out + rule;
}

std::string N(uint64_t n) { return std::to_string(n); }

Json Component(std::string_view name, bool healthy, bool has_errors, std::string status) {
  return {{"name", name}, {"is_healthy", healthy}, {"has_errors", has_errors}, {"status", status}};
}

// The status tables follow the layout OpenViking's observers use, which the
// `ov status` summary reads: the queue and vikingdb tables end with a TOTAL
// row (columns "Pending", "In Progress", "Errors"; "Index Count", "Vector
// Count"), model tables come under "<Kind> Models:" headings with the model
// name first, the lock table says "No active locks" or has a "TOTAL (n)" row,
// the retrieval table is Metric | Value with "Total Queries", "Total Errors"
// and "Zero-Result Rate" (read by older and newer `ov` releases), and the filesystem status lists
// its stores as "Mount: " lines.
Json QueueComponent(const DbStats& s) {
  std::vector<std::vector<std::string>> rows;
  JobKindStats total;
  for (const JobKindStats& k : s.jobs) {
    const uint64_t all = k.pending + k.running + k.processed;
    rows.push_back(
        {k.kind, N(k.pending), N(k.running), N(k.processed), N(k.requeued), N(k.errors), N(all)});
    total.pending += k.pending;
    total.running += k.running;
    total.processed += k.processed;
    total.requeued += k.requeued;
    total.errors += k.errors;
  }
  rows.push_back({"TOTAL", N(total.pending), N(total.running), N(total.processed),
                  N(total.requeued), N(total.errors),
                  N(total.pending + total.running + total.processed)});
  return Component(
      "queue", total.errors == 0, total.errors > 0,
      Table({"Queue", "Pending", "In Progress", "Processed", "Requeued", "Errors", "Total"}, rows));
}

Json VikingDbComponent(const DbStats& s) {
  std::vector<std::vector<std::string>> rows;
  uint64_t vectors = 0, bytes = 0, memory = 0;
  for (const IndexSizeStats& i : s.indexes) {
    const bool is_vector = i.name == "vector";
    rows.push_back(
        {i.name, "1", is_vector ? N(i.records) : "-", N(i.records), N(i.bytes), N(i.memory_bytes)});
    if (is_vector) vectors += i.records;
    bytes += i.bytes;
    memory += i.memory_bytes;
  }
  rows.push_back({"TOTAL", N(s.indexes.size()), N(vectors), "", N(bytes), N(memory)});
  return Component(
      "vikingdb", true, false,
      Table({"Collection", "Index Count", "Vector Count", "Records", "Disk bytes", "Memory bytes"},
            rows));
}

Json ModelsComponent(const DbStats& s) {
  uint64_t failures = 0;
  std::string status;
  // One section per kind of model, in a fixed order.
  for (const auto& [role, heading] : {std::pair<std::string, std::string>{"llm", "VLM Models:"},
                                      {"embedding", "Embedding Models:"},
                                      {"rerank", "Rerank Models:"}}) {
    std::vector<std::vector<std::string>> rows;
    for (const ModelClientStats& m : s.models) {
      if (m.role != role) continue;
      rows.push_back({m.model, m.provider, N(m.calls), N(m.retries), N(m.failures)});
      failures += m.failures;
    }
    if (rows.empty()) continue;
    if (!status.empty()) status += "\n\n";
    status += heading + "\n" + Table({"Model", "Provider", "Calls", "Retries", "Failures"}, rows);
  }
  if (status.empty()) status = "No models configured";
  const bool healthy = s.embedding_probe == "ok" || s.embedding_probe == "not_probed";
  return Component("models", healthy, failures > 0 || !healthy, status);
}

Json LockComponent(const DbStats& s) {
  std::string status = s.locks_held == 0 ? "No active locks\n" : "";
  status += Table({"Locks", "Held", "Waiting"},
                  {{fmt::format("TOTAL ({})", s.locks_held), N(s.locks_held), N(s.lock_waiters)}});
  return Component("lock", true, false, status);
}

Json RetrievalComponent(const DbStats& s) {
  const RetrievalStats& r = s.retrieval;
  const std::string avg_ms =
      r.finds == 0 ? "-" : fmt::format("{:.1f}", r.seconds_total * 1000.0 / r.finds);
  const std::string zero_rate =
      r.finds == 0 ? "0.0%" : fmt::format("{:.1f}%", 100.0 * r.zero_hit / r.finds);
  return Component("retrieval", true, r.failures > 0,
                   Table({"Metric", "Value"}, {{"Total Queries", N(r.finds)},
                                               {"Total Errors", N(r.failures)},
                                               {"Zero-hit Queries", N(r.zero_hit)},
                                               {"Zero-Result Rate", zero_rate},
                                               {"Results Returned", N(r.hits)},
                                               {"Average ms", avg_ms}}));
}

Json FilesystemComponent(const DbStats& s) {
  std::string status = "Mount: content (local file system)\nMount: catalog (SQLite)\n";
  status += Table({"Metric", "Value"}, {{"Accounts", N(s.accounts)},
                                        {"Catalog bytes", N(s.catalog_bytes)},
                                        {"Disk", s.disk_full ? "full" : "ok"}});
  return Component("filesystem", !s.disk_full, s.disk_full, status);
}

using ComponentBuilder = std::function<Json(const DbStats&)>;

const std::vector<std::pair<std::string, ComponentBuilder>>& Components() {
  static const std::vector<std::pair<std::string, ComponentBuilder>> components = {
      {"queue", QueueComponent},         {"vikingdb", VikingDbComponent},
      {"models", ModelsComponent},       {"lock", LockComponent},
      {"retrieval", RetrievalComponent}, {"filesystem", FilesystemComponent}};
  return components;
}

// {is_healthy, errors, components} over every component.
Json SystemStatus(const DbStats& stats) {
  Json components = Json::object();
  Json errors = Json::array();
  bool healthy = true;
  for (const auto& [name, build] : Components()) {
    Json c = build(stats);
    if (!c["is_healthy"].get<bool>()) {
      healthy = false;
      errors.push_back(fmt::format("{} is unhealthy", name));
    }
    components[name] = std::move(c);
  }
  return {{"is_healthy", healthy}, {"errors", errors}, {"components", components}};
}

void SystemStatusRoute(Call& call) { call.Ok({{"initialized", true}, {"user", call.who().user}}); }

// {timeout?: float|null}; other fields are ignored (OpenViking allows them).
void WaitRoute(Call& call) {
  Json body = Json::object();
  if (call.request().body.find_first_not_of(" \t\r\n") != std::string::npos) {
    std::optional<Json> parsed = call.BodyObject();
    if (!parsed) return;
    body = std::move(*parsed);
  }
  ValidationErrors errors;
  BodyReader reader(body, &errors);
  const std::optional<double> timeout = reader.OptionalFloat("timeout");
  if (!errors.empty()) return call.FailValidation(errors);
  int64_t timeout_ms = kMaxWaitMs;
  if (timeout.has_value()) {
    timeout_ms = std::isfinite(*timeout) && *timeout > 0
                     ? static_cast<int64_t>(std::min(*timeout * 1000.0, double(kMaxWaitMs)))
                     : 0;
  }
  if (Status idle = call.db().WaitIdle(timeout_ms, /*wait_for_retries=*/true); !idle.ok()) {
    if (idle.code() == StatusCode::kDeadlineExceeded) {
      // `timeout` a number, as in add_resource's 504.
      const Json details = {{"operation", "wait_processed"},
                            {"timeout", timeout ? Json(*timeout) : Json(nullptr)}};
      return call.Fail(Status::DeadlineExceeded(
                           fmt::format("background processing did not finish within {}s: {}",
                                       timeout.value_or(0.0), idle.message())),
                       &details);
    }
    return call.Fail(idle);
  }
  Result<DbStats> stats = call.db().Stats(call.who());
  if (!stats.ok()) return call.Fail(stats.status());
  call.Ok({{"Embedding", QueueStatus(*stats, EmbeddingKinds())},
           {"Semantic", QueueStatus(*stats, SemanticKinds())}});
}

// The URI of a body `{uri}` (extra="forbid"); nullopt once the call failed.
std::optional<std::string> UriOfBody(Call& call) {
  std::optional<Json> body = call.BodyObject();
  if (!body) return std::nullopt;
  ValidationErrors errors;
  BodyReader b(*body, &errors);
  std::string uri = b.RequiredString("uri");
  b.ForbidExtra({"uri"});
  if (!errors.empty()) {
    call.FailValidation(errors);
    return std::nullopt;
  }
  return uri;
}

// POST /api/v1/system/consistency {uri}: the index records the subtree's
// content calls for that the catalog lacks (the first 20 shown).
void ConsistencyRoute(Call& call) {
  std::optional<std::string> uri = UriOfBody(call);
  if (!uri) return;
  Result<ConsistencyReport> report = call.db().CheckConsistency(call.who(), *uri);
  if (!report.ok()) return call.Fail(report.status());
  Json missing = Json::array();
  for (const MissingRecord& m : report->missing) {
    missing.push_back({{"uri", m.uri},
                       {"path", m.path},
                       {"level", m.level},
                       {"key", fmt::format("{}#level={}", m.path.empty() ? "." : m.path,
                                           m.level)}});
  }
  call.Ok({{"ok", report->ok()},
           {"expected_count", report->expected_count},
           {"missing_record_count", report->missing_count},
           {"missing_records", std::move(missing)},
           {"missing_records_truncated", report->missing_count > report->missing.size()}});
}

// POST /api/v1/system/backend/sync-status|sync-retry {uri} (ROOT, ADMIN):
// OpenViking's multi-write backends keep copies in sync; Skald has one
// store, so nothing is ever waiting to be synced or retried.
void BackendSyncRoute(Call& call, bool retry) {
  if (call.who().role == Role::kUser) {
    return call.Fail(Status::PermissionDenied("Requires role: root, admin"));
  }
  std::optional<std::string> uri = UriOfBody(call);
  if (!uri) return;
  Result<NodeInfo> node = call.db().Stat(call.who(), *uri);
  if (!node.ok() && node.status().code() != StatusCode::kNotFound) {
    return call.Fail(node.status());
  }
  if (retry) return call.Ok({{"path", *uri}, {"retried", 0}, {"failed", 0}});
  call.Ok({{"path", *uri}, {"entry_count", 0}});
}

void DebugHealthRoute(Call& call) {
  Result<DbStats> stats = call.db().Stats(call.who());
  if (!stats.ok()) return call.Fail(stats.status());
  call.Ok({{"healthy", SystemStatus(*stats)["is_healthy"].get<bool>()}});
}

void ObserverSystemRoute(Call& call) {
  Result<DbStats> stats = call.db().Stats(call.who());
  if (!stats.ok()) return call.Fail(stats.status());
  call.Ok(SystemStatus(*stats));
}

// Unauthenticated callers see aggregate figures only (an identity that owns
// no job sees no job error).
Identity Anonymous() { return Identity{"", "", Role::kUser}; }

void ReadyRoute(Call& call) {
  ReadyReport report = call.db().CheckReady();
  Json checks = Json::object();
  for (const auto& [name, status] : report.checks) checks[name] = status;
  Json body = {{"status", report.ready ? "ready" : "not_ready"}, {"checks", checks}};
  call.Send(report.ready ? 200 : 503, DumpJson(body), "application/json");
}

}  // namespace

void RegisterSystemRoutes(Router& router, const Metrics& metrics, bool metrics_enabled) {
  router.Add("GET", "/api/v1/system/status", SystemStatusRoute);
  router.Add("POST", "/api/v1/system/wait", WaitRoute);
  router.Add("GET", "/api/v1/debug/health", DebugHealthRoute);
  router.Add("POST", "/api/v1/system/consistency", ConsistencyRoute);
  router.Add("POST", "/api/v1/system/backend/sync-status",
             [](Call& call) { BackendSyncRoute(call, /*retry=*/false); });
  router.Add("POST", "/api/v1/system/backend/sync-retry",
             [](Call& call) { BackendSyncRoute(call, /*retry=*/true); });
  for (const auto& [name, build] : Components()) {
    router.Add("GET", "/api/v1/observer/" + name, [build = build](Call& call) {
      Result<DbStats> stats = call.db().Stats(call.who());
      if (!stats.ok()) return call.Fail(stats.status());
      call.Ok(build(*stats));
    });
  }
  router.Add("GET", "/api/v1/observer/system", ObserverSystemRoute);
  router.Add("GET", "/ready", ReadyRoute);
  router.Add("GET", "/metrics", [&metrics, metrics_enabled](Call& call) {
    if (!metrics_enabled) {
      return call.Send(404, "Prometheus metrics are disabled.", "text/plain; charset=utf-8");
    }
    Result<DbStats> stats = call.db().Stats(Anonymous());
    if (!stats.ok()) return call.Fail(stats.status());
    call.Send(200, metrics.Render(*stats), "text/plain; version=0.0.4; charset=utf-8");
  });
}

}  // namespace skald::server
