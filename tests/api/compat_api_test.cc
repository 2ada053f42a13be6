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
  Reply plain =
      PostJson("/api/v1/search/find", {{"query", "zebras savanna"}, {"target_uri", Root()}});
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
    Reply r =
        PostJson("/api/v1/content/write",
                 {{"uri", uri}, {"content", "again"}, {"tags", Json::array()}, {"tag_mode", mode}});
    EXPECT_EQ(r.status, 200) << mode << ": " << r.raw;
  }
  Reply not_list =
      PostJson("/api/v1/content/write", {{"uri", uri}, {"content", "x"}, {"tags", "a=b"}});
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

// Two users of one account, alice (admin) and bob (user), each with a key.
class CompatTwoUsersApiTest : public CompatKeyApiTest {
 protected:
  void SetUp() override {
    CompatKeyApiTest::SetUp();
    const httplib::Headers root = {{"X-API-Key", "compat-root-key"}};
    Reply account = ToReply(client_->Post(
        "/api/v1/admin/accounts", root,
        Json{{"account_id", "acme"}, {"admin_user_id", "alice"}}.dump(), "application/json"));
    ASSERT_EQ(account.status, 200) << account.raw;
    alice_ = {{"X-API-Key", account.json["result"]["user_key"].get<std::string>()}};
    Reply user = ToReply(client_->Post("/api/v1/admin/accounts/acme/users", root,
                                       Json{{"user_id", "bob"}, {"role", "user"}}.dump(),
                                       "application/json"));
    ASSERT_EQ(user.status, 200) << user.raw;
    bob_ = {{"X-API-Key", user.json["result"]["user_key"].get<std::string>()}};
  }
  Reply As(const httplib::Headers& who, const std::string& path, const Json& body) {
    return ToReply(client_->Post(path, who, body.dump(), "application/json"));
  }
  Reply Write(const httplib::Headers& who, const std::string& uri, const std::string& text) {
    return As(who, "/api/v1/content/write", {{"uri", uri}, {"content", text}, {"mode", "create"}});
  }
  httplib::Headers alice_, bob_;
};

// Copying `viking://user` would copy every user's space: a USER may copy only
// their own part of it.
TEST_F(CompatTwoUsersApiTest, CpNeverCopiesAnotherUsersSpace) {
  ASSERT_EQ(Write(bob_, "viking://user/bob/notes/secret.md", "bob private diagnosis").status, 200);
  ASSERT_EQ(Write(alice_, "viking://user/alice/notes/mine.md", "alice notes").status, 200);
  Reply loot = As(alice_, "/api/v1/fs/cp",
                  {{"from_uri", "viking://user"}, {"to_uri", "viking://resources/loot"},
                   {"recursive", true}});
  EXPECT_EQ(loot.status, 403) << loot.raw;
  Reply listed = ToReply(client_->Get("/api/v1/fs/ls?uri=" + Q("viking://resources"), alice_));
  EXPECT_EQ(listed.raw.find("loot"), std::string::npos) << listed.raw;
  Reply own = As(alice_, "/api/v1/fs/cp",
                 {{"from_uri", "viking://user/alice/notes"},
                  {"to_uri", "viking://resources/alice-notes"}, {"recursive", true}});
  EXPECT_EQ(own.status, 200) << own.raw;
  Reply bobs = As(alice_, "/api/v1/fs/cp",
                  {{"from_uri", "viking://user/bob/notes/secret.md"},
                   {"to_uri", "viking://resources/secret.md"}});
  EXPECT_EQ(bobs.status, 403) << bobs.raw;
}

// A link to another user's private file, and its reason, are shown to that
// user only.
TEST_F(CompatTwoUsersApiTest, RelationsShowOnlyWhatTheCallerMaySee) {
  ASSERT_EQ(Write(bob_, "viking://resources/shared.md", "shared page").status, 200);
  ASSERT_EQ(Write(bob_, "viking://user/bob/notes/secret.md", "bob private diagnosis").status, 200);
  Reply linked = As(bob_, "/api/v1/relations/link",
                    {{"from_uri", "viking://resources/shared.md"},
                     {"to_uris", {"viking://user/bob/notes/secret.md"}},
                     {"reason", "my test result"}});
  ASSERT_EQ(linked.status, 200) << linked.raw;
  const std::string path = "/api/v1/relations?uri=" + Q("viking://resources/shared.md");
  Reply for_bob = ToReply(client_->Get(path, bob_));
  ASSERT_EQ(for_bob.status, 200) << for_bob.raw;
  EXPECT_EQ(for_bob.json["result"].size(), 1u) << for_bob.raw;
  Reply for_alice = ToReply(client_->Get(path, alice_));
  ASSERT_EQ(for_alice.status, 200) << for_alice.raw;
  EXPECT_TRUE(for_alice.json["result"].empty()) << for_alice.raw;
  EXPECT_EQ(for_alice.raw.find("test result"), std::string::npos) << for_alice.raw;
}

// An upload is refused from its head when the key is missing or wrong: the
// server never reads (or holds) the body of someone it cannot identify.
TEST_F(CompatKeyApiTest, AnUploadWithoutAValidKeyIsRefusedBeforeItsBody) {
  for (const std::string key_header : {"", "X-API-Key: not-a-key\r\n"}) {
    const std::string head = RawHttp(
        server_->port(),
        "POST /api/v1/resources/temp_upload HTTP/1.1\r\nHost: 127.0.0.1:" +
            std::to_string(server_->port()) + "\r\n" + key_header +
            "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: " +
            std::to_string(64u << 20) + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(head.rfind("HTTP/1.1 401", 0), 0u) << key_header << head.substr(0, 300);
  }
  ExpectHealthy();
}

// `ov task cancel`: an unknown task is OpenViking's 404; a known one cannot
// be cancelled (Skald's jobs run to completion): 412; ROOT may not cancel.
TEST_F(CompatKeyApiTest, TaskCancelAnswersNotFoundOrNotCancellable) {
  const httplib::Headers root = {{"X-API-Key", "compat-root-key"}};
  Reply account = ToReply(client_->Post(
      "/api/v1/admin/accounts", root,
      Json{{"account_id", "acme"}, {"admin_user_id", "alice"}}.dump(), "application/json"));
  ASSERT_EQ(account.status, 200) << account.raw;
  const httplib::Headers alice = {
      {"X-API-Key", account.json["result"]["user_key"].get<std::string>()}};
  Reply written = ToReply(client_->Post(
      "/api/v1/content/write", alice,
      Json{{"uri", "viking://resources/a.md"}, {"content", "alpha"}, {"mode", "create"}}.dump(),
      "application/json"));
  ASSERT_EQ(written.status, 200) << written.raw;
  Reply tasks = ToReply(client_->Get("/api/v1/tasks?limit=1&task_type=content_write", alice));
  ASSERT_EQ(tasks.status, 200) << tasks.raw;
  ASSERT_FALSE(tasks.json["result"].empty()) << tasks.raw;
  const std::string task_id = tasks.json["result"][0]["task_id"];

  Reply known = ToReply(
      client_->Post("/api/v1/tasks/" + task_id + "/cancel", alice, "{}", "application/json"));
  EXPECT_EQ(known.status, 412) << known.raw;
  EXPECT_EQ(known.Code(), "FAILED_PRECONDITION");
  Reply unknown =
      ToReply(client_->Post("/api/v1/tasks/nope/cancel", alice, "{}", "application/json"));
  EXPECT_EQ(unknown.status, 404) << unknown.raw;
  EXPECT_EQ(unknown.json["error"].value("message", ""), "Task not found or expired");
  Reply as_root = ToReply(
      client_->Post("/api/v1/tasks/" + task_id + "/cancel", root, "{}", "application/json"));
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

// `ov cp` and OpenViking's fs tests: POST /api/v1/fs/cp copies a file (onto
// an existing file too) or, with recursive, a tree; the copy is readable and
// searchable, the source stays.
TEST_F(CompatApiTest, CpCopiesFilesAndTrees) {
  const std::string source = IndexedFile("cp-source.md", "copy payload about lighthouses");
  const std::string target = Root() + "/cp-target.md";
  Reply copied = PostJson("/api/v1/fs/cp", {{"from_uri", source}, {"to_uri", target}});
  ASSERT_EQ(copied.status, 200) << copied.raw;
  EXPECT_EQ(copied.json["result"].value("from", ""), source);
  EXPECT_EQ(copied.json["result"].value("to", ""), target);
  EXPECT_EQ(copied.json["result"].value("recursive", true), false);
  EXPECT_EQ(copied.json["result"].value("phase", ""), "completed");
  // The source's record is carried to the copy (OpenViking's vectors count).
  EXPECT_EQ(copied.json["result"]["vectors"], Json({{"scanned", 1}, {"written", 1}}))
      << copied.raw;
  for (const std::string& uri : {source, target}) {
    Reply read = Get("/api/v1/content/read?uri=" + Q(uri));
    ASSERT_EQ(read.status, 200) << read.raw;
    EXPECT_EQ(read.json["result"], "copy payload about lighthouses");
  }
  // Onto an existing file: replaced.
  const std::string other = IndexedFile("cp-other.md", "old content to be replaced");
  ASSERT_EQ(PostJson("/api/v1/fs/cp", {{"from_uri", source}, {"to_uri", other}}).status, 200);
  EXPECT_EQ(Get("/api/v1/content/read?uri=" + Q(other)).json["result"],
            "copy payload about lighthouses");
  // The copy is indexed as new content.
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 30}}).status, 200);
  Reply found = PostJson("/api/v1/search/find", {{"query", "lighthouses"}, {"target_uri", target}});
  ASSERT_EQ(found.status, 200) << found.raw;
  EXPECT_TRUE(HitFor(found.json["result"], target).is_object()) << found.raw;

  // A tree needs recursive; then the whole tree (empty directories too) is copied.
  const std::string dir = Root() + "/tree";
  Mkdir(dir + "/empty");
  Create(dir + "/nested/child.md", "recursive copy child");
  Reply without = PostJson("/api/v1/fs/cp", {{"from_uri", dir}, {"to_uri", Root() + "/tree2"}});
  EXPECT_EQ(without.status, 400) << without.raw;
  EXPECT_EQ(without.Code(), "INVALID_ARGUMENT");
  Reply tree = PostJson("/api/v1/fs/cp",
                        {{"from_uri", dir}, {"to_uri", Root() + "/tree2"}, {"recursive", true}});
  ASSERT_EQ(tree.status, 200) << tree.raw;
  EXPECT_EQ(Get("/api/v1/content/read?uri=" + Q(Root() + "/tree2/nested/child.md")).json["result"],
            "recursive copy child");
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(Root() + "/tree2/empty")).status, 200);
  EXPECT_EQ(Get("/api/v1/content/read?uri=" + Q(dir + "/nested/child.md")).status, 200);

  // Type conflicts are 400 and change nothing; a missing source is 404.
  Reply file_onto_dir = PostJson("/api/v1/fs/cp", {{"from_uri", source}, {"to_uri", dir}});
  EXPECT_EQ(file_onto_dir.status, 400) << file_onto_dir.raw;
  Reply dir_onto_file =
      PostJson("/api/v1/fs/cp", {{"from_uri", dir}, {"to_uri", source}, {"recursive", true}});
  EXPECT_EQ(dir_onto_file.status, 400) << dir_onto_file.raw;
  EXPECT_EQ(Get("/api/v1/content/read?uri=" + Q(source)).json["result"],
            "copy payload about lighthouses");
  Reply into_itself = PostJson(
      "/api/v1/fs/cp", {{"from_uri", dir}, {"to_uri", dir + "/nested/x"}, {"recursive", true}});
  EXPECT_EQ(into_itself.status, 400) << into_itself.raw;
  Reply missing =
      PostJson("/api/v1/fs/cp", {{"from_uri", Root() + "/nope.md"}, {"to_uri", target}});
  EXPECT_EQ(missing.status, 404) << missing.raw;
}

// A node's links follow it when it moves and go when it is removed, as
// OpenViking's .relations.json does inside the node; links to it stay.
TEST_F(CompatApiTest, RelationsFollowAMoveAndGoWithARemoval) {
  const std::string a = Root() + "/rel-a";
  const std::string child = a + "/inner";
  const std::string target = Root() + "/rel-target";
  const std::string moved = Root() + "/rel-moved";
  Mkdir(a);
  Mkdir(child);
  Mkdir(target);
  Mkdir(Root() + "/rel-a-sibling");
  for (const std::string& from : {a, child, Root() + "/rel-a-sibling"}) {
    ASSERT_EQ(PostJson("/api/v1/relations/link",
                       {{"from_uri", from}, {"to_uris", target}, {"reason", "see"}})
                  .status,
              200);
  }
  ASSERT_EQ(PostJson("/api/v1/relations/link", {{"from_uri", target}, {"to_uris", a}}).status, 200);
  const Json to_target = Json{{{"uri", target}, {"reason", "see"}}};

  Reply mv = PostJson("/api/v1/fs/mv", {{"from_uri", a}, {"to_uri", moved}});
  ASSERT_EQ(mv.status, 200) << mv.raw;
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(moved)).json["result"], to_target);
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(moved + "/inner")).json["result"], to_target);
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(Root() + "/rel-a-sibling")).json["result"],
            to_target);
  // A new node at the old URI starts with no links.
  Mkdir(a);
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(a)).json["result"], Json::array());
  // Links to the moved node are the linking node's: they stay as written.
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(target)).json["result"],
            (Json{{{"uri", a}, {"reason", ""}}}));

  Reply rm = Delete("/api/v1/fs?uri=" + Q(moved) + "&recursive=true");
  ASSERT_EQ(rm.status, 200) << rm.raw;
  Mkdir(moved);
  Mkdir(moved + "/inner");
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(moved)).json["result"], Json::array());
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(moved + "/inner")).json["result"], Json::array());
}

// OpenViking's relations routes (its SDK's link/unlink/relations and its API
// tests): link one or several targets with a reason, list, unlink.
TEST_F(CompatApiTest, RelationsLinkListUnlink) {
  const std::string a = Root() + "/src";
  const std::string b = Root() + "/dst";
  const std::string c = Root() + "/third";
  Mkdir(a);
  Mkdir(b);
  Mkdir(c);
  Reply empty = Get("/api/v1/relations?uri=" + Q(a));
  ASSERT_EQ(empty.status, 200) << empty.raw;
  EXPECT_EQ(empty.json["result"], Json::array());

  Reply linked = PostJson("/api/v1/relations/link",
                          {{"from_uri", a}, {"to_uris", {b}}, {"reason", "Test link"}});
  ASSERT_EQ(linked.status, 200) << linked.raw;
  EXPECT_TRUE(linked.json["error"].is_null()) << linked.raw;
  EXPECT_EQ(linked.json["result"], (Json{{"from", a}, {"to", {b}}}));
  Reply single = PostJson("/api/v1/relations/link", {{"from_uri", a}, {"to_uris", c}});
  ASSERT_EQ(single.status, 200) << single.raw;
  EXPECT_EQ(single.json["result"]["to"], c);

  Reply listed = Get("/api/v1/relations?uri=" + Q(a));
  ASSERT_EQ(listed.status, 200) << listed.raw;
  EXPECT_EQ(listed.json["result"],
            (Json{{{"uri", b}, {"reason", "Test link"}}, {{"uri", c}, {"reason", ""}}}));

  Reply unlinked =
      ToReply(client_->Delete("/api/v1/relations/link", {},
                              Json{{"from_uri", a}, {"to_uri", b}}.dump(), "application/json"));
  ASSERT_EQ(unlinked.status, 200) << unlinked.raw;
  EXPECT_EQ(unlinked.json["result"], (Json{{"from", a}, {"to", b}}));
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(a)).json["result"],
            (Json{{{"uri", c}, {"reason", ""}}}));
  // Unlinking what is not linked is no error.
  Reply again =
      ToReply(client_->Delete("/api/v1/relations/link", {},
                              Json{{"from_uri", a}, {"to_uri", b}}.dump(), "application/json"));
  EXPECT_EQ(again.status, 200) << again.raw;

  // Missing nodes are 404; a bad body is 400.
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(Root() + "/nope")).status, 404);
  EXPECT_EQ(
      PostJson("/api/v1/relations/link", {{"from_uri", Root() + "/nope"}, {"to_uris", b}}).status,
      404);
  EXPECT_EQ(
      PostJson("/api/v1/relations/link", {{"from_uri", a}, {"to_uris", Root() + "/nope"}}).status,
      404);
  EXPECT_EQ(PostJson("/api/v1/relations/link", {{"from_uri", a}}).status, 400);
  EXPECT_EQ(PostJson("/api/v1/relations/link", {{"from_uri", a}, {"to_uris", 5}}).status, 400);
  EXPECT_EQ(Get("/api/v1/relations").status, 400);

  // Relations survive a restart (they are kept in the catalog).
  ASSERT_EQ(server_->Stop(SIGTERM), 0);
  server_ = SkaldProcess::Start(workspace_->path());
  ASSERT_NE(server_, nullptr);
  client_ = server_->NewClient();
  EXPECT_EQ(Get("/api/v1/relations?uri=" + Q(a)).json["result"],
            (Json{{{"uri", c}, {"reason", ""}}}));
}

// `ov ls --offset N --limit M` (and tree): skip N entries, then at most M.
TEST_F(CompatApiTest, LsAndTreeOffsetSkipEntries) {
  for (const char* name : {"a.md", "b.md", "c.md", "d.md"}) Create(Root() + "/" + name, name);
  auto uris = [](const Reply& r) {
    std::vector<std::string> out;
    for (const Json& entry : r.json["result"]) out.push_back(entry.value("uri", ""));
    return out;
  };
  const std::string ls = "/api/v1/fs/ls?uri=" + Q(Root()) + "&node_limit=256&sort_by=name";
  Reply page = Get(ls + "&offset=1&limit=2");
  ASSERT_EQ(page.status, 200) << page.raw;
  EXPECT_EQ(uris(page), (std::vector<std::string>{Root() + "/b.md", Root() + "/c.md"}));
  Reply rest = Get(ls + "&offset=3");
  ASSERT_EQ(rest.status, 200) << rest.raw;
  EXPECT_EQ(uris(rest), (std::vector<std::string>{Root() + "/d.md"}));
  EXPECT_EQ(Get(ls + "&offset=10").json["result"], Json::array());
  EXPECT_EQ(Get(ls + "&offset=-1").status, 400);

  Reply all = Get("/api/v1/fs/tree?uri=" + Q(Root()));
  ASSERT_EQ(all.status, 200) << all.raw;
  Reply tree = Get("/api/v1/fs/tree?uri=" + Q(Root()) + "&offset=2&limit=1");
  ASSERT_EQ(tree.status, 200) << tree.raw;
  ASSERT_EQ(tree.json["result"].size(), 1u) << tree.raw;
  EXPECT_EQ(tree.json["result"][0]["uri"], all.json["result"][2]["uri"]);
}

// PATCH …/config answers with OpenViking's exclude-none envelope (no null
// error/telemetry/profile keys; nulls inside `result` kept), and telemetry
// when asked for.
TEST_F(CompatApiTest, SessionConfigPatchUsesExcludeNoneEnvelope) {
  ASSERT_EQ(PostJson("/api/v1/sessions", {{"session_id", "cfg"}}).status, 200);
  Reply r =
      ToReply(client_->Patch("/api/v1/sessions/cfg/config",
                             Json{{"auto_commit_policy", nullptr}}.dump(), "application/json"));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_FALSE(r.json.contains("error")) << r.raw;
  EXPECT_FALSE(r.json.contains("telemetry")) << r.raw;
  EXPECT_TRUE(r.json["result"].contains("auto_commit_policy")) << r.raw;
  EXPECT_TRUE(r.json["result"]["auto_commit_policy"].is_null()) << r.raw;
  Reply t =
      ToReply(client_->Patch("/api/v1/sessions/cfg/config",
                             Json{{"memory_extraction_config", {{"events", {{"tags", {"a=b"}}}}}},
                                  {"telemetry", {{"summary", true}}}}
                                 .dump(),
                             "application/json"));
  ASSERT_EQ(t.status, 200) << t.raw;
  EXPECT_EQ(t.json["telemetry"]["summary"].value("operation", ""), "session.update_config")
      << t.raw;
}

// OpenViking's API tests upload 101 MiB through temp_upload (its cap is
// 512 MiB): the upload route has its own cap, server.max_upload_bytes
// (128 MiB by default), above the 32 MiB of JSON bodies.
TEST_F(CompatApiTest, TempUploadTakesFilesLargerThanTheJsonBodyCap) {
  const std::string big(101u << 20, 'x');
  httplib::MultipartFormDataItems items = {
      {"file", big, "big_file.bin", "application/octet-stream"}};
  Reply r = ToReply(client_->Post("/api/v1/resources/temp_upload", items));
  ASSERT_EQ(r.status, 200) << r.raw.substr(0, 300);
  EXPECT_NE(r.json["result"].value("temp_file_id", ""), "");
  // Other routes keep the JSON body cap: a 33 MiB Content-Length is refused
  // from the head alone.
  const std::string head = RawHttp(
      server_->port(),
      "POST /api/v1/content/write HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server_->port()) +
          "\r\nContent-Type: application/json\r\n"
          "Content-Length: " +
          std::to_string(33u << 20) + "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 413", 0), 0u) << head.substr(0, 300);
  EXPECT_NE(head.find("server.max_body_bytes"), std::string::npos) << head.substr(0, 300);
}

// A server whose upload cap is smaller than the upload: 413 naming the key.
class CompatUploadCapApiTest : public ApiTest {
 protected:
  void SetUp() override {
    StartServer(Json{{"server", {{"max_body_bytes", 32 << 10}, {"max_upload_bytes", 64 << 10}}}});
  }
};

TEST_F(CompatUploadCapApiTest, UploadOverTheCapIs413) {
  httplib::MultipartFormDataItems items = {
      {"file", std::string(128u << 10, 'y'), "f.txt", "text/plain"}};
  Reply r = ToReply(client_->Post("/api/v1/resources/temp_upload", items));
  EXPECT_EQ(r.status, 413) << r.raw;
  EXPECT_EQ(r.Code(), "RESOURCE_EXHAUSTED");
  EXPECT_NE(r.json["error"].value("message", "").find("server.max_upload_bytes"), std::string::npos)
      << r.raw;
  ExpectHealthy();
}

}  // namespace
}  // namespace skald::apitest
