// Tests of the Db facade's file-system operations through the C++ API.

#include "skald/db.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

WriteRequest Req(std::string uri, std::string content, WriteMode mode) {
  WriteRequest request;
  request.uri = std::move(uri);
  request.content = std::move(content);
  request.mode = mode;
  return request;
}

class DbTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen(const std::string& lexical_index = "memory") {
    db_.reset();
    DbOptions options;
    options.workspace = dir_.Sub("ws");
    options.retrieval.lexical_index = lexical_index;
    options.sync_writes = false;  // the crash tests cover durability
    // File-system semantics only: no background indexing adding sidecars
    // (tests/integration covers it).
    options.background_workers = 0;
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
  }
  void Create(const std::string& uri, const std::string& content) {
    auto r = db_->Write(who_, Req(uri, content, WriteMode::kCreate));
    ASSERT_TRUE(r.ok()) << uri << ": " << r.status().ToString();
  }
  std::vector<std::string> Uris(const Result<std::vector<LsEntry>>& entries) {
    std::vector<std::string> out;
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    if (entries.ok()) {
      for (const auto& e : *entries) out.push_back(e.node.uri);
    }
    return out;
  }

  testing::TempDir dir_;
  Identity who_{"default", "default", Role::kRoot};
  std::unique_ptr<Db> db_;
};

TEST_F(DbTest, FreshWorkspaceHasResources) {
  EXPECT_EQ(Uris(db_->Ls(who_, "viking://", {})), std::vector<std::string>{"viking://resources"});
  auto st = db_->Stat(who_, "viking://resources/");
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->is_dir);
  EXPECT_EQ(st->uri, "viking://resources");
}

TEST_F(DbTest, SecondOpenOfWorkspaceIsRefused) {
  DbOptions options;
  options.workspace = dir_.Sub("ws");
  auto second = Db::Open(options);
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("in use"), std::string::npos);
  // The message names the workspace file, not where the workspace lives.
  EXPECT_NE(second.status().message().find("LOCK"), std::string::npos)
      << second.status().ToString();
  EXPECT_EQ(second.status().message().find(dir_.path()), std::string::npos)
      << second.status().ToString();
  EXPECT_EQ(second.status().message().find('/'), std::string::npos) << second.status().ToString();
}

TEST_F(DbTest, MkdirCreatesParentsAndRefusesExisting) {
  auto made = db_->Mkdir(who_, "viking://resources/a/b/c/", "");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(*made, "viking://resources/a/b/c");
  EXPECT_TRUE(db_->Stat(who_, "viking://resources/a/b")->is_dir);
  auto again = db_->Mkdir(who_, "viking://resources/a/b/c", "");
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().reason(), "CONFLICT");
}

TEST_F(DbTest, MkdirDescriptionBecomesAbstract) {
  ASSERT_TRUE(db_->Mkdir(who_, "viking://resources/doc", "  Docs about keys. ").ok());
  EXPECT_EQ(*db_->Abstract(who_, "viking://resources/doc"), "Docs about keys.");
  EXPECT_EQ(*db_->Overview(who_, "viking://resources/doc"),
            "# viking://resources/doc\n\n[Directory overview is not ready]");
  auto ls = db_->Ls(who_, "viking://resources", {});
  ASSERT_TRUE(ls.ok());
  ASSERT_EQ(ls->size(), 1u);  // the sidecar is hidden
  EXPECT_EQ((*ls)[0].abstract, "Docs about keys.");
  LsOptions all;
  all.show_all_hidden = true;
  EXPECT_EQ(Uris(db_->Ls(who_, "viking://resources/doc", all)),
            std::vector<std::string>{"viking://resources/doc/.abstract.md"});
}

TEST_F(DbTest, LsAbstractIsCutToAbsLimit) {
  ASSERT_TRUE(db_->Mkdir(who_, "viking://resources/d", std::string(300, 'x')).ok());
  LsOptions o;
  o.abs_limit = 10;
  auto ls = db_->Ls(who_, "viking://resources", o);
  ASSERT_TRUE(ls.ok());
  EXPECT_EQ((*ls)[0].abstract, "xxxxxxx...");
  ASSERT_TRUE(db_->Mkdir(who_, "viking://resources/e", "").ok());
  ls = db_->Ls(who_, "viking://resources", o);
  EXPECT_EQ((*ls)[1].abstract, "# viking://resources/e [Directory abstract is not ready]");
}

TEST_F(DbTest, WriteModes) {
  WriteRequest replace = Req("viking://resources/n/x.md", "a", WriteMode::kReplace);
  EXPECT_EQ(db_->Write(who_, replace).status().code(), StatusCode::kNotFound);
  Create("viking://resources/n/x.md", "line1\n");
  auto dup = db_->Write(who_, Req("viking://resources/n/x.md", "z", WriteMode::kCreate));
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  auto app = db_->Write(who_, Req("viking://resources/n/x.md", "line2\n", WriteMode::kAppend));
  ASSERT_TRUE(app.ok());
  EXPECT_TRUE(app->content_updated);
  EXPECT_EQ(app->written_bytes, 6u);
  EXPECT_EQ(app->root_uri, "viking://resources/n");
  EXPECT_EQ(*db_->Read(who_, "viking://resources/n/x.md", 0, -1, false), "line1\nline2\n");
  auto same =
      db_->Write(who_, Req("viking://resources/n/x.md", "line1\nline2\n", WriteMode::kReplace));
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->content_updated);
  EXPECT_EQ(
      db_->Write(who_, Req("viking://resources/n/x.bin", "z", WriteMode::kCreate)).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->Write(who_, Req("viking://resources/n", "z", WriteMode::kReplace)).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->Write(who_, Req("viking://resources/n/y.md", "\xff", WriteMode::kCreate))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST_F(DbTest, ReadByLines) {
  Create("viking://resources/r.txt", "a\nb\nc\nd");
  EXPECT_EQ(*db_->Read(who_, "viking://resources/r.txt", 1, 2, false), "b\nc\n");
  EXPECT_EQ(*db_->Read(who_, "viking://resources/r.txt", 3, -1, false), "d");
  EXPECT_EQ(*db_->Read(who_, "viking://resources/r.txt", 10, 1, false), "");
  EXPECT_EQ(db_->Read(who_, "viking://resources/r.txt", -1, 1, false).status().code(),
            StatusCode::kInvalidArgument);
  auto dir = db_->Read(who_, "viking://resources", 0, -1, false);
  EXPECT_EQ(dir.status().code(), StatusCode::kInvalidArgument);
  ASSERT_FALSE(dir.status().details().empty());
  EXPECT_EQ(dir.status().details()[0], (Status::Detail{"expected", "file"}));
  EXPECT_EQ(db_->Read(who_, "viking://resources/none", 0, -1, false).status().code(),
            StatusCode::kNotFound);
}

TEST_F(DbTest, RmRules) {
  Create("viking://resources/d/x.md", "x");
  EXPECT_EQ(db_->Rm(who_, "viking://resources/d", false).status().code(),
            StatusCode::kFailedPrecondition);
  auto gone = db_->Rm(who_, "viking://resources/d", true);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->deleted_count, 2u);
  EXPECT_EQ(db_->Stat(who_, "viking://resources/d").status().code(), StatusCode::kNotFound);
  auto again = db_->Rm(who_, "viking://resources/d", true);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->deleted_count, 0u);
  // A directory goes only with `recursive`, even an empty one (OpenViking's rule).
  ASSERT_TRUE(db_->Mkdir(who_, "viking://resources/empty", "").ok());
  EXPECT_EQ(db_->Rm(who_, "viking://resources/empty", false).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(db_->Rm(who_, "viking://resources/empty", true).ok());
  EXPECT_EQ(db_->Rm(who_, "viking://", true).status().code(), StatusCode::kPermissionDenied);
  // ROOT may empty the resources scope; its root directory stays.
  Create("viking://resources/k/v.md", "v");
  ASSERT_TRUE(db_->Rm(who_, "viking://resources", true).ok());
  EXPECT_TRUE(db_->Stat(who_, "viking://resources")->is_dir);
  EXPECT_EQ(db_->Stat(who_, "viking://resources/k").status().code(), StatusCode::kNotFound);
}

TEST_F(DbTest, MvFilesAndTrees) {
  Create("viking://resources/src/a/x.md", "x");
  Create("viking://resources/src/y.md", "y");
  auto mv = db_->Mv(who_, "viking://resources/src", "viking://resources/new/dst");
  ASSERT_TRUE(mv.ok()) << mv.status().ToString();
  EXPECT_EQ(mv->to, "viking://resources/new/dst");
  EXPECT_EQ(*db_->Read(who_, "viking://resources/new/dst/a/x.md", 0, -1, false), "x");
  EXPECT_EQ(db_->Stat(who_, "viking://resources/src").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(db_->Mv(who_, "viking://resources/nope", "viking://resources/z").status().code(),
            StatusCode::kNotFound);
  Create("viking://resources/f.md", "f");
  EXPECT_EQ(
      db_->Mv(who_, "viking://resources/f.md", "viking://resources/new/dst/y.md").status().code(),
      StatusCode::kAlreadyExists);
  EXPECT_EQ(
      db_->Mv(who_, "viking://resources/new", "viking://resources/new/dst/in").status().code(),
      StatusCode::kInvalidArgument);
  ASSERT_TRUE(db_->Mv(who_, "viking://resources/f.md", "viking://resources/g.md").ok());
  EXPECT_EQ(*db_->Read(who_, "viking://resources/g.md", 0, -1, false), "f");
}

TEST_F(DbTest, TreeIsDepthFirstWithRelPaths) {
  Create("viking://resources/a/c.md", "1");
  Create("viking://resources/a-b.md", "2");
  Create("viking://resources/a/d/e.md", "3");
  LsOptions o;
  o.level_limit = 2;
  auto tree = db_->Tree(who_, "viking://resources", o);
  ASSERT_TRUE(tree.ok());
  std::vector<std::string> rel;
  for (const auto& e : *tree) rel.push_back(e.rel_path);
  EXPECT_EQ(rel, (std::vector<std::string>{"a", "a/c.md", "a/d", "a-b.md"}));
}

TEST_F(DbTest, LsSortAndLimit) {
  Create("viking://resources/b.md", "1");
  Create("viking://resources/a.md", "2");
  Create("viking://resources/c.md", "3");
  LsOptions o;
  o.descending = true;
  o.node_limit = 2;
  EXPECT_EQ(Uris(db_->Ls(who_, "viking://resources", o)),
            (std::vector<std::string>{"viking://resources/c.md", "viking://resources/b.md"}));
  EXPECT_EQ(db_->Ls(who_, "viking://resources/zzz", {}).status().code(), StatusCode::kNotFound);
}

TEST_F(DbTest, GlobAndGrep) {
  Create("viking://resources/docs/a.md", "alpha\nBeta key rotation\n");
  Create("viking://resources/docs/sub/b.md", "rotate the KEY\n");
  Create("viking://resources/docs/c.txt", "nothing here\n");
  auto glob = db_->Glob(who_, {"**/*.md", "viking://resources"});
  ASSERT_TRUE(glob.ok()) << glob.status().ToString();
  EXPECT_EQ(glob->uris(), (std::vector<std::string>{"viking://resources/docs/a.md",
                                                    "viking://resources/docs/sub/b.md"}));
  GrepRequest g;
  g.uri = "viking://resources/docs";
  g.pattern = "key";
  g.case_insensitive = true;
  auto grep = db_->Grep(who_, g);
  ASSERT_TRUE(grep.ok()) << grep.status().ToString();
  ASSERT_EQ(grep->matches.size(), 2u);
  EXPECT_EQ(grep->matches[0].uri, "viking://resources/docs/a.md");
  EXPECT_EQ(grep->matches[0].line, 2);
  EXPECT_EQ(grep->matches[0].content, "Beta key rotation");
  EXPECT_EQ(grep->files_scanned, 3u);
  g.exclude_uri = "viking://resources/docs/sub";
  EXPECT_EQ(db_->Grep(who_, g)->matches.size(), 1u);
  g.pattern = "(unclosed";
  EXPECT_EQ(db_->Grep(who_, g).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(DbTest, BadUrisAreRejected) {
  EXPECT_EQ(db_->Stat(who_, "http://x/y").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->Stat(who_, "viking://resources/../../etc/passwd").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(db_->Stat(who_, "").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(DbTest, DataSurvivesReopenAndFsckIsClean) {
  Create("viking://resources/p/q.md", "persist");
  ASSERT_TRUE(db_->Mkdir(who_, "viking://resources/p/r", "desc").ok());
  Reopen();
  EXPECT_EQ(*db_->Read(who_, "viking://resources/p/q.md", 0, -1, false), "persist");
  auto report = db_->Fsck(false);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->clean()) << report->issues.size();
  EXPECT_GE(report->nodes_checked, 5u);
}

// Switching retrieval.lexical_index drops the other kind's files: kept,
// they would miss the deletes whose tombstones the catalog purged meanwhile
// and serve them again when switched back.
TEST_F(DbTest, SwitchingTheLexicalIndexRemovesTheOtherKindsFiles) {
  const std::string index_dir = dir_.Sub("ws") + "/index";
  Reopen("fts5");
  EXPECT_TRUE(std::filesystem::exists(index_dir + "/lexical.db"));
  Reopen("memory");
  EXPECT_FALSE(std::filesystem::exists(index_dir + "/lexical.db"));
  EXPECT_FALSE(std::filesystem::exists(index_dir + "/lexical.db-wal"));
  db_.reset();
  for (const char* name : {"/lexical.mem", "/lexical.mem.log"}) {
    std::ofstream(index_dir + name) << "stale";
  }
  Reopen("fts5");
  EXPECT_FALSE(std::filesystem::exists(index_dir + "/lexical.mem"));
  EXPECT_FALSE(std::filesystem::exists(index_dir + "/lexical.mem.log"));
  EXPECT_TRUE(std::filesystem::exists(index_dir + "/lexical.db"));
}

TEST_F(DbTest, FsckFindsAndRepairsOutOfBandChanges) {
  Create("viking://resources/p/q.md", "persist");
  std::string content = dir_.Sub("ws/content/default/resources/p");
  std::filesystem::remove(content + "/q.md");
  std::filesystem::create_directories(content + "/stray");
  auto report = db_->Fsck(false);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->issues.size(), 2u);
  ASSERT_TRUE(db_->Fsck(true).ok());
  EXPECT_TRUE(db_->Fsck(false)->clean());
  EXPECT_TRUE(db_->Stat(who_, "viking://resources/p/stray")->is_dir);
}

TEST_F(DbTest, AccountsAreIsolated) {
  Identity other{"acme", "bob", Role::kRoot};
  Create("viking://resources/mine.md", "x");
  EXPECT_EQ(db_->Stat(other, "viking://resources/mine.md").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(db_->Stat(other, "viking://resources")->is_dir);
}

TEST_F(DbTest, OverlongIdsAreInvalidArgumentForLibraryCallers) {
  // An account id names a directory: one too long for a file name must be
  // refused as such, never reach the file system (IOError, host path).
  Identity long_account{std::string(129, 'a'), "bob", Role::kRoot};
  Identity long_user{"acme", std::string(300, 'u'), Role::kRoot};
  for (const Identity& who : {long_account, long_user}) {
    auto ls = db_->Ls(who, "viking://resources", LsOptions{});
    EXPECT_EQ(ls.status().code(), StatusCode::kInvalidArgument) << ls.status().ToString();
    EXPECT_NE(ls.status().message().find("128"), std::string::npos) << ls.status().ToString();
    auto write = db_->Write(who, Req("viking://resources/x.md", "x", WriteMode::kCreate));
    EXPECT_EQ(write.status().code(), StatusCode::kInvalidArgument);
  }
  Identity at_limit{std::string(128, 'a'), std::string(128, 'u'), Role::kRoot};
  EXPECT_TRUE(db_->Ls(at_limit, "viking://resources", LsOptions{}).ok());
}

TEST_F(DbTest, ConcurrentWritersToOneFileSerialize) {
  Create("viking://resources/c.md", "");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto r = db_->Write(who_, Req("viking://resources/c.md", "x", WriteMode::kAppend));
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(db_->Read(who_, "viking://resources/c.md", 0, -1, false)->size(), 100u);
}

}  // namespace
}  // namespace skald
