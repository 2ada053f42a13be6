// Black-box tests of api_key mode and the admin API (reference §2.9, §5):
// a real `skald serve` with server.root_api_key set, driven over HTTP.

#include <chrono>
#include <fstream>
#include <thread>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

constexpr const char* kAdminRootKey = "root-key-for-the-admin-api-tests";
constexpr const char* kMissing = "Missing API Key when resolving identity.";
constexpr const char* kInvalid = "Invalid API Key";

httplib::Headers KeyHeader(const std::string& key) { return {{"X-API-Key", key}}; }
httplib::Headers BearerHeader(const std::string& key) {
  return {{"Authorization", "Bearer " + key}};
}

class AdminApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ = std::make_unique<TempDir>();
    config_dir_ = std::make_unique<TempDir>();
    const std::string config = config_dir_->Sub("skald.conf");
    std::ofstream(config) << Json{{"server", {{"root_api_key", kAdminRootKey}}}}.dump();
    server_ = SkaldProcess::Start(workspace_->path(), {"--config", config});
    ASSERT_NE(server_, nullptr);
    client_ = server_->NewClient();
  }
  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(SIGTERM), 0);
    }
  }

  Reply Send(const std::string& method, const std::string& path, const httplib::Headers& headers,
             const Json& body = Json()) {
    const std::string text = body.is_null() ? std::string() : body.dump();
    if (method == "GET") return ToReply(client_->Get(path, headers));
    if (method == "DELETE") return ToReply(client_->Delete(path, headers));
    if (method == "PUT") return ToReply(client_->Put(path, headers, text, "application/json"));
    return ToReply(client_->Post(path, headers, text, "application/json"));
  }
  Reply Root(const std::string& method, const std::string& path, const Json& body = Json()) {
    return Send(method, path, KeyHeader(kAdminRootKey), body);
  }
  // Creates `account` with `admin` and returns the admin's key.
  std::string CreateAccount(const std::string& account, const std::string& admin) {
    Reply r = Root("POST", "/api/v1/admin/accounts",
                   {{"account_id", account}, {"admin_user_id", admin}});
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"].value("user_key", "");
  }
  std::string RegisterUser(const std::string& key, const std::string& account,
                           const std::string& user, const std::string& role = "user") {
    Reply r = Send("POST", "/api/v1/admin/accounts/" + account + "/users", KeyHeader(key),
                   {{"user_id", user}, {"role", role}});
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"].value("user_key", "");
  }
  void WriteAs(const std::string& key, const std::string& uri, const std::string& content) {
    Reply r = Send("POST", "/api/v1/content/write", KeyHeader(key),
                   {{"uri", uri}, {"content", content}, {"mode", "create"}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  // Polls the task with the root key until it leaves pending/running.
  Json AwaitTask(const std::string& task_id) {
    Json task;
    for (int i = 0; i < 600; ++i) {
      Reply r = Root("GET", "/api/v1/tasks/" + task_id);
      EXPECT_EQ(r.status, 200) << r.raw;
      task = r.json["result"];
      const std::string status = task.value("status", "");
      if (status != "pending" && status != "running") return task;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "task " << task_id << " did not finish: " << task.dump();
    return task;
  }

  std::unique_ptr<TempDir> workspace_;
  std::unique_ptr<TempDir> config_dir_;
  std::unique_ptr<SkaldProcess> server_;
  std::unique_ptr<httplib::Client> client_;
};

void ExpectError(const Reply& r, int status, const std::string& code, const std::string& message = "") {
  EXPECT_EQ(r.status, status) << r.raw;
  EXPECT_EQ(r.Code(), code) << r.raw;
  if (!message.empty()) {
    EXPECT_EQ(r.json["error"].value("message", ""), message) << r.raw;
  }
}

TEST_F(AdminApiTest, MissingEmptyMalformedAndWrongKeysAre401) {
  const std::string path = "/api/v1/fs/ls?uri=viking://resources";
  ExpectError(Send("GET", path, {}), 401, "UNAUTHENTICATED", kMissing);
  ExpectError(Send("GET", path, {{"Authorization", "Bearer "}}), 401, "UNAUTHENTICATED", kMissing);
  ExpectError(Send("GET", path, KeyHeader("")), 401, "UNAUTHENTICATED", kMissing);
  ExpectError(Send("GET", path, KeyHeader("not-a-key")), 401, "UNAUTHENTICATED", kInvalid);
  ExpectError(Send("GET", path, KeyHeader("YQ.YQ.YWJj")), 401, "UNAUTHENTICATED", kInvalid);
  ExpectError(Send("GET", path, BearerHeader(std::string(kAdminRootKey) + "x")), 401,
              "UNAUTHENTICATED", kInvalid);
  // Identity headers alone are not an identity in api_key mode.
  ExpectError(Send("GET", path, {{"X-OpenViking-Account", "default"},
                                 {"X-OpenViking-User", "default"}}),
              401, "UNAUTHENTICATED", kMissing);
  // Unauthenticated routes stay open.
  Reply health = Send("GET", "/health", {});
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.json.value("auth_mode", ""), "api_key");
  EXPECT_FALSE(health.json.contains("user_id"));
}

TEST_F(AdminApiTest, RootKeyIsRefusedOnDataRoutesAndAllowedOnTasksAndAdmin) {
  ExpectError(Root("GET", "/api/v1/fs/ls?uri=viking://resources"), 403, "PERMISSION_DENIED");
  ExpectError(Send("POST", "/api/v1/content/write", BearerHeader(kAdminRootKey),
                   {{"uri", "viking://resources/x.md"}, {"content", "x"}}),
              403, "PERMISSION_DENIED");
  Reply tasks = Root("GET", "/api/v1/tasks");
  EXPECT_EQ(tasks.status, 200) << tasks.raw;
  Reply accounts = Send("GET", "/api/v1/admin/accounts", BearerHeader(kAdminRootKey));
  EXPECT_EQ(accounts.status, 200) << accounts.raw;
  Reply health = Send("GET", "/health", KeyHeader(kAdminRootKey));
  EXPECT_EQ(health.json.value("role", ""), "root") << health.raw;
}

TEST_F(AdminApiTest, AccountsLifecycle) {
  Reply created = Root("POST", "/api/v1/admin/accounts",
                       {{"account_id", "acme"}, {"admin_user_id", "alice"}});
  ASSERT_EQ(created.status, 200) << created.raw;
  const Json& result = created.json["result"];
  EXPECT_EQ(result.value("account_id", ""), "acme");
  EXPECT_EQ(result.value("admin_user_id", ""), "alice");
  const std::string alice = result.value("user_key", "");
  ASSERT_FALSE(alice.empty());

  ExpectError(Root("POST", "/api/v1/admin/accounts",
                   {{"account_id", "acme"}, {"admin_user_id", "zed"}}),
              409, "ALREADY_EXISTS");
  ExpectError(Root("POST", "/api/v1/admin/accounts",
                   {{"account_id", "_bad"}, {"admin_user_id", "zed"}}),
              400, "INVALID_ARGUMENT");
  ExpectError(Root("POST", "/api/v1/admin/accounts", {{"account_id", "x"}}), 400,
              "INVALID_ARGUMENT");
  // Account operations are ROOT only: an ADMIN key gets 403.
  ExpectError(Send("POST", "/api/v1/admin/accounts", KeyHeader(alice),
                   {{"account_id", "mine"}, {"admin_user_id", "me"}}),
              403, "PERMISSION_DENIED");
  ExpectError(Send("GET", "/api/v1/admin/accounts", KeyHeader(alice)), 403, "PERMISSION_DENIED");
  ExpectError(Send("GET", "/api/v1/admin/accounts", {}), 401, "UNAUTHENTICATED");

  Reply list = Root("GET", "/api/v1/admin/accounts");
  ASSERT_EQ(list.status, 200) << list.raw;
  ASSERT_EQ(list.json["result"].size(), 2u) << list.raw;
  const Json& acme = list.json["result"][0];
  EXPECT_EQ(acme.value("account_id", ""), "acme");
  EXPECT_EQ(acme.value("user_count", -1), 1);
  EXPECT_EQ(acme.value("created_at", "").size(), std::string("2026-01-01T00:00:00.000Z").size())
      << acme.dump();
  EXPECT_EQ(list.json["result"][1].value("account_id", ""), "default");

  // The admin's key works on data routes; the account's data goes with it.
  WriteAs(alice, "viking://resources/plan.md", "acme plans");
  Reply deleted = Root("DELETE", "/api/v1/admin/accounts/acme");
  ASSERT_EQ(deleted.status, 200) << deleted.raw;
  EXPECT_EQ(deleted.json["result"], Json({{"deleted", true}}));
  ExpectError(Send("GET", "/api/v1/fs/ls?uri=viking://resources", KeyHeader(alice)), 401,
              "UNAUTHENTICATED", kInvalid);
  ExpectError(Root("DELETE", "/api/v1/admin/accounts/acme"), 404, "NOT_FOUND");
  const std::string again = CreateAccount("acme", "alice");
  Reply empty = Send("GET", "/api/v1/fs/ls?uri=viking://resources", KeyHeader(again));
  ASSERT_EQ(empty.status, 200) << empty.raw;
  EXPECT_TRUE(empty.json["result"].empty()) << empty.raw;
}

TEST_F(AdminApiTest, UsersRolesAndAdminScope) {
  const std::string alice = CreateAccount("acme", "alice");
  const std::string gina = CreateAccount("globex", "gina");
  const std::string users = "/api/v1/admin/accounts/acme/users";

  Reply bob = Send("POST", users, KeyHeader(alice), {{"user_id", "bob"}});
  ASSERT_EQ(bob.status, 200) << bob.raw;
  EXPECT_EQ(bob.json["result"].value("account_id", ""), "acme");
  EXPECT_EQ(bob.json["result"].value("user_id", ""), "bob");
  const std::string bob_key = bob.json["result"].value("user_key", "");
  ASSERT_FALSE(bob_key.empty());

  ExpectError(Send("POST", users, KeyHeader(alice), {{"user_id", "bob"}}), 409, "ALREADY_EXISTS");
  ExpectError(Send("POST", users, KeyHeader(alice), {{"user_id", "eve"}, {"role", "root"}}), 403,
              "PERMISSION_DENIED");
  ExpectError(Send("POST", users, KeyHeader(alice), {{"user_id", "eve"}, {"role", "owner"}}), 400,
              "INVALID_ARGUMENT");
  ExpectError(Send("POST", users, KeyHeader(alice), {{"user_id", "a/b"}}), 400,
              "INVALID_ARGUMENT");
  ExpectError(Send("POST", users, KeyHeader(alice), {{"user_id", "seedy"}, {"seed", ""}}), 400,
              "INVALID_ARGUMENT");
  ExpectError(Root("POST", "/api/v1/admin/accounts",
                   {{"account_id", "seeded"}, {"admin_user_id", "x"}, {"seed", " "}}),
              400, "INVALID_ARGUMENT");
  ExpectError(Root("POST", "/api/v1/admin/accounts/nope/users", {{"user_id", "x"}}), 404,
              "NOT_FOUND");
  ExpectError(Root("GET", "/api/v1/admin/accounts/nope/users"), 404, "NOT_FOUND");
  // An ADMIN of another account, and a plain user, are refused.
  ExpectError(Send("POST", users, KeyHeader(gina), {{"user_id", "mole"}}), 403,
              "PERMISSION_DENIED");
  ExpectError(Send("GET", users, KeyHeader(gina)), 403, "PERMISSION_DENIED");
  ExpectError(Send("POST", users, KeyHeader(bob_key), {{"user_id", "mole"}}), 403,
              "PERMISSION_DENIED");
  // Spoofed identity headers do not widen a key.
  ExpectError(Send("GET", users,
                   {{"X-API-Key", gina}, {"X-OpenViking-Account", "acme"},
                    {"X-OpenViking-User", "alice"}, {"X-OpenViking-Role", "admin"}}),
              403, "PERMISSION_DENIED");

  RegisterUser(alice, "acme", "bert");
  Reply listed = Send("GET", users + "?name=b*&limit=10", KeyHeader(alice));
  ASSERT_EQ(listed.status, 200) << listed.raw;
  ASSERT_EQ(listed.json["result"].size(), 2u) << listed.raw;
  for (const Json& u : listed.json["result"]) {
    EXPECT_EQ(u.value("role", ""), "user");
    EXPECT_EQ(u.value("key_prefix", "").size(), 8u) << u.dump();
    EXPECT_FALSE(u.contains("api_key")) << u.dump();
    EXPECT_FALSE(u.contains("user_key")) << u.dump();
  }
  EXPECT_NE(bob_key.find(listed.json["result"][1].value("key_prefix", "?")), std::string::npos);
  Reply admins = Send("GET", users + "?role=admin", KeyHeader(alice));
  ASSERT_EQ(admins.json["result"].size(), 1u) << admins.raw;
  EXPECT_EQ(admins.json["result"][0].value("user_id", ""), "alice");
  EXPECT_EQ(Send("GET", users + "?limit=1", KeyHeader(alice)).json["result"].size(), 1u);

  // Promotion: only "admin" is accepted.
  Reply promoted = Send("PUT", users + "/bob/role", KeyHeader(alice), {{"role", "admin"}});
  ASSERT_EQ(promoted.status, 200) << promoted.raw;
  EXPECT_EQ(promoted.json["result"],
            Json({{"account_id", "acme"}, {"user_id", "bob"}, {"role", "admin"}}));
  ExpectError(Send("PUT", users + "/bob/role", KeyHeader(alice), {{"role", "user"}}), 400,
              "INVALID_ARGUMENT");
  ExpectError(Send("PUT", users + "/ghost/role", KeyHeader(alice), {{"role", "admin"}}), 404,
              "NOT_FOUND");
  // bob is an ADMIN now and may register users.
  RegisterUser(bob_key, "acme", "carol");
}

TEST_F(AdminApiTest, RegeneratedKeyInvalidatesTheOldOneAtOnce) {
  const std::string alice = CreateAccount("acme", "alice");
  const std::string bob = RegisterUser(alice, "acme", "bob");
  const std::string ls = "/api/v1/fs/ls?uri=viking://resources";
  ASSERT_EQ(Send("GET", ls, KeyHeader(bob)).status, 200);
  ASSERT_EQ(Send("GET", ls, BearerHeader(bob)).status, 200);

  Reply fresh = Send("POST", "/api/v1/admin/accounts/acme/users/bob/key", KeyHeader(alice));
  ASSERT_EQ(fresh.status, 200) << fresh.raw;
  const std::string bob2 = fresh.json["result"].value("user_key", "");
  ASSERT_FALSE(bob2.empty());
  EXPECT_NE(bob2, bob);
  ExpectError(Send("GET", ls, KeyHeader(bob)), 401, "UNAUTHENTICATED", kInvalid);
  ExpectError(Send("GET", ls, BearerHeader(bob)), 401, "UNAUTHENTICATED", kInvalid);
  EXPECT_EQ(Send("GET", ls, KeyHeader(bob2)).status, 200);
  EXPECT_EQ(Send("GET", ls, BearerHeader(bob2)).status, 200);
  Reply health = Send("GET", "/health", BearerHeader(bob2));
  EXPECT_EQ(health.json.value("account_id", ""), "acme") << health.raw;
  EXPECT_EQ(health.json.value("user_id", ""), "bob") << health.raw;
  EXPECT_EQ(health.json.value("role", ""), "user") << health.raw;
  ExpectError(Root("POST", "/api/v1/admin/accounts/acme/users/ghost/key"), 404, "NOT_FOUND");
}

TEST_F(AdminApiTest, RemovedUserLosesKeyAtOnceAndDataWithTheTask) {
  const std::string alice = CreateAccount("acme", "alice");
  const std::string bob = RegisterUser(alice, "acme", "bob");
  WriteAs(bob, "viking://user/bob/memories/secret.md", "bob's memory");
  WriteAs(alice, "viking://user/alice/memories/mine.md", "alice's memory");

  Reply removed = Send("DELETE", "/api/v1/admin/accounts/acme/users/bob", KeyHeader(alice));
  ASSERT_EQ(removed.status, 202) << removed.raw;
  const Json& result = removed.json["result"];
  EXPECT_EQ(result.value("account_id", ""), "acme");
  EXPECT_EQ(result.value("user_id", ""), "bob");
  EXPECT_EQ(result.value("status", ""), "deleting");
  const std::string task_id = result.value("task_id", "");
  ASSERT_FALSE(task_id.empty());
  ExpectError(Send("GET", "/api/v1/fs/ls?uri=viking://resources", KeyHeader(bob)), 401,
              "UNAUTHENTICATED", kInvalid);

  Json task = AwaitTask(task_id);
  EXPECT_EQ(task.value("status", ""), "completed") << task.dump();
  EXPECT_EQ(task.value("task_type", ""), "user_delete");

  // bob's data is gone: a new bob starts empty. alice keeps hers.
  const std::string new_bob = RegisterUser(alice, "acme", "bob");
  Reply stat = Send("GET", "/api/v1/fs/stat?uri=viking://user/bob/memories/secret.md",
                    KeyHeader(new_bob));
  ExpectError(stat, 404, "NOT_FOUND");
  EXPECT_EQ(Send("GET", "/api/v1/fs/stat?uri=viking://user/alice/memories/mine.md",
                 KeyHeader(alice))
                .status,
            200);
  ExpectError(Send("DELETE", "/api/v1/admin/accounts/acme/users/ghost", KeyHeader(alice)), 404,
              "NOT_FOUND");
  ExpectError(Send("DELETE", "/api/v1/admin/accounts/acme/users/alice", KeyHeader(new_bob)), 403,
              "PERMISSION_DENIED");
}

TEST_F(AdminApiTest, AdminRoutesAre403InDevMode) {
  // A second server in dev mode (no root key) on its own workspace.
  TempDir dev_workspace;
  auto dev = SkaldProcess::Start(dev_workspace.path());
  ASSERT_NE(dev, nullptr);
  auto client = dev->NewClient();
  Reply r = ToReply(client->Get("/api/v1/admin/accounts"));
  ExpectError(r, 403, "PERMISSION_DENIED");
  EXPECT_NE(r.json["error"].value("message", "").find("api_key mode"), std::string::npos) << r.raw;
  Reply health = ToReply(client->Get("/health"));
  EXPECT_EQ(health.json.value("auth_mode", ""), "dev");
  client.reset();
  EXPECT_EQ(dev->Stop(SIGTERM), 0);
}

TEST_F(AdminApiTest, TrustedModeBehindAGateway) {
  // A second server in trusted mode: identities come from the headers, the
  // root key must come with every request.
  TempDir trusted_workspace;
  const std::string config = config_dir_->Sub("trusted.conf");
  std::ofstream(config) << Json{{"server", {{"auth_mode", "trusted"}, {"root_api_key", kAdminRootKey}}}}
                               .dump();
  auto trusted = SkaldProcess::Start(trusted_workspace.path(), {"--config", config});
  ASSERT_NE(trusted, nullptr);
  auto client = trusted->NewClient();
  const httplib::Headers alice = {{"X-API-Key", kAdminRootKey},
                                  {"X-OpenViking-Account", "acme"},
                                  {"X-OpenViking-User", "alice"}};
  const std::string ls = "/api/v1/fs/ls?uri=viking://resources";
  ExpectError(ToReply(client->Get(ls, {{"X-OpenViking-Account", "acme"},
                                       {"X-OpenViking-User", "alice"}})),
              401, "UNAUTHENTICATED", kMissing);
  ExpectError(ToReply(client->Get(ls, KeyHeader(kAdminRootKey))), 400, "INVALID_ARGUMENT");
  EXPECT_EQ(ToReply(client->Get(ls, alice)).status, 200);
  httplib::Headers as_root_role = alice;
  as_root_role.emplace("X-OpenViking-Role", "root");
  ExpectError(ToReply(client->Get(ls, as_root_role)), 400, "INVALID_ARGUMENT");
  Reply health = ToReply(client->Get("/health", alice));
  EXPECT_EQ(health.json.value("auth_mode", ""), "trusted") << health.raw;
  EXPECT_EQ(health.json.value("user_id", ""), "alice") << health.raw;

  // The admin API works with the root key and shows no keys.
  Reply made = ToReply(client->Post("/api/v1/admin/accounts", KeyHeader(kAdminRootKey),
                                    Json{{"account_id", "globex"}, {"admin_user_id", "gina"}}.dump(),
                                    "application/json"));
  ASSERT_EQ(made.status, 200) << made.raw;
  EXPECT_EQ(made.json["result"].value("account_id", ""), "globex");
  EXPECT_FALSE(made.json["result"].contains("user_key")) << made.raw;
  // Registering a user shows no key either; headers naming another account
  // than the path are refused.
  Reply joined = ToReply(client->Post("/api/v1/admin/accounts/globex/users", alice,
                                      Json{{"user_id", "hank"}}.dump(), "application/json"));
  ASSERT_EQ(joined.status, 400) << joined.raw;
  httplib::Headers gina = {{"X-API-Key", kAdminRootKey},
                           {"X-OpenViking-Account", "globex"},
                           {"X-OpenViking-User", "gina"}};
  joined = ToReply(client->Post("/api/v1/admin/accounts/globex/users", gina,
                                Json{{"user_id", "hank"}}.dump(), "application/json"));
  ASSERT_EQ(joined.status, 200) << joined.raw;
  EXPECT_EQ(joined.json["result"].value("user_id", ""), "hank");
  EXPECT_FALSE(joined.json["result"].contains("user_key")) << joined.raw;
  // The account used through the headers is listed too.
  Reply accounts = ToReply(client->Get("/api/v1/admin/accounts", KeyHeader(kAdminRootKey)));
  ASSERT_EQ(accounts.status, 200) << accounts.raw;
  EXPECT_EQ(accounts.json["result"].size(), 3u) << accounts.raw;
  client.reset();
  EXPECT_EQ(trusted->Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace skald::apitest
