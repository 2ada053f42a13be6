// Black-box tests of the system, debug and observer routes, /ready, /metrics
// and the access log, against the real `skald serve`.

#include <fstream>
#include <sstream>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class SystemApiTest : public ApiTest {};

// The value of the sample line `series` (name and labels exactly as written)
// in Prometheus text, or -1 when absent.
double Sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, series.size() + 1, series + " ") == 0) {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Starts a server on a fresh workspace under `dir` with `config` as its file.
std::unique_ptr<SkaldProcess> StartWithConfig(const TempDir& dir, const std::string& config) {
  const std::string path = dir.path() + "/skald.conf";
  {
    std::ofstream out(path);
    out << config;
  }
  return SkaldProcess::Start(dir.path() + "/ws", {"--config", path});
}

Reply GetFrom(httplib::Client& client, const std::string& path,
              const httplib::Headers& headers = {}) {
  Reply reply;
  httplib::Result r = client.Get(path, headers);
  if (!r) return reply;
  reply.status = r->status;
  reply.raw = r->body;
  reply.headers = r->headers;
  reply.json = Json::parse(reply.raw, nullptr, false);
  if (reply.json.is_discarded()) reply.json = Json();
  return reply;
}

Reply PostTo(httplib::Client& client, const std::string& path, const Json& body) {
  Reply reply;
  httplib::Result r = client.Post(path, body.dump(), "application/json");
  if (!r) return reply;
  reply.status = r->status;
  reply.raw = r->body;
  reply.json = Json::parse(reply.raw, nullptr, false);
  if (reply.json.is_discarded()) reply.json = Json();
  return reply;
}

// An embedding provider nobody listens on: every embedding call fails fast
// (connection refused) and the jobs that need it wait out retry backoffs.
const char* kDeadEmbedderConfig = R"({
  "embedding": {"dense": {"provider": "openai", "model": "dead-embed", "dimension": 8,
                          "api_key": "k", "api_base": "http://127.0.0.1:1/v1",
                          "max_retries": 0, "timeout": 2}}
})";

// ---- system ----------------------------------------------------------------

TEST_F(SystemApiTest, StatusNamesTheCallingUser) {
  Reply r = Get("/api/v1/system/status");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["status"], "ok");
  EXPECT_EQ(r.json["result"]["initialized"], true);
  EXPECT_EQ(r.json["result"]["user"], "default");
  EXPECT_TRUE(r.json.contains("error") && r.json["error"].is_null()) << r.raw;

  Reply alice = Get("/api/v1/system/status", {{"X-OpenViking-User", "alice"}});
  ASSERT_EQ(alice.status, 200) << alice.raw;
  EXPECT_EQ(alice.json["result"]["user"], "alice");
}

TEST_F(SystemApiTest, WaitReturnsPerQueueStatusOnceTheWorkIsDone) {
  Create(Root() + "/note.md", "the quick brown fox jumps over the lazy dog");
  Reply r = PostJson("/api/v1/system/wait", {{"timeout", 60}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& result = r.json["result"];
  for (const char* queue : {"Embedding", "Semantic"}) {
    ASSERT_TRUE(result.contains(queue)) << r.raw;
    const Json& q = result[queue];
    for (const char* key : {"processed", "requeue_count", "error_count"}) {
      EXPECT_TRUE(q[key].is_number_integer()) << queue << "." << key << ": " << r.raw;
    }
    EXPECT_TRUE(q["errors"].is_array()) << r.raw;
  }
  // The write was indexed (summarized and embedded) before wait answered.
  EXPECT_GE(result["Embedding"]["processed"].get<int>(), 1) << r.raw;
  EXPECT_EQ(result["Embedding"]["error_count"], 0) << r.raw;

  // Nothing queued: an immediate answer, with or without a body or timeout.
  EXPECT_EQ(PostJson("/api/v1/system/wait", {{"timeout", nullptr}}).status, 200);
  EXPECT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 0}}).status, 200);
  EXPECT_EQ(Post("/api/v1/system/wait", "").status, 200);
}

// POST /system/consistency answers OpenViking's shape (its installer and
// agent plugins read `ok`); the backend sync routes answer that nothing
// waits to be synced (Skald has one store).
TEST_F(SystemApiTest, ConsistencyAndBackendSyncAnswerOpenVikingsShapes) {
  Create(Root() + "/note.md", "the quick brown fox jumps over the lazy dog");
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  Reply r = PostJson("/api/v1/system/consistency", {{"uri", Root()}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& c = r.json["result"];
  EXPECT_EQ(c["ok"], true) << r.raw;
  EXPECT_EQ(c["expected_count"], 3) << r.raw;  // the directory's L0 and L1, the file's L2
  EXPECT_EQ(c["missing_record_count"], 0) << r.raw;
  EXPECT_EQ(c["missing_records"], Json::array()) << r.raw;
  EXPECT_EQ(c["missing_records_truncated"], false) << r.raw;

  EXPECT_EQ(PostJson("/api/v1/system/consistency", Json::object()).status, 400);
  EXPECT_EQ(PostJson("/api/v1/system/consistency", {{"uri", 7}}).status, 400);
  EXPECT_EQ(PostJson("/api/v1/system/consistency", {{"uri", Root()}, {"extra", 1}}).status, 400);
  Reply missing = PostJson("/api/v1/system/consistency", {{"uri", Root() + "/none"}});
  EXPECT_EQ(missing.status, 404) << missing.raw;

  Reply status = PostJson("/api/v1/system/backend/sync-status", {{"uri", "viking://resources"}});
  ASSERT_EQ(status.status, 200) << status.raw;
  EXPECT_EQ(status.json["result"], (Json{{"path", "viking://resources"}, {"entry_count", 0}}));
  Reply retry = PostJson("/api/v1/system/backend/sync-retry", {{"uri", "viking://resources"}});
  ASSERT_EQ(retry.status, 200) << retry.raw;
  EXPECT_EQ(retry.json["result"],
            (Json{{"path", "viking://resources"}, {"retried", 0}, {"failed", 0}}));
  EXPECT_EQ(PostJson("/api/v1/system/backend/sync-status", Json::object()).status, 400);
}

TEST_F(SystemApiTest, WaitRejectsBadInput) {
  Reply bad = PostJson("/api/v1/system/wait", {{"timeout", "soon"}});
  ASSERT_EQ(bad.status, 400) << bad.raw;
  EXPECT_EQ(bad.Code(), "INVALID_ARGUMENT");
  Reply not_object = Post("/api/v1/system/wait", "[1]");
  EXPECT_EQ(not_object.status, 400) << not_object.raw;
  Reply get = Get("/api/v1/system/wait");
  EXPECT_EQ(get.status, 405) << get.raw;
}

TEST(SystemWaitTimeoutTest, WorkThatCannotFinishInTimeAnswers504) {
  TempDir dir;
  std::unique_ptr<SkaldProcess> server = StartWithConfig(dir, kDeadEmbedderConfig);
  ASSERT_NE(server, nullptr);
  std::unique_ptr<httplib::Client> client = server->NewClient();
  // The write succeeds; indexing it needs the dead provider and is retried
  // with backoff (seconds), so the queue cannot drain within the timeout.
  Reply write = PostTo(*client, "/api/v1/content/write",
                       {{"uri", "viking://resources/w/a.md"}, {"content", "x y z"},
                        {"mode", "create"}});
  ASSERT_EQ(write.status, 200) << write.raw;
  Reply wait = PostTo(*client, "/api/v1/system/wait", {{"timeout", 0.2}});
  ASSERT_EQ(wait.status, 504) << wait.raw;
  EXPECT_EQ(wait.Code(), "DEADLINE_EXCEEDED") << wait.raw;
  EXPECT_EQ(wait.json["status"], "error");
  EXPECT_EQ(wait.json["error"]["details"]["timeout"], Json(0.2)) << "a number, as add_resource's";
  EXPECT_EQ(wait.json["error"]["details"]["operation"], "wait_processed") << wait.raw;
  client.reset();  // no idle keep-alive connection delays the shutdown
  EXPECT_EQ(server->Stop(SIGTERM), 0);
}

// ---- debug / observers --------------------------------------------------------

TEST_F(SystemApiTest, DebugHealthIsHealthyOnAFreshServer) {
  Reply r = Get("/api/v1/debug/health");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["result"]["healthy"], true) << r.raw;
}

TEST_F(SystemApiTest, EveryObserverHasTheComponentShape) {
  for (const char* name : {"queue", "vikingdb", "models", "lock", "retrieval", "filesystem"}) {
    Reply r = Get(std::string("/api/v1/observer/") + name);
    ASSERT_EQ(r.status, 200) << name << ": " << r.raw;
    const Json& c = r.json["result"];
    EXPECT_EQ(c["name"], name) << r.raw;
    EXPECT_TRUE(c["is_healthy"].is_boolean()) << r.raw;
    EXPECT_TRUE(c["has_errors"].is_boolean()) << r.raw;
    ASSERT_TRUE(c["status"].is_string()) << r.raw;
    EXPECT_FALSE(c["status"].get<std::string>().empty()) << r.raw;
  }
  // The queue table names Skald's job kinds and ends with the TOTAL row
  // that `ov status` reads its Pending / In Progress / Errors from.
  Reply queue = Get("/api/v1/observer/queue");
  const std::string queue_table = queue.json["result"]["status"];
  EXPECT_NE(queue_table.find("add_resource"), std::string::npos) << queue.raw;
  EXPECT_NE(queue_table.find("| Pending | In Progress |"), std::string::npos) << queue_table;
  EXPECT_NE(queue_table.find("| TOTAL "), std::string::npos) << queue_table;
  // The built-in embedder is listed under the heading `ov status` looks for.
  Reply models = Get("/api/v1/observer/models");
  EXPECT_NE(models.json["result"]["status"].get<std::string>().find("Embedding Models:\n"),
            std::string::npos)
      << models.raw;

  Reply system = Get("/api/v1/observer/system");
  ASSERT_EQ(system.status, 200) << system.raw;
  const Json& s = system.json["result"];
  EXPECT_EQ(s["is_healthy"], true) << system.raw;
  EXPECT_EQ(s["errors"], Json::array()) << system.raw;
  for (const char* name : {"queue", "vikingdb", "models", "lock", "retrieval", "filesystem"}) {
    ASSERT_TRUE(s["components"].contains(name)) << name << ": " << system.raw;
    EXPECT_EQ(s["components"][name]["name"], name);
  }
  EXPECT_EQ(Get("/api/v1/observer/nothing").status, 404);
}

TEST_F(SystemApiTest, RetrievalObserverCountsFinds) {
  Create(Root() + "/fox.md", "the quick brown fox");
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  ASSERT_EQ(PostJson("/api/v1/search/find", {{"query", "fox"}}).status, 200);
  Reply r = Get("/api/v1/observer/retrieval");
  ASSERT_EQ(r.status, 200) << r.raw;
  const std::string table = r.json["result"]["status"];
  // One query, no failure, in the Metric | Value rows `ov status` reads.
  EXPECT_NE(table.find("| Total Queries    | 1 "), std::string::npos) << table;
  EXPECT_NE(table.find("| Total Errors     | 0 "), std::string::npos) << table;
}

// ---- /ready ---------------------------------------------------------------------

TEST_F(SystemApiTest, ReadyIsNotEnvelopedAndChecksEachPart) {
  Reply r = Get("/ready");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json["status"], "ready") << r.raw;
  EXPECT_FALSE(r.json.contains("result")) << r.raw;
  EXPECT_EQ(r.json["checks"]["catalog"], "ok") << r.raw;
  EXPECT_EQ(r.json["checks"]["indexes"], "ok") << r.raw;
  EXPECT_EQ(r.json["checks"]["embedding"], "ok") << r.raw;  // the built-in embedder
}

TEST(ReadyTest, AnUnreachableEmbeddingProviderMakesTheServerNotReady) {
  TempDir dir;
  std::unique_ptr<SkaldProcess> server = StartWithConfig(dir, kDeadEmbedderConfig);
  ASSERT_NE(server, nullptr);
  std::unique_ptr<httplib::Client> client = server->NewClient();
  Reply r = GetFrom(*client, "/ready");
  ASSERT_EQ(r.status, 503) << r.raw;
  EXPECT_EQ(r.json["status"], "not_ready") << r.raw;
  EXPECT_EQ(r.json["checks"]["catalog"], "ok") << r.raw;
  const std::string embedding = r.json["checks"].value("embedding", "");
  EXPECT_EQ(embedding.rfind("error", 0), 0u) << r.raw;
  // The answer names no host or port of the provider (the log has them).
  EXPECT_EQ(r.raw.find("127.0.0.1"), std::string::npos) << r.raw;
  // The failed probe also shows in the models observer and debug health.
  Reply health = GetFrom(*client, "/api/v1/debug/health");
  ASSERT_EQ(health.status, 200) << health.raw;
  EXPECT_EQ(health.json["result"]["healthy"], false) << health.raw;
  Reply system = GetFrom(*client, "/api/v1/observer/system");
  EXPECT_EQ(system.json["result"]["is_healthy"], false) << system.raw;
  EXPECT_FALSE(system.json["result"]["errors"].empty()) << system.raw;
  client.reset();  // no idle keep-alive connection delays the shutdown
  EXPECT_EQ(server->Stop(SIGTERM), 0);
}

// ---- /metrics -------------------------------------------------------------------

TEST_F(SystemApiTest, MetricsCountARequestByRouteAndStatus) {
  const std::string ls_series =
      R"(skald_http_requests_total{method="GET",route="/api/v1/fs/ls",status="200"})";
  Reply before = Get("/metrics");
  ASSERT_EQ(before.status, 200) << before.raw;
  EXPECT_EQ(before.Header("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u)
      << before.Header("Content-Type");
  const double ls_before = std::max(0.0, Sample(before.raw, ls_series));

  ASSERT_EQ(Get("/api/v1/fs/ls?uri=" + Q("viking://resources")).status, 200);
  ASSERT_EQ(Get("/api/v1/fs/ls?uri=" + Q("viking://resources")).status, 200);
  ASSERT_EQ(Get("/api/v1/tasks/no-such-task").status, 404);
  ASSERT_EQ(Get("/no/such/route/secret-token").status, 404);

  Reply after = Get("/metrics");
  ASSERT_EQ(after.status, 200);
  EXPECT_EQ(Sample(after.raw, ls_series), ls_before + 2) << after.raw;
  EXPECT_EQ(Sample(after.raw,
                   R"(skald_http_request_duration_seconds_count{method="GET",route="/api/v1/fs/ls"})"),
            ls_before + 2);
  EXPECT_EQ(Sample(after.raw,
                   R"(skald_http_request_duration_seconds_bucket{method="GET",route="/api/v1/fs/ls",le="+Inf"})"),
            ls_before + 2);
  // Parameter routes are labelled by their template, unknown paths share one label.
  EXPECT_GE(Sample(after.raw,
                   R"(skald_http_requests_total{method="GET",route="/api/v1/tasks/{param}",status="404"})"),
            1);
  EXPECT_GE(Sample(after.raw,
                   R"(skald_http_requests_total{method="GET",route="unmatched",status="404"})"),
            1);
  EXPECT_EQ(after.raw.find("secret-token"), std::string::npos);
  for (const char* family : {"# TYPE skald_http_request_duration_seconds histogram",
                             "# TYPE skald_jobs gauge", "# TYPE skald_job_failures_total counter",
                             "# TYPE skald_index_records gauge", "# TYPE skald_index_bytes gauge",
                             "# TYPE skald_retrieval_requests_total counter"}) {
    EXPECT_NE(after.raw.find(family), std::string::npos) << family;
  }
}

TEST_F(SystemApiTest, MetricsReportIndexSizesQueueDepthAndRetrievals) {
  Create(Root() + "/a.md", "alpha beta gamma");
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  const double finds_before =
      std::max(0.0, Sample(Get("/metrics").raw, "skald_retrieval_requests_total"));
  ASSERT_EQ(PostJson("/api/v1/search/find", {{"query", "alpha"}}).status, 200);
  Reply m = Get("/metrics");
  ASSERT_EQ(m.status, 200);
  EXPECT_EQ(Sample(m.raw, "skald_retrieval_requests_total"), finds_before + 1) << m.raw;
  EXPECT_GE(Sample(m.raw, R"(skald_index_records{index="lexical"})"), 1) << m.raw;
  EXPECT_GE(Sample(m.raw, R"(skald_index_records{index="vector"})"), 1) << m.raw;
  EXPECT_GT(Sample(m.raw, R"(skald_index_bytes{index="lexical"})"), 0) << m.raw;
  EXPECT_EQ(Sample(m.raw, R"(skald_jobs{kind="content_write",state="pending"})"), 0) << m.raw;
  EXPECT_GE(Sample(m.raw, R"(skald_jobs_processed_total{kind="content_write"})"), 1) << m.raw;
  EXPECT_EQ(Sample(m.raw, R"(skald_job_failures_total{kind="content_write"})"), 0) << m.raw;
}

TEST(MetricsConfigTest, MetricsCanBeDisabled) {
  TempDir dir;
  std::unique_ptr<SkaldProcess> server =
      StartWithConfig(dir, R"({"server": {"observability": {"metrics": {"enabled": false}}}})");
  ASSERT_NE(server, nullptr);
  std::unique_ptr<httplib::Client> client = server->NewClient();
  httplib::Result r = client->Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, "Prometheus metrics are disabled.");
  client.reset();  // no idle keep-alive connection delays the shutdown
  EXPECT_EQ(server->Stop(SIGTERM), 0);
}

// ---- access log -------------------------------------------------------------------

TEST(AccessLogTest, OneLinePerRequestWithItsIdAndIdentity) {
  TempDir dir;
  const std::string log = dir.path() + "/skald.log";
  std::unique_ptr<SkaldProcess> server = StartWithConfig(
      dir, R"({"log": {"level": "INFO", "output": ")" + log + R"("}})");
  ASSERT_NE(server, nullptr);
  std::unique_ptr<httplib::Client> client = server->NewClient();
  Reply r = GetFrom(*client, "/api/v1/system/status?token=hunter2",
                    {{"X-Request-ID", "ops-test-req-1"}, {"X-OpenViking-User", "alice"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("X-Request-ID"), "ops-test-req-1");
  ASSERT_EQ(GetFrom(*client, "/no/such/route", {{"X-Request-ID", "ops-test-req-2"}}).status,
            404);
  client.reset();
  ASSERT_EQ(server->Stop(SIGTERM), 0);  // flushes the log

  const std::string text = ReadAll(log);
  std::string line;
  std::istringstream in(text);
  int status_lines = 0;
  bool saw_404 = false;
  while (std::getline(in, line)) {
    if (line.find("request_id=ops-test-req-1") != std::string::npos) {
      ++status_lines;
      EXPECT_NE(line.find("GET /api/v1/system/status 200 "), std::string::npos) << line;
      EXPECT_NE(line.find("account=default user=alice"), std::string::npos) << line;
      EXPECT_NE(line.find("ms "), std::string::npos) << line;
    }
    if (line.find("request_id=ops-test-req-2") != std::string::npos) {
      saw_404 = line.find("GET /no/such/route 404 ") != std::string::npos;
    }
  }
  EXPECT_EQ(status_lines, 1) << text;
  EXPECT_TRUE(saw_404) << text;
  // The query string (it may carry secrets) is not logged.
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
}

TEST(AccessLogTest, CanBeTurnedOff) {
  TempDir dir;
  const std::string log = dir.path() + "/skald.log";
  std::unique_ptr<SkaldProcess> server = StartWithConfig(
      dir, R"({"server": {"access_log": false}, "log": {"level": "INFO", "output": ")" + log +
               R"("}})");
  ASSERT_NE(server, nullptr);
  std::unique_ptr<httplib::Client> client = server->NewClient();
  ASSERT_EQ(GetFrom(*client, "/api/v1/system/status", {{"X-Request-ID", "ops-off-1"}}).status,
            200);
  client.reset();
  ASSERT_EQ(server->Stop(SIGTERM), 0);
  const std::string text = ReadAll(log);
  EXPECT_NE(text.find("config:"), std::string::npos) << "log not written: " << text;
  EXPECT_EQ(text.find("ops-off-1"), std::string::npos) << text;
}

}  // namespace
}  // namespace skald::apitest
