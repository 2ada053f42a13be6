// Wire compatibility with the requests OpenViking's own clients send (the
// `ov` CLI 0.4.20, the Python SDK, OpenViking's HTTP API test client), each
// found by running that client against a Skald server: request fields Skald
// used to refuse, and routes it did not serve.

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class CompatApiTest : public ApiTest {
 protected:
  // A resource file `name` under Root() holding `text`, indexed.
  std::string IndexedFile(const std::string& name, const std::string& text) {
    const std::string uri = Root() + "/" + name;
    Reply r = PostJson("/api/v1/content/write",
                       {{"uri", uri}, {"content", text}, {"mode", "create"}, {"wait", true}});
    EXPECT_EQ(r.status, 200) << r.raw;
    return uri;
  }

  // The hit for `uri` in a find/search result's resources (null when absent).
  static Json HitFor(const Json& result, const std::string& uri) {
    for (const Json& hit : result["resources"]) {
      if (hit.value("uri", "") == uri) return hit;
    }
    return nullptr;
  }
};

// `ov find --read-content` / `ov search --read-content` send read_content:
// each file hit carries its text as `content`; directory hits carry none.
TEST_F(CompatApiTest, FindAndSearchReadContentAttachFileText) {
  const std::string text = "# Zebra\nZebras graze on the savanna at dawn.\n";
  const std::string uri = IndexedFile("zebra.md", text);
  for (const char* route : {"/api/v1/search/find", "/api/v1/search/search"}) {
    Reply r = PostJson(route, {{"query", "zebras savanna"},
                               {"target_uri", Root()},
                               {"limit", 10},
                               {"read_content", true}});
    ASSERT_EQ(r.status, 200) << route << ": " << r.raw;
    const Json hit = HitFor(r.json["result"], uri);
    ASSERT_TRUE(hit.is_object()) << route << ": " << r.raw;
    EXPECT_EQ(hit.value("content", ""), text) << route;
    for (const Json& other : r.json["result"]["resources"]) {
      if (other.value("level", 2) < 2) {
        EXPECT_FALSE(other.contains("content")) << other;
      }
    }
  }
  // Without it, hits carry no content.
  Reply plain = PostJson("/api/v1/search/find", {{"query", "zebras savanna"}, {"target_uri", Root()}});
  ASSERT_EQ(plain.status, 200) << plain.raw;
  EXPECT_FALSE(HitFor(plain.json["result"], uri).contains("content")) << plain.raw;
  // It is a list-mode option: with mode "context" it is a 400.
  Reply context = PostJson("/api/v1/search/search",
                           {{"query", "zebras"}, {"mode", "context"}, {"read_content", true}});
  EXPECT_EQ(context.status, 400) << context.raw;
  EXPECT_EQ(context.Code(), "INVALID_ARGUMENT");
  // Still a boolean.
  Reply bad = PostJson("/api/v1/search/find", {{"query", "zebras"}, {"read_content", "maybe"}});
  EXPECT_EQ(bad.status, 400) << bad.raw;
}

// `ov write --tags k=v --tag-mode append` sends tags and tag_mode: accepted;
// a tag list that is not a list of strings, or an unknown tag_mode, is 400.
TEST_F(CompatApiTest, WriteAcceptsTagsAndTagMode) {
  const std::string uri = Root() + "/todo.md";
  Reply created = PostJson("/api/v1/content/write", {{"uri", uri},
                                                     {"content", "ship it"},
                                                     {"mode", "create"},
                                                     {"tags", {"team=a", "env=x"}},
                                                     {"tag_mode", "append"}});
  ASSERT_EQ(created.status, 200) << created.raw;
  EXPECT_EQ(created.json["result"].value("written_bytes", 0), 7);
  for (const char* mode : {"replace", "append", "clear"}) {
    Reply r = PostJson("/api/v1/content/write",
                       {{"uri", uri}, {"content", "again"}, {"tags", Json::array()}, {"tag_mode", mode}});
    EXPECT_EQ(r.status, 200) << mode << ": " << r.raw;
  }
  Reply not_list = PostJson("/api/v1/content/write", {{"uri", uri}, {"content", "x"}, {"tags", "a=b"}});
  EXPECT_EQ(not_list.status, 400) << not_list.raw;
  Reply bad_mode =
      PostJson("/api/v1/content/write", {{"uri", uri}, {"content", "x"}, {"tag_mode", "merge"}});
  EXPECT_EQ(bad_mode.status, 400) << bad_mode.raw;
  EXPECT_EQ(bad_mode.Code(), "INVALID_ARGUMENT");
}

// dev mode: every request is ROOT, which may not cancel tasks (403 first).
TEST_F(CompatApiTest, TaskCancelIsRefusedToRoot) {
  Reply missing = Post("/api/v1/tasks/no-such-task/cancel", "{}");
  EXPECT_EQ(missing.status, 403) << missing.raw;
  EXPECT_EQ(missing.Code(), "PERMISSION_DENIED");
}

// A server in api_key mode.
class CompatKeyApiTest : public ApiTest {
 protected:
  void SetUp() override { StartServer(Json{{"server", {{"root_api_key", "compat-root-key"}}}}); }
};

// `ov task cancel`: an unknown task is OpenViking's 404; a known one cannot
// be cancelled (Skald's jobs run to completion): 412; ROOT may not cancel.
TEST_F(CompatKeyApiTest, TaskCancelAnswersNotFoundOrNotCancellable) {
  const httplib::Headers root = {{"X-API-Key", "compat-root-key"}};
  Reply account = ToReply(client_->Post("/api/v1/admin/accounts", root,
                                        Json{{"account_id", "acme"}, {"admin_user_id", "alice"}}.dump(),
                                        "application/json"));
  ASSERT_EQ(account.status, 200) << account.raw;
  const httplib::Headers alice = {{"X-API-Key", account.json["result"]["user_key"].get<std::string>()}};
  Reply written = ToReply(client_->Post(
      "/api/v1/content/write", alice,
      Json{{"uri", "viking://resources/a.md"}, {"content", "alpha"}, {"mode", "create"}}.dump(),
      "application/json"));
  ASSERT_EQ(written.status, 200) << written.raw;
  Reply tasks = ToReply(client_->Get("/api/v1/tasks?limit=1", alice));
  ASSERT_EQ(tasks.status, 200) << tasks.raw;
  ASSERT_FALSE(tasks.json["result"].empty()) << tasks.raw;
  const std::string task_id = tasks.json["result"][0]["task_id"];

  Reply known = ToReply(client_->Post("/api/v1/tasks/" + task_id + "/cancel", alice, "{}",
                                      "application/json"));
  EXPECT_EQ(known.status, 412) << known.raw;
  EXPECT_EQ(known.Code(), "FAILED_PRECONDITION");
  Reply unknown = ToReply(client_->Post("/api/v1/tasks/nope/cancel", alice, "{}", "application/json"));
  EXPECT_EQ(unknown.status, 404) << unknown.raw;
  EXPECT_EQ(unknown.json["error"].value("message", ""), "Task not found or expired");
  Reply as_root =
      ToReply(client_->Post("/api/v1/tasks/" + task_id + "/cancel", root, "{}", "application/json"));
  EXPECT_EQ(as_root.status, 403) << as_root.raw;
}

// `ov task watch ls`: Skald keeps no watch tasks; the list is empty and one
// watch is 404.
TEST_F(CompatApiTest, WatchListIsEmpty) {
  Reply list = Get("/api/v1/watches");
  ASSERT_EQ(list.status, 200) << list.raw;
  EXPECT_EQ(list.json["result"], (Json{{"tasks", Json::array()}, {"total", 0}}));
  Reply by_uri = Get("/api/v1/watches?to_uri=" + Q("viking://resources/x"));
  EXPECT_EQ(by_uri.status, 404) << by_uri.raw;
  Reply one = Get("/api/v1/watches/w1");
  EXPECT_EQ(one.status, 404) << one.raw;
  EXPECT_EQ(one.Code(), "NOT_FOUND");
}

// The session tool-result routes: Skald keeps tool outputs inline, so a
// session has none; parameters are checked and a missing session is 404.
TEST_F(CompatApiTest, SessionToolResultRoutes) {
  ASSERT_EQ(PostJson("/api/v1/sessions", {{"session_id", "s1"}}).status, 200);
  Reply list = Get("/api/v1/sessions/s1/tool-results?tool_name=search&limit=5");
  ASSERT_EQ(list.status, 200) << list.raw;
  EXPECT_EQ(list.json["result"], (Json{{"tool_results", Json::array()}}));
  EXPECT_EQ(Get("/api/v1/sessions/s1/tool-results?limit=0").status, 400);
  Reply no_session = Get("/api/v1/sessions/nope/tool-results");
  EXPECT_EQ(no_session.status, 404) << no_session.raw;

  Reply read = Get("/api/v1/sessions/s1/tool-results/tr_1?offset=0&limit=-1");
  EXPECT_EQ(read.status, 404) << read.raw;
  EXPECT_EQ(read.Code(), "NOT_FOUND");
  Reply bad_limit = Get("/api/v1/sessions/s1/tool-results/tr_1?limit=-2");
  EXPECT_EQ(bad_limit.status, 400) << bad_limit.raw;
  EXPECT_EQ(bad_limit.json["error"].value("message", ""),
            "limit must be -1 or greater than or equal to 0");
  EXPECT_EQ(Get("/api/v1/sessions/s1/tool-results/tr_1?offset=-1").status, 400);

  Reply search = Get("/api/v1/sessions/s1/tool-results/tr_1/search?q=auth");
  EXPECT_EQ(search.status, 404) << search.raw;
  EXPECT_EQ(Get("/api/v1/sessions/s1/tool-results/tr_1/search").status, 400);
  EXPECT_EQ(Get("/api/v1/sessions/s1/tool-results/tr_1/search?q=").status, 400);
  EXPECT_EQ(Get("/api/v1/sessions/s1/tool-results/tr_1/search?q=a&context_chars=-1").status, 400);
}

}  // namespace
}  // namespace skald::apitest
