#include "uri/access.h"

#include <gtest/gtest.h>

#include <string>

namespace skald {
namespace {

Identity Caller(std::string user, Role role) {
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
    {"viking://agent/legacy_bot/memories/m",      true,  false, true,  false, true},
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
    Identity alice = Caller("alice", role);
    for (const Row& row : kMatrix) {
      VikingUri uri = U(row.uri);
      EXPECT_EQ(IsAccessible(alice, uri), row.user_read) << row.uri;
      EXPECT_EQ(CheckReadAccess(alice, uri).ok(), row.user_read) << row.uri;
      EXPECT_EQ(CheckWriteAccess(alice, uri).ok(), row.user_write) << row.uri;
      EXPECT_EQ(CheckDeleteAccess(alice, uri).ok(), row.user_delete) << row.uri;
    }
  }
  Identity root = Caller("default", Role::kRoot);
  for (const Row& row : kMatrix) {
    VikingUri uri = U(row.uri);
    EXPECT_TRUE(IsAccessible(root, uri)) << row.uri;
    EXPECT_TRUE(CheckReadAccess(root, uri).ok()) << row.uri;
    EXPECT_EQ(CheckWriteAccess(root, uri).ok(), row.root_write) << row.uri;
    EXPECT_EQ(CheckDeleteAccess(root, uri).ok(), row.root_delete) << row.uri;
  }
}

TEST(AccessTest, UnlistedNamespacesFailClosed) {
  Identity alice = Caller("alice", Role::kUser);
  EXPECT_FALSE(IsAccessible(alice, VikingUri::FromSegments({"_system", "x"})));
  EXPECT_FALSE(IsAccessible(alice, VikingUri::FromSegments({"session", "s1"})));
  EXPECT_TRUE(IsAccessible(Caller("r", Role::kRoot), VikingUri::FromSegments({"_system"})));
}

TEST(AccessTest, LegacySessionUrisAreNeverWritable) {
  VikingUri session = VikingUri::FromSegments({"session", "s1"});
  Status s = CheckWriteAccess(Caller("default", Role::kRoot), session);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("viking://session/s1"), std::string::npos) << s.message();
}

TEST(AccessTest, DenialsNameTheUri) {
  Identity alice = Caller("alice", Role::kUser);
  Status read = CheckReadAccess(alice, U("viking://user/bob/memories"));
  EXPECT_EQ(read.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(read.message(), "Access denied for viking://user/bob/memories");
  ASSERT_EQ(read.details().size(), 1u);
  EXPECT_EQ(read.details()[0], (Status::Detail{"resource", "viking://user/bob/memories"}));

  Status legacy = CheckWriteAccess(alice, U("viking://agent/bot/x"));
  EXPECT_EQ(legacy.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(legacy.message().find("viking://user/{user_id}/peers/bot"), std::string::npos)
      << legacy.message();

  Status root_delete = CheckDeleteAccess(alice, U("viking://resources"));
  EXPECT_NE(root_delete.message().find("viking://resources"), std::string::npos);
  EXPECT_NE(root_delete.message().find("ROOT"), std::string::npos);

  Status container = CheckDeleteAccess(Caller("r", Role::kRoot), U("viking://user"));
  EXPECT_EQ(container.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(container.message().find("viking://user"), std::string::npos);
}

TEST(AccessTest, ReadDenialComesBeforeNamespaceRules) {
  // bob's root: a USER learns only "access denied", not the root-delete rule.
  Status s = CheckDeleteAccess(Caller("alice", Role::kUser), U("viking://user/bob"));
  EXPECT_EQ(s.message(), "Access denied for viking://user/bob");
}

}  // namespace
}  // namespace skald
