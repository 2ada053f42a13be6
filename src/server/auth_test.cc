// Tests of the Authenticator (server/auth.h) against a real workspace whose
// background workers are off, so that a removed user stays "being deleted".

#include "server/auth.h"

#include <gtest/gtest.h>

#include "skald/db.h"
#include "tests/testutil/temp_dir.h"

namespace skald::server {
namespace {

const Identity kRoot{"default", "default", Role::kRoot};
constexpr const char* kRootKey = "root-secret-for-tests";

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DbOptions options;
    options.workspace = dir_.Sub("ws");
    options.sync_writes = false;
    options.background_workers = 0;
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    auto made = db_->CreateAccount(kRoot, "acme", "alice");
    ASSERT_TRUE(made.ok());
    alice_key_ = made->user_key;
    auto bob = db_->RegisterUser(kRoot, "acme", "bob", "user");
    ASSERT_TRUE(bob.ok());
    bob_key_ = *bob;
  }
  Authenticator Make(std::string_view mode, std::string root_key = kRootKey) {
    auto auth = Authenticator::Create(mode, std::move(root_key), "127.0.0.1");
    EXPECT_TRUE(auth.ok()) << auth.status().ToString();
    return std::move(auth).value();
  }

  ::skald::testing::TempDir dir_;
  std::unique_ptr<Db> db_;
  std::string alice_key_, bob_key_;
};

AuthHeaders Key(std::string key) {
  AuthHeaders h;
  h.api_key = std::move(key);
  return h;
}

AuthHeaders Bearer(std::string value) {
  AuthHeaders h;
  h.authorization = std::move(value);
  return h;
}

TEST(AuthRulesTest, ModesAndHosts) {
  EXPECT_EQ(Authenticator::Create("", "", "127.0.0.1")->mode(), AuthMode::kDev);
  EXPECT_EQ(Authenticator::Create("", "k", "0.0.0.0")->mode(), AuthMode::kApiKey);
  EXPECT_FALSE(Authenticator::Create("", "", "0.0.0.0").ok());
  EXPECT_FALSE(Authenticator::Create("api_key", "", "127.0.0.1").ok());
  EXPECT_FALSE(Authenticator::Create("trusted", "", "10.0.0.1").ok());
  EXPECT_TRUE(Authenticator::Create("trusted", "k", "10.0.0.1").ok());
  EXPECT_FALSE(Authenticator::Create("oidc", "k", "127.0.0.1").ok());
}

TEST(AuthRulesTest, RootAllowList) {
  for (const char* ok : {"/api/v1/system/status", "/api/v1/system/wait", "/api/v1/debug/health",
                         "/api/v1/admin/accounts", "/api/v1/observer/queue", "/api/v1/tasks",
                         "/api/v1/tasks/abc", "/api/v1/console/x", "/api/v1/system/sync"}) {
    EXPECT_TRUE(IsRootAllowedRoute(ok)) << ok;
  }
  for (const char* no : {"/api/v1/fs/ls", "/api/v1/content/read", "/api/v1/search/find",
                         "/api/v1/resources", "/api/v1/tasksx", "/api/v1/system/statusx"}) {
    EXPECT_FALSE(IsRootAllowedRoute(no)) << no;
  }
}

TEST_F(AuthTest, ApiKeyModeKeysAndHeaders) {
  Authenticator auth = Make("api_key");
  auto missing = auth.Resolve(*db_, "/api/v1/fs/ls", AuthHeaders{});
  EXPECT_EQ(missing.status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(missing.status().message(), "Missing API Key when resolving identity.");
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", Bearer("Bearer ")).status().message(),
            "Missing API Key when resolving identity.");
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", Bearer("bearer " + bob_key_)).status().message(),
            "Missing API Key when resolving identity.");
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", Key("")).status().message(),
            "Missing API Key when resolving identity.");
  for (const std::string& bad : {std::string("nope"), std::string("a.b.c"), alice_key_ + "x"}) {
    auto r = auth.Resolve(*db_, "/api/v1/fs/ls", Key(bad));
    EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated) << bad;
    EXPECT_EQ(r.status().message(), "Invalid API Key");
  }
  // Both headers carry user keys; X-API-Key wins.
  auto bob = auth.Resolve(*db_, "/api/v1/fs/ls", Bearer("Bearer " + bob_key_));
  ASSERT_TRUE(bob.ok());
  EXPECT_EQ(bob->user, "bob");
  AuthHeaders both = Key(alice_key_);
  both.authorization = "Bearer " + bob_key_;
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", both)->user, "alice");
  // Identity headers never change what a user key is.
  AuthHeaders spoof = Key(bob_key_);
  spoof.account = "default";
  spoof.user = "alice";
  spoof.role = "admin";
  auto spoofed = auth.Resolve(*db_, "/api/v1/fs/ls", spoof);
  ASSERT_TRUE(spoofed.ok());
  EXPECT_EQ(spoofed->account, "acme");
  EXPECT_EQ(spoofed->user, "bob");
  EXPECT_EQ(spoofed->role, Role::kUser);
  // The root key: ROOT on the allow-list, refused on tenant data.
  auto root = auth.Resolve(*db_, "/api/v1/tasks", Key(kRootKey));
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->role, Role::kRoot);
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", Key(kRootKey)).status().code(),
            StatusCode::kPermissionDenied);
}

TEST_F(AuthTest, UsersBeingDeletedGet412InTrustedAndDevModes) {
  ASSERT_TRUE(db_->RemoveUser(kRoot, "acme", "bob").ok());
  AuthHeaders h = Key(kRootKey);
  h.account = "acme";
  h.user = "bob";
  auto trusted = Make("trusted").Resolve(*db_, "/api/v1/fs/ls", h);
  EXPECT_EQ(trusted.status().code(), StatusCode::kFailedPrecondition);
  auto dev = Make("dev", "").Resolve(*db_, "/api/v1/fs/ls", h);
  EXPECT_EQ(dev.status().code(), StatusCode::kFailedPrecondition);
  // Others of the account are unaffected; bob's key is simply invalid now.
  h.user = "alice";
  EXPECT_TRUE(Make("trusted").Resolve(*db_, "/api/v1/fs/ls", h).ok());
  EXPECT_EQ(Make("api_key").Resolve(*db_, "/api/v1/fs/ls", Key(bob_key_)).status().code(),
            StatusCode::kUnauthenticated);
}

TEST_F(AuthTest, TrustedModeTakesIdentityFromHeadersBehindTheRootKey) {
  Authenticator auth = Make("trusted");
  AuthHeaders h;
  h.account = "acme";
  h.user = "alice";
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", h).status().code(),
            StatusCode::kUnauthenticated);  // the root key is required
  h.api_key = kRootKey;
  auto alice = auth.Resolve(*db_, "/api/v1/fs/ls", h);
  ASSERT_TRUE(alice.ok());
  EXPECT_EQ(alice->role, Role::kAdmin);  // the registered role
  h.role = "user";
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", h)->role, Role::kUser);
  h.role = " ADMIN ";  // trimmed, any case; /health reports it too
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", h)->role, Role::kAdmin);
  h.role = "user";
  EXPECT_EQ(auth.Probe(*db_, h)->role, Role::kUser);
  h.role = "admin";
  EXPECT_EQ(auth.Probe(*db_, h)->role, Role::kAdmin);
  h.role = "user";
  h.role = "root";
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", h).status().code(),
            StatusCode::kInvalidArgument);
  AuthHeaders anonymous = Key(kRootKey);
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/fs/ls", anonymous).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/admin/accounts", anonymous)->role, Role::kRoot);
  // The admin API with an asserted account: the path must name the same one.
  h.role.reset();
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/admin/accounts/acme/users", h)->role, Role::kRoot);
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/admin/accounts/globex/users", h).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/admin/accounts", h)->role, Role::kRoot);

  // Without a root key (loopback only) the role header cannot be honoured
  // (400) and the admin API is off.
  Authenticator keyless = Make("trusted", "");
  AuthHeaders claim;
  claim.account = "acme";
  claim.user = "bob";
  claim.role = "admin";
  EXPECT_EQ(keyless.Resolve(*db_, "/api/v1/fs/ls", claim).status().code(),
            StatusCode::kInvalidArgument);
  claim.role.reset();
  EXPECT_EQ(keyless.Resolve(*db_, "/api/v1/fs/ls", claim)->role, Role::kUser);
  EXPECT_EQ(keyless.Resolve(*db_, "/api/v1/admin/accounts", claim).status().code(),
            StatusCode::kPermissionDenied);
}

TEST_F(AuthTest, ActorPeerHeaderIsOneSafeSegment) {
  Authenticator auth = Make("dev", "");
  AuthHeaders h;
  h.actor_peer = " bot1 ";
  auto who = auth.Resolve(*db_, "/api/v1/search/find", h);
  ASSERT_TRUE(who.ok()) << who.status().ToString();
  EXPECT_EQ(who->actor_peer, "bot1");
  h.actor_peer = "   ";
  EXPECT_EQ(auth.Resolve(*db_, "/api/v1/search/find", h)->actor_peer, "");
  for (const char* bad : {"bad/peer", "bad\\peer", "..", "a b"}) {
    h.actor_peer = bad;
    auto refused = auth.Resolve(*db_, "/api/v1/fs/ls", h);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  h.actor_peer = "bad/peer";
  EXPECT_NE(auth.Resolve(*db_, "/api/v1/fs/ls", h).status().message().find("path separators"),
            std::string::npos);
  // The session routes do not use it (OpenViking's rule).
  auto session = auth.Resolve(*db_, "/api/v1/sessions/s1/messages", h);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->actor_peer, "");
}

TEST_F(AuthTest, DevModeIsRootFromHeadersWithoutAdminApi) {
  Authenticator auth = Make("dev", "");
  AuthHeaders h;
  h.account = "acme";
  h.user = "alice";
  auto who = auth.Resolve(*db_, "/api/v1/fs/ls", h);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->role, Role::kRoot);
  EXPECT_EQ(who->account, "acme");
  auto admin = auth.Resolve(*db_, "/api/v1/admin/accounts", h);
  EXPECT_EQ(admin.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(admin.status().message().find("api_key mode"), std::string::npos);
}

}  // namespace
}  // namespace skald::server
