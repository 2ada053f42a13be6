// A session commit killed between its phases: a child process commits
// (phase 1: the archive and the durable `session_commit` task) with no
// background worker, reports the task id through a pipe and is SIGKILLed
// before phase 2 could run. Reopening the workspace must run phase 2: the
// task ends completed, the archive gets its L0/L1 and `.done`, and the
// session's live messages are the retained ones only.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "skald/db.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

const Identity kWho{"default", "default", Role::kRoot};

Result<std::unique_ptr<Db>> OpenDb(const std::string& workspace, int workers) {
  DbOptions options;
  options.workspace = workspace;
  options.background_workers = workers;
  return Db::Open(options);
}

// The child: phase 1 only (no worker runs jobs), then waits to be killed.
[[noreturn]] void RunChild(const std::string& workspace, int fd) {
  auto db = OpenDb(workspace, 0);
  if (!db.ok()) _exit(10);
  std::vector<std::string> messages = {
      R"({"role":"user","content":"I adopted a beagle called Pixel last spring."})",
      R"({"role":"assistant","content":"Pixel sounds lovely. How is the training going?"})",
      R"({"role":"user","content":"Pixel already knows sit and stay."})",
      R"({"role":"user","content":"keep me live"})"};
  if (!(*db)->AddSessionMessages(kWho, "resume-s1", messages).ok()) _exit(11);
  SessionCommitRequest request;
  request.keep_recent_count = 1;
  auto commit = (*db)->CommitSession(kWho, "resume-s1", request);
  if (!commit.ok() || commit->status != "accepted" || !commit->task_id) _exit(12);
  std::string line = *commit->task_id + "\n";
  if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(13);
  for (;;) pause();
}

TEST(SessionCommitResumeTest, PhaseTwoRunsAfterAKillBetweenThePhases) {
  testing::TempDir dir;
  const std::string workspace = dir.Sub("ws");
  testing::ForkedChild child = testing::ForkChild([&](int fd) { RunChild(workspace, fd); });
  ASSERT_GE(child.pid, 0);
  const std::string task_id = testing::ReadLine(child.from_child);
  close(child.from_child);
  const int status = testing::KillAndReap(child.pid);
  ASSERT_FALSE(task_id.empty()) << "the child did not commit (exit " << WEXITSTATUS(status) << ")";

  // Reopened without workers first: phase 1 is complete and visible, phase 2 is not done.
  {
    auto db = OpenDb(workspace, 0);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto task = (*db)->GetTask(kWho, task_id);
    ASSERT_TRUE(task.ok()) << task.status().ToString();
    EXPECT_EQ(task->task_type, "session_commit");
    EXPECT_EQ(task->status, TaskState::kPending);
    auto archive = (*db)->GetSessionArchive(kWho, "resume-s1", "archive_001");
    ASSERT_TRUE(archive.ok()) << archive.status().ToString();
    EXPECT_NE(archive->find("beagle called Pixel"), std::string::npos) << *archive;
    EXPECT_NE(archive->find(R"("status":"pending")"), std::string::npos) << *archive;
  }

  auto db = OpenDb(workspace, 2);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->WaitIdle(60'000).ok());
  auto task = (*db)->GetTask(kWho, task_id);
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  EXPECT_EQ(task->status, TaskState::kCompleted) << task->error;

  auto archive = (*db)->GetSessionArchive(kWho, "resume-s1", "archive_001");
  ASSERT_TRUE(archive.ok()) << archive.status().ToString();
  EXPECT_NE(archive->find(R"("status":"completed")"), std::string::npos) << *archive;
  EXPECT_NE(archive->find("pixel"), std::string::npos) << "topics name the dog: " << *archive;

  auto context = (*db)->GetSessionContext(kWho, "resume-s1", 128000);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  EXPECT_NE(context->latest_archive_overview.find("3 messages"), std::string::npos)
      << context->latest_archive_overview;
  ASSERT_EQ(context->messages_json.size(), 1u);
  EXPECT_NE(context->messages_json[0].find("keep me live"), std::string::npos);
}

}  // namespace
}  // namespace skald
