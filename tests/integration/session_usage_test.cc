// Usage tracking through the Db facade (internals §4.7): the contexts a
// session `used` get one use each in their records' active_count when the
// commit's background phase runs — only those the session's owner may see —
// and with retrieval.hotness_alpha > 0 a used context ranks above an equal
// unused one. Also: a session idle under an auto-commit policy when its
// process stopped is committed by the next one.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "skald/db.h"
#include "storage/catalog.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const Identity kRoot{"default", "default", Role::kRoot};

void WriteLocal(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// active_count of the file record of `uri` (level 2), read from the catalog
// of a closed workspace; -1 when the URI has no record.
int64_t ActiveCount(Catalog& catalog, const std::string& uri) {
  auto records = catalog.GetRecordsByUri("default", uri);
  if (!records.ok()) return -1;
  for (const Record& r : *records) {
    if (r.level == 2) return r.active_count;
  }
  return -1;
}

TEST(SessionUsageTest, UsedContextsCountOnceAndRankHigher) {
  TempDir tmp;
  // Two files with the same text score the same for any query.
  const std::string text =
      "# Glacier survey\n\nThe glacier survey measured ice thickness with ground radar "
      "along twelve transects every spring.\n";
  WriteLocal(tmp.Sub("docs/a.md"), text);
  WriteLocal(tmp.Sub("docs/b.md"), text);
  WriteLocal(tmp.Sub("docs/c.md"), "# Harbour tides\n\nTide tables for the old harbour.\n");
  DbOptions options;
  options.workspace = tmp.Sub("ws");
  options.sync_writes = false;
  options.retrieval.hotness_alpha = 0.3;
  const std::string bobs = "viking://user/bob/resources/n.md";
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    AddResourceRequest add;
    add.path = tmp.Sub("docs");
    add.wait = true;
    ASSERT_TRUE((*db)->AddResource(kRoot, add).ok());
    WriteRequest write;
    write.uri = bobs;
    write.content = "Bob keeps his glacier survey notes here.";
    write.mode = WriteMode::kCreate;
    ASSERT_TRUE((*db)->Write(kRoot, write).ok());
    ASSERT_TRUE((*db)->WaitIdle(60000).ok());

    FindRequest query;
    query.query = "glacier survey ice thickness radar";
    query.score_threshold = 0.0;
    auto before = (*db)->Find(kRoot, query);
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    ASSERT_GE(before->resources.size(), 2u);
    // Whichever of the equal files ranked second gets used.
    const std::string first = before->resources[0].uri;
    const std::string second = before->resources[1].uri;
    ASSERT_TRUE(first.ends_with("/a.md") || first.ends_with("/b.md")) << first;
    ASSERT_TRUE(second.ends_with("/a.md") || second.ends_with("/b.md")) << second;

    ASSERT_TRUE((*db)->AddSessionMessages(kRoot, "s1",
                                          {R"({"role":"user","content":"How was the survey done?"})"})
                    .ok());
    // `second` twice (one use per commit), c.md, and another user's file
    // the session's owner may not see.
    ASSERT_TRUE((*db)->RecordSessionUsage(kRoot, "s1", {second, "viking://resources/docs/c.md", bobs},
                                          "", false)
                    .ok());
    ASSERT_TRUE((*db)->RecordSessionUsage(kRoot, "s1", {second}, "", false).ok());
    auto commit = (*db)->CommitSession(kRoot, "s1", SessionCommitRequest{});
    ASSERT_TRUE(commit.ok()) << commit.status().ToString();
    ASSERT_EQ(commit->status, "accepted");
    ASSERT_TRUE((*db)->WaitIdle(60000).ok());
    auto task = (*db)->GetTask(kRoot, *commit->task_id);
    ASSERT_TRUE(task.ok());
    ASSERT_EQ(task->status, TaskState::kCompleted) << task->error;

    auto after = (*db)->Find(kRoot, query);
    ASSERT_TRUE(after.ok());
    ASSERT_GE(after->resources.size(), 2u);
    EXPECT_EQ(after->resources[0].uri, second);
    EXPECT_GT(after->resources[0].score, after->resources[1].score);
  }
  auto catalog = Catalog::Open({tmp.Sub("ws") + "/skald.db"});
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  EXPECT_EQ(ActiveCount(**catalog, "viking://resources/docs/c.md"), 1);
  const int64_t a = ActiveCount(**catalog, "viking://resources/docs/a.md");
  const int64_t b = ActiveCount(**catalog, "viking://resources/docs/b.md");
  EXPECT_EQ(a + b, 1);  // the used one once, the other never
  EXPECT_TRUE(a == 0 || b == 0);
  EXPECT_EQ(ActiveCount(**catalog, bobs), 0);
}

// A session left idle with an auto-commit policy by a process that stopped
// is committed by the next process once its idle timeout has passed.
TEST(SessionUsageTest, IdleSessionsOfAnEarlierProcessAutoCommit) {
  TempDir tmp;
  DbOptions options;
  options.workspace = tmp.Sub("ws");
  options.sync_writes = false;
  options.background_workers = 0;  // no worker: nothing commits in this process
  {
    auto db = Db::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    SessionCreateRequest create;
    create.session_id = "quiet";
    create.auto_commit_policy_json = R"({"idle_timeout_seconds": 1})";
    ASSERT_TRUE((*db)->CreateSession(kRoot, create).ok());
    ASSERT_TRUE((*db)->AddSessionMessages(kRoot, "quiet", {R"({"role":"user","content":"bye"})"})
                    .ok());
  }
  options.background_workers = 1;
  auto db = Db::Open(options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  std::string meta;
  for (int i = 0; i < 600; ++i) {  // polled; no timing asserted
    auto got = (*db)->GetSession(kRoot, "quiet", false);
    ASSERT_TRUE(got.ok());
    meta = *got;
    if (meta.find("\"commit_count\":1") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(meta.find("\"commit_count\":1"), std::string::npos) << meta;
  EXPECT_NE(meta.find("\"message_count\":0"), std::string::npos) << meta;
}

}  // namespace
}  // namespace skald
