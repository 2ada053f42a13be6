#include "uri/access.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace skald {
namespace {

Identity AccessCaller(std::string user, Role role) {
  Identity id;
  id.account = "acme";
  id.user = std::move(user);
  id.role = role;
  return id;
}

// URIs in these tests are built by an internal (identity-less) parse so that
// every scope, including internal ones, can be named.
VikingUri U(std::string_view text) {
  UriParseOptions options;
  options.allow_internal_scopes = true;
  Result<VikingUri> r = VikingUri::Parse(text, options);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : VikingUri();
}

// One row of the access matrix: what alice (USER) and ROOT may do.
struct Row {
  const char* uri;
  bool user_read;
  bool user_write;
  bool user_delete;
  bool root_write;
  bool root_delete;
};

// clang-format off
const Row kMatrix[] = {
    // uri                                        user r  w      d      root w  d
    {"viking://",                                 true,  false, false, false, false},
    {"viking://resources",                        true,  true,  false, true,  true},
    {"viking://resources/docs/a.md",              true,  true,  true,  true,  true},
    {"viking://resources/.watch_tasks.json",      false, false, false, true,  true},
    {"viking://resources/x/.watch_tasks.json",    true,  true,  true,  true,  true},
    {"viking://user",                             true,  false, false, false, false},
    {"viking://user/alice",                       true,  true,  false, true,  true},
    {"viking://user/alice/memories/m.md",         true,  true,  true,  true,  true},
    {"viking://user/alice/peers/bot/memories",    true,  true,  true,  true,  true},
    {"viking://user/bob",                         false, false, false, true,  true},
    {"viking://user/bob/memories/m.md",           false, false, false, true,  true},
    {"viking://user/alice2/x",                    false, false, false, true,  true},
    {"viking://agent",                            true,  false, false, false, false},
    {"viking://agent/skills",                     true,  true,  true,  true,  true},
    {"viking://agent/skills/pdf/SKILL.md",        true,  true,  true,  true,  true},
    {"viking://agent/endpoints/e",                true,  true,  true,  true,  true},
    {"viking://agent/tools/t",                    true,  true,  true,  true,  true},
    {"viking://agent/payments/p",                 true,  true,  true,  true,  true},
    {"viking://agent/legacy_bot/memories/m",      false, false, false, false, true},
    {"viking://temp",                             true,  false, false, true,  true},
    {"viking://temp/alice/t1",                    true,  true,  true,  true,  true},
    {"viking://temp/bob/t1",                      false, false, false, true,  true},
    {"viking://upload",                           false, false, false, true,  true},
    {"viking://upload/f1",                        false, false, false, true,  true},
    {"viking://queue/q",                          false, false, false, true,  true},
};
// clang-format on

TEST(AccessTest, MatrixForUserAndRoot) {
  for (Role role : {Role::kUser, Role::kAdmin}) {
    Identity alice = AccessCaller("alice", role);
    for (const Row& row : kMatrix) {
      // (An ADMIN's legacy agent trees: LegacyAgentTreesAre... below.)
      if (role == Role::kAdmin && std::string_view(row.uri).starts_with("viking://agent/legacy")) {
        continue;
      }
      VikingUri uri = U(row.uri);
      EXPECT_EQ(IsAccessible(alice, uri), row.user_read) << row.uri;
      EXPECT_EQ(CheckReadAccess(alice, uri).ok(), row.user_read) << row.uri;
      EXPECT_EQ(CheckWriteAccess(alice, uri).ok(), row.user_write) << row.uri;
      EXPECT_EQ(CheckDeleteAccess(alice, uri).ok(), row.user_delete) << row.uri;
    }
  }
  Identity root = AccessCaller("default", Role::kRoot);
  for (const Row& row : kMatrix) {
    VikingUri uri = U(row.uri);
    EXPECT_TRUE(IsAccessible(root, uri)) << row.uri;
    EXPECT_TRUE(CheckReadAccess(root, uri).ok()) << row.uri;
    EXPECT_EQ(CheckWriteAccess(root, uri).ok(), row.root_write) << row.uri;
    EXPECT_EQ(CheckDeleteAccess(root, uri).ok(), row.root_delete) << row.uri;
  }
}

TEST(AccessTest, AnActorPeerSeesNoOtherPeersSpace) {
  for (Role role : {Role::kUser, Role::kRoot}) {
    Identity who = AccessCaller("alice", role);
    EXPECT_TRUE(IsAccessible(who, U("viking://user/alice/peers/bot2/memories/x.md")));
    who.actor_peer = "bot1";
    EXPECT_TRUE(IsAccessible(who, U("viking://user/alice/peers/bot1/memories/x.md")));
    EXPECT_TRUE(IsAccessible(who, U("viking://user/alice/peers")));
    EXPECT_TRUE(IsAccessible(who, U("viking://user/alice/memories/x.md")));
    EXPECT_FALSE(IsAccessible(who, U("viking://user/alice/peers/bot2")));
    EXPECT_FALSE(IsAccessible(who, U("viking://user/alice/peers/bot2/resources/a.md")));
    EXPECT_TRUE(VisibleSubtrees(who, U("viking://user/alice/peers/bot2/resources")).empty());
    EXPECT_EQ(VisibleSubtrees(who, U("viking://user/alice/peers/bot1")).size(), 1u);
    EXPECT_EQ(CheckReadAccess(who, U("viking://user/alice/peers/bot2/a.md")).code(),
              StatusCode::kPermissionDenied);
    EXPECT_EQ(CheckWriteAccess(who, U("viking://user/alice/peers/bot2/a.md")).code(),
              StatusCode::kPermissionDenied);
  }
}

TEST(AccessTest, UnlistedNamespacesFailClosed) {
  Identity alice = AccessCaller("alice", Role::kUser);
  EXPECT_FALSE(IsAccessible(alice, VikingUri::FromSegments({"_system", "x"})));
  EXPECT_FALSE(IsAccessible(alice, VikingUri::FromSegments({"session", "s1"})));
  EXPECT_TRUE(IsAccessible(AccessCaller("r", Role::kRoot), VikingUri::FromSegments({"_system"})));
}

TEST(AccessTest, LegacySessionUrisAreNeverWritable) {
  VikingUri session = VikingUri::FromSegments({"session", "s1"});
  Status s = CheckWriteAccess(AccessCaller("default", Role::kRoot), session);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("viking://session/s1"), std::string::npos) << s.message();
}

TEST(AccessTest, InvisibleIsDeniedByTheUriAlone) {
  Identity alice = AccessCaller("alice", Role::kUser);
  VikingUri bobs = U("viking://user/bob/memories");
  // Reading, writing and deleting in bob's space are "Access denied" (as
  // OpenViking answers), decided by the URI: nothing here looks at what is
  // stored, so the answer is the same whether bob's space exists.
  for (const Status& s : {CheckReadAccess(alice, bobs), CheckWriteAccess(alice, bobs),
                          CheckDeleteAccess(alice, bobs)}) {
    EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
    EXPECT_EQ(s.message(), "Access denied for viking://user/bob/memories");
    EXPECT_EQ(s.details(),
              (std::vector<Status::Detail>{{"resource", "viking://user/bob/memories"}}));
  }
  // bob's root: the plain denial, not the root-delete rule.
  Status root = CheckDeleteAccess(alice, U("viking://user/bob"));
  EXPECT_EQ(root.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(root.message(), "Access denied for viking://user/bob");
  // The hidden watch-task control file too.
  EXPECT_EQ(CheckReadAccess(alice, U("viking://resources/.watch_tasks.json")).code(),
            StatusCode::kPermissionDenied);
  // A missing path answers NotFound (AbsentStatus) where the caller may look.
  Status absent = AbsentStatus(U("viking://user/alice/memories"));
  EXPECT_EQ(absent.code(), StatusCode::kNotFound);
  EXPECT_EQ(absent.message(), "File not found: viking://user/alice/memories");
}

TEST(AccessTest, LegacyAgentTreesAreTheAdministratorsToReadAndCleanUp) {
  const VikingUri legacy = U("viking://agent/legacy_bot/memories/m");
  Identity admin = AccessCaller("ann", Role::kAdmin);
  EXPECT_TRUE(IsAccessible(admin, legacy));
  EXPECT_TRUE(CheckDeleteAccess(admin, legacy).ok());
  EXPECT_EQ(CheckWriteAccess(admin, legacy).code(), StatusCode::kPermissionDenied);
  Identity user = AccessCaller("alice", Role::kUser);
  EXPECT_FALSE(IsAccessible(user, legacy));
  EXPECT_EQ(CheckDeleteAccess(user, legacy).code(), StatusCode::kPermissionDenied);
  // An ADMIN may walk a legacy tree itself.
  EXPECT_EQ(VisibleSubtrees(admin, U("viking://agent/legacy_bot")).size(), 1u);
}

TEST(AccessTest, NamespaceRefusalsStayPermissionDenied) {
  Identity alice = AccessCaller("alice", Role::kUser);
  // A legacy agent tree: not even visible to a USER; read-only for ROOT.
  Status hidden = CheckWriteAccess(alice, U("viking://agent/bot/x"));
  EXPECT_EQ(hidden.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(hidden.message(), "Access denied for viking://agent/bot/x");
  Status legacy = CheckWriteAccess(AccessCaller("r", Role::kRoot), U("viking://agent/bot/x"));
  EXPECT_EQ(legacy.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(legacy.message().find("viking://user/{user_id}/peers/bot"), std::string::npos)
      << legacy.message();

  Status root_delete = CheckDeleteAccess(alice, U("viking://resources"));
  EXPECT_EQ(root_delete.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(root_delete.message().find("viking://resources"), std::string::npos);
  EXPECT_NE(root_delete.message().find("ROOT"), std::string::npos);

  Status own_root = CheckDeleteAccess(alice, U("viking://user/alice"));
  EXPECT_EQ(own_root.code(), StatusCode::kPermissionDenied);

  Status container = CheckDeleteAccess(AccessCaller("r", Role::kRoot), U("viking://user"));
  EXPECT_EQ(container.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(container.message().find("viking://user"), std::string::npos);
  ASSERT_EQ(container.details().size(), 1u);
  EXPECT_EQ(container.details()[0], (Status::Detail{"resource", "viking://user"}));
}

std::vector<std::string> Strs(const std::vector<VikingUri>& uris) {
  std::vector<std::string> out;
  for (const VikingUri& u : uris) out.push_back(u.str());
  return out;
}

TEST(AccessTest, VisibleSubtreesNarrowWalksToTheCallersParts) {
  using V = std::vector<std::string>;
  Identity alice = AccessCaller("alice", Role::kUser);
  const V shared_agent = {"viking://agent/skills", "viking://agent/endpoints",
                          "viking://agent/tools", "viking://agent/payments"};
  V top = {"viking://resources"};
  top.insert(top.end(), shared_agent.begin(), shared_agent.end());
  top.insert(top.end(), {"viking://user/alice", "viking://temp/alice"});
  EXPECT_EQ(Strs(VisibleSubtrees(alice, U("viking://"))), top);
  EXPECT_EQ(Strs(VisibleSubtrees(alice, U("viking://agent"))), shared_agent);
  EXPECT_EQ(Strs(VisibleSubtrees(alice, U("viking://user"))), (V{"viking://user/alice"}));
  EXPECT_EQ(Strs(VisibleSubtrees(alice, U("viking://temp"))), (V{"viking://temp/alice"}));
  for (const char* whole :
       {"viking://resources", "viking://resources/docs", "viking://agent/skills",
        "viking://agent/skills/pdf", "viking://user/alice", "viking://user/alice/memories"}) {
    EXPECT_EQ(Strs(VisibleSubtrees(alice, U(whole))), (V{whole}));
  }
  for (const char* hidden :
       {"viking://user/bob", "viking://user/bob/memories", "viking://user/alice2",
        "viking://temp/bob", "viking://upload", "viking://queue/q", "viking://agent/legacy_bot"}) {
    EXPECT_TRUE(VisibleSubtrees(alice, U(hidden)).empty()) << hidden;
  }
  // Every part is visible, and every visible URI under `viking://` is in
  // one of the parts (or is a container above them). (Single entries in a
  // part may be hidden: the watch-task file.)
  for (const Row& row : kMatrix) {
    VikingUri uri = U(row.uri);
    bool in_part = false;
    for (const VikingUri& part : VisibleSubtrees(alice, U("viking://"))) {
      EXPECT_TRUE(IsAccessible(alice, part)) << part.str();
      in_part = in_part || part.Contains(uri);
    }
    bool container = uri.depth() <= 1;
    if (!container && row.user_read) {
      EXPECT_TRUE(in_part) << row.uri;
    }
  }
  Identity root = AccessCaller("default", Role::kRoot);
  EXPECT_EQ(Strs(VisibleSubtrees(root, U("viking://"))), (V{"viking://"}));
  EXPECT_EQ(Strs(VisibleSubtrees(root, U("viking://user"))), (V{"viking://user"}));
}

TEST(AccessTest, OwnedObjects) {
  Identity alice = AccessCaller("alice", Role::kUser);
  Identity admin = AccessCaller("alice", Role::kAdmin);
  Identity root = AccessCaller("default", Role::kRoot);
  EXPECT_TRUE(CanSeeOwned(alice, "acme", "alice"));
  EXPECT_FALSE(CanSeeOwned(alice, "acme", "bob"));
  EXPECT_FALSE(CanSeeOwned(alice, "globex", "alice"));
  EXPECT_FALSE(CanSeeOwned(admin, "acme", "bob"));  // ADMIN's data access is its own user's
  EXPECT_TRUE(CanSeeOwned(root, "globex", "carol"));
  EXPECT_TRUE(IsOwner(alice, "acme", "alice"));
  EXPECT_FALSE(IsOwner(alice, "acme", "bob"));
  EXPECT_FALSE(IsOwner(alice, "globex", "alice"));
  EXPECT_FALSE(IsOwner(root, "acme", "alice"));  // uploads: even ROOT claims only its own
}

}  // namespace
}  // namespace skald
