// Sessions over HTTP (reference §2.7): every route's status codes and
// shapes, the token estimate clients rely on, commit's two phases (archive
// at once, a `session_commit` task that ends completed), skipped commits
// with their reasons, and (api_key mode) another user's sessions answering
// 404 through every route.

#include <regex>
#include <string>
#include <vector>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class SessionsApiTest : public ApiTest {
 protected:
  Reply AddMessage(const std::string& id, const Json& body) {
    return PostJson("/api/v1/sessions/" + id + "/messages", body);
  }
  // Waits for background work (the commit task) to finish.
  void WaitIdle() {
    Reply r = PostJson("/api/v1/system/wait", Json{{"timeout", 60}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
};

// Dev mode takes the account from the identity headers: a session call can
// be the first request an account ever makes (it was 404 "mkdir: ..." until
// some other route had made the account's root).
TEST_F(SessionsApiTest, ASessionCallCanBeAnAccountsFirstRequest) {
  const httplib::Headers acme{{"X-OpenViking-Account", "acme"}, {"X-OpenViking-User", "bob"}};
  Reply created = Post("/api/v1/sessions", "{}", "application/json", acme);
  ASSERT_EQ(created.status, 200) << created.raw;
  EXPECT_EQ(created.json["result"]["user"], (Json{{"account_id", "acme"}, {"user_id", "bob"}}));
  const httplib::Headers gamma{{"X-OpenViking-Account", "gamma"}, {"X-OpenViking-User", "carl"}};
  Reply added = Post("/api/v1/sessions/s1/messages", R"({"role":"user","content":"hi"})",
                     "application/json", gamma);
  ASSERT_EQ(added.status, 200) << added.raw;
  Reply listed = Get("/api/v1/sessions", gamma);
  ASSERT_EQ(listed.status, 200) << listed.raw;
  ASSERT_EQ(listed.json["result"].size(), 1u) << listed.raw;
  EXPECT_EQ(listed.json["result"][0]["uri"], "viking://user/carl/sessions/s1");
}

TEST_F(SessionsApiTest, CreateListGetDelete) {
  Reply created = PostJson("/api/v1/sessions", Json{{"session_id", "test-session.special_1"}});
  ASSERT_EQ(created.status, 200) << created.raw;
  const Json& c = created.json["result"];
  EXPECT_EQ(c["session_id"], "test-session.special_1");
  EXPECT_EQ(c["uri"], "viking://user/default/sessions/test-session.special_1");
  EXPECT_EQ(c["user"], (Json{{"account_id", "default"}, {"user_id", "default"}}));
  EXPECT_TRUE(c["auto_commit_policy"].is_null());
  EXPECT_EQ(c["memory_extraction_config"]["events"]["tags"], Json::array());

  Reply duplicate = PostJson("/api/v1/sessions", Json{{"session_id", "test-session.special_1"}});
  EXPECT_EQ(duplicate.status, 409) << duplicate.raw;
  EXPECT_EQ(duplicate.Code(), "ALREADY_EXISTS");

  Reply generated = PostJson("/api/v1/sessions", Json::object());
  ASSERT_EQ(generated.status, 200) << generated.raw;
  const std::string gid = generated.json["result"]["session_id"];
  EXPECT_TRUE(std::regex_match(gid, std::regex(R"(\d{8}-\d{6}-[0-9a-f]{16})"))) << gid;

  Reply list = Get("/api/v1/sessions");
  ASSERT_EQ(list.status, 200) << list.raw;
  ASSERT_EQ(list.json["result"].size(), 2u) << list.raw;
  for (const Json& item : list.json["result"]) {
    EXPECT_EQ(item["uri"],
              "viking://user/default/sessions/" + item["session_id"].get<std::string>());
    EXPECT_EQ(item["is_dir"], true);
    EXPECT_TRUE(item["mod_time"].is_string());
  }

  Reply meta = Get("/api/v1/sessions/test-session.special_1");
  ASSERT_EQ(meta.status, 200) << meta.raw;
  const Json& m = meta.json["result"];
  for (const char* key : {"session_id",
                          "created_at",
                          "updated_at",
                          "created_by_account_id",
                          "created_by_user_id",
                          "message_count",
                          "commit_count",
                          "memories_extracted",
                          "last_commit_at",
                          "llm_token_usage",
                          "embedding_token_usage",
                          "pending_tokens",
                          "keep_recent_count",
                          "retention_mode",
                          "memory_policy",
                          "auto_commit_policy",
                          "last_message_at",
                          "uri",
                          "user",
                          "memory_extraction_config"}) {
    EXPECT_TRUE(m.contains(key)) << key << " missing: " << meta.raw;
  }
  EXPECT_EQ(m["message_count"], 0);
  EXPECT_EQ(m["commit_count"], 0);
  EXPECT_EQ(m["last_commit_at"], "") << "a string, as OpenViking's SessionMeta has it";
  EXPECT_FALSE(m.contains("participants")) << "no participant id lists";

  Reply missing = Get("/api/v1/sessions/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.Code(), "NOT_FOUND");
  EXPECT_EQ(missing.json["error"]["message"], "Session nope not found");
  EXPECT_EQ(Get("/api/v1/sessions/auto1?auto_create=true").status, 200);
  EXPECT_EQ(Get("/api/v1/sessions/auto1").status, 200);

  Reply deleted = Delete("/api/v1/sessions/test-session.special_1");
  ASSERT_EQ(deleted.status, 200) << deleted.raw;
  EXPECT_EQ(deleted.json["result"], (Json{{"session_id", "test-session.special_1"}}));
  EXPECT_EQ(Get("/api/v1/sessions/test-session.special_1").status, 404);
  EXPECT_EQ(Delete("/api/v1/sessions/test-session.special_1").status, 404);
}

// `telemetry` on create, messages, batch and commit gives the response a
// top-level telemetry object, as OpenViking's routes do; a bad one is a 400,
// and the flag never becomes part of a stored message.
TEST_F(SessionsApiTest, SessionRoutesAnswerTelemetry) {
  struct Case {
    std::string path;
    Json body;
    std::string operation;
  };
  const std::vector<Case> cases = {
      {"/api/v1/sessions",
       {{"session_id", "tel"}, {"telemetry", {{"summary", true}}}},
       "session.create"},
      {"/api/v1/sessions/tel/messages",
       {{"role", "user"}, {"content", "hello"}, {"telemetry", {{"summary", true}}}},
       "session.add_message"},
      {"/api/v1/sessions/tel/messages/batch",
       {{"messages", {{{"role", "user"}, {"content", "again"}}}},
        {"telemetry", {{"summary", true}}}},
       "session.add_messages"},
      {"/api/v1/sessions/tel/commit", {{"telemetry", {{"summary", true}}}}, "session.commit"},
  };
  for (const Case& c : cases) {
    Reply r = PostJson(c.path, c.body);
    ASSERT_EQ(r.status, 200) << c.path << ": " << r.raw;
    ASSERT_TRUE(r.json["telemetry"].is_object()) << c.path << ": " << r.raw;
    EXPECT_EQ(r.json["telemetry"]["id"].get<std::string>().rfind("tm_", 0), 0u) << r.raw;
    EXPECT_EQ(r.json["telemetry"]["summary"].value("operation", ""), c.operation) << r.raw;
  }
  Reply plain = PostJson("/api/v1/sessions/tel/messages", {{"role", "user"}, {"content", "x"}});
  ASSERT_EQ(plain.status, 200) << plain.raw;
  EXPECT_TRUE(plain.json["telemetry"].is_null()) << plain.raw;
  Reply bad = PostJson("/api/v1/sessions/tel/messages",
                       {{"role", "user"}, {"content", "x"}, {"telemetry", {{"bogus", 1}}}});
  EXPECT_EQ(bad.status, 400) << bad.raw;
}

TEST_F(SessionsApiTest, MessagesAcceptEveryPartAndBlankContent) {
  // Adding to a missing session creates it.
  Reply first = AddMessage("m1", Json{{"role", "user"}, {"content", "Hello there"}});
  ASSERT_EQ(first.status, 200) << first.raw;
  EXPECT_EQ(first.json["result"]["session_id"], "m1");
  EXPECT_EQ(first.json["result"]["message_count"], 1);
  EXPECT_EQ(first.json["result"]["pending_tokens"], 3);  // 11 chars x 0.25

  Reply blank = AddMessage("m1", Json{{"role", "system"}, {"content", "   "}});
  ASSERT_EQ(blank.status, 200) << blank.raw;
  EXPECT_EQ(blank.json["result"]["message_count"], 2);
  Reply empty = AddMessage("m1", Json{{"role", "assistant"}, {"content", ""}});
  ASSERT_EQ(empty.status, 200) << empty.raw;
  EXPECT_EQ(empty.json["result"]["message_count"], 3);

  Json parts = Json::array(
      {Json{{"type", "text"}, {"text", "see the doc"}},
       Json{{"type", "context"},
            {"uri", "viking://resources/doc"},
            {"context_type", "resource"},
            {"abstract", "a doc"}},
       Json{{"type", "image_url"}, {"image_url", Json{{"url", "https://example.com/a.png"}}}},
       Json{{"type", "tool"},
            {"tool_id", "t1"},
            {"tool_name", "grep"},
            {"tool_uri", "viking://agent/tools/grep"},
            {"skill_uri", ""},
            {"tool_input", Json{{"pattern", "x"}}},
            {"tool_output", "3 matches"},
            {"tool_status", "completed"}}});
  Reply with_parts =
      AddMessage("m1", Json{{"role", "assistant"}, {"parts", parts}, {"metadata", Json{{"x", 1}}}});
  ASSERT_EQ(with_parts.status, 200) << with_parts.raw;
  EXPECT_EQ(with_parts.json["result"]["message_count"], 4);

  Reply no_role = AddMessage("m1", Json{{"content", "x"}});
  EXPECT_EQ(no_role.status, 400) << no_role.raw;
  Reply nothing = AddMessage("m1", Json{{"role", "user"}});
  EXPECT_EQ(nothing.status, 400) << nothing.raw;
  EXPECT_EQ(nothing.Code(), "INVALID_ARGUMENT");
  Reply bad_part =
      AddMessage("m1", Json{{"role", "user"}, {"parts", Json::array({Json{{"type", "video"}}})}});
  EXPECT_EQ(bad_part.status, 400) << bad_part.raw;

  Reply context = Get("/api/v1/sessions/m1/context");
  ASSERT_EQ(context.status, 200) << context.raw;
  const Json& messages = context.json["result"]["messages"];
  ASSERT_EQ(messages.size(), 4u) << context.raw;
  EXPECT_EQ(messages[0]["role"], "user");
  EXPECT_EQ(messages[0]["parts"][0], (Json{{"type", "text"}, {"text", "Hello there"}}));
  EXPECT_TRUE(
      std::regex_match(messages[0]["id"].get<std::string>(), std::regex("msg_[0-9a-f]{32}")));
  EXPECT_EQ(messages[0]["created_at"].get<std::string>().back(), 'Z');
  EXPECT_EQ(messages[3]["parts"].size(), 4u);
  EXPECT_EQ(messages[3]["parts"][3]["tool_output"], "3 matches");
  EXPECT_EQ(messages[3]["parts"][3]["tool_input"], (Json{{"pattern", "x"}}));

  // An aggregate of tool results is stored as one message per tool (as
  // OpenViking does); an image part needs a URL.
  Json tool_b = parts[3];
  tool_b["tool_id"] = "t2";
  Reply tools = AddMessage("m1", Json{{"role", "user"}, {"parts", {parts[3], tool_b}}});
  ASSERT_EQ(tools.status, 200) << tools.raw;
  EXPECT_EQ(tools.json["result"]["message_count"], 6);
  Reply no_url = AddMessage(
      "m1", Json{{"role", "user"},
                 {"parts", {Json{{"type", "image_url"}, {"image_url", Json::object()}}}}});
  EXPECT_EQ(no_url.status, 400) << no_url.raw;
}

TEST_F(SessionsApiTest, PendingTokensFollowTheEstimate) {
  std::string cjk, ascii;
  for (int i = 0; i < 100; ++i) {
    cjk += "你好世界";
    ascii += "abcd";
  }
  Reply c = AddMessage("cjk", Json{{"role", "user"}, {"content", cjk}});
  Reply a = AddMessage("ascii", Json{{"role", "user"}, {"content", ascii}});
  ASSERT_EQ(c.status, 200) << c.raw;
  ASSERT_EQ(a.status, 200) << a.raw;
  const int64_t cjk_tokens = c.json["result"]["pending_tokens"];
  const int64_t ascii_tokens = a.json["result"]["pending_tokens"];
  EXPECT_EQ(cjk_tokens, 600);
  EXPECT_EQ(ascii_tokens, 100);
  EXPECT_GE(cjk_tokens, 4 * ascii_tokens);
  EXPECT_EQ(Get("/api/v1/sessions/cjk").json["result"]["pending_tokens"], 600);
}

TEST_F(SessionsApiTest, BatchAddsAndLimits) {
  Json batch{{"messages", Json::array({Json{{"role", "user"}, {"content", "one"}},
                                       Json{{"role", "assistant"}, {"content", "two"}}})}};
  Reply added = PostJson("/api/v1/sessions/b1/messages/batch", batch);
  ASSERT_EQ(added.status, 200) << added.raw;
  EXPECT_EQ(added.json["result"]["added"], 2);
  EXPECT_EQ(added.json["result"]["message_count"], 2);
  EXPECT_TRUE(added.json["result"].contains("pending_tokens"));

  Json too_many{{"messages", Json::array()}};
  for (int i = 0; i < 101; ++i)
    too_many["messages"].push_back(Json{{"role", "user"}, {"content", "x"}});
  EXPECT_EQ(PostJson("/api/v1/sessions/b1/messages/batch", too_many).status, 400);
  // One bad message rejects the whole batch.
  Json one_bad{{"messages", Json::array({Json{{"role", "user"}, {"content", "ok"}},
                                         Json{{"content", "no role"}}})}};
  EXPECT_EQ(PostJson("/api/v1/sessions/b1/messages/batch", one_bad).status, 400);
  EXPECT_EQ(Get("/api/v1/sessions/b1").json["result"]["message_count"], 2);
}

TEST_F(SessionsApiTest, CommitArchivesAtOnceAndTheTaskCompletes) {
  ASSERT_EQ(PostJson("/api/v1/sessions", Json{{"session_id", "c1"}}).status, 200);
  Reply empty = PostJson("/api/v1/sessions/c1/commit", Json::object());
  ASSERT_EQ(empty.status, 200) << empty.raw;
  EXPECT_EQ(empty.json["result"]["status"], "skipped");
  EXPECT_EQ(empty.json["result"]["reason"], "no_messages");
  EXPECT_TRUE(empty.json["result"]["task_id"].is_null());
  EXPECT_TRUE(empty.json["result"]["archive_uri"].is_null());
  EXPECT_EQ(empty.json["result"]["archived"], false);

  for (const char* text :
       {"I started learning the cello in March.", "The cello teacher is called Mrs Okafor.",
        "She says I should practise scales every morning."}) {
    ASSERT_EQ(AddMessage("c1", Json{{"role", "user"}, {"content", text}}).status, 200);
  }
  ASSERT_EQ(AddMessage("c1", Json{{"role", "assistant"}, {"content", "Noted."}}).status, 200);

  Reply within = PostJson("/api/v1/sessions/c1/commit", Json{{"keep_recent_count", 4}});
  ASSERT_EQ(within.status, 200) << within.raw;
  EXPECT_EQ(within.json["result"]["status"], "skipped");
  EXPECT_EQ(within.json["result"]["reason"], "all_within_keep_window");
  EXPECT_EQ(PostJson("/api/v1/sessions/c1/commit", Json{{"keep_recent_count", -1}}).status, 400);

  Reply commit = PostJson("/api/v1/sessions/c1/commit", Json{{"keep_recent_count", 1}});
  ASSERT_EQ(commit.status, 200) << commit.raw;
  const Json& r = commit.json["result"];
  EXPECT_EQ(r["session_id"], "c1");
  EXPECT_EQ(r["status"], "accepted");
  EXPECT_EQ(r["archived"], true);
  EXPECT_EQ(r["archive_uri"], "viking://user/default/sessions/c1/history/archive_001");
  EXPECT_TRUE(r["task_id"].is_string());
  EXPECT_TRUE(r["trace_id"].is_string());
  EXPECT_EQ(r["estimated_active_tokens"], 2);  // "Noted." stays live
  EXPECT_EQ(r["budget_exceeded"], false);
  EXPECT_FALSE(commit.json.contains("error")) << "commit uses the exclude-none envelope";

  // Phase 1 is visible at once: the archived messages, the retained one live.
  Reply archive = Get("/api/v1/sessions/c1/archives/archive_001");
  ASSERT_EQ(archive.status, 200) << archive.raw;
  EXPECT_EQ(archive.json["result"]["messages"].size(), 3u);
  Reply meta = Get("/api/v1/sessions/c1");
  EXPECT_EQ(meta.json["result"]["commit_count"], 1);
  EXPECT_EQ(meta.json["result"]["message_count"], 1);
  EXPECT_EQ(meta.json["result"]["pending_tokens"], 2);

  WaitIdle();
  Reply task = Get("/api/v1/tasks/" + r["task_id"].get<std::string>());
  ASSERT_EQ(task.status, 200) << task.raw;
  EXPECT_EQ(task.json["result"]["task_type"], "session_commit");
  EXPECT_EQ(task.json["result"]["status"], "completed") << task.raw;
  EXPECT_EQ(task.json["result"]["result"]["messages_archived"], 3);
  // The task names its session, as OpenViking's: a session's commits are
  // listed by it.
  EXPECT_EQ(task.json["result"]["resource_id"], "c1") << task.raw;
  Reply listed = Get("/api/v1/tasks?task_type=session_commit&resource_id=c1");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  ASSERT_EQ(listed.json["result"].size(), 1u) << listed.raw;
  EXPECT_EQ(listed.json["result"][0]["task_id"], r["task_id"]) << listed.raw;

  archive = Get("/api/v1/sessions/c1/archives/archive_001");
  ASSERT_EQ(archive.status, 200) << archive.raw;
  EXPECT_EQ(archive.json["result"]["status"], "completed");
  const std::string overview = archive.json["result"]["overview"];
  EXPECT_NE(overview.find("cello"), std::string::npos) << overview;
  EXPECT_NE(overview.find("Mrs Okafor"), std::string::npos) << overview;
  EXPECT_NE(archive.json["result"]["abstract"].get<std::string>().find("3 messages"),
            std::string::npos);

  Reply context = Get("/api/v1/sessions/c1/context?token_budget=100000");
  ASSERT_EQ(context.status, 200) << context.raw;
  const Json& ctx = context.json["result"];
  EXPECT_EQ(ctx["latest_archive_overview"], overview);
  EXPECT_EQ(ctx["messages"].size(), 1u);
  EXPECT_EQ(ctx["stats"]["totalArchives"], 1);
  EXPECT_EQ(ctx["stats"]["includedArchives"], 1);
  EXPECT_EQ(ctx["estimatedTokens"], ctx["stats"]["activeTokens"].get<int64_t>() +
                                        ctx["stats"]["archiveTokens"].get<int64_t>());
  // Live messages come first and are never cut (as in OpenViking); the
  // overview only when it fits what the budget leaves after them.
  Reply tight = Get("/api/v1/sessions/c1/context?token_budget=1");
  ASSERT_EQ(tight.status, 200);
  EXPECT_EQ(tight.json["result"]["messages"].size(), 1u);
  EXPECT_EQ(tight.json["result"]["latest_archive_overview"], "");
  EXPECT_EQ(tight.json["result"]["stats"]["includedArchives"], 0);
  Reply none = Get("/api/v1/sessions/c1/context?token_budget=0");
  ASSERT_EQ(none.status, 200);
  EXPECT_EQ(none.json["result"]["messages"].size(), 1u);
  EXPECT_EQ(Get("/api/v1/sessions/c1/context?token_budget=-1").status, 400);

  // The transcript itself is never a hit; the archive is found through its
  // summaries and excerpts (session/archive_excerpts.h).
  Reply found = PostJson("/api/v1/search/find", Json{{"query", "Okafor cello"}});
  ASSERT_EQ(found.status, 200) << found.raw;
  EXPECT_EQ(found.raw.find("messages.jsonl"), std::string::npos) << found.raw;
  EXPECT_NE(found.raw.find("sessions/c1/history/archive_001/excerpt_"), std::string::npos)
      << found.raw;

  EXPECT_EQ(Get("/api/v1/sessions/c1/archives/archive_009").status, 404);
  EXPECT_EQ(PostJson("/api/v1/sessions/nope/commit", Json::object()).status, 404);
  EXPECT_EQ(Get("/api/v1/sessions/nope/context").status, 404);
}

TEST_F(SessionsApiTest, UsedCountsThisRequest) {
  ASSERT_EQ(PostJson("/api/v1/sessions", Json{{"session_id", "u1"}}).status, 200);
  Reply none = PostJson("/api/v1/sessions/u1/used", Json::object());
  ASSERT_EQ(none.status, 200) << none.raw;
  EXPECT_EQ(none.json["result"],
            (Json{{"session_id", "u1"}, {"contexts_used", 0}, {"skills_used", 0}}));
  Reply some =
      PostJson("/api/v1/sessions/u1/used",
               Json{{"contexts", Json::array({"viking://resources/a", "viking://resources/b"})},
                    {"skill", Json{{"uri", "viking://agent/skills/s"}, {"success", true}}}});
  ASSERT_EQ(some.status, 200) << some.raw;
  EXPECT_EQ(some.json["result"]["contexts_used"], 2);
  EXPECT_EQ(some.json["result"]["skills_used"], 1);
  EXPECT_EQ(PostJson("/api/v1/sessions/missing/used", Json::object()).status, 404);
}

// api_key mode: alice's session is unreachable for bob through every route.
class SessionsIsolationApiTest : public ::testing::Test {
 protected:
  static constexpr const char* kRootKey = "root-key-for-session-tests-0123456789";

  void SetUp() override {
    workspace_ = std::make_unique<TempDir>();
    config_dir_ = std::make_unique<TempDir>();
    const std::string conf = config_dir_->path() + "/skald.conf";
    std::FILE* f = std::fopen(conf.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs((std::string(R"({"server": {"root_api_key": ")") + kRootKey + R"("}})").c_str(), f);
    std::fclose(f);
    server_ = SkaldProcess::Start(workspace_->path(), {"--config", conf});
    ASSERT_NE(server_, nullptr);
    client_ = server_->NewClient();
    Reply account = Send("POST", "/api/v1/admin/accounts", kRootKey,
                         Json{{"account_id", "acme"}, {"admin_user_id", "alice"}}.dump());
    ASSERT_EQ(account.status, 200) << account.raw;
    alice_ = account.json["result"]["user_key"];
    Reply user = Send("POST", "/api/v1/admin/accounts/acme/users", kRootKey,
                      Json{{"user_id", "bob"}, {"role", "user"}}.dump());
    ASSERT_EQ(user.status, 200) << user.raw;
    bob_ = user.json["result"]["user_key"];
  }
  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(SIGTERM), 0);
    }
  }

  Reply Send(const std::string& method, const std::string& path, const std::string& key,
             const std::string& body = "") {
    httplib::Headers headers{{"X-API-Key", key},
                             {"X-OpenViking-User", "alice"},  // stripped in api_key mode
                             {"X-OpenViking-Account", "acme"}};
    if (method == "GET") return ToReply(client_->Get(path, headers));
    if (method == "DELETE") return ToReply(client_->Delete(path, headers));
    if (method == "PATCH") return ToReply(client_->Patch(path, headers, body, "application/json"));
    return ToReply(client_->Post(path, headers, body, "application/json"));
  }

  std::unique_ptr<TempDir> workspace_, config_dir_;
  std::unique_ptr<SkaldProcess> server_;
  std::unique_ptr<httplib::Client> client_;
  std::string alice_, bob_;
};

TEST_F(SessionsIsolationApiTest, AnotherUsersSessionIsNotFound) {
  Reply created = Send("POST", "/api/v1/sessions", alice_, R"({"session_id":"secret"})");
  ASSERT_EQ(created.status, 200) << created.raw;
  EXPECT_EQ(created.json["result"]["uri"], "viking://user/alice/sessions/secret");
  ASSERT_EQ(Send("POST", "/api/v1/sessions/secret/messages", alice_,
                 R"({"role":"user","content":"my pin is 4321"})")
                .status,
            200);
  ASSERT_EQ(Send("POST", "/api/v1/sessions/secret/commit", alice_, "{}").status, 200);

  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/api/v1/sessions/secret"},
           {"GET", "/api/v1/sessions/secret/context"},
           {"GET", "/api/v1/sessions/secret/archives/archive_001"},
           {"POST", "/api/v1/sessions/secret/commit"},
           {"POST", "/api/v1/sessions/secret/extract"},
           {"POST", "/api/v1/sessions/secret/used"},
           {"PATCH", "/api/v1/sessions/secret/config"},
           {"DELETE", "/api/v1/sessions/secret"}}) {
    Reply r = Send(method, path, bob_, "{}");
    EXPECT_EQ(r.status, 404) << method << " " << path << ": " << r.raw;
    EXPECT_EQ(r.raw.find("4321"), std::string::npos);
  }
  Reply read = Send("GET",
                    "/api/v1/content/read?uri=" +
                        Q("viking://user/alice/sessions/secret/history/archive_001/messages.jsonl"),
                    bob_);
  EXPECT_EQ(read.status, 403) << read.raw;
  Reply list = Send("GET", "/api/v1/sessions", bob_);
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.json["result"], Json::array());
  // Her archive's excerpts are searchable by her, never by bob, and naming
  // her session in bob's search gives his intent analysis nothing.
  ASSERT_EQ(Send("POST", "/api/v1/system/wait", alice_, R"({"timeout":60})").status, 200);
  Reply hers = Send("POST", "/api/v1/search/find", alice_, R"({"query":"pin 4321"})");
  ASSERT_EQ(hers.status, 200) << hers.raw;
  EXPECT_NE(hers.raw.find("sessions/secret/history/archive_001/excerpt_"), std::string::npos)
      << hers.raw;
  Reply excerpt = Send(
      "GET",
      "/api/v1/content/read?uri=" + Q("viking://user/alice/sessions/secret/history/archive_001/"
                                      "excerpt_0001.md"),
      bob_);
  EXPECT_EQ(excerpt.status, 403) << excerpt.raw;
  Reply searched = Send("POST", "/api/v1/search/search", bob_,
                        R"({"query":"and what about it?","session_id":"secret"})");
  ASSERT_EQ(searched.status, 200) << searched.raw;
  EXPECT_EQ(searched.raw.find("4321"), std::string::npos) << searched.raw;
  EXPECT_EQ(searched.raw.find("pin"), std::string::npos) << searched.raw;
  // Bob's message to "secret" goes to a session of his own.
  Reply bobs =
      Send("POST", "/api/v1/sessions/secret/messages", bob_, R"({"role":"user","content":"hi"})");
  ASSERT_EQ(bobs.status, 200) << bobs.raw;
  EXPECT_EQ(bobs.json["result"]["message_count"], 1);
  Reply alices = Send("GET", "/api/v1/sessions/secret", alice_);
  ASSERT_EQ(alices.status, 200);
  EXPECT_EQ(alices.json["result"]["commit_count"], 1);
  EXPECT_EQ(alices.json["result"]["message_count"], 0);
  EXPECT_EQ(alices.json["result"]["total_message_count"], 1);
}

}  // namespace
}  // namespace skald::apitest
