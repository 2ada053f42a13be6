// Snapshot routes over HTTP (/api/v1/snapshot/*, reference §2.11): commits
// record the account's files (noop when nothing changed), log walks them,
// show answers a commit or one file's bytes, diff one file's unified diff,
// restore makes a directory as it was (a forward commit, the files written
// back and re-indexed); .ovgitignore keeps files out; roles and accounts
// are kept apart; bad input gets OpenViking's errors.

#include <httplib.h>

#include "tests/api/api_fixture.h"

namespace skald::apitest {
namespace {

class SnapshotApiTest : public ApiTest {
 protected:
  void WaitIdle() {
    Reply r = PostJson("/api/v1/system/wait", {{"timeout", 60}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  Reply Commit(const Json& body) { return PostJson("/api/v1/snapshot/commit", body); }
  // A restore of the directory `dir` (a URI) from `commit`.
  Reply Restore(const std::string& commit, const std::string& dir) {
    return PostJson("/api/v1/snapshot/restore", {{"source_commit", commit}, {"project_dir", dir}});
  }
  std::string CommitOid(const Json& body) {
    Reply r = Commit(body);
    EXPECT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.json["result"]["result"], "created") << r.raw;
    return r.json["result"].value("commit_oid", "");
  }
  std::string Read(const std::string& uri) {
    Reply r = Get("/api/v1/content/read?uri=" + uri);
    return r.status == 200 ? r.json["result"].get<std::string>() : "(" + r.raw + ")";
  }
  void Write(const std::string& uri, const std::string& content) {
    Reply r = PostJson("/api/v1/content/write", {{"uri", uri}, {"content", content}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  // The handbook: two files, indexed.
  void AddHandbook() {
    Create("viking://resources/handbook/api.md", "# API\nold auth\nline3\n");
    Create("viking://resources/handbook/guide.md", "# Guide\nQuokkas smile at tourists.\n");
    WaitIdle();
  }
};

TEST_F(SnapshotApiTest, CommitsLogShowDiffAndRestoreAsOvDoes) {
  AddHandbook();
  Reply empty_log = Get("/api/v1/snapshot/log");
  EXPECT_EQ(empty_log.status, 404) << empty_log.raw;
  EXPECT_EQ(empty_log.Code(), "NOT_FOUND");

  Reply first = Commit({{"message", "checkpoint one"}});
  ASSERT_EQ(first.status, 200) << first.raw;
  EXPECT_EQ(first.json["result"]["result"], "created");
  EXPECT_GE(first.json["result"]["changed"].get<int>(), 2);  // the files and their sidecars
  EXPECT_EQ(first.json["result"]["ignored"], 0);
  const std::string c1 = first.json["result"]["commit_oid"];
  ASSERT_EQ(c1.size(), 40u);
  // Nothing changed: no commit, the head answered.
  Reply again = Commit({{"message", "again"}});
  ASSERT_EQ(again.status, 200) << again.raw;
  EXPECT_EQ(again.json["result"]["result"], "noop");
  EXPECT_EQ(again.json["result"]["commit_oid"], c1);
  EXPECT_FALSE(again.json["result"].contains("changed"));

  Write("viking://resources/handbook/api.md", "# API v2\nnew auth\nline3\n");
  WaitIdle();
  const std::string c2 = CommitOid({{"message", "docs only\n\nbody"},
                                    {"paths", {"viking://resources/handbook"}},
                                    {"author_name", "Ada"},
                                    {"author_email", "ada@example.com"}});

  Reply log = Get("/api/v1/snapshot/log?branch=main&limit=20");
  ASSERT_EQ(log.status, 200) << log.raw;
  ASSERT_EQ(log.json["result"].size(), 2u);
  const Json& newest = log.json["result"][0];
  EXPECT_EQ(newest["oid"], c2);
  EXPECT_EQ(newest["parents"], Json::array({c1}));
  EXPECT_EQ(newest["author"]["name"], "Ada");
  EXPECT_EQ(newest["committer"]["email"], "ada@example.com");
  EXPECT_EQ(newest["message"], "docs only\n\nbody");
  EXPECT_EQ(log.json["result"][1]["parents"], Json::array());
  // Filtered by path: only the commits that changed it.
  Reply guide_log = Get("/api/v1/snapshot/log?paths=viking://resources/handbook/guide.md");
  ASSERT_EQ(guide_log.status, 200) << guide_log.raw;
  ASSERT_EQ(guide_log.json["result"].size(), 1u);
  EXPECT_EQ(guide_log.json["result"][0]["oid"], c1);
  EXPECT_EQ(Get("/api/v1/snapshot/log?limit=1").json["result"].size(), 1u);

  // Show: the commit (by a short id too), or one file's bytes.
  Reply shown = Get("/api/v1/snapshot/show?target_ref=" + c1.substr(0, 10));
  ASSERT_EQ(shown.status, 200) << shown.raw;
  EXPECT_EQ(shown.json["result"]["oid"], c1);
  EXPECT_EQ(shown.json["result"]["message"], "checkpoint one");
  EXPECT_EQ(shown.json["result"]["author"]["name"], "viking-bot");
  Reply blob =
      Get("/api/v1/snapshot/show?target_ref=" + c1 + "&path=viking://resources/handbook/api.md");
  ASSERT_EQ(blob.status, 200) << blob.raw;
  EXPECT_EQ(blob.raw, "# API\nold auth\nline3\n");
  EXPECT_EQ(blob.Header("Content-Type"), "application/octet-stream");
  EXPECT_EQ(blob.Header("X-Snapshot-Size"), "21");
  EXPECT_EQ(blob.Header("X-Snapshot-Oid").size(), 40u);
  EXPECT_EQ(Get("/api/v1/snapshot/show?target_ref=main&path=viking://resources/handbook").status,
            400);
  Reply missing =
      Get("/api/v1/snapshot/show?target_ref=main&path=viking://resources/handbook/none.md");
  EXPECT_EQ(missing.status, 404) << missing.raw;
  EXPECT_EQ(Get("/api/v1/snapshot/show?target_ref=deadbeef").status, 404);

  // Diff of one file.
  Reply diff =
      Get("/api/v1/snapshot/diff?path=viking://resources/handbook/api.md&from=" + c1 + "&to=" + c2);
  ASSERT_EQ(diff.status, 200) << diff.raw;
  EXPECT_EQ(diff.json["result"]["change_type"], "modified");
  EXPECT_EQ(diff.json["result"]["from_commit"], c1);
  EXPECT_EQ(diff.json["result"]["diff_text"],
            "--- viking://resources/handbook/api.md@" + c1 +
                "\n+++ viking://resources/handbook/api.md@" + c2 +
                "\n@@ -1,3 +1,3 @@\n-# API\n-old auth\n+# API v2\n+new auth\n line3\n");
  Reply added = Get("/api/v1/snapshot/diff?path=viking://resources/handbook/guide.md&to=main");
  ASSERT_EQ(added.status, 200) << added.raw;
  EXPECT_EQ(added.json["result"]["change_type"], "added");
  EXPECT_EQ(added.json["result"]["from_commit"], "");
  EXPECT_EQ(Get("/api/v1/snapshot/diff?path=viking://resources/handbook/guide.md&from=" + c1 +
                "&to=" + c2)
                .json["result"]["change_type"],
            "unchanged");
  EXPECT_EQ(Get("/api/v1/snapshot/diff?path=viking://resources/handbook/api.md").status, 400);

  // Restore: a file added since c1 goes, the changed one comes back.
  Create("viking://resources/handbook/extra.md", "# Extra\n");
  WaitIdle();
  const std::string c3 = CommitOid({{"message", "extra"}, {"paths", {"viking://resources"}}});
  Reply dry = PostJson(
      "/api/v1/snapshot/restore",
      {{"source_commit", c1}, {"project_dir", "viking://resources/handbook"}, {"dry_run", true}});
  ASSERT_EQ(dry.status, 200) << dry.raw;
  EXPECT_EQ(dry.json["result"]["result"], "dry_run");
  EXPECT_EQ(dry.json["result"]["head"], c3);
  EXPECT_EQ(dry.json["result"]["source"], c1);
  bool writes_api = false;
  for (const Json& w : dry.json["result"]["diff"]["to_write"]) {
    writes_api = writes_api || w["path"] == "api.md";
  }
  EXPECT_TRUE(writes_api) << dry.raw;
  EXPECT_EQ(dry.json["result"]["diff"]["to_delete"], Json::array({"extra.md"})) << dry.raw;
  EXPECT_EQ(Read("viking://resources/handbook/api.md"), "# API v2\nnew auth\nline3\n");

  Reply restored =
      PostJson("/api/v1/snapshot/restore", {{"source_commit", c1},
                                            {"project_dir", "viking://resources/handbook"},
                                            {"message", "rollback"}});
  ASSERT_EQ(restored.status, 200) << restored.raw;
  const Json& r = restored.json["result"];
  EXPECT_EQ(r["result"], "applied");
  EXPECT_EQ(r["source_commit"], c1);
  EXPECT_EQ(r["parent_commit"], c3);
  EXPECT_EQ(r["deleted_paths"], Json::array({"resources/handbook/extra.md"}));
  ASSERT_TRUE(r.contains("task_id")) << restored.raw;
  Json task = WaitForTask(r["task_id"]);
  EXPECT_EQ(task["status"], "completed") << task.dump();
  EXPECT_EQ(task["task_type"], "snapshot_restore_reindex") << task.dump();
  EXPECT_EQ(Read("viking://resources/handbook/api.md"), "# API\nold auth\nline3\n");
  EXPECT_EQ(Get("/api/v1/content/read?uri=viking://resources/handbook/extra.md").status, 404);
  // A forward commit: the history keeps every commit.
  Reply after = Get("/api/v1/snapshot/log");
  ASSERT_EQ(after.json["result"].size(), 4u);
  EXPECT_EQ(after.json["result"][0]["oid"], r["new_commit_oid"]);
  EXPECT_EQ(after.json["result"][0]["message"], "rollback");
  // Restored again (once every job has settled the summaries): nothing to do.
  WaitIdle();
  Reply noop = PostJson("/api/v1/snapshot/restore",
                        {{"source_commit", c1}, {"project_dir", "viking://resources/handbook"}});
  ASSERT_EQ(noop.status, 200) << noop.raw;
  EXPECT_EQ(noop.json["result"]["result"], "noop");
  // Found again as it was.
  WaitIdle();
  Reply found = PostJson("/api/v1/search/find", {{"query", "old auth"}});
  ASSERT_EQ(found.status, 200) << found.raw;
  bool hit = false;
  for (const Json& m : found.json["result"]["resources"]) {
    hit = hit || m["uri"] == "viking://resources/handbook/api.md";
  }
  EXPECT_TRUE(hit) << found.raw;
}

TEST_F(SnapshotApiTest, IgnoreRulesKeepFilesOutAndAreCheckedAtCommit) {
  Reply none = Get("/api/v1/snapshot/ignore");
  ASSERT_EQ(none.status, 200) << none.raw;
  EXPECT_EQ(none.json["result"], "");
  Create("viking://resources/proj/keep.md", "# Keep\n");
  Create("viking://resources/proj/debug.txt", "noise\n");
  Create("viking://resources/proj/tmp/scratch.md", "# Scratch\n");
  WaitIdle();  // the summaries (sidecars) are written
  Reply set = Put("/api/v1/snapshot/ignore", Json{{"content", "*.txt\ntmp/\n"}}.dump());
  ASSERT_EQ(set.status, 200) << set.raw;
  EXPECT_TRUE(set.json["result"].is_null());
  EXPECT_EQ(Get("/api/v1/snapshot/ignore").json["result"], "*.txt\ntmp/\n");

  Reply first = Commit({{"message", "with rules"}});
  ASSERT_EQ(first.status, 200) << first.raw;
  // debug.txt, and tmp/ with its scratch file and its two sidecars.
  EXPECT_EQ(first.json["result"]["ignored"], 4) << first.raw;
  auto in_main = [&](const std::string& uri) {
    return Get("/api/v1/snapshot/show?target_ref=main&path=" + uri).status;
  };
  EXPECT_EQ(in_main("viking://resources/proj/keep.md"), 200);
  EXPECT_EQ(in_main("viking://resources/proj/debug.txt"), 404);
  EXPECT_EQ(in_main("viking://resources/proj/tmp/scratch.md"), 404);

  // Negation is refused at the next commit; too large at once.
  ASSERT_EQ(Put("/api/v1/snapshot/ignore", Json{{"content", "!keep.md\n"}}.dump()).status, 200);
  Reply refused = Commit({{"message", "negated"}});
  EXPECT_EQ(refused.status, 400) << refused.raw;
  EXPECT_EQ(refused.Code(), "INVALID_ARGUMENT");
  Reply big = Put("/api/v1/snapshot/ignore", Json{{"content", std::string(70000, 'a')}}.dump());
  EXPECT_EQ(big.status, 400) << big.raw;
  Reply removed = Delete("/api/v1/snapshot/ignore");
  ASSERT_EQ(removed.status, 200) << removed.raw;
  EXPECT_TRUE(removed.json["result"].is_null());
  EXPECT_EQ(Delete("/api/v1/snapshot/ignore").status, 200);  // idempotent
  // Without rules the files come in.
  Reply second = Commit({{"message", "no rules"}});
  ASSERT_EQ(second.status, 200) << second.raw;
  EXPECT_EQ(second.json["result"]["result"], "created");
  EXPECT_EQ(in_main("viking://resources/proj/debug.txt"), 200);
}

TEST_F(SnapshotApiTest, BadInputGetsOpenVikingsErrors) {
  Create("viking://resources/a/a.md", "# A\n");
  EXPECT_EQ(Commit({{"paths", {"viking://resources/a"}}}).status, 400);  // no message
  EXPECT_EQ(Commit({{"message", "m"}, {"unknown", 1}}).status, 400);
  EXPECT_EQ(Commit({{"message", "m"}, {"paths", "viking://resources/a"}}).status, 400);
  EXPECT_EQ(Commit({{"message", "m"}, {"branch", "bad..name"}}).status, 400);
  EXPECT_EQ(Commit({{"message", "m"}, {"paths", {"viking://"}}}).status, 400);
  EXPECT_EQ(Commit({{"message", "m"}, {"paths", {"viking://temp/x"}}}).status, 400);
  Reply file_scope = Commit({{"message", "m"}, {"file_paths", {"viking://resources/a"}}});
  EXPECT_EQ(file_scope.status, 412) << file_scope.raw;
  // An empty scope records nothing: a noop on a branch without commits.
  Reply nothing = Commit({{"message", "m"}, {"paths", Json::array()}});
  ASSERT_EQ(nothing.status, 200) << nothing.raw;
  EXPECT_EQ(nothing.json["result"]["result"], "noop");
  EXPECT_EQ(nothing.json["result"]["commit_oid"], std::string(40, '0'));
  const std::string c1 = CommitOid({{"message", "m"}, {"branch", "feature/x"}});
  EXPECT_EQ(Get("/api/v1/snapshot/log?branch=feature/x").json["result"][0]["oid"], c1);
  EXPECT_EQ(Get("/api/v1/snapshot/log").status, 404);  // main has no commits
  EXPECT_EQ(Get("/api/v1/snapshot/log?branch=feature/x&limit=0").status, 400);
  EXPECT_EQ(Get("/api/v1/snapshot/log?branch=feature/x&limit=501").status, 400);
  EXPECT_EQ(Get("/api/v1/snapshot/show").status, 400);  // no target_ref
  Reply no_head = PostJson("/api/v1/snapshot/restore", {{"source_commit", c1}});
  EXPECT_EQ(no_head.status, 404) << no_head.raw;  // main has no head to move
  Reply extra = PostJson("/api/v1/snapshot/restore", {{"source_commit", c1}, {"force", true}});
  EXPECT_EQ(extra.status, 400) << extra.raw;
  EXPECT_EQ(PostJson("/api/v1/snapshot/restore", {{"source_commit", c1},
                                                  {"branch", "feature/x"},
                                                  {"project_dir", "viking://resources/none"}})
                .status,
            404);
  ExpectHealthy();
}

TEST_F(SnapshotApiTest, RolesAndAccountsAreKeptApart) {
  const std::string root_key = "snapshot-root-key-0123456789";
  client_.reset();
  ASSERT_EQ(server_->Stop(SIGTERM), 0);
  server_.reset();
  StartServer(Json{{"server", {{"root_api_key", root_key}}}});
  auto as = [&](const std::string& key, const std::string& path, const Json& body) {
    return Post(path, body.dump(), "application/json", {{"X-API-Key", key}});
  };
  auto get_as = [&](const std::string& key, const std::string& path) {
    return Get(path, {{"X-API-Key", key}});
  };
  Reply account =
      as(root_key, "/api/v1/admin/accounts", {{"account_id", "acme"}, {"admin_user_id", "ada"}});
  ASSERT_EQ(account.status, 200) << account.raw;
  const std::string admin = account.json["result"].value("user_key", "");
  Reply user =
      as(admin, "/api/v1/admin/accounts/acme/users", {{"user_id", "bo"}, {"role", "user"}});
  ASSERT_EQ(user.status, 200) << user.raw;
  const std::string bo = user.json["result"].value("user_key", "");
  ASSERT_EQ(
      as(bo, "/api/v1/content/write",
         {{"uri", "viking://resources/shared/a.md"}, {"content", "# A\n"}, {"mode", "create"}})
          .status,
      200);

  // A user names what they commit, read and restore.
  EXPECT_EQ(as(bo, "/api/v1/snapshot/commit", {{"message", "all"}}).status, 403);
  Reply scoped = as(bo, "/api/v1/snapshot/commit",
                    {{"message", "shared"}, {"paths", {"viking://resources/shared"}}});
  ASSERT_EQ(scoped.status, 200) << scoped.raw;
  const std::string c1 = scoped.json["result"]["commit_oid"];
  EXPECT_EQ(get_as(bo, "/api/v1/snapshot/log").status, 403);
  EXPECT_EQ(get_as(bo, "/api/v1/snapshot/log?paths=viking://resources/shared").status, 200);
  EXPECT_EQ(get_as(bo, "/api/v1/snapshot/show?target_ref=" + c1).status, 403);
  EXPECT_EQ(
      get_as(bo, "/api/v1/snapshot/show?target_ref=" + c1 + "&path=viking://resources/shared/a.md")
          .status,
      200);
  EXPECT_EQ(as(bo, "/api/v1/snapshot/restore", {{"source_commit", c1}}).status, 403);
  // Another user's space is not theirs to commit, nor its history to read:
  // neither by name nor through the container of every user's space.
  Reply other = as(bo, "/api/v1/snapshot/commit",
                   {{"message", "x"}, {"paths", {"viking://user/ada/memories"}}});
  EXPECT_EQ(other.status, 403) << other.raw;
  ASSERT_EQ(as(admin, "/api/v1/content/write",
               {{"uri", "viking://user/ada/notes/plan.md"},
                {"content", "ada's plan\n"},
                {"mode", "create"}})
                .status,
            200);
  ASSERT_EQ(as(admin, "/api/v1/snapshot/commit",
               {{"message", "ada private"}, {"paths", {"viking://user/ada"}}})
                .status,
            200);
  Reply container = get_as(bo, "/api/v1/snapshot/log?paths=viking://user");
  EXPECT_EQ(container.status, 403) << container.raw;
  EXPECT_EQ(container.raw.find("ada private"), std::string::npos);
  EXPECT_EQ(get_as(bo, "/api/v1/snapshot/diff?to=main&path=viking://user").status, 403);
  EXPECT_EQ(get_as(bo, "/api/v1/snapshot/log?paths=viking://user/ada").status, 403);

  // A deleted user's files leave the history with them: a user created
  // later with the same id reads none of it.
  ASSERT_EQ(as(bo, "/api/v1/content/write",
               {{"uri", "viking://user/bo/notes/secret.md"},
                {"content", "bo's secret\n"},
                {"mode", "create"}})
                .status,
            200);
  ASSERT_EQ(as(bo, "/api/v1/snapshot/commit",
               {{"message", "bo private"}, {"paths", {"viking://user/bo"}}})
                .status,
            200);
  const std::string secret =
      "/api/v1/snapshot/show?target_ref=main&path=viking://user/bo/notes/"
      "secret.md";
  ASSERT_EQ(get_as(bo, secret).status, 200);
  Reply gone =
      ToReply(client_->Delete("/api/v1/admin/accounts/acme/users/bo", {{"X-API-Key", admin}}));
  ASSERT_EQ(gone.status, 202) << gone.raw;
  ASSERT_EQ(as(root_key, "/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  Reply again =
      as(admin, "/api/v1/admin/accounts/acme/users", {{"user_id", "bo"}, {"role", "user"}});
  ASSERT_EQ(again.status, 200) << again.raw;
  const std::string bo2 = again.json["result"].value("user_key", "");
  Reply erased = get_as(bo2, secret);
  EXPECT_EQ(erased.status, 404) << erased.raw;
  EXPECT_EQ(erased.raw.find("bo's secret"), std::string::npos);
  // What others committed stays.
  EXPECT_EQ(get_as(admin,
                   "/api/v1/snapshot/show?target_ref=main&path=viking://user/ada/notes/"
                   "plan.md")
                .raw,
            "ada's plan\n");
  // The ignore rules are the administrators'.
  EXPECT_EQ(get_as(bo2, "/api/v1/snapshot/ignore").status, 403);
  EXPECT_EQ(get_as(admin, "/api/v1/snapshot/ignore").status, 200);
  // Accounts never share a history.
  Reply other_account =
      as(root_key, "/api/v1/admin/accounts", {{"account_id", "globex"}, {"admin_user_id", "gil"}});
  ASSERT_EQ(other_account.status, 200) << other_account.raw;
  const std::string gil = other_account.json["result"].value("user_key", "");
  EXPECT_EQ(get_as(gil, "/api/v1/snapshot/log?paths=viking://resources/shared").status, 404);
  EXPECT_EQ(
      get_as(gil, "/api/v1/snapshot/show?target_ref=" + c1 + "&path=viking://resources/shared/a.md")
          .status,
      404);
}

TEST_F(SnapshotApiTest, RestoreSwapsFilesAndDirectoriesAndFinishesWhatWasCutShort) {
  const std::string q = "viking://resources/q";
  Create(q + "/x.md", "# X as a file\n");
  WaitIdle();
  const std::string as_file = CommitOid({{"message", "file"}, {"paths", {q}}});
  ASSERT_EQ(Delete("/api/v1/fs?uri=" + Q(q + "/x.md")).status, 200);
  Create(q + "/x.md/y.md", "# Y inside\n");
  WaitIdle();
  const std::string as_dir = CommitOid({{"message", "dir"}, {"paths", {q}}});
  auto restore = [&](const std::string& commit) { return Restore(commit, q); };

  // The directory goes before the file takes its name, and the reverse.
  Reply to_file = restore(as_file);
  ASSERT_EQ(to_file.status, 200) << to_file.raw;
  EXPECT_EQ(Read(q + "/x.md"), "# X as a file\n");
  WaitIdle();
  Reply to_dir = restore(as_dir);
  ASSERT_EQ(to_dir.status, 200) << to_dir.raw;
  EXPECT_EQ(Read(q + "/x.md/y.md"), "# Y inside\n");
  WaitIdle();

  // A file lost after a restore finished is work nobody committed: a
  // restore of the head leaves it alone (as OpenViking's head-vs-source
  // plan does).
  ASSERT_EQ(Delete("/api/v1/fs?uri=" + Q(q + "/x.md/y.md")).status, 200);
  EXPECT_EQ(restore(as_dir).json["result"]["result"], "noop");
  EXPECT_EQ(Get("/api/v1/content/read?uri=" + Q(q + "/x.md/y.md")).status, 404);
  Create(q + "/x.md/y.md", "# Y inside\n");
  WaitIdle();

  // A file that cannot follow (an ignored file keeps its directory in
  // place): 500 RESTORE_WRITEBACK_PARTIAL with the whole result, the branch
  // moved.
  ASSERT_EQ(Put("/api/v1/snapshot/ignore", Json{{"content", "*.txt\n"}}.dump()).status, 200);
  Create(q + "/x.md/keep.txt", "kept\n");
  WaitIdle();
  Reply partial = restore(as_file);
  ASSERT_EQ(partial.status, 500) << partial.raw;
  EXPECT_EQ(partial.Code(), "RESTORE_WRITEBACK_PARTIAL");
  const Json& d = partial.json["error"]["details"];
  EXPECT_EQ(d["failed_writes"], Json::array({"resources/q/x.md"})) << partial.raw;
  EXPECT_EQ(d["failed_deletes"], Json::array()) << partial.raw;
  EXPECT_TRUE(d["written"].is_number()) << partial.raw;
  EXPECT_EQ(d["source_commit"], as_file);
  EXPECT_EQ(Get("/api/v1/snapshot/log?limit=1").json["result"][0]["oid"], d["new_commit_oid"]);
  EXPECT_EQ(Read(q + "/x.md/keep.txt"), "kept\n");
  // What failed stays pending, through other commits, until a restore of
  // the branch can finish it.
  Reply again = restore(as_file);
  EXPECT_EQ(again.status, 500) << again.raw;
  Create("viking://resources/other/o.md", "# O\n");
  WaitIdle();
  CommitOid({{"message", "elsewhere"}, {"paths", {"viking://resources/other"}}});
  ASSERT_EQ(Delete("/api/v1/fs?uri=" + Q(q + "/x.md/keep.txt")).status, 200);
  Reply finished = restore(as_file);
  ASSERT_EQ(finished.status, 200) << finished.raw;
  EXPECT_EQ(finished.json["result"]["written_paths"], Json::array({"resources/q/x.md"}))
      << finished.raw;
  EXPECT_EQ(finished.json["result"]["new_commit_oid"], finished.json["result"]["parent_commit"]);
  EXPECT_EQ(Read(q + "/x.md"), "# X as a file\n");
  WaitIdle();
  EXPECT_EQ(restore(as_file).json["result"]["result"], "noop");

  // Work done on a pending file since is never written over: cut short
  // again, then the blocking directory replaced by a file of one's own.
  ASSERT_EQ(restore(as_dir).status, 200);
  Create(q + "/x.md/keep.txt", "kept\n");
  WaitIdle();
  ASSERT_EQ(restore(as_file).status, 500);
  ASSERT_EQ(Delete("/api/v1/fs?recursive=true&uri=" + Q(q + "/x.md")).status, 200);
  Create(q + "/x.md", "# Mine\n");
  WaitIdle();
  Reply mine = restore(as_file);
  ASSERT_EQ(mine.status, 200) << mine.raw;
  EXPECT_EQ(mine.json["result"]["result"], "noop") << mine.raw;
  EXPECT_EQ(Read(q + "/x.md"), "# Mine\n");
  ExpectHealthy();
}

TEST_F(SnapshotApiTest, WhatAnActorPeerCannotSeeStaysInTheHistory) {
  const std::string peers = "viking://user/default/peers";
  auto add_note = [&](const std::string& peer, const std::string& dir) {
    const std::string id = UploadTemp("# " + peer + "\n\nNotes of " + peer + ".\n", "note.md");
    Reply r = PostJson("/api/v1/resources", {{"temp_file_id", id},
                                             {"to", peers + "/" + peer + "/resources/" + dir + "/"},
                                             {"wait", true}});
    ASSERT_EQ(r.status, 200) << r.raw;
    WaitIdle();
  };
  add_note("bot1", "n");
  add_note("bot2", "n");
  CommitOid({{"message", "everything"}});
  const std::string bot2_note =
      "/api/v1/snapshot/show?target_ref=main&path=" + Q(peers + "/bot2/resources/n/note.md");
  ASSERT_EQ(Get(bot2_note).status, 200);
  const httplib::Headers bot1 = {{"X-OpenViking-Actor-Peer", "bot1"}};
  add_note("bot1", "m");  // something of bot1's changes
  Reply scoped = Post("/api/v1/snapshot/commit",
                      Json{{"message", "mine"}, {"paths", {"viking://user/default"}}}.dump(),
                      "application/json", bot1);
  ASSERT_EQ(scoped.status, 200) << scoped.raw;
  EXPECT_EQ(scoped.json["result"]["result"], "created") << scoped.raw;
  // bot2's note is still in the new head; bot1 neither reads it nor sees
  // its changes in the log.
  EXPECT_EQ(Get(bot2_note).status, 200);
  EXPECT_EQ(Get(bot2_note, bot1).status, 403);
  Reply log = Get("/api/v1/snapshot/log?paths=" + Q(peers + "/bot1"), bot1);
  ASSERT_EQ(log.status, 200) << log.raw;
  EXPECT_EQ(log.json["result"].size(), 2u) << log.raw;
  // bot1 restores its user's space: bot2's file is neither named nor touched.
  Reply restore = Post("/api/v1/snapshot/restore",
                       Json{{"source_commit", "main"}, {"project_dir", "viking://user/default"},
                            {"dry_run", true}}
                           .dump(),
                       "application/json", bot1);
  ASSERT_EQ(restore.status, 200) << restore.raw;
  EXPECT_EQ(restore.raw.find("bot2"), std::string::npos) << restore.raw;
}

TEST_F(SnapshotApiTest, OversizedInputIsRefused) {
  Create("viking://resources/a/a.md", "# A\n");
  Json many = Json::array();
  for (int i = 0; i < 1001; ++i) many.push_back("viking://resources/a");
  Reply paths = Commit({{"message", "m"}, {"paths", many}});
  EXPECT_EQ(paths.status, 400) << paths.raw.substr(0, 300);
  Reply message = Commit({{"message", std::string(65537, 'm')}, {"paths", {"viking://resources"}}});
  EXPECT_EQ(message.status, 400);
  Reply author = Commit({{"message", "m"}, {"author_name", std::string(257, 'a')}});
  EXPECT_EQ(author.status, 400);
  Reply branch = Commit({{"message", "m"}, {"branch", std::string(257, 'b')}});
  EXPECT_EQ(branch.status, 400);
  // Repeated and nested paths are recorded once.
  Create("viking://resources/a/ignored.txt", "x\n");
  ASSERT_EQ(Put("/api/v1/snapshot/ignore", Json{{"content", "*.txt\n"}}.dump()).status, 200);
  Reply repeated =
      Commit({{"message", "m"},
              {"paths", {"viking://resources/a", "viking://resources/a", "viking://resources"}},
              {"file_paths", {"viking://resources/a/ignored.txt"}}});
  ASSERT_EQ(repeated.status, 200) << repeated.raw;
  EXPECT_EQ(repeated.json["result"]["ignored"], 1) << repeated.raw;
  // A diff over its limits: 429 with the limit as a number.
  std::string lines;
  for (int i = 0; i < 100001; ++i) lines += "x\n";
  Create("viking://resources/a/long.md", lines);
  CommitOid({{"message", "long"}, {"file_paths", {"viking://resources/a/long.md"}}});
  Reply too_long = Get("/api/v1/snapshot/diff?to=main&path=viking://resources/a/long.md");
  EXPECT_EQ(too_long.status, 429) << too_long.raw;
  EXPECT_EQ(too_long.json["error"]["details"]["limit_lines"], 100000) << too_long.raw;
  std::string deep = "viking://resources";
  for (int i = 0; i < 64; ++i) deep += "/d";
  EXPECT_EQ(Get("/api/v1/snapshot/log?paths=" + Q(deep)).status, 400);
  ExpectHealthy();
}

TEST_F(SnapshotApiTest, RestoreLeavesWorkNotCommittedAlone) {
  const std::string shared = "viking://resources/shared";
  Create(shared + "/s.md", "# S one\n");
  WaitIdle();
  const std::string one = CommitOid({{"message", "one"}, {"paths", {shared}}});
  Write(shared + "/s.md", "# S two\n");
  WaitIdle();
  const std::string two = CommitOid({{"message", "two"}, {"paths", {shared}}});
  // Work nobody committed: a new file and an edit of a committed one.
  Create(shared + "/draft.md", "# Draft\n");
  Write(shared + "/s.md", "# S three, not committed\n");
  WaitIdle();
  auto restore = [&](const std::string& commit) { return Restore(commit, shared); };
  Reply same = restore(two);
  ASSERT_EQ(same.status, 200) << same.raw;
  EXPECT_EQ(same.json["result"]["result"], "noop") << same.raw;
  EXPECT_EQ(Read(shared + "/draft.md"), "# Draft\n");
  EXPECT_EQ(Read(shared + "/s.md"), "# S three, not committed\n");
  // Where the head and the source differ, the source wins (as OpenViking);
  // the draft stays.
  Reply back = restore(one);
  ASSERT_EQ(back.status, 200) << back.raw;
  EXPECT_EQ(Read(shared + "/s.md"), "# S one\n");
  EXPECT_EQ(Read(shared + "/draft.md"), "# Draft\n");
  // An edit that happens to bring back what the head's parent had is work
  // too: a restore of the head keeps it.
  WaitIdle();
  Write(shared + "/s.md", "# S two\n");
  WaitIdle();
  EXPECT_EQ(restore(one).json["result"]["result"], "noop");
  EXPECT_EQ(Read(shared + "/s.md"), "# S two\n");
  Write(shared + "/s.md", "# S one\n");
  WaitIdle();
  // A file is no directory to restore (404, as OpenViking).
  Reply file = PostJson("/api/v1/snapshot/restore",
                        {{"source_commit", one}, {"project_dir", shared + "/s.md"}});
  EXPECT_EQ(file.status, 404) << file.raw;
  // An empty directory gives way to the file the source has there.
  ASSERT_EQ(Delete("/api/v1/fs?uri=" + Q(shared + "/s.md")).status, 200);
  Mkdir(shared + "/s.md");
  Reply over_empty = restore(two);
  ASSERT_EQ(over_empty.status, 200) << over_empty.raw;
  EXPECT_EQ(Read(shared + "/s.md"), "# S two\n");
  // A commit never holds a file and a directory of the same name.
  WaitIdle();
  ASSERT_EQ(Delete("/api/v1/fs?uri=" + Q(shared + "/s.md")).status, 200);
  Create(shared + "/s.md/inner.md", "# Inner\n");
  WaitIdle();
  CommitOid({{"message", "dir"}, {"paths", {shared}}});
  ASSERT_EQ(Delete("/api/v1/fs?recursive=true&uri=" + Q(shared + "/s.md")).status, 200);
  Create(shared + "/s.md", "# S again\n");
  WaitIdle();
  CommitOid({{"message", "file again"}, {"file_paths", {shared + "/s.md"}}});
  EXPECT_EQ(Get("/api/v1/snapshot/show?target_ref=main&path=" + Q(shared + "/s.md/inner.md"))
                .status,
            404);
  // A whole-account restore keeps the containers of users' spaces.
  Create("viking://user/default/notes/n.md", "# Note\n");
  WaitIdle();
  CommitOid({{"message", "everything"}});
  Reply whole = PostJson("/api/v1/snapshot/restore", {{"source_commit", one}});
  ASSERT_EQ(whole.status, 200) << whole.raw;
  EXPECT_EQ(Get("/api/v1/content/read?uri=viking://user/default/notes/n.md").status, 404);
  EXPECT_EQ(Get("/api/v1/fs/ls?uri=viking://user/default").status, 200);
  EXPECT_EQ(Get("/api/v1/fs/ls?uri=viking://user").status, 200);
  ExpectHealthy();
}

TEST_F(SnapshotApiTest, RestoreOfTheHeadKeepsCopiesAndIgnoredEdits) {
  const std::string app = "viking://resources/app";
  Create(app + "/t.md", "# T\n");
  Create(app + "/a.txt", "committed\n");
  WaitIdle();
  const std::string base = CommitOid({{"message", "base"}, {"paths", {app}}});
  // Not committed: a copy of a committed file, and an edit of a file that is
  // ignored since it was committed.
  Create(app + "/copy.md", "# T\n");
  ASSERT_EQ(Put("/api/v1/snapshot/ignore", Json{{"content", "*.txt\n"}}.dump()).status, 200);
  Write(app + "/a.txt", "edited, not committed\n");
  WaitIdle();
  Reply head = Restore(base, app);
  ASSERT_EQ(head.status, 200) << head.raw;
  EXPECT_EQ(head.json["result"]["result"], "noop") << head.raw;
  EXPECT_EQ(Read(app + "/copy.md"), "# T\n");
  EXPECT_EQ(Read(app + "/a.txt"), "edited, not committed\n");
  // An ignored file stays as it is where the head and the source differ
  // too.
  ASSERT_EQ(Delete("/api/v1/snapshot/ignore").status, 200);
  CommitOid({{"message", "edited"}, {"paths", {app}}});
  ASSERT_EQ(Put("/api/v1/snapshot/ignore", Json{{"content", "*.txt\n"}}.dump()).status, 200);
  Reply past = Restore(base, app);
  ASSERT_EQ(past.status, 200) << past.raw;
  EXPECT_EQ(Read(app + "/a.txt"), "edited, not committed\n") << past.raw;
  // A directory a restore empties goes, right below a scope too.
  Create("viking://resources/newdir/n.md", "# N\n");
  WaitIdle();
  CommitOid({{"message", "newdir"}, {"paths", {"viking://resources"}}});
  Reply back = PostJson("/api/v1/snapshot/restore",
                        {{"source_commit", base}, {"project_dir", "viking://resources"}});
  ASSERT_EQ(back.status, 200) << back.raw;
  EXPECT_EQ(Get("/api/v1/fs/ls?uri=viking://resources/newdir").status, 404);
  EXPECT_EQ(Get("/api/v1/fs/ls?uri=viking://resources").status, 200);
}

TEST_F(SnapshotApiTest, ARestoreThatNoLongerWantsABlockedFileFinishes) {
  const std::string r = "viking://resources/r";
  auto restore = [&](const std::string& commit) { return Restore(commit, r); };
  Create(r + "/a.md", "# A\n");
  WaitIdle();
  const std::string only_a = CommitOid({{"message", "a"}, {"paths", {r}}});
  Create(r + "/b.md", "# B\n");
  WaitIdle();
  const std::string with_b = CommitOid({{"message", "b"}, {"paths", {r}}});
  ASSERT_EQ(Delete("/api/v1/fs?uri=" + Q(r + "/b.md")).status, 200);
  Create(r + "/b.md/inner.md", "# Inner\n");
  ASSERT_EQ(Put("/api/v1/snapshot/ignore", Json{{"content", "*.txt\n"}}.dump()).status, 200);
  Create(r + "/b.md/keep.txt", "kept\n");
  WaitIdle();
  CommitOid({{"message", "b is a directory"}, {"paths", {r}}});
  // b.md cannot become a file again while keep.txt is in the way.
  ASSERT_EQ(restore(with_b).status, 500);
  // A source without b.md drops the pending write; the directory that
  // stands where the head has a file is no file to delete.
  Reply back = restore(only_a);
  ASSERT_EQ(back.status, 200) << back.raw;
  EXPECT_EQ(Read(r + "/a.md"), "# A\n");
  EXPECT_EQ(Read(r + "/b.md/keep.txt"), "kept\n");
  WaitIdle();
  ASSERT_EQ(Delete("/api/v1/fs?recursive=true&uri=" + Q(r + "/b.md")).status, 200);
  EXPECT_EQ(restore(only_a).json["result"]["result"], "noop");
  EXPECT_EQ(Get("/api/v1/fs/stat?uri=" + Q(r + "/b.md")).status, 404);
  ExpectHealthy();
}

}  // namespace
}  // namespace skald::apitest
