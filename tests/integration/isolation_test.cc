// Isolation through the Db facade: two accounts, three users (acme/alice,
// acme/bob, globex/carol). Each seeds private memories and resources, an
// account-shared resource and skill, an upload and a task; then every other
// caller tries every Db operation on them and must see nothing: absent from
// ls, tree, glob, grep and find, NotFound (the body a missing path gets) on
// direct access, uploads not claimable, tasks not visible — and the data is
// untouched afterwards.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "skald/db.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using testing::TempDir;

Identity User(std::string account, std::string user, Role role = Role::kUser) {
  return Identity{std::move(account), std::move(user), role};
}

std::string Name(const Identity& who) {
  return who.account + "/" + who.user + "/" + std::string(RoleName(who.role));
}

// What one user owns, and the words only their data contains.
struct Seeded {
  Identity owner;
  std::string memory;     // viking://user/{uid}/memories/secret.md
  std::string resource;   // viking://user/{uid}/resources/notes/plan.md
  std::string marker;     // a word only this user's private files contain
  std::string task_id;    // an add_resource task of theirs
  std::string upload_id;  // an unclaimed upload of theirs
};

class IsolationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DbOptions options;
    options.workspace = tmp_.Sub("ws");
    options.sync_writes = false;
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();

    for (const Identity& who : {alice_, bob_, carol_}) {
      Seeded s;
      s.owner = who;
      s.marker = "zq" + who.user + "marker";
      std::string space = "viking://user/" + who.user;
      s.memory = space + "/memories/secret.md";
      s.resource = space + "/resources/notes/plan.md";
      Create(who, s.memory, "The walrus passphrase of " + who.user + " is " + s.marker + ".\n");
      Create(who, s.resource, "Private plan " + s.marker + ": walrus passphrase rotation.\n");
      // A task: an upload imported into the user's own resources.
      auto upload = db_->TempUpload(who, "imported.md", "# Imported\n\n" + s.marker + " doc\n");
      ASSERT_TRUE(upload.ok()) << upload.status().ToString();
      AddResourceRequest add;
      add.temp_file_id = *upload;
      add.to = space + "/resources/imported";
      auto added = db_->AddResource(who, add);
      ASSERT_TRUE(added.ok()) << added.status().ToString();
      ASSERT_FALSE(added->task_id.empty());
      s.task_id = added->task_id;
      // And one upload left unclaimed.
      auto pending = db_->TempUpload(who, "pending.md", "pending " + s.marker);
      ASSERT_TRUE(pending.ok()) << pending.status().ToString();
      s.upload_id = *pending;
      seeded_.push_back(s);
    }
    // Account-shared trees: every user of the account sees them, no one else.
    Create(alice_, "viking://resources/acme-shared.md", "acme walrus passphrase handbook\n");
    Create(alice_, "viking://agent/skills/acme-skill/SKILL.md", "acme walrus passphrase skill\n");
    Create(carol_, "viking://resources/globex-shared.md", "globex walrus passphrase handbook\n");
    ASSERT_TRUE(db_->WaitIdle(120000).ok());
  }

  void Create(const Identity& who, const std::string& uri, const std::string& text) {
    WriteRequest w;
    w.uri = uri;
    w.content = text;
    w.mode = WriteMode::kCreate;
    auto r = db_->Write(who, w);
    ASSERT_TRUE(r.ok()) << Name(who) << " " << uri << ": " << r.status().ToString();
  }

  // Every URI `who` gets back from the listing and search operations over
  // the whole tree, plus the text of grep and find hits.
  std::string EverythingSeenBy(const Identity& who) {
    std::string all;
    auto add_entries = [&](const Result<std::vector<LsEntry>>& r, const std::string& what) {
      EXPECT_TRUE(r.ok()) << what << ": " << r.status().ToString();
      if (!r.ok()) return;
      for (const LsEntry& e : *r) all += e.node.uri + " " + e.abstract + "\n";
    };
    LsOptions deep;
    deep.recursive = true;
    deep.level_limit = 20;
    deep.show_all_hidden = true;
    for (const char* base :
         {"viking://", "viking://user", "viking://resources", "viking://agent"}) {
      if (std::string(base) == "viking://agent" && !db_->Stat(who, base).ok()) {
        continue;  // the other account has no agent tree at all
      }
      add_entries(db_->Ls(who, base, LsOptions{}), std::string("ls ") + base);
      add_entries(db_->Ls(who, base, deep), std::string("ls -r ") + base);
      add_entries(db_->Tree(who, base, deep), std::string("tree ") + base);
    }
    for (const char* pattern : {"**", "**/*.md", "user/*/memories/*", "*"}) {
      GlobRequest g;
      g.pattern = pattern;
      g.node_limit = 10000;
      for (const char* base : {"viking://", "viking://user"}) {
        g.uri = base;
        auto r = db_->Glob(who, g);
        EXPECT_TRUE(r.ok()) << "glob " << pattern << ": " << r.status().ToString();
        if (r.ok()) {
          for (const std::string& m : r->uris()) all += m + "\n";
        }
      }
    }
    for (const char* base : {"viking://", "viking://user"}) {
      GrepRequest g;
      g.uri = base;
      g.pattern = "walrus|zq|passphrase";
      g.node_limit = 10000;
      g.level_limit = 20;
      auto r = db_->Grep(who, g);
      EXPECT_TRUE(r.ok()) << "grep: " << r.status().ToString();
      if (r.ok()) {
        for (const GrepMatch& m : r->matches) all += m.uri + " " + m.content + "\n";
      }
    }
    std::vector<std::vector<std::string>> target_sets = {
        {}, {"viking://"}, {"viking://user"}, {"viking://resources"}};
    for (const Seeded& s : seeded_) {
      target_sets.push_back({"viking://user/" + s.owner.user});
      target_sets.push_back({"viking://user/" + s.owner.user + "/memories"});
    }
    for (const auto& targets : target_sets) {
      for (const std::string& type : {std::string(), std::string("memory")}) {
        FindRequest f;
        f.query = "walrus passphrase zqalicemarker zqbobmarker zqcarolmarker";
        f.score_threshold = 0.0;
        f.limit = 100;
        f.target_uris = targets;
        if (!type.empty()) f.context_types = {type};
        auto r = db_->Find(who, f);
        // A target in another user's space is refused; everything else answers.
        bool others = false;
        for (const std::string& t : targets) {
          others = others || (t.rfind("viking://user/", 0) == 0 &&
                              t.rfind("viking://user/" + who.user, 0) != 0);
        }
        if (others && who.role != Role::kRoot) {
          EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied) << r.status().ToString();
          continue;
        }
        EXPECT_TRUE(r.ok()) << "find: " << r.status().ToString();
        if (!r.ok()) continue;
        for (const auto* group : {&r->memories, &r->resources, &r->skills}) {
          for (const MatchedContext& hit : *group) all += hit.uri + " " + hit.abstract + "\n";
        }
      }
    }
    return all;
  }

  TempDir tmp_;
  std::unique_ptr<Db> db_;
  Identity alice_ = User("acme", "alice");
  Identity bob_ = User("acme", "bob");
  Identity carol_ = User("globex", "carol");
  std::vector<Seeded> seeded_;  // alice, bob, carol
};

// The body a path in another user's space gets, whether or not it exists.
void ExpectDenied(const Status& s, const std::string& uri, const std::string& what) {
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << what << " " << uri << ": " << s.ToString();
  EXPECT_EQ(s.message(), "Access denied for " + uri) << what << " " << uri;
  EXPECT_EQ(s.details(), (std::vector<Status::Detail>{{"resource", uri}}))
      << what << " " << uri << ": " << s.ToString();
}

// The body a missing path gets.
void ExpectAbsent(const Status& s, const std::string& uri, const std::string& what) {
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << what << " " << uri << ": " << s.ToString();
  EXPECT_EQ(s.message(), "File not found: " + uri) << what << " " << uri;
  EXPECT_EQ(s.details(), (std::vector<Status::Detail>{{"type", "file"}, {"resource", uri}}))
      << what << " " << uri << ": " << s.ToString();
}

TEST_F(IsolationTest, EachUserSeesOwnSpaceAndTheAccountsSharedTrees) {
  for (const Seeded& s : seeded_) {
    std::string seen = EverythingSeenBy(s.owner);
    EXPECT_NE(seen.find(s.memory), std::string::npos) << Name(s.owner) << "\n" << seen;
    EXPECT_NE(seen.find(s.resource), std::string::npos) << Name(s.owner);
    const bool acme = s.owner.account == "acme";
    EXPECT_EQ(seen.find("viking://resources/acme-shared.md") != std::string::npos, acme);
    EXPECT_EQ(seen.find("viking://agent/skills/acme-skill") != std::string::npos, acme);
    EXPECT_EQ(seen.find("viking://resources/globex-shared.md") != std::string::npos, !acme);
    // `~` is the caller's own space.
    auto own = db_->Read(s.owner, "viking://~/memories/secret.md", 0, -1, /*raw=*/true);
    ASSERT_TRUE(own.ok()) << own.status().ToString();
    EXPECT_NE(own->find(s.marker), std::string::npos);
  }
}

TEST_F(IsolationTest, OtherUsersAndAccountsSeeNothing) {
  // Callers that must see nothing of `owner` (ADMIN's data access is its own
  // user's; ROOT of another account acts in that account only).
  for (const Seeded& s : seeded_) {
    std::vector<Identity> others;
    for (const Seeded& o : seeded_) {
      if (o.owner.user == s.owner.user) continue;
      others.push_back(o.owner);
      others.push_back(User(o.owner.account, o.owner.user, Role::kAdmin));
    }
    others.push_back(User(s.owner.account == "acme" ? "globex" : "acme", "root", Role::kRoot));
    for (const Identity& who : others) {
      SCOPED_TRACE(Name(who) + " probing " + Name(s.owner));
      std::string seen = EverythingSeenBy(who);
      EXPECT_EQ(seen.find(s.marker), std::string::npos) << seen;
      EXPECT_EQ(seen.find("viking://user/" + s.owner.user), std::string::npos) << seen;
      if (who.account != "acme") {
        EXPECT_EQ(seen.find("acme-shared"), std::string::npos) << seen;
        EXPECT_EQ(seen.find("acme-skill"), std::string::npos) << seen;
      } else {
        EXPECT_EQ(seen.find("globex-shared"), std::string::npos) << seen;
      }
    }
  }
}

TEST_F(IsolationTest, DirectAccessToAnotherUsersSpaceIsDeniedAlikeWhetherItExists) {
  const Seeded& alice = seeded_[0];
  Identity bob_admin = User("acme", "bob", Role::kAdmin);
  for (const Identity& who : {bob_, bob_admin, carol_}) {
    SCOPED_TRACE(Name(who));
    using Expect = void (*)(const Status&, const std::string&, const std::string&);
    auto reads_refused = [&](const std::string& uri, Expect expect) {
      expect(db_->Stat(who, uri).status(), uri, "stat");
      expect(db_->Read(who, uri, 0, -1, /*raw=*/true).status(), uri, "read");
      expect(db_->DownloadFile(who, uri).status(), uri, "download");
      expect(db_->Abstract(who, uri).status(), uri, "abstract");
      expect(db_->Overview(who, uri).status(), uri, "overview");
      expect(db_->Ls(who, uri, LsOptions{}).status(), uri, "ls");
      expect(db_->Tree(who, uri, LsOptions{}).status(), uri, "tree");
      GlobRequest glob;
      glob.pattern = "**";
      glob.uri = uri;
      expect(db_->Glob(who, glob).status(), uri, "glob");
      GrepRequest grep;
      grep.pattern = "walrus";
      grep.uri = uri;
      expect(db_->Grep(who, grep).status(), uri, "grep");
    };
    // Existing and missing paths of alice's space, and of a user who does
    // not exist, all answer alike: "Access denied", decided by the URI.
    for (const std::string& uri :
         {std::string("viking://user/alice"), std::string("viking://user/alice/memories"),
          alice.memory, alice.resource, std::string("viking://user/alice/resources/notes"),
          std::string("viking://user/alice/memories/missing.md"),
          std::string("viking://user/nobody/memories/x.md")}) {
      reads_refused(uri, ExpectDenied);
      // Changing it: refused alike, before anything is looked at.
      for (WriteMode mode : {WriteMode::kReplace, WriteMode::kAppend, WriteMode::kCreate}) {
        WriteRequest w;
        w.uri = uri;
        w.content = "overwritten by " + who.user;
        w.mode = mode;
        ExpectDenied(db_->Write(who, w).status(), uri, "write");
      }
      ExpectDenied(db_->Mkdir(who, uri + "/sub", "").status(), uri + "/sub", "mkdir");
      ExpectDenied(db_->Rm(who, uri, /*recursive=*/true).status(), uri, "rm");
      ExpectDenied(db_->Mv(who, uri, "viking://resources/stolen").status(), uri, "mv from");
    }
    // Refusals that say nothing about alice stay what they are for anyone:
    // traversal (403) and internal namespaces (400).
    for (const char* uri : {"viking://user/bob/../alice/memories/secret.md",
                            "viking://~/../alice/memories/secret.md"}) {
      EXPECT_EQ(db_->Read(who, uri, 0, -1, /*raw=*/true).status().code(),
                StatusCode::kPermissionDenied)
          << uri;
    }
    EXPECT_EQ(db_->Stat(who, "viking://temp/alice").status().code(), StatusCode::kInvalidArgument);
    // The other account's shared resource is simply not in this account.
    if (who.account != "acme") reads_refused("viking://resources/acme-shared.md", ExpectAbsent);
    // Moving or placing one's own things into alice's space.
    std::string mine = "viking://user/" + who.user + "/memories/secret.md";
    std::string into = "viking://user/alice/memories/planted.md";
    ExpectDenied(db_->Mv(who, mine, into).status(), into, "mv to");
    EXPECT_TRUE(db_->Stat(who, mine).ok());
    AddResourceRequest add;
    add.temp_file_id = seeded_[who.user == "bob" ? 1 : 2].upload_id;
    add.to = "viking://user/alice/resources/planted";
    ExpectDenied(db_->AddResource(who, add).status(), add.to, "add_resource to");
    add.to.clear();
    add.parent = "viking://user/alice/resources";
    ExpectDenied(db_->AddResource(who, add).status(), add.parent, "add_resource parent");
  }
  // Nothing of alice's changed.
  auto memory = db_->Read(alice_, alice.memory, 0, -1, /*raw=*/true);
  ASSERT_TRUE(memory.ok()) << memory.status().ToString();
  EXPECT_EQ(*memory, "The walrus passphrase of alice is " + alice.marker + ".\n");
  EXPECT_TRUE(db_->Stat(alice_, alice.resource).ok());
  EXPECT_EQ(db_->Stat(alice_, "viking://user/alice/memories/planted.md").status().code(),
            StatusCode::kNotFound);
  auto ls = db_->Ls(alice_, "viking://user/alice/resources", LsOptions{});
  ASSERT_TRUE(ls.ok());
  for (const LsEntry& e : *ls) EXPECT_EQ(e.node.uri.find("planted"), std::string::npos);
}

// The `viking://user` container holds other users' spaces: a user without
// a space of their own finds it absent, as if no one else had one, and one
// with a space sees it as new as their own.
TEST_F(IsolationTest, TheUserContainerShowsOnlyTheCallersOwnSpace) {
  Identity dave = User("acme", "dave");
  ExpectAbsent(db_->Stat(dave, "viking://user").status(), "viking://user", "stat");
  ExpectAbsent(db_->Ls(dave, "viking://user", LsOptions{}).status(), "viking://user", "ls");
  ExpectAbsent(db_->Ls(dave, "viking://~", LsOptions{}).status(), "viking://user/dave", "ls ~");
  auto top = db_->Ls(dave, "viking://", LsOptions{});
  ASSERT_TRUE(top.ok());
  std::vector<std::string> uris;
  for (const LsEntry& e : *top) uris.push_back(e.node.uri);
  EXPECT_EQ(uris, (std::vector<std::string>{"viking://agent", "viking://resources"}));
  GlobRequest glob;
  glob.pattern = "/*";  // anchored: the top level only
  auto globbed = db_->Glob(dave, glob);
  ASSERT_TRUE(globbed.ok());
  EXPECT_EQ(globbed->uris(), (std::vector<std::string>{"viking://agent", "viking://resources"}));
  glob.pattern = "/user";
  EXPECT_TRUE(db_->Glob(dave, glob)->matches.empty());

  Create(dave, "viking://user/dave/memories/first.md", "dave's first memory\n");
  auto container = db_->Stat(dave, "viking://user");
  auto own = db_->Stat(dave, "viking://user/dave");
  ASSERT_TRUE(container.ok() && own.ok()) << container.status().ToString();
  EXPECT_EQ(container->mtime_ns, own->mtime_ns);
  glob.pattern = "/*";
  EXPECT_EQ(db_->Glob(dave, glob)->uris(),
            (std::vector<std::string>{"viking://agent", "viking://resources", "viking://user"}));
  LsOptions shallow;
  shallow.recursive = true;
  shallow.level_limit = 1;
  std::vector<std::string> top_uris;
  auto tree = db_->Tree(dave, "viking://", shallow);
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  for (const LsEntry& e : *tree) top_uris.push_back(e.node.uri);
  EXPECT_EQ(top_uris,
            (std::vector<std::string>{"viking://agent", "viking://resources", "viking://user"}));
  auto listed = db_->Ls(dave, "viking://user", LsOptions{});
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].node.uri, "viking://user/dave");
}

// A user's walk enters only their own parts, yet returns exactly what a
// walk of everything filtered to what they may see would, at every depth.
TEST_F(IsolationTest, NarrowedWalksMatchTheFilteredFullWalk) {
  Identity root = User("acme", "default", Role::kRoot);
  // Everything but other users' spaces (alice and bob both have one, so
  // the `user` container shows to both).
  auto visible_to = [](const Identity& who, const std::string& uri) {
    const std::string user_prefix = "viking://user/";
    if (uri.rfind(user_prefix, 0) != 0) return true;
    std::string rest = uri.substr(user_prefix.size());
    return rest.substr(0, rest.find('/')) == who.user;
  };
  for (const Identity& who : {alice_, bob_}) {
    for (int level = 1; level <= 6; ++level) {
      LsOptions options;
      options.recursive = true;
      options.level_limit = level;
      options.show_all_hidden = true;
      for (const char* base : {"viking://", "viking://user"}) {
        auto full = db_->Tree(root, base, options);
        auto mine = db_->Tree(who, base, options);
        ASSERT_TRUE(full.ok() && mine.ok()) << mine.status().ToString();
        std::vector<std::string> expected, got;
        for (const LsEntry& e : *full) {
          if (visible_to(who, e.node.uri)) expected.push_back(e.node.uri);
        }
        for (const LsEntry& e : *mine) got.push_back(e.node.uri);
        EXPECT_EQ(got, expected) << Name(who) << " tree " << base << " level " << level;
      }
    }
    for (const char* pattern : {"*", "/*", "*/*", "**/*.md", "user/*/*", "/user/*", "**"}) {
      GlobRequest g;
      g.pattern = pattern;
      g.node_limit = 10000;
      auto full = db_->Glob(root, g);
      auto mine = db_->Glob(who, g);
      ASSERT_TRUE(full.ok() && mine.ok()) << mine.status().ToString();
      std::vector<std::string> expected;
      for (const std::string& uri : full->uris()) {
        if (visible_to(who, uri)) expected.push_back(uri);
      }
      EXPECT_EQ(mine->uris(), expected) << Name(who) << " glob " << pattern;
    }
  }
}

TEST_F(IsolationTest, UploadsAreClaimableOnlyByTheirUser) {
  const Seeded& alice = seeded_[0];
  AddResourceRequest unknown;
  unknown.temp_file_id = "upload_0123456789abcdef0123456789abcdef.md";
  Status never = db_->AddResource(bob_, unknown).status();
  for (const Identity& who :
       {bob_, User("acme", "bob", Role::kAdmin), carol_, User("acme", "root", Role::kRoot)}) {
    AddResourceRequest add;
    add.temp_file_id = alice.upload_id;
    Status s = db_->AddResource(who, add).status();
    // Exactly what an unknown id gets.
    EXPECT_EQ(s.code(), never.code()) << Name(who) << ": " << s.ToString();
    EXPECT_EQ(s.message(), "unknown or expired temp_file_id: " + alice.upload_id);
    EXPECT_EQ(never.message(), "unknown or expired temp_file_id: " + unknown.temp_file_id);
  }
  // Still there for alice.
  AddResourceRequest add;
  add.temp_file_id = alice.upload_id;
  add.to = "viking://user/alice/resources/pending";
  auto claimed = db_->AddResource(alice_, add);
  EXPECT_TRUE(claimed.ok()) << claimed.status().ToString();
}

TEST_F(IsolationTest, TasksAreVisibleOnlyToTheirUserAndRoot) {
  for (const Seeded& s : seeded_) {
    auto own = db_->GetTask(s.owner, s.task_id);
    ASSERT_TRUE(own.ok()) << own.status().ToString();
    auto listed = db_->ListTasks(s.owner, TaskFilter{});
    ASSERT_TRUE(listed.ok());
    std::set<std::string> own_ids;
    for (const TaskInfo& t : *listed) own_ids.insert(t.task_id);
    EXPECT_TRUE(own_ids.count(s.task_id)) << Name(s.owner);
    for (const Seeded& o : seeded_) {
      if (&o == &s) continue;
      EXPECT_FALSE(own_ids.count(o.task_id)) << Name(s.owner) << " lists " << Name(o.owner);
      Status hidden = db_->GetTask(s.owner, o.task_id).status();
      EXPECT_EQ(hidden.code(), StatusCode::kNotFound) << hidden.ToString();
      EXPECT_EQ(hidden.message(), "Task not found or expired");
      EXPECT_EQ(hidden.details(),
                (std::vector<Status::Detail>{{"resource", o.task_id}, {"type", "task"}}));
    }
    EXPECT_TRUE(db_->GetTask(User(s.owner.account, "ops", Role::kRoot), s.task_id).ok());
  }
}

TEST_F(IsolationTest, RootSeesEveryUserOfItsAccountOnly) {
  Identity acme_root = User("acme", "default", Role::kRoot);
  std::string seen = EverythingSeenBy(acme_root);
  EXPECT_NE(seen.find(seeded_[0].memory), std::string::npos);
  EXPECT_NE(seen.find(seeded_[1].memory), std::string::npos);
  EXPECT_EQ(seen.find(seeded_[2].marker), std::string::npos);
  EXPECT_EQ(seen.find("globex-shared"), std::string::npos);
}

// Candidates are filtered inside the index searches, not cut from a shared
// top-k: bob's one weak match comes back even when alice holds many
// stronger ones.
TEST_F(IsolationTest, FindFiltersCandidatesNotResults) {
  for (int i = 0; i < 30; ++i) {
    Create(alice_, "viking://user/alice/memories/narwhal" + std::to_string(i) + ".md",
           "narwhal narwhal tusk narwhal tusk narwhal " + std::to_string(i) + "\n");
  }
  Create(bob_, "viking://user/bob/memories/sea.md",
         "Notes on the sea: tides, weather, boats, and once a narwhal.\n");
  ASSERT_TRUE(db_->WaitIdle(120000).ok());
  FindRequest wide;
  wide.query = "narwhal tusk";
  wide.score_threshold = 0.0;
  wide.limit = 10;
  wide.levels = {2};
  wide.context_types = {"memory"};
  // The premise: over the whole account the best ten are all alice's, so a
  // filter applied to finished results would leave bob nothing.
  auto all = db_->Find(User("acme", "default", Role::kRoot), wide);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->memories.size(), 10u);
  for (const MatchedContext& hit : all->memories) {
    EXPECT_NE(hit.uri.find("/user/alice/memories/narwhal"), std::string::npos) << hit.uri;
  }
  for (const std::vector<std::string>& targets :
       {std::vector<std::string>{}, {"viking://"}, {"viking://user"}}) {
    FindRequest f;
    f.query = "narwhal tusk";
    f.score_threshold = 0.0;
    f.limit = 1;
    f.levels = {2};
    f.context_types = {"memory"};
    f.target_uris = targets;
    auto r = db_->Find(bob_, f);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->memories.size(), 1u);
    EXPECT_EQ(r->memories[0].uri, "viking://user/bob/memories/sea.md");
  }
}

}  // namespace
}  // namespace skald
