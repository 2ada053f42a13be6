// RemoteBackend against a loopback fake server that records each request:
// checks the exact requests OpenViking's CLI would send and the envelope
// handling.

#include "cli/remote_backend.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "cli/backend.h"

namespace skald::cli {
namespace {

struct Recorded {
  std::string method;
  std::string path;
  std::map<std::string, std::string> params;
  std::string body;
  std::map<std::string, std::string> headers;
};

// A loopback server answering every route with `reply_body` / `reply_status`.
class FakeServer {
 public:
  FakeServer() {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      Recorded r;
      r.method = req.method;
      r.path = req.path;
      for (const auto& [k, v] : req.params) r.params[k] = v;
      r.body = req.body;
      for (const char* h : {"X-API-Key", "X-OpenViking-Account", "X-OpenViking-User"}) {
        if (req.has_header(h)) r.headers[h] = req.get_header_value(h);
      }
      last_ = r;
      res.status = reply_status_;
      res.set_content(reply_body_, reply_type_);
    };
    server_.Get(".*", handler);
    server_.Post(".*", handler);
    server_.Delete(".*", handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeServer() {
    server_.stop();
    thread_.join();
  }

  void Reply(int status, std::string body, std::string type = "application/json") {
    std::lock_guard<std::mutex> lock(mu_);
    reply_status_ = status;
    reply_body_ = std::move(body);
    reply_type_ = std::move(type);
  }
  Recorded last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  Recorded last_;
  int reply_status_ = 200;
  std::string reply_body_ = R"({"status":"ok","result":null,"error":null})";
  std::string reply_type_ = "application/json";
};

std::unique_ptr<Backend> Connect(const std::string& url) {
  RemoteOptions options;
  options.url = url;
  options.api_key = "k1";
  options.account = "acme";
  options.user = "alice";
  options.timeout_seconds = 5;
  auto backend = MakeRemoteBackend(options);
  EXPECT_TRUE(backend.ok()) << backend.status().ToString();
  return std::move(backend).value();
}

TEST(RemoteBackendTest, LsSendsTheOvCliQueryAndIdentityHeaders) {
  FakeServer server;
  server.Reply(200, R"({"status":"ok","result":[{"uri":"viking://resources/a b"}],"error":null})");
  auto backend = Connect(server.url());
  LsArgs args;
  args.uri = "viking://resources/a b/ü";
  args.options.node_limit = 256;
  Result<Json> result = backend->Ls(args);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ((*result)[0]["uri"], "viking://resources/a b");
  Recorded r = server.last();
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/api/v1/fs/ls");
  std::map<std::string, std::string> want{{"uri", "viking://resources/a b/ü"},
                                          {"simple", "false"},
                                          {"recursive", "false"},
                                          {"output", "agent"},
                                          {"abs_limit", "256"},
                                          {"show_all_hidden", "false"},
                                          {"node_limit", "256"}};
  EXPECT_EQ(r.params, want);
  std::map<std::string, std::string> headers{
      {"X-API-Key", "k1"}, {"X-OpenViking-Account", "acme"}, {"X-OpenViking-User", "alice"}};
  EXPECT_EQ(r.headers, headers);
}

TEST(RemoteBackendTest, TreeRmReadSendTheirParameters) {
  FakeServer server;
  auto backend = Connect(server.url());
  LsArgs tree;
  tree.uri = "viking://resources";
  tree.options.level_limit = 2;
  ASSERT_TRUE(backend->Tree(tree).ok());
  EXPECT_EQ(server.last().path, "/api/v1/fs/tree");
  EXPECT_EQ(server.last().params.at("level_limit"), "2");
  EXPECT_EQ(server.last().params.count("recursive"), 0u);

  ASSERT_TRUE(backend->Rm("viking://resources/x", true).ok());
  EXPECT_EQ(server.last().method, "DELETE");
  EXPECT_EQ(server.last().path, "/api/v1/fs");
  EXPECT_EQ(server.last().params.at("recursive"), "true");

  ReadArgs read;
  read.uri = "viking://resources/x.md";
  ASSERT_TRUE(backend->Read(read).ok());
  EXPECT_EQ(server.last().params.size(), 1u);  // defaults are not sent
  read.offset = 2;
  read.limit = 3;
  ASSERT_TRUE(backend->Read(read).ok());
  EXPECT_EQ(server.last().params.at("offset"), "2");
  EXPECT_EQ(server.last().params.at("limit"), "3");
}

TEST(RemoteBackendTest, PostBodiesMatchTheWireFormat) {
  FakeServer server;
  auto backend = Connect(server.url());

  WriteRequest write;
  write.uri = "viking://resources/a.md";
  write.content = "hello\n";
  write.mode = WriteMode::kAppend;
  ASSERT_TRUE(backend->Write(write).ok());
  EXPECT_EQ(server.last().path, "/api/v1/content/write");
  EXPECT_EQ(Json::parse(server.last().body),
            Json({{"uri", "viking://resources/a.md"}, {"content", "hello\n"}, {"mode", "append"}}));

  ASSERT_TRUE(backend->Mv("viking://resources/a", "viking://resources/b").ok());
  EXPECT_EQ(Json::parse(server.last().body),
            Json({{"from_uri", "viking://resources/a"}, {"to_uri", "viking://resources/b"}}));

  ASSERT_TRUE(backend->Mkdir("viking://resources/d", "").ok());
  EXPECT_EQ(Json::parse(server.last().body), Json({{"uri", "viking://resources/d"}}));

  GrepRequest grep;
  grep.uri = "viking://resources";
  grep.pattern = "a+";
  ASSERT_TRUE(backend->Grep(grep).ok());
  EXPECT_EQ(server.last().path, "/api/v1/search/grep");
  EXPECT_EQ(Json::parse(server.last().body), Json({{"uri", "viking://resources"},
                                                   {"pattern", "a+"},
                                                   {"case_insensitive", false},
                                                   {"node_limit", 256},
                                                   {"level_limit", 10}}));

  GlobRequest glob;
  glob.pattern = "**/*.md";
  ASSERT_TRUE(backend->Glob(glob).ok());
  EXPECT_EQ(Json::parse(server.last().body),
            Json({{"pattern", "**/*.md"}, {"uri", "viking://"}, {"node_limit", 256}}));
  // `--tag` filters go out as `tags`.
  glob.tags = {"team=search"};
  ASSERT_TRUE(backend->Glob(glob).ok());
  EXPECT_EQ(Json::parse(server.last().body)["tags"], Json({"team=search"}));
  grep.tags = {"team=search", "lang=en"};
  ASSERT_TRUE(backend->Grep(grep).ok());
  EXPECT_EQ(Json::parse(server.last().body)["tags"], Json({"team=search", "lang=en"}));
}

TEST(RemoteBackendTest, FindAndTasksSendTheWireRequests) {
  FakeServer server;
  auto backend = Connect(server.url());
  FindArgs find;
  find.request.query = "fog";
  ASSERT_TRUE(backend->Find(find).ok());
  EXPECT_EQ(server.last().path, "/api/v1/search/find");
  EXPECT_EQ(Json::parse(server.last().body), Json({{"query", "fog"}, {"limit", 10}}));

  find.search = true;
  find.request.target_uris = {"viking://resources/a"};
  find.request.context_types = {"resource"};
  find.request.levels = {0, 2};
  find.request.tags = {"k=v"};
  find.request.score_threshold = 0.25;
  find.request.include_provenance = true;
  find.since = "2h";
  find.until = "2026-01-31";
  ASSERT_TRUE(backend->Find(find).ok());
  EXPECT_EQ(server.last().path, "/api/v1/search/search");
  EXPECT_EQ(Json::parse(server.last().body), Json({{"query", "fog"},
                                                   {"limit", 10},
                                                   {"target_uri", {"viking://resources/a"}},
                                                   {"context_type", {"resource"}},
                                                   {"level", {0, 2}},
                                                   {"tags", {"k=v"}},
                                                   {"score_threshold", 0.25},
                                                   {"include_provenance", true},
                                                   {"since", "2h"},
                                                   {"until", "2026-01-31"}}));

  ASSERT_TRUE(backend->GetTask("a b").ok());
  EXPECT_EQ(server.last().method, "GET");
  EXPECT_EQ(server.last().path, "/api/v1/tasks/a b");
  TaskFilter filter;
  filter.status = TaskState::kRunning;
  filter.limit = 7;
  ASSERT_TRUE(backend->ListTasks(filter).ok());
  EXPECT_EQ(server.last().path, "/api/v1/tasks");
  std::map<std::string, std::string> want{{"limit", "7"}, {"status", "running"}};
  EXPECT_EQ(server.last().params, want);
}

TEST(RemoteBackendTest, AddResourceUploadsTheFileThenSendsItsTempId) {
  FakeServer server;
  server.Reply(200, R"({"status":"ok","result":{"temp_file_id":"upload_1.md","task_id":"t1"}})");
  auto backend = Connect(server.url());
  const std::string path = ::testing::TempDir() + "/remote_backend_test_doc.md";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("# Doc\n", f);
    std::fclose(f);
  }
  AddResourceRequest request;
  request.path = path;
  request.parent = "viking://resources/p";
  request.include = {"*.md", "*.txt"};
  request.tags = {"k=v"};
  request.wait = true;  // ignored: the command follows the task itself
  Result<Json> added = backend->AddResource(request);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(server.last().path, "/api/v1/resources");
  EXPECT_EQ(Json::parse(server.last().body), Json({{"temp_file_id", "upload_1.md"},
                                                   {"parent", "viking://resources/p"},
                                                   {"reason", ""},
                                                   {"instruction", ""},
                                                   {"include", "*.md,*.txt"},
                                                   {"tags", {"k=v"}},
                                                   {"wait", false}}));
  std::remove(path.c_str());

  // A directory goes up as one zip (see tests/cli for a real one); an
  // empty one has nothing to upload. A URL goes to the server as `path`.
  request.path = ::testing::TempDir() + "/remote_backend_test_empty_dir";
  std::filesystem::create_directories(request.path);
  Result<Json> dir = backend->AddResource(request);
  std::filesystem::remove(request.path);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().reason(), kUsageErrorReason);
  request.path = "https://example.com/a.md";
  ASSERT_TRUE(backend->AddResource(request).ok());
  EXPECT_EQ(Json::parse(server.last().body)["path"], "https://example.com/a.md");
}

TEST(RemoteBackendTest, ErrorEnvelopeBecomesStatusWithWireCode) {
  FakeServer server;
  server.Reply(
      404,
      R"({"status":"error","error":{"code":"NOT_FOUND","message":"File not found: )"
      R"(viking://resources/x","details":{"type":"file","resource":"viking://resources/x"}}})");
  auto backend = Connect(server.url());
  Result<Json> result = backend->Stat("viking://resources/x");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(result.status().reason(), "NOT_FOUND");
  EXPECT_EQ(result.status().message(), "File not found: viking://resources/x");
  std::map<std::string, std::string> details(result.status().details().begin(),
                                             result.status().details().end());
  std::map<std::string, std::string> want{{"type", "file"}, {"resource", "viking://resources/x"}};
  EXPECT_EQ(details, want);
}

TEST(RemoteBackendTest, DownloadReturnsRawBytesOrTheEnvelopeError) {
  FakeServer server;
  std::string bytes("a\0b\xff", 4);
  server.Reply(200, bytes, "application/octet-stream");
  auto backend = Connect(server.url());
  Result<std::string> got = backend->Download("viking://resources/a.bin");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, bytes);
  EXPECT_EQ(server.last().path, "/api/v1/content/download");

  server.Reply(404, R"({"status":"error","error":{"code":"NOT_FOUND","message":"gone"}})");
  got = backend->Download("viking://resources/a.bin");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().reason(), "NOT_FOUND");
}

TEST(RemoteBackendTest, BasePathPrefixesEveryRoute) {
  FakeServer server;
  auto backend = Connect(server.url() + "/prefix/");
  ASSERT_TRUE(backend->Stat("viking://resources").ok());
  EXPECT_EQ(server.last().path, "/prefix/api/v1/fs/stat");
}

TEST(RemoteBackendTest, UnreachableServerIsAConnectionErrorNamingTheUrl) {
  auto backend = Connect("http://127.0.0.1:1");
  Result<Json> result = backend->Stat("viking://resources");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().reason(), kConnectionErrorReason);
  EXPECT_NE(result.status().message().find("http://127.0.0.1:1"), std::string::npos);
}

TEST(RemoteBackendTest, FsckIsAUsageError) {
  auto backend = Connect("http://127.0.0.1:1");
  Result<Json> result = backend->Fsck(false);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().reason(), kUsageErrorReason);
}

TEST(RemoteBackendTest, NonEnvelopeBodyIsInternalWithStatusAndUrl) {
  Result<Json> r = UnwrapEnvelope(502, "<html>bad gateway</html>", "http://h:1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_NE(r.status().message().find("HTTP 502"), std::string::npos);
  EXPECT_NE(r.status().message().find("http://h:1"), std::string::npos);

  Result<Json> ok = UnwrapEnvelope(200, R"({"status":"ok","result":"text"})", "u");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, "text");
  // An "ok" status with a non-null error is a failure (reference §3.1).
  Result<Json> mixed = UnwrapEnvelope(
      200, R"({"status":"ok","result":1,"error":{"code":"CONFLICT","message":"m"}})", "u");
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().code(), StatusCode::kConflict);
}

TEST(RemoteBackendTest, ParseServerUrl) {
  auto plain = ParseServerUrl("http://127.0.0.1:1933");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->scheme_host_port, "http://127.0.0.1:1933");
  EXPECT_EQ(plain->base_path, "");
  EXPECT_EQ(plain->host, "127.0.0.1");
  auto prefixed = ParseServerUrl("https://example.com/ov/");
  ASSERT_TRUE(prefixed.ok());
  EXPECT_EQ(prefixed->scheme_host_port, "https://example.com");
  EXPECT_EQ(prefixed->base_path, "/ov");
  EXPECT_EQ(prefixed->host, "example.com");
  auto v6 = ParseServerUrl("http://[::1]:1933/");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->scheme_host_port, "http://[::1]:1933");
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(ParseServerUrl("http://[::1]")->host, "::1");
  EXPECT_EQ(ParseServerUrl("http://localhost:8080/x")->host, "localhost");
  EXPECT_TRUE(ParseServerUrl("https://h:65535").ok());
  for (const char* bad : {"127.0.0.1:1933", "ftp://x", "http://", "http://:80", "http://h/?q=1",
                          "http://[bad", "http://[]:80", "http://[::1]x", "http://h:", "http://h:0",
                          "http://h:65536", "http://h:80a", "http://h:123456", "http://::1:80"}) {
    auto r = ParseServerUrl(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().reason(), kUsageErrorReason) << bad;
  }
}

TEST(RemoteBackendTest, PercentEncodingKeepsOnlyUnreserved) {
  EXPECT_EQ(PercentEncode("viking://a b/ü~-._"), "viking%3A%2F%2Fa%20b%2F%C3%BC~-._");
  EXPECT_EQ(BuildQuery({{"uri", "a&b=c"}, {"n", "1"}}), "uri=a%26b%3Dc&n=1");
}

}  // namespace
}  // namespace skald::cli
