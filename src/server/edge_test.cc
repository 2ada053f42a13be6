// EdgeGate's decisions on request heads, and WorkerPool's growth and
// retirement, without sockets.

#include "server/edge.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "server/worker_pool.h"

namespace skald::server {
namespace {

httplib::Request Head(const std::string& method, const std::string& path,
                      const httplib::Headers& headers) {
  httplib::Request req;
  req.method = method;
  req.path = path;
  req.headers = headers;
  return req;
}

class EdgeGateTest : public ::testing::Test {
 protected:
  EdgeGate::Verdict Check(const httplib::Request& req) { return gate_.Check(req, &refusal_); }

  EdgeGate gate_{[] {
    EdgeOptions options;
    options.max_body_bytes = 1000;
    options.cors_origins = {"https://app.example.com"};
    return options;
  }()};
  EdgeRefusal refusal_;
  void SetUp() override { gate_.set_port(1933); }
};

TEST(EdgeHelpersTest, JsonContentTypes) {
  EXPECT_TRUE(IsJsonContentType("application/json"));
  EXPECT_TRUE(IsJsonContentType("Application/JSON ; charset=utf-8"));
  EXPECT_TRUE(IsJsonContentType("application/merge-patch+json"));
  EXPECT_FALSE(IsJsonContentType("text/plain"));
  EXPECT_FALSE(IsJsonContentType("text/json"));
  EXPECT_FALSE(IsJsonContentType("application/jsonp"));
  EXPECT_FALSE(IsJsonContentType("application/+json"));
  EXPECT_FALSE(IsJsonContentType(""));
}

TEST(EdgeHelpersTest, SplitsHostAndPort) {
  std::string host;
  int port = 0;
  ASSERT_TRUE(SplitHostPort("LocalHost:8080", &host, &port));
  EXPECT_EQ(host, "localhost");
  EXPECT_EQ(port, 8080);
  ASSERT_TRUE(SplitHostPort("[::1]:1933", &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 1933);
  ASSERT_TRUE(SplitHostPort("example.com", &host, &port));
  EXPECT_EQ(port, -1);
  EXPECT_FALSE(SplitHostPort("host:99999", &host, &port));
  EXPECT_FALSE(SplitHostPort("host:12ab", &host, &port));
  EXPECT_FALSE(SplitHostPort("[::1", &host, &port));
  EXPECT_FALSE(SplitHostPort(":80", &host, &port));
}

TEST_F(EdgeGateTest, HostMustBeALoopbackName) {
  EXPECT_EQ(Check(Head("GET", "/health", {{"Host", "127.0.0.1:1933"}})), EdgeGate::Verdict::kPass);
  EXPECT_EQ(Check(Head("GET", "/health", {{"Host", "[::1]:1933"}})), EdgeGate::Verdict::kPass);
  EXPECT_EQ(Check(Head("GET", "/health", {{"Host", "evil.example:1933"}})),
            EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(refusal_.status, 403);
  EXPECT_EQ(refusal_.code, "PERMISSION_DENIED");
  EXPECT_EQ(Check(Head("GET", "/health", {{"Host", "evil.example"}})), EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(Check(Head("GET", "/health", {{"Host", "127.0.0.1.evil.example:1933"}})),
            EdgeGate::Verdict::kRefuse);
  // Through an SSH tunnel or a local proxy the port is theirs.
  EXPECT_EQ(Check(Head("GET", "/health", {{"Host", "localhost"}})), EdgeGate::Verdict::kPass);
  EXPECT_EQ(Check(Head("GET", "/health", {{"Host", "localhost:8080"}})), EdgeGate::Verdict::kPass);

  EdgeOptions open;
  open.check_host = false;
  EdgeGate authenticated(open);
  EXPECT_EQ(authenticated.Check(Head("GET", "/health", {{"Host", "api.example.com"}}), &refusal_),
            EdgeGate::Verdict::kPass);
}

TEST_F(EdgeGateTest, OriginsSameListedOrRefused) {
  const httplib::Headers host = {{"Host", "localhost:1933"}};
  auto with_origin = [&](const std::string& origin) {
    httplib::Headers h = host;
    h.emplace("Origin", origin);
    return Head("GET", "/api/v1/fs/ls", h);
  };
  EXPECT_EQ(Check(with_origin("http://localhost:1933")), EdgeGate::Verdict::kPass);
  EXPECT_EQ(Check(with_origin("https://app.example.com")), EdgeGate::Verdict::kPass);
  EXPECT_EQ(Check(with_origin("https://APP.example.com/")), EdgeGate::Verdict::kPass);
  EXPECT_EQ(Check(with_origin("http://app.example.com")), EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(Check(with_origin("http://localhost:1934")), EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(Check(with_origin("null")), EdgeGate::Verdict::kRefuse);

  httplib::Request preflight = with_origin("https://app.example.com");
  preflight.method = "OPTIONS";
  preflight.headers.emplace("Access-Control-Request-Method", "POST");
  EXPECT_EQ(Check(preflight), EdgeGate::Verdict::kPreflight);

  httplib::Response res;
  gate_.AddCorsHeaders(with_origin("https://app.example.com"), res);
  EXPECT_EQ(res.get_header_value("Access-Control-Allow-Origin"), "https://app.example.com");
  httplib::Response same;
  gate_.AddCorsHeaders(with_origin("http://localhost:1933"), same);
  EXPECT_FALSE(same.has_header("Access-Control-Allow-Origin"));

  EdgeOptions any;
  any.cors_origins = {"*"};
  EdgeGate star(any);
  star.set_port(1933);
  EXPECT_EQ(star.Check(with_origin("https://anything.example"), &refusal_),
            EdgeGate::Verdict::kPass);
}

TEST_F(EdgeGateTest, BodiesNeedJsonIdentityAndAnAcceptableSize) {
  const std::string h = "127.0.0.1:1933";
  EXPECT_EQ(Check(Head("POST", "/api/v1/fs/mkdir",
                       {{"Host", h}, {"Content-Length", "10"}, {"Content-Type", "text/plain"}})),
            EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(refusal_.status, 400);
  EXPECT_EQ(refusal_.code, "INVALID_ARGUMENT");
  EXPECT_EQ(
      Check(Head("POST", "/api/v1/fs/mkdir", {{"Host", h}, {"Transfer-Encoding", "chunked"}})),
      EdgeGate::Verdict::kPass);  // a body without a type is read as JSON
  EXPECT_EQ(Check(Head("POST", "/api/v1/fs/mkdir",
                       {{"Host", h},
                        {"Content-Length", "10"},
                        {"Content-Type", "application/json"},
                        {"Content-Type", "text/plain"}})),
            EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(Check(Head("POST", "/api/v1/fs/mkdir", {{"Host", h}, {"Content-Length", "0"}})),
            EdgeGate::Verdict::kPass);
  EXPECT_EQ(Check(Head("POST", "/api/v1/resources/temp_upload",
                       {{"Host", h},
                        {"Content-Length", "10"},
                        {"Content-Type", "multipart/form-data; boundary=x"}})),
            EdgeGate::Verdict::kPass);
  EXPECT_EQ(
      Check(Head("POST", "/api/v1/fs/mkdir",
                 {{"Host", h}, {"Content-Length", "1001"}, {"Content-Type", "application/json"}})),
      EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(refusal_.status, 413);
  EXPECT_EQ(Check(Head("POST", "/api/v1/fs/mkdir",
                       {{"Host", h},
                        {"Content-Length", "10"},
                        {"Content-Type", "application/json"},
                        {"Content-Encoding", "gzip"}})),
            EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(refusal_.status, 415);
  EXPECT_EQ(Check(Head("POST", "/api/v1/fs/mkdir",
                       {{"Host", h},
                        {"Content-Type", "application/json"},
                        {"Transfer-Encoding", "gzip, chunked"}})),
            EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(
      Check(Head("POST", "/api/v1/fs/mkdir",
                 {{"Host", h}, {"Content-Length", "-1"}, {"Content-Type", "application/json"}})),
      EdgeGate::Verdict::kRefuse);
  EXPECT_EQ(refusal_.status, 400);
}

// Blocks tasks until released.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> running{0};
  void Wait() {
    ++running;
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return open; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cv.notify_all();
  }
};

template <typename Pred>
bool Eventually(Pred pred) {
  for (int i = 0; i < 1000 && !pred(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

TEST(WorkerPoolTest, GrowsToTheLimitThenQueuesAndRetiresIdleThreads) {
  WorkerPoolOptions options;
  options.min_threads = 2;
  options.max_threads = 16;
  options.idle_exit = std::chrono::milliseconds(50);
  WorkerPool pool(options);
  EXPECT_EQ(pool.thread_count(), 2u);

  Gate gate;
  std::atomic<int> done{0};
  for (int i = 0; i < 20; ++i) {
    pool.enqueue([&] {
      gate.Wait();
      ++done;
    });
  }
  // Every task below the limit runs at once (each holds its thread, like a
  // connection); the rest wait for a thread.
  ASSERT_TRUE(Eventually([&] { return gate.running == 16; }));
  EXPECT_EQ(pool.thread_count(), 16u);
  gate.Open();
  ASSERT_TRUE(Eventually([&] { return done == 20; }));
  // Idle threads above the minimum exit.
  EXPECT_TRUE(Eventually([&] { return pool.thread_count() == 2u; })) << pool.thread_count();

  // After retiring, the pool grows again on demand; shutdown runs what is queued.
  for (int i = 0; i < 8; ++i) pool.enqueue([&] { ++done; });
  pool.shutdown();
  EXPECT_EQ(done, 28);
  EXPECT_EQ(pool.thread_count(), 0u);
}

}  // namespace
}  // namespace skald::server
