// Tenant isolation over HTTP in api_key mode: two accounts and three users
// (acme/alice, acme/bob, globex/carol), each with private memories and
// account resources carrying unique marker words. Every attacker tries to
// reach data that is not theirs through every route — ls, tree, stat, read,
// download, abstract, overview, find, search, grep, glob, tasks, uploads —
// with and without spoofed identity headers, and must see nothing: absent
// from listings and results; on direct access 403 for another user's space
// and 404 for another account's data, the same whether the path exists.

#include <string>
#include <vector>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

constexpr const char* kRootKey = "root-key-for-isolation-tests-0123456789";

// Marker words that occur only in one owner's data.
constexpr const char* kAliceMemory = "zanzibarquokka";
constexpr const char* kBobMemory = "xylophonewombat";
constexpr const char* kAcmeResource = "marmaladeplatypus";
constexpr const char* kCarolMemory = "tangerinenarwhal";
constexpr const char* kGlobexResource = "saffronpangolin";

struct Caller {
  std::string name;
  httplib::Headers headers;
};

class IsolationApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ = std::make_unique<TempDir>();
    config_dir_ = std::make_unique<TempDir>();
    const std::string conf = config_dir_->path() + "/skald.conf";
    {
      std::FILE* f = std::fopen(conf.c_str(), "w");
      ASSERT_NE(f, nullptr);
      const std::string text =
          std::string(R"({"server": {"root_api_key": ")") + kRootKey + R"("}})";
      std::fputs(text.c_str(), f);
      std::fclose(f);
    }
    server_ = SkaldProcess::Start(workspace_->path(), {"--config", conf});
    ASSERT_NE(server_, nullptr);
    client_ = server_->NewClient();

    alice_ = CreateAccount("acme", "alice");
    bob_ = RegisterUser("acme", "bob");
    carol_ = CreateAccount("globex", "carol");
    ASSERT_FALSE(alice_.empty());
    ASSERT_FALSE(bob_.empty());
    ASSERT_FALSE(carol_.empty());

    Write(alice_, "viking://user/alice/memories/profile.md",
          std::string("Alice keeps a pet called ") + kAliceMemory);
    Write(bob_, "viking://user/bob/memories/profile.md",
          std::string("Bob plays the ") + kBobMemory);
    Write(alice_, "viking://resources/acme/plan.md",
          std::string("The acme plan is ") + kAcmeResource);
    Write(carol_, "viking://user/carol/memories/profile.md",
          std::string("Carol likes ") + kCarolMemory);
    Write(carol_, "viking://resources/globex/plan.md",
          std::string("The globex plan is ") + kGlobexResource);
    // Everything indexed before anyone searches.
    Reply waited = Send("POST", "/api/v1/system/wait", RootHeaders(), R"({"timeout": 60})");
    ASSERT_EQ(waited.status, 200) << waited.raw;
  }

  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(SIGTERM), 0);
    }
  }

  static httplib::Headers KeyHeaders(const std::string& key) { return {{"X-API-Key", key}}; }
  static httplib::Headers RootHeaders() { return KeyHeaders(kRootKey); }

  Reply Send(const std::string& method, const std::string& path, const httplib::Headers& headers,
             const std::string& body = "") {
    auto send = [&]() -> httplib::Result {
      if (method == "GET") return client_->Get(path, headers);
      if (method == "POST") return client_->Post(path, headers, body, "application/json");
      return client_->Delete(path, headers);
    };
    return ToReply(send());
  }

  std::string CreateAccount(const std::string& account, const std::string& admin) {
    Reply r = Send("POST", "/api/v1/admin/accounts", RootHeaders(),
                   Json{{"account_id", account}, {"admin_user_id", admin}}.dump());
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"].value("user_key", "");
  }

  std::string RegisterUser(const std::string& account, const std::string& user) {
    Reply r = Send("POST", "/api/v1/admin/accounts/" + account + "/users", RootHeaders(),
                   Json{{"user_id", user}, {"role", "user"}}.dump());
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"].value("user_key", "");
  }

  void Write(const std::string& key, const std::string& uri, const std::string& content) {
    Reply r =
        Send("POST", "/api/v1/content/write", KeyHeaders(key),
             Json{{"uri", uri}, {"content", content}, {"mode", "create"}, {"wait", true}}.dump());
    ASSERT_EQ(r.status, 200) << uri << ": " << r.raw;
  }

  // The attackers of `victim` data: every other user, each also with spoofed
  // headers claiming to be the victim.
  std::vector<Caller> Attackers(const std::string& victim_account, const std::string& victim_user) {
    std::vector<Caller> out;
    const std::vector<std::pair<std::string, std::string>> users = {
        {"bob", bob_}, {"carol", carol_}, {"alice", alice_}};
    for (const auto& [name, key] : users) {
      if (name == victim_user) continue;
      out.push_back({name, KeyHeaders(key)});
      httplib::Headers spoofed = KeyHeaders(key);
      spoofed.emplace("X-OpenViking-Account", victim_account);
      spoofed.emplace("X-OpenViking-User", victim_user);
      out.push_back({name + "+spoofed-headers", spoofed});
      httplib::Headers bearer = {{"Authorization", "Bearer " + key},
                                 {"X-OpenViking-Account", victim_account},
                                 {"X-OpenViking-User", victim_user}};
      out.push_back({name + "+bearer+spoofed", bearer});
    }
    return out;
  }

  // Asserts that nothing `caller` can see mentions `marker` or `path_part`.
  void ExpectInvisible(const Caller& caller, const std::string& marker,
                       const std::string& path_part, const std::string& file_uri,
                       const std::string& dir_uri) {
    SCOPED_TRACE("caller " + caller.name + ", target " + file_uri);
    // Listings and results must not mention the victim's paths; an error
    // about a direct request names the URI asked for, as for any missing path.
    auto no_leak = [&](const Reply& r, const std::string& what, bool names_request = false) {
      EXPECT_EQ(r.raw.find(marker), std::string::npos) << what << " leaked: " << r.raw;
      if (!names_request) {
        EXPECT_EQ(r.raw.find(path_part), std::string::npos) << what << " leaked: " << r.raw;
      }
    };
    // Listings from the top.
    for (const std::string& uri : {std::string("viking://"), std::string("viking://user"),
                                   std::string("viking://resources")}) {
      Reply ls = Send("GET", "/api/v1/fs/ls?uri=" + Q(uri) + "&recursive=true", caller.headers);
      EXPECT_EQ(ls.status, 200) << ls.raw;
      no_leak(ls, "ls " + uri);
      Reply tree = Send("GET", "/api/v1/fs/tree?uri=" + Q(uri) + "&level_limit=10", caller.headers);
      EXPECT_EQ(tree.status, 200) << tree.raw;
      no_leak(tree, "tree " + uri);
    }
    // Direct access: another user's space is 403 "Access denied" (reference
    // §5.4), decided by the URI alone; another account's data is simply not
    // in the caller's account (404). Either way a path that does not exist
    // there answers exactly the same: nothing tells whether it exists.
    const bool other_user = file_uri.rfind("viking://user/", 0) == 0;
    const int status = other_user ? 403 : 404;
    const std::string code = other_user ? "PERMISSION_DENIED" : "NOT_FOUND";
    auto same_as_missing = [&](const std::string& route, const std::string& uri, const Reply& r) {
      Reply missing = Send("GET", route + Q(uri + "-missing"), caller.headers);
      EXPECT_EQ(missing.status, r.status) << route << ": " << missing.raw;
      EXPECT_EQ(missing.Code(), r.Code()) << missing.raw;
    };
    for (const std::string& route :
         {std::string("/api/v1/fs/stat?uri="), std::string("/api/v1/content/read?uri="),
          std::string("/api/v1/content/download?uri="), std::string("/api/v1/fs/ls?uri=")}) {
      Reply r = Send("GET", route + Q(file_uri), caller.headers);
      EXPECT_EQ(r.status, status) << route << ": " << r.raw;
      EXPECT_EQ(r.Code(), code) << r.raw;
      no_leak(r, route, /*names_request=*/true);
      same_as_missing(route, file_uri, r);
    }
    for (const std::string& route :
         {std::string("/api/v1/content/abstract?uri="),
          std::string("/api/v1/content/overview?uri="), std::string("/api/v1/fs/ls?uri="),
          std::string("/api/v1/fs/tree?uri=")}) {
      Reply r = Send("GET", route + Q(dir_uri), caller.headers);
      EXPECT_EQ(r.status, status) << route << dir_uri << ": " << r.raw;
      EXPECT_EQ(r.Code(), code) << r.raw;
      no_leak(r, route, /*names_request=*/true);
      same_as_missing(route, dir_uri, r);
    }
    // Search routes.
    for (const std::string& route :
         {std::string("/api/v1/search/find"), std::string("/api/v1/search/search")}) {
      // search echoes the query in its query_plan: only the hits count.
      auto hits_only = [](Reply r) {
        if (r.json.is_object() && r.json.contains("result") && r.json["result"].is_object()) {
          r.json["result"].erase("query_plan");
          r.raw = r.json.dump();
        }
        return r;
      };
      Reply r = hits_only(Send("POST", route, caller.headers, Json{{"query", marker}}.dump()));
      EXPECT_EQ(r.status, 200) << route << ": " << r.raw;
      no_leak(r, route);
      Reply targeted = hits_only(Send("POST", route, caller.headers,
                                      Json{{"query", marker}, {"target_uri", dir_uri}}.dump()));
      // An invisible target answers 403, 404 or an empty result, never hits.
      EXPECT_TRUE(targeted.status == 200 || targeted.status == 404 || targeted.status == 403)
          << targeted.raw;
      no_leak(targeted, route + " with target_uri", /*names_request=*/true);
    }
    Reply grep = Send("POST", "/api/v1/search/grep", caller.headers,
                      Json{{"uri", "viking://"}, {"pattern", marker}}.dump());
    EXPECT_EQ(grep.status, 200) << grep.raw;
    no_leak(grep, "grep");
    Reply glob = Send("POST", "/api/v1/search/glob", caller.headers,
                      Json{{"uri", "viking://"}, {"pattern", "**/*.md"}}.dump());
    EXPECT_EQ(glob.status, 200) << glob.raw;
    no_leak(glob, "glob");
    // Writes into the victim's space do not land.
    Reply write =
        Send("POST", "/api/v1/content/write", caller.headers,
             Json{{"uri", file_uri}, {"content", "overwritten"}, {"mode", "replace"}}.dump());
    EXPECT_NE(write.status, 200) << write.raw;
    Reply rm = Send("DELETE", "/api/v1/fs?uri=" + Q(file_uri), caller.headers);
    // rm of an absent path is idempotent (200) but must delete nothing.
    EXPECT_TRUE(rm.status == 200 || rm.status == 404 || rm.status == 403) << rm.raw;
  }

  std::unique_ptr<TempDir> workspace_;
  std::unique_ptr<TempDir> config_dir_;
  std::unique_ptr<SkaldProcess> server_;
  std::unique_ptr<httplib::Client> client_;
  std::string alice_, bob_, carol_;
};

TEST_F(IsolationApiTest, AnotherUsersMemoriesAreInvisibleThroughEveryRoute) {
  for (const Caller& caller : Attackers("acme", "alice")) {
    ExpectInvisible(caller, kAliceMemory, "/user/alice", "viking://user/alice/memories/profile.md",
                    "viking://user/alice/memories");
  }
  for (const Caller& caller : Attackers("acme", "bob")) {
    ExpectInvisible(caller, kBobMemory, "/user/bob", "viking://user/bob/memories/profile.md",
                    "viking://user/bob/memories");
  }
  // The owners still see their own data after all of that.
  Reply own =
      Send("GET", "/api/v1/content/read?uri=" + Q("viking://user/alice/memories/profile.md"),
           KeyHeaders(alice_));
  ASSERT_EQ(own.status, 200) << own.raw;
  EXPECT_NE(own.raw.find(kAliceMemory), std::string::npos);
  Reply bob_own =
      Send("GET", "/api/v1/content/read?uri=" + Q("viking://user/bob/memories/profile.md"),
           KeyHeaders(bob_));
  ASSERT_EQ(bob_own.status, 200) << bob_own.raw;
  EXPECT_NE(bob_own.raw.find(kBobMemory), std::string::npos);
}

TEST_F(IsolationApiTest, AnotherAccountsResourcesAndMemoriesAreInvisible) {
  for (const Caller& caller : Attackers("globex", "carol")) {
    if (caller.name.rfind("carol", 0) == 0) continue;
    ExpectInvisible(caller, kCarolMemory, "/user/carol", "viking://user/carol/memories/profile.md",
                    "viking://user/carol/memories");
    ExpectInvisible(caller, kGlobexResource, "globex", "viking://resources/globex/plan.md",
                    "viking://resources/globex");
  }
  // carol (globex) against acme's resources, with and without spoofing.
  for (const Caller& caller : Attackers("acme", "alice")) {
    if (caller.name.rfind("carol", 0) != 0) continue;
    ExpectInvisible(caller, kAcmeResource, "/acme", "viking://resources/acme/plan.md",
                    "viking://resources/acme");
  }
  // Users of one account share its resources.
  Reply shared = Send("GET", "/api/v1/content/read?uri=" + Q("viking://resources/acme/plan.md"),
                      KeyHeaders(bob_));
  ASSERT_EQ(shared.status, 200) << shared.raw;
  EXPECT_NE(shared.raw.find(kAcmeResource), std::string::npos);
  Reply found =
      Send("POST", "/api/v1/search/find", KeyHeaders(bob_), Json{{"query", kAcmeResource}}.dump());
  ASSERT_EQ(found.status, 200) << found.raw;
  EXPECT_NE(found.raw.find("viking://resources/acme/plan.md"), std::string::npos) << found.raw;
}

// A tag filter on grep or glob narrows what the caller may see; it never
// reaches a file of another user or account that carries the tag.
TEST_F(IsolationApiTest, TagFiltersOfGrepAndGlobStayInTheCallersSpace) {
  const std::string memory = "viking://user/alice/memories/profile.md";
  Reply tagged = Send("POST", "/api/v1/fs/attrs/set_tags", KeyHeaders(alice_),
                      Json{{"uri", memory}, {"tags", {"pet=quokka"}}}.dump());
  ASSERT_EQ(tagged.status, 200) << tagged.raw;
  auto grep = [&](const std::string& key) {
    return Send("POST", "/api/v1/search/grep", KeyHeaders(key),
                Json{{"uri", "viking://"},
                     {"pattern", "."},
                     {"tags", {"pet=quokka"}},
                     {"include_tags", true}}
                    .dump());
  };
  auto glob = [&](const std::string& key) {
    return Send("POST", "/api/v1/search/glob", KeyHeaders(key),
                Json{{"uri", "viking://"},
                     {"pattern", "**"},
                     {"tags", {"pet=quokka"}},
                     {"extra_fields", {"name", "tags"}}}
                    .dump());
  };
  // The owner finds her file by its tag.
  Reply own = grep(alice_);
  ASSERT_EQ(own.status, 200) << own.raw;
  ASSERT_EQ(own.json["result"]["count"], 1) << own.raw;
  EXPECT_EQ(own.json["result"]["matches"][0]["uri"], memory);
  EXPECT_EQ(own.json["result"]["matches"][0]["tags"], Json({"pet=quokka"}));
  Reply own_glob = glob(alice_);
  ASSERT_EQ(own_glob.status, 200) << own_glob.raw;
  EXPECT_EQ(own_glob.json["result"]["matches"],
            Json::array({{{"uri", memory}, {"name", "profile.md"}, {"tags", {"pet=quokka"}}}}));
  // Another user of the account and a user of another account: nothing.
  for (const std::string& key : {bob_, carol_}) {
    for (const Reply& r : {grep(key), glob(key)}) {
      ASSERT_EQ(r.status, 200) << r.raw;
      EXPECT_EQ(r.json["result"]["count"], 0) << r.raw;
      EXPECT_EQ(r.raw.find("alice"), std::string::npos) << r.raw;
      EXPECT_EQ(r.raw.find(kAliceMemory), std::string::npos) << r.raw;
    }
  }
}

TEST_F(IsolationApiTest, TasksAndUploadsBelongToTheirUser) {
  // alice uploads a file and imports it: her task and her upload id.
  httplib::MultipartFormDataItems items = {
      {"file", std::string("alice upload ") + kAliceMemory, "notes.md", "text/markdown"}};
  httplib::Result up = client_->Post("/api/v1/resources/temp_upload", KeyHeaders(alice_), items);
  ASSERT_TRUE(up);
  ASSERT_EQ(up->status, 200) << up->body;
  const std::string upload_id = Json::parse(up->body)["result"].value("temp_file_id", "");
  ASSERT_FALSE(upload_id.empty()) << up->body;

  // bob cannot claim it, with or without claiming to be alice.
  for (const Caller& caller : Attackers("acme", "alice")) {
    Reply stolen =
        Send("POST", "/api/v1/resources", caller.headers,
             Json{{"temp_file_id", upload_id}, {"to", "viking://resources/stolen"}}.dump());
    EXPECT_NE(stolen.status, 200) << caller.name << ": " << stolen.raw;
  }
  Reply added =
      Send("POST", "/api/v1/resources", KeyHeaders(alice_),
           Json{{"temp_file_id", upload_id}, {"to", "viking://resources/alice-notes"}}.dump());
  ASSERT_EQ(added.status, 200) << added.raw;
  const std::string task_id = added.json["result"].value("task_id", "");
  ASSERT_FALSE(task_id.empty()) << added.raw;

  for (const Caller& caller : Attackers("acme", "alice")) {
    SCOPED_TRACE(caller.name);
    Reply task = Send("GET", "/api/v1/tasks/" + task_id, caller.headers);
    EXPECT_EQ(task.status, 404) << task.raw;
    Reply list = Send("GET", "/api/v1/tasks", caller.headers);
    EXPECT_EQ(list.status, 200) << list.raw;
    EXPECT_EQ(list.raw.find(task_id), std::string::npos) << list.raw;
  }
  Reply mine = Send("GET", "/api/v1/tasks/" + task_id, KeyHeaders(alice_));
  EXPECT_EQ(mine.status, 200) << mine.raw;
}

// A user's own resources root is there to add to on first use, named
// through the home alias (OpenViking's API tests).
TEST_F(IsolationApiTest, AUsersFirstResourceGoesIntoTheirOwnResourcesRoot) {
  httplib::MultipartFormDataItems items = {
      {"file", "# Short docs\n\nHow to file a report.\n", "user_short_docs.md", "text/markdown"}};
  httplib::Result up = client_->Post("/api/v1/resources/temp_upload", KeyHeaders(alice_), items);
  ASSERT_TRUE(up);
  ASSERT_EQ(up->status, 200) << up->body;
  const std::string upload_id = Json::parse(up->body)["result"].value("temp_file_id", "");
  Reply added = Send(
      "POST", "/api/v1/resources", KeyHeaders(alice_),
      Json{{"temp_file_id", upload_id}, {"parent", "viking://~/resources"}, {"wait", true}}.dump());
  ASSERT_EQ(added.status, 200) << added.raw;
  EXPECT_EQ(added.json["result"].value("root_uri", ""),
            "viking://user/alice/resources/user_short_docs")
      << added.raw;
  // Any other parent still has to exist (or create_parent).
  httplib::Result again = client_->Post("/api/v1/resources/temp_upload", KeyHeaders(alice_), items);
  ASSERT_TRUE(again);
  const std::string second = Json::parse(again->body)["result"].value("temp_file_id", "");
  Reply missing =
      Send("POST", "/api/v1/resources", KeyHeaders(alice_),
           Json{{"temp_file_id", second}, {"parent", "viking://~/resources/nope"}}.dump());
  EXPECT_EQ(missing.status, 404) << missing.raw;
}

// POST /system/consistency counts and names only what the caller sees:
// bob's view of viking:// holds none of alice's records, and another user's
// space is not found for every attacker; the backend sync routes are for
// ROOT and ADMIN.
TEST_F(IsolationApiTest, ConsistencyCountsOnlyWhatTheCallerSees) {
  auto check = [&](const httplib::Headers& headers, const std::string& uri) {
    return Send("POST", "/api/v1/system/consistency", headers, Json{{"uri", uri}}.dump());
  };
  Reply bob_all = check(KeyHeaders(bob_), "viking://");
  ASSERT_EQ(bob_all.status, 200) << bob_all.raw;
  EXPECT_EQ(bob_all.json["result"]["ok"], true) << bob_all.raw;
  Reply bob_own = check(KeyHeaders(bob_), "viking://user/bob");
  ASSERT_EQ(bob_own.status, 200) << bob_own.raw;
  const int own = bob_own.json["result"]["expected_count"].get<int>();
  EXPECT_GE(own, 1) << bob_own.raw;  // his profile (and its directories' records)
  Reply bob_users = check(KeyHeaders(bob_), "viking://user");
  ASSERT_EQ(bob_users.status, 200) << bob_users.raw;
  EXPECT_EQ(bob_users.json["result"]["expected_count"], own) << bob_users.raw;  // not alice's
  for (const Caller& caller : Attackers("acme", "alice")) {
    Reply r = check(caller.headers, "viking://user/alice/memories");
    EXPECT_NE(r.status, 200) << caller.name << ": " << r.raw;
    EXPECT_EQ(r.raw.find("profile.md"), std::string::npos) << caller.name << ": " << r.raw;
  }
  const std::string body = Json{{"uri", "viking://resources"}}.dump();
  EXPECT_EQ(Send("POST", "/api/v1/system/backend/sync-status", KeyHeaders(bob_), body).status,
            403);
  EXPECT_EQ(Send("POST", "/api/v1/system/backend/sync-retry", KeyHeaders(bob_), body).status, 403);
  EXPECT_EQ(Send("POST", "/api/v1/system/backend/sync-status", KeyHeaders(alice_), body).status,
            200);  // alice is acme's ADMIN
}

TEST_F(IsolationApiTest, KeysAreCheckedAndRootStaysOutOfTenantData) {
  Reply missing = Send("GET", "/api/v1/fs/ls?uri=viking://resources", {});
  EXPECT_EQ(missing.status, 401) << missing.raw;
  Reply wrong = Send("GET", "/api/v1/fs/ls?uri=viking://resources", KeyHeaders(alice_ + "x"));
  EXPECT_EQ(wrong.status, 401) << wrong.raw;
  Reply spoof_only = Send("GET", "/api/v1/fs/ls?uri=viking://resources",
                          {{"X-OpenViking-Account", "acme"}, {"X-OpenViking-User", "alice"}});
  EXPECT_EQ(spoof_only.status, 401) << spoof_only.raw;
  Reply root_data = Send("GET", "/api/v1/fs/ls?uri=viking://resources", RootHeaders());
  EXPECT_EQ(root_data.status, 403) << root_data.raw;
  Reply root_tasks = Send("GET", "/api/v1/tasks", RootHeaders());
  EXPECT_EQ(root_tasks.status, 200) << root_tasks.raw;

  // A rotated key stops working at once; the new one works.
  Reply rotated = Send("POST", "/api/v1/admin/accounts/acme/users/bob/key", KeyHeaders(alice_));
  ASSERT_EQ(rotated.status, 200) << rotated.raw;
  const std::string new_bob = rotated.json["result"].value("user_key", "");
  ASSERT_FALSE(new_bob.empty());
  EXPECT_EQ(Send("GET", "/api/v1/fs/ls?uri=viking://resources", KeyHeaders(bob_)).status, 401);
  EXPECT_EQ(Send("GET", "/api/v1/fs/ls?uri=viking://resources", KeyHeaders(new_bob)).status, 200);

  // A newly registered user finds their own (preset) space, and only it.
  const std::string dave = RegisterUser("acme", "dave");
  Reply dave_users =
      Send("GET", "/api/v1/fs/ls?uri=" + Q("viking://user") + "&simple=true", KeyHeaders(dave));
  ASSERT_EQ(dave_users.status, 200) << dave_users.raw;
  EXPECT_EQ(dave_users.json["result"], Json::array({"viking://user/dave"})) << dave_users.raw;
  Reply dave_space = Send("GET", "/api/v1/fs/ls?uri=" + Q("viking://user/dave") + "&simple=true",
                          KeyHeaders(dave));
  ASSERT_EQ(dave_space.status, 200) << dave_space.raw;
  EXPECT_EQ(dave_space.json["result"],
            Json::array({"viking://user/dave/memories", "viking://user/dave/resources"}))
      << dave_space.raw;

  // An admin manages its own account only.
  Reply foreign_admin = Send("GET", "/api/v1/admin/accounts/globex/users", KeyHeaders(alice_));
  EXPECT_EQ(foreign_admin.status, 403) << foreign_admin.raw;
  Reply plain_user = Send("GET", "/api/v1/admin/accounts/acme/users", KeyHeaders(new_bob));
  EXPECT_EQ(plain_user.status, 403) << plain_user.raw;
}

}  // namespace
}  // namespace skald::apitest
