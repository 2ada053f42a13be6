// Cross-cutting server behaviour: /health, request ids and timing headers,
// framework errors (404/405), hostile input, restarts, concurrency and the
// `skald serve` startup contract.

#include <atomic>
#include <fstream>
#include <regex>
#include <thread>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

const std::regex kUuid4(R"([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})");

void ExpectTracingHeaders(const Reply& r) {
  EXPECT_TRUE(std::regex_match(r.Header("X-Request-ID"), kUuid4))
      << "X-Request-ID='" << r.Header("X-Request-ID") << "' status=" << r.status;
  const std::string t = r.Header("X-Process-Time");
  ASSERT_FALSE(t.empty()) << "status=" << r.status;
  EXPECT_GE(std::stod(t), 0.0);
}

class ServerApiTest : public ApiTest {};

TEST_F(ServerApiTest, HealthIsNotEnveloped) {
  Reply r = Get("/health");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.json, Json({{"status", "ok"}, {"healthy", true}, {"version", "0.1.0"},
                          {"auth_mode", "dev"}}));
  EXPECT_NE(r.raw.find("\"healthy\":true"), std::string::npos);  // what CI scripts grep for
  EXPECT_EQ(r.Header("Content-Type"), "application/json");

  Reply with_identity = Get("/health", {{"X-OpenViking-Account", "acme"}});
  EXPECT_EQ(with_identity.json["account_id"], "acme");
  EXPECT_EQ(with_identity.json["user_id"], "default");
  EXPECT_EQ(with_identity.json["role"], "root");
}

TEST_F(ServerApiTest, ServeAnnouncesTheRealPortOnce) {
  EXPECT_GT(server_->port(), 0);
  EXPECT_EQ(server_->listening_line(),
            "skald: listening on http://127.0.0.1:" + std::to_string(server_->port()) +
                " (workspace " + workspace_->path() + ")");
}

TEST_F(ServerApiTest, EveryResponseCarriesRequestIdAndProcessTime) {
  ExpectTracingHeaders(Get("/health"));
  ExpectTracingHeaders(Get("/api/v1/fs/ls?uri=" + Q("viking://resources")));
  ExpectTracingHeaders(Get("/no/such/route"));
  ExpectTracingHeaders(Put("/api/v1/fs/ls", ""));
  ExpectTracingHeaders(Get("/api/v1/fs/ls?node_limit=abc&uri=x"));
  ExpectTracingHeaders(Get("/api/v1/fs/stat?uri=" + Q("viking://resources/none")));
  ExpectTracingHeaders(Post("/api/v1/fs/mkdir", "{not json"));
}

TEST_F(ServerApiTest, RequestIdIsEchoedOrRejected) {
  Reply echoed = Get("/health", {{"X-Request-ID", "trace.42:abc-DEF_9"}});
  EXPECT_EQ(echoed.status, 200);
  EXPECT_EQ(echoed.Header("X-Request-ID"), "trace.42:abc-DEF_9");

  const Json expected = {{"status", "error"},
                         {"error",
                          {{"code", "INVALID_ARGUMENT"},
                           {"message",
                            "X-Request-ID must be supplied once and contain 1-128 characters "
                            "from [A-Za-z0-9._:-]"}}}};
  for (const httplib::Headers& headers :
       {httplib::Headers{{"X-Request-ID", "has space"}},
        httplib::Headers{{"X-Request-ID", std::string(129, 'a')}},
        httplib::Headers{{"X-Request-ID", "a"}, {"X-Request-ID", "b"}}}) {
    Reply r = Get("/api/v1/fs/ls?uri=" + Q("viking://resources"), headers);
    EXPECT_EQ(r.status, 400) << r.raw;
    EXPECT_EQ(r.json, expected);
    ExpectTracingHeaders(r);  // a fresh id replaces the bad one
  }
}

TEST_F(ServerApiTest, UnknownRoutesAndMethods) {
  Reply missing = Get("/api/v1/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.json, Json({{"status", "error"},
                                {"error", {{"code", "NOT_FOUND"}, {"message", "Not Found"}}}}));

  Reply method = Put("/api/v1/fs/ls", "");
  EXPECT_EQ(method.status, 405) << method.raw;
  EXPECT_EQ(method.Code(), "UNKNOWN");
  EXPECT_EQ(method.Header("Allow"), "GET");
  Reply delete_on_post = Delete("/api/v1/content/write");
  EXPECT_EQ(delete_on_post.status, 405) << delete_on_post.raw;

  // An OpenViking route Skald does not build: 501, which OpenViking's
  // clients raise as "unimplemented" rather than as a missing resource.
  Reply stats = Get("/api/v1/stats/sessions/s1");
  EXPECT_EQ(stats.status, 501) << stats.raw;
  EXPECT_EQ(stats.Code(), "UNIMPLEMENTED") << stats.raw;
  // OpenViking's MCP endpoint (its agent plugins' memory tools) likewise.
  Reply mcp = Post("/mcp", "{}");
  EXPECT_EQ(mcp.status, 501) << mcp.raw;
  Reply acl = Post("/api/v1/acl/grant", "{}");
  EXPECT_EQ(acl.status, 501) << acl.raw;
  // Skald keeps no watches: changing or triggering one is a 404, as for an
  // unknown watch in OpenViking.
  Reply watch_change = ToReply(
      client_->Patch("/api/v1/watches/t1", Json{{"is_active", false}}.dump(), "application/json"));
  EXPECT_EQ(watch_change.status, 404) << watch_change.raw;
  EXPECT_EQ(Delete("/api/v1/watches/t1").status, 404);
  EXPECT_EQ(Post("/api/v1/watches/t1/trigger", "").status, 404);
  EXPECT_EQ(Post("/api/v1/watches/trigger?to_uri=" + Q("viking://resources/x"), "").status, 404);
  EXPECT_EQ(Delete("/api/v1/watches").status, 400) << "to_uri is required";
  EXPECT_EQ(Get("/api/v1/watches").status, 200);
}

TEST_F(ServerApiTest, MalformedJsonAndWrongBodyTypes) {
  Reply malformed = Post("/api/v1/fs/mkdir", "{\"uri\": \"viking://resources/x\"");
  ASSERT_EQ(malformed.status, 400) << malformed.raw;
  EXPECT_EQ(malformed.Code(), "INVALID_ARGUMENT");
  EXPECT_EQ(malformed.json["error"]["details"]["validation_errors"][0]["type"], "json_invalid");
  ExpectHealthy();

  Reply array = Post("/api/v1/content/write", "[1, 2, 3]");
  EXPECT_EQ(array.status, 400) << array.raw;
  Reply empty = Post("/api/v1/search/glob", "");
  EXPECT_EQ(empty.status, 400) << empty.raw;
  std::string deep = "{\"uri\":" + std::string(50000, '[') + std::string(50000, ']') + "}";
  EXPECT_EQ(Post("/api/v1/fs/mkdir", deep).status, 400);
  ExpectHealthy();
}

TEST_F(ServerApiTest, InvalidUtf8IsRejected) {
  Reply body = Post("/api/v1/content/write",
                    "{\"uri\":\"viking://resources/u.md\",\"content\":\"\xC3\x28\"}");
  EXPECT_EQ(body.status, 400) << body.raw;
  EXPECT_EQ(body.Code(), "INVALID_ARGUMENT");
  Reply query = Get("/api/v1/fs/stat?uri=viking%3A%2F%2Fresources%2F%FF%FE");
  EXPECT_EQ(query.status, 400) << query.raw;
  EXPECT_EQ(query.Code(), "INVALID_ARGUMENT");
  ExpectHealthy();
}

TEST_F(ServerApiTest, HostileUris) {
  Reply scheme = Get("/api/v1/fs/stat?uri=" + Q("http://invalid-scheme/resources/test"));
  EXPECT_EQ(scheme.status, 400) << scheme.raw;
  Reply traversal = Get("/api/v1/fs/stat?uri=" + Q("viking://resources/../../../etc/passwd"));
  EXPECT_EQ(traversal.status, 403) << traversal.raw;
  EXPECT_EQ(traversal.Code(), "PERMISSION_DENIED");
  Reply write_traversal = PostJson("/api/v1/content/write",
                                   {{"uri", "viking://resources/../../x.md"}, {"content", "x"}});
  EXPECT_EQ(write_traversal.status, 403) << write_traversal.raw;
  Reply empty = Get("/api/v1/fs/stat?uri=");
  EXPECT_EQ(empty.status, 400) << empty.raw;
  Reply internal = Get("/api/v1/fs/ls?uri=" + Q("viking://temp/x"));
  EXPECT_EQ(internal.status, 400) << internal.raw;
  ExpectHealthy();
}

TEST_F(ServerApiTest, OverLongSegmentsAndUris) {
  // Segments longer than a file name may be are stored under a shortened
  // name; the URI still round-trips.
  const std::string long_name = std::string(300, 'n') + ".md";
  const std::string uri = Root() + "/" + long_name;
  Create(uri, "long");
  Reply read = Get("/api/v1/content/read?uri=" + Q(uri));
  EXPECT_EQ(read.status, 200) << read.raw;
  EXPECT_EQ(read.json["result"], "long");
  Reply listed = Get("/api/v1/fs/ls?simple=true&uri=" + Q(Root()));
  EXPECT_EQ(listed.json["result"], Json::array({uri}));

  // A very long URI in a body: refused or served, never a server error.
  std::string huge = "viking://resources";
  for (int i = 0; i < 2000; ++i) huge += "/segment" + std::to_string(i);
  Reply deep = PostJson("/api/v1/fs/mkdir", {{"uri", huge}});
  EXPECT_TRUE(deep.status == 200 || (deep.status >= 400 && deep.status < 500)) << deep.status;
  // A request line past cpp-httplib's limit is refused at the HTTP level.
  Reply line = Get("/api/v1/fs/stat?uri=" + Q("viking://resources/" + std::string(20000, 'q')));
  EXPECT_GE(line.status, 400) << line.error;
  EXPECT_LT(line.status, 500);
  ExpectHealthy();
}

TEST_F(ServerApiTest, HugeBodyIsRefusedAndServerSurvives) {
  std::string body = "{\"uri\":\"viking://resources/big.md\",\"content\":\"" +
                     std::string(33u << 20, 'a') + "\"}";
  Reply r = Post("/api/v1/content/write", body);
  // The server answers 413 before reading the body and closes the
  // connection; the client may see the reply or a reset while still sending.
  if (r.status != 0) {
    EXPECT_EQ(r.status, 413) << r.raw.substr(0, 200);
    EXPECT_EQ(r.Code(), "RESOURCE_EXHAUSTED");
  }
  client_ = server_->NewClient();
  ExpectHealthy();
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q("viking://resources/big.md")).status, 404);
}

TEST_F(ServerApiTest, ManyKeepAliveConnectionsAreServed) {
  Create(Root() + "/f.md", "x");
  constexpr int kConnections = 32;
  constexpr int kRequests = 20;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kConnections; ++c) {
    threads.emplace_back([&] {
      std::unique_ptr<httplib::Client> client = server_->NewClient();
      for (int i = 0; i < kRequests; ++i) {
        auto r = client->Get(("/api/v1/content/read?uri=" + Q(Root() + "/f.md")).c_str());
        if (r && r->status == 200) ++ok;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), kConnections * kRequests);
}

TEST_F(ServerApiTest, DataSurvivesARestart) {
  Create(Root() + "/persist.md", "still here");
  Mkdir(Root() + "/dir");
  client_.reset();
  ASSERT_EQ(server_->Stop(SIGTERM), 0);

  server_ = SkaldProcess::Start(workspace_->path());
  ASSERT_NE(server_, nullptr);
  client_ = server_->NewClient();
  Reply read = Get("/api/v1/content/read?uri=" + Q(Root() + "/persist.md"));
  ASSERT_EQ(read.status, 200) << read.raw;
  EXPECT_EQ(read.json["result"], "still here");
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(Root() + "/dir")).json["result"]["isDir"], true);
}

TEST_F(ServerApiTest, SecondServerOnTheSameWorkspaceIsRefused) {
  ExitResult second = RunSkald({"serve", "--port", "0", "--data", workspace_->path()});
  EXPECT_EQ(second.exit_code, 1) << second.err;
  EXPECT_NE(second.err.find(workspace_->path()), std::string::npos) << second.err;
  EXPECT_EQ(second.out.find("listening"), std::string::npos);
  ExpectHealthy();
}

// `skald serve` startup errors (no server of the fixture involved).
TEST(ServeStartupTest, ConfigErrorsExitWithCode2) {
  TempDir dir;
  const std::string conf = dir.path() + "/ov.conf";
  {
    std::ofstream out(conf);
    out << R"({"server": {"prot": 1933}})";
  }
  ExitResult bad_key = RunSkald({"serve", "--config", conf, "--data", dir.path() + "/ws"});
  EXPECT_EQ(bad_key.exit_code, 2);
  EXPECT_NE(bad_key.err.find("server.prot"), std::string::npos) << bad_key.err;

  ExitResult exposed = RunSkald({"serve", "--host", "0.0.0.0", "--port", "0", "--data",
                                 dir.path() + "/ws"});
  EXPECT_EQ(exposed.exit_code, 2);
  EXPECT_NE(exposed.err.find("loopback"), std::string::npos) << exposed.err;

  ExitResult missing = RunSkald({"serve", "--config", dir.path() + "/none.conf"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.conf"), std::string::npos) << missing.err;
}

TEST(ServeStartupTest, ConfigFileValuesApplyAndFlagsOverrideThem) {
  TempDir dir;
  const std::string conf = dir.path() + "/ov.conf";
  {
    std::ofstream out(conf);
    out << R"({"storage": {"workspace": ")" << dir.path() << R"(/from-config"},
              "server": {"port": 1}, "vlm": {"model": "x"}})";
  }
  // --port overrides the (unbindable) configured port 1; the workspace comes from the file.
  std::unique_ptr<SkaldProcess> server = SkaldProcess::Start(dir.path() + "/from-flag",
                                                             {"--config", conf});
  ASSERT_NE(server, nullptr);
  EXPECT_NE(server->listening_line().find("(workspace " + dir.path() + "/from-flag)"),
            std::string::npos)
      << server->listening_line();
  EXPECT_EQ(server->Stop(SIGINT), 0);
}

}  // namespace
}  // namespace skald::apitest
