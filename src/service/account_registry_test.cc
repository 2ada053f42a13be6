// Tests of accounts, users, roles and keys through the Db facade (the
// account registry, service/account_registry.h) and of the key format.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "service/api_key.h"
#include "skald/db.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

const Identity kRoot{"default", "default", Role::kRoot};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class AccountRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(/*workers=*/0); }
  void Reopen(int workers) {
    db_.reset();
    DbOptions options;
    options.workspace = dir_.Sub("ws");
    options.sync_writes = false;
    options.background_workers = workers;
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
  }
  WriteRequest Write(std::string uri, std::string content) {
    WriteRequest request;
    request.uri = std::move(uri);
    request.content = std::move(content);
    request.mode = WriteMode::kCreate;
    return request;
  }

  testing::TempDir dir_;
  std::unique_ptr<Db> db_;
};

TEST(ApiKeyTest, FormatIsThreeBase64UrlPartsWithA256BitSecret) {
  auto key = NewApiKey("acme", "alice@acme");
  ASSERT_TRUE(key.ok());
  ParsedApiKey parsed;
  ASSERT_TRUE(ParseApiKey(*key, &parsed)) << *key;
  EXPECT_EQ(parsed.account, "acme");
  EXPECT_EQ(parsed.user, "alice@acme");
  std::string secret;
  ASSERT_TRUE(Base64UrlDecode(parsed.secret_text, &secret));
  EXPECT_EQ(secret.size(), kApiKeySecretBytes);
  EXPECT_EQ(key->find('='), std::string::npos);  // no padding
  EXPECT_EQ(key->find('+'), std::string::npos);
  EXPECT_EQ(key->find('/'), std::string::npos);
  // Secrets differ from key to key.
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) seen.insert(*NewApiKey("acme", "alice@acme"));
  EXPECT_EQ(seen.size(), 50u);
}

TEST(ApiKeyTest, MalformedKeysDoNotParse) {
  ParsedApiKey parsed;
  for (const char* bad : {"", "abc", "a.b", "a.b.c.d", ".YQ.YWJj", "YQ..YWJj", "YQ.YQ.",
                          "YQ.YQ.c2hvcnQ", "YQ=.YQ.YWJj", "Y+.YQ.YWJj"}) {
    EXPECT_FALSE(ParseApiKey(bad, &parsed)) << bad;
  }
  std::string out;
  EXPECT_TRUE(Base64UrlDecode("YWJj", &out));
  EXPECT_EQ(out, "abc");
  EXPECT_FALSE(Base64UrlDecode("YR", &out));  // non-canonical trailing bits
  EXPECT_EQ(Base64UrlEncode("\xff\xfe"), "__4");
}

TEST_F(AccountRegistryTest, DefaultAccountExistsWithoutUsers) {
  auto accounts = db_->ListAccounts(kRoot);
  ASSERT_TRUE(accounts.ok()) << accounts.status().ToString();
  ASSERT_EQ(accounts->size(), 1u);
  EXPECT_EQ((*accounts)[0].account_id, "default");
  EXPECT_EQ((*accounts)[0].user_count, 0u);
  EXPECT_GT((*accounts)[0].created_ns, 0);

  // An account first used through identity headers (dev mode) is registered.
  const Identity dev{"devco", "someone", Role::kRoot};
  ASSERT_TRUE(db_->Write(dev, Write("viking://resources/a.md", "a")).ok());
  accounts = db_->ListAccounts(kRoot);
  ASSERT_TRUE(accounts.ok());
  ASSERT_EQ(accounts->size(), 2u);
  EXPECT_EQ((*accounts)[1].account_id, "devco");
  EXPECT_TRUE(db_->DeleteAccount(kRoot, "devco").ok());
}

TEST_F(AccountRegistryTest, CreatedKeysAuthenticateAndAreStoredOnlyHashed) {
  auto made = db_->CreateAccount(kRoot, "acme", "alice");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto who = db_->Authenticate(made->user_key);
  ASSERT_TRUE(who.ok()) << who.status().ToString();
  EXPECT_EQ(who->account, "acme");
  EXPECT_EQ(who->user, "alice");
  EXPECT_EQ(who->role, Role::kAdmin);

  auto bob_key = db_->RegisterUser(kRoot, "acme", "bob", "user");
  ASSERT_TRUE(bob_key.ok());
  auto bob = db_->Authenticate(*bob_key);
  ASSERT_TRUE(bob.ok());
  EXPECT_EQ(bob->role, Role::kUser);

  // Listings show a prefix of the secret, never the key.
  auto users = db_->ListUsers(kRoot, "acme", {});
  ASSERT_TRUE(users.ok());
  ASSERT_EQ(users->size(), 2u);
  ParsedApiKey parsed;
  ASSERT_TRUE(ParseApiKey(made->user_key, &parsed));
  EXPECT_EQ((*users)[0].user_id, "alice");
  EXPECT_EQ((*users)[0].key_prefix, parsed.secret_text.substr(0, kApiKeyPrefixChars));
  EXPECT_LT((*users)[0].key_prefix.size(), parsed.secret_text.size());

  // The workspace files never hold the secret, only its hash.
  db_.reset();
  std::string bytes;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.Sub("ws"))) {
    if (entry.is_regular_file()) bytes += ReadAll(entry.path().string());
  }
  EXPECT_EQ(bytes.find(parsed.secret_text), std::string::npos);
  EXPECT_NE(bytes.find(ApiKeyHash(made->user_key)), std::string::npos);
}

TEST_F(AccountRegistryTest, WrongTamperedAndForeignKeysAreUnauthenticated) {
  auto made = db_->CreateAccount(kRoot, "acme", "alice");
  ASSERT_TRUE(made.ok());
  std::string tampered = made->user_key;
  tampered.back() = tampered.back() == 'A' ? 'B' : 'A';
  // alice's secret presented as another user's key.
  ParsedApiKey parsed;
  ASSERT_TRUE(ParseApiKey(made->user_key, &parsed));
  const std::string as_bob = Base64UrlEncode("acme") + "." + Base64UrlEncode("bob") + "." +
                             parsed.secret_text;
  for (const std::string& bad : {tampered, as_bob, std::string("garbage"), std::string()}) {
    auto who = db_->Authenticate(bad);
    ASSERT_FALSE(who.ok()) << bad;
    EXPECT_EQ(who.status().code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(who.status().message(), "Invalid API Key");
  }
}

TEST_F(AccountRegistryTest, RegeneratedKeyReplacesTheOldOneAtOnce) {
  auto made = db_->CreateAccount(kRoot, "acme", "alice");
  ASSERT_TRUE(made.ok());
  auto fresh = db_->RegenerateKey(kRoot, "acme", "alice");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_NE(*fresh, made->user_key);
  EXPECT_EQ(db_->Authenticate(made->user_key).status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(db_->Authenticate(*fresh).ok());
  // Across a reopen too.
  Reopen(0);
  EXPECT_EQ(db_->Authenticate(made->user_key).status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(db_->Authenticate(*fresh).ok());
}

TEST_F(AccountRegistryTest, ValidationAndConflicts) {
  EXPECT_EQ(db_->CreateAccount(kRoot, "_hidden", "a").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->CreateAccount(kRoot, "acme", "a/b").status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(db_->CreateAccount(kRoot, "acme", "alice").ok());
  Status dup = db_->CreateAccount(kRoot, "acme", "zed").status();
  EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.reason(), "ALREADY_EXISTS");
  EXPECT_EQ(db_->RegisterUser(kRoot, "acme", "alice", "user").status().reason(), "ALREADY_EXISTS");
  EXPECT_EQ(db_->RegisterUser(kRoot, "nope", "bob", "user").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(db_->RegisterUser(kRoot, "acme", "bob", "root").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->RegisterUser(kRoot, "acme", "bob", "owner").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->SetUserRole(kRoot, "acme", "alice", "user").code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->SetUserRole(kRoot, "acme", "nobody", "admin").code(), StatusCode::kNotFound);
  EXPECT_EQ(db_->ListUsers(kRoot, "nope", {}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(db_->DeleteAccount(kRoot, "nope").code(), StatusCode::kNotFound);
  EXPECT_EQ(db_->DeleteAccount(kRoot, "default").code(), StatusCode::kPermissionDenied);
}

TEST_F(AccountRegistryTest, AdminManagesOnlyItsOwnAccountAndUsersNothing) {
  auto acme = db_->CreateAccount(kRoot, "acme", "alice");
  auto globex = db_->CreateAccount(kRoot, "globex", "gina");
  ASSERT_TRUE(acme.ok() && globex.ok());
  const Identity alice = *db_->Authenticate(acme->user_key);
  ASSERT_EQ(alice.role, Role::kAdmin);

  auto bob_key = db_->RegisterUser(alice, "acme", "bob", "user");
  ASSERT_TRUE(bob_key.ok()) << bob_key.status().ToString();
  EXPECT_TRUE(db_->ListUsers(alice, "acme", {}).ok());
  EXPECT_TRUE(db_->SetUserRole(alice, "acme", "bob", "admin").ok());
  EXPECT_TRUE(db_->RegenerateKey(alice, "acme", "bob").ok());

  // Another account: refused whatever the operation.
  EXPECT_EQ(db_->RegisterUser(alice, "globex", "mallory", "admin").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->ListUsers(alice, "globex", {}).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->RegenerateKey(alice, "globex", "gina").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->RemoveUser(alice, "globex", "gina").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->SetUserRole(alice, "globex", "gina", "admin").code(),
            StatusCode::kPermissionDenied);
  // Account-level operations are ROOT only.
  EXPECT_EQ(db_->ListAccounts(alice).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->CreateAccount(alice, "mine", "me").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->DeleteAccount(alice, "globex").code(), StatusCode::kPermissionDenied);

  // A plain user manages nothing, not even its own account.
  auto carol_key = db_->RegisterUser(kRoot, "acme", "carol", "user");
  ASSERT_TRUE(carol_key.ok());
  const Identity carol = *db_->Authenticate(*carol_key);
  EXPECT_EQ(db_->RegisterUser(carol, "acme", "dave", "user").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->ListUsers(carol, "acme", {}).status().code(), StatusCode::kPermissionDenied);
  // The gina key still works: nothing above changed globex.
  EXPECT_TRUE(db_->Authenticate(globex->user_key).ok());
}

TEST_F(AccountRegistryTest, ListUsersFilters) {
  ASSERT_TRUE(db_->CreateAccount(kRoot, "acme", "alice").ok());
  for (const char* u : {"bob", "bert", "carol"}) {
    ASSERT_TRUE(db_->RegisterUser(kRoot, "acme", u, "user").ok());
  }
  UserFilter by_name;
  by_name.name = "b*";
  auto b = db_->ListUsers(kRoot, "acme", by_name);
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].user_id, "bert");
  UserFilter admins;
  admins.role = "admin";
  auto a = db_->ListUsers(kRoot, "acme", admins);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 1u);
  EXPECT_EQ((*a)[0].user_id, "alice");
  UserFilter two;
  two.limit = 2;
  EXPECT_EQ(db_->ListUsers(kRoot, "acme", two)->size(), 2u);
}

TEST_F(AccountRegistryTest, RemovedUserIsDeletedByADurableJobAcrossReopen) {
  auto made = db_->CreateAccount(kRoot, "acme", "alice");
  ASSERT_TRUE(made.ok());
  auto bob_key = db_->RegisterUser(kRoot, "acme", "bob", "user");
  ASSERT_TRUE(bob_key.ok());
  const Identity bob = *db_->Authenticate(*bob_key);
  const Identity alice = *db_->Authenticate(made->user_key);
  ASSERT_TRUE(db_->Write(bob, Write("viking://user/bob/memories/note.md", "bob's")).ok());
  ASSERT_TRUE(db_->Write(alice, Write("viking://user/alice/memories/note.md", "alice's")).ok());
  ASSERT_TRUE(db_->Write(bob, Write("viking://resources/shared.md", "shared")).ok());

  // No workers in this session: the removal is recorded, the cleanup waits.
  auto removal = db_->RemoveUser(alice, "acme", "bob");
  ASSERT_TRUE(removal.ok()) << removal.status().ToString();
  EXPECT_FALSE(removal->task_id.empty());
  EXPECT_EQ(db_->Authenticate(*bob_key).status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(*db_->IsUserDeleting("acme", "bob"));
  EXPECT_EQ(db_->RemoveUser(kRoot, "acme", "bob").status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(db_->RegenerateKey(kRoot, "acme", "bob").status().code(), StatusCode::kNotFound);
  // The admin who asked can follow the task.
  auto task = db_->GetTask(alice, removal->task_id);
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  EXPECT_EQ(task->task_type, "user_delete");

  // The job survives a restart and runs there.
  Reopen(/*workers=*/1);
  ASSERT_TRUE(db_->WaitIdle(60000).ok());
  auto done = db_->GetTask(kRoot, removal->task_id);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->status, TaskState::kCompleted) << done->error;
  EXPECT_FALSE(*db_->IsUserDeleting("acme", "bob"));
  const Identity acme_root{"acme", "default", Role::kRoot};
  EXPECT_EQ(db_->Stat(acme_root, "viking://user/bob").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(db_->Stat(acme_root, "viking://user/alice/memories/note.md").ok());
  EXPECT_TRUE(db_->Stat(acme_root, "viking://resources/shared.md").ok());
  auto users = db_->ListUsers(kRoot, "acme", {});
  ASSERT_TRUE(users.ok());
  ASSERT_EQ(users->size(), 1u);
  EXPECT_EQ((*users)[0].user_id, "alice");
  // The id is free again.
  EXPECT_TRUE(db_->RegisterUser(kRoot, "acme", "bob", "user").ok());
}

TEST_F(AccountRegistryTest, DeletedAccountLosesItsDataAndKeysAtOnce) {
  Reopen(/*workers=*/1);  // indexed, so that search has something to forget
  auto made = db_->CreateAccount(kRoot, "acme", "alice");
  ASSERT_TRUE(made.ok());
  const Identity alice = *db_->Authenticate(made->user_key);
  ASSERT_TRUE(db_->Write(alice, Write("viking://resources/doc.md", "acme secret plans")).ok());
  ASSERT_TRUE(db_->Write(kRoot, Write("viking://resources/keep.md", "default stays")).ok());
  ASSERT_TRUE(db_->WaitIdle(60000).ok());
  FindRequest find;
  find.query = "secret plans";
  find.score_threshold = 0.0;
  auto before = db_->Find(alice, find);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_GT(before->total(), 0u);

  ASSERT_TRUE(db_->DeleteAccount(kRoot, "acme").ok());
  EXPECT_EQ(db_->Authenticate(made->user_key).status().code(), StatusCode::kUnauthenticated);
  auto accounts = db_->ListAccounts(kRoot);
  ASSERT_TRUE(accounts.ok());
  ASSERT_EQ(accounts->size(), 1u);
  EXPECT_EQ((*accounts)[0].account_id, "default");
  // The bytes are gone from disk (checked before anything touches the id again).
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("ws") + "/content/acme"));
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("ws") + "/content/default/resources/keep.md"));
  EXPECT_TRUE(db_->Stat(kRoot, "viking://resources/keep.md").ok());

  // The id can be used again, starting empty.
  auto again = db_->CreateAccount(kRoot, "acme", "zoe");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(db_->Authenticate(made->user_key).status().code(), StatusCode::kUnauthenticated);
  const Identity acme_root{"acme", "default", Role::kRoot};
  EXPECT_EQ(db_->Stat(acme_root, "viking://resources/doc.md").status().code(),
            StatusCode::kNotFound);
  const Identity zoe = *db_->Authenticate(again->user_key);
  auto after = db_->Find(zoe, find);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->total(), 0u);
  auto listing = db_->Ls(acme_root, "viking://resources", {});
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  EXPECT_TRUE(listing->empty());
}

}  // namespace
}  // namespace skald
