// Metrics: the Prometheus text (counters, cumulative histogram buckets,
// label escaping, bounded label sets) and the access log line.

#include "server/metrics.h"

#include <gtest/gtest.h>

namespace skald::server {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(MetricsTest, CountsRequestsAndCumulatesLatencyBuckets) {
  Metrics metrics(/*access_log=*/false);
  metrics.Observe({"GET", "/api/v1/fs/ls", "/api/v1/fs/ls", "id1", 200, 0.003, nullptr});
  metrics.Observe({"GET", "/api/v1/fs/ls", "/api/v1/fs/ls", "id2", 200, 0.2, nullptr});
  metrics.Observe({"GET", "/api/v1/fs/ls", "/api/v1/fs/ls", "id3", 404, 20.0, nullptr});
  const std::string text = metrics.Render(DbStats{});
  EXPECT_TRUE(Has(text,
                  R"(skald_http_requests_total{method="GET",route="/api/v1/fs/ls",status="200"} 2)"))
      << text;
  EXPECT_TRUE(Has(text,
                  R"(skald_http_requests_total{method="GET",route="/api/v1/fs/ls",status="404"} 1)"));
  const std::string b = R"(skald_http_request_duration_seconds_bucket{method="GET",route="/api/v1/fs/ls",le=)";
  EXPECT_TRUE(Has(text, b + R"("0.001"} 0)"));
  EXPECT_TRUE(Has(text, b + R"("0.005"} 1)"));
  EXPECT_TRUE(Has(text, b + R"("0.25"} 2)"));
  EXPECT_TRUE(Has(text, b + R"("10"} 2)"));
  EXPECT_TRUE(Has(text, b + R"("+Inf"} 3)"));
  EXPECT_TRUE(Has(text,
                  R"(skald_http_request_duration_seconds_count{method="GET",route="/api/v1/fs/ls"} 3)"));
}

TEST(MetricsTest, UnknownRoutesAndMethodsShareOneLabel) {
  Metrics metrics(false);
  metrics.Observe({"GET", "/wp-admin/x", "", "a", 404, 0.001, nullptr});
  metrics.Observe({"GET", "/etc/passwd", "", "b", 404, 0.001, nullptr});
  metrics.Observe({"BREW", "/coffee", "", "c", 400, 0.001, nullptr});
  const std::string text = metrics.Render(DbStats{});
  EXPECT_TRUE(Has(text, R"(skald_http_requests_total{method="GET",route="unmatched",status="404"} 2)"))
      << text;
  EXPECT_TRUE(Has(text, R"(skald_http_requests_total{method="OTHER",route="unmatched",status="400"} 1)"));
  EXPECT_EQ(text.find("wp-admin"), std::string::npos);
  EXPECT_EQ(text.find("BREW"), std::string::npos);
}

TEST(MetricsTest, RendersDbFiguresWithEscapedLabels) {
  Metrics metrics(false);
  DbStats stats;
  JobKindStats index;
  index.kind = "in\"dex";
  index.pending = 3;
  index.errors = 2;
  stats.jobs.push_back(index);
  IndexSizeStats lexical;
  lexical.name = "lexical";
  lexical.records = 42;
  lexical.bytes = 4096;
  stats.indexes.push_back(lexical);
  stats.retrieval.finds = 7;
  const std::string text = metrics.Render(stats);
  EXPECT_TRUE(Has(text, R"(skald_jobs{kind="in\"dex",state="pending"} 3)")) << text;
  EXPECT_TRUE(Has(text, R"(skald_job_failures_total{kind="in\"dex"} 2)"));
  EXPECT_TRUE(Has(text, R"(skald_index_records{index="lexical"} 42)"));
  EXPECT_TRUE(Has(text, R"(skald_index_bytes{index="lexical"} 4096)"));
  EXPECT_TRUE(Has(text, "skald_retrieval_requests_total 7"));
  EXPECT_TRUE(Has(text, "# TYPE skald_http_request_duration_seconds histogram"));
}

TEST(MetricsTest, AccessLogLineNamesTheRequestAndEscapesControlBytes) {
  Identity who{"acme", "alice", Role::kUser};
  const std::string line =
      AccessLogLine({"GET", "/api/v1/fs/ls\n[fake] entry", "", "req-1", 200, 0.0125, &who});
  EXPECT_EQ(line, "GET /api/v1/fs/ls\\x0a[fake] entry 200 12.50ms request_id=req-1 account=acme "
                  "user=alice");
  const std::string anonymous =
      AccessLogLine({"POST", "/x", "", "req-2", 401, 0.001, nullptr});
  EXPECT_EQ(anonymous, "POST /x 401 1.00ms request_id=req-2");
  const std::string long_path(2000, 'a');
  EXPECT_LT(AccessLogLine({"GET", long_path, "", "r", 404, 0, nullptr}).size(), 600u);
}

}  // namespace
}  // namespace skald::server
