#include "cli/task_wait.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

namespace skald::cli {
namespace {

// A Backend whose GetTask replays a script of task states (the last one
// repeats); every other operation fails.
class ScriptedTaskBackend final : public Backend {
 public:
  explicit ScriptedTaskBackend(std::vector<Result<Json>> script) : script_(std::move(script)) {}

  int polls() const { return polls_; }

  std::string Describe() const override { return "scripted"; }
  Result<Json> GetTask(const std::string& task_id) override {
    EXPECT_EQ(task_id, "t1");
    const size_t i = std::min(static_cast<size_t>(polls_), script_.size() - 1);
    ++polls_;
    return script_[i];
  }

  Result<Json> Ls(const LsArgs&) override { return Unused(); }
  Result<Json> Tree(const LsArgs&) override { return Unused(); }
  Result<Json> Stat(const std::string&) override { return Unused(); }
  Result<Json> Mkdir(const std::string&, const std::string&) override { return Unused(); }
  Result<Json> Rm(const std::string&, bool) override { return Unused(); }
  Result<Json> Mv(const std::string&, const std::string&) override { return Unused(); }
  Result<Json> Read(const ReadArgs&) override { return Unused(); }
  Result<Json> Abstract(const std::string&) override { return Unused(); }
  Result<Json> Overview(const std::string&) override { return Unused(); }
  Result<Json> Write(const WriteRequest&) override { return Unused(); }
  Result<std::string> Download(const std::string&) override { return Unused(); }
  Result<Json> Glob(const GlobRequest&) override { return Unused(); }
  Result<Json> Grep(const GrepRequest&) override { return Unused(); }
  Result<Json> Fsck(bool) override { return Unused(); }
  Result<Json> AddResource(const AddResourceRequest&) override { return Unused(); }
  Result<Json> AddSkill(const SkillRequest&) override { return Unused(); }
  Result<Json> Reindex(const ReindexRequest&) override { return Unused(); }
  Result<Json> Find(const FindArgs&) override { return Unused(); }
  Result<Json> ListTasks(const TaskFilter&) override { return Unused(); }
  Result<Json> Admin(const AdminRequest&) override { return Unused(); }

 private:
  static Status Unused() { return Status::Internal("not used by this test"); }

  std::vector<Result<Json>> script_;
  int polls_ = 0;
};

Json Task(const std::string& status, const std::string& stage) {
  return Json{{"task_id", "t1"}, {"status", status}, {"stage", stage}};
}

constexpr std::chrono::milliseconds kNoPause{0};

TEST(TaskWaitTest, FollowsTheTaskToTheEndPrintingEachChangeOnce) {
  ScriptedTaskBackend backend({Task("pending", ""), Task("running", "parsing"),
                               Task("running", "parsing"), Task("running", "embedding 2/4"),
                               Task("completed", "done")});
  std::ostringstream progress;
  Result<TaskWaitOutcome> outcome =
      WaitForTask(backend, "t1", std::nullopt, progress, /*progress_is_tty=*/false, kNoPause);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_FALSE(outcome->timed_out);
  EXPECT_EQ(outcome->task["status"], "completed");
  EXPECT_EQ(backend.polls(), 5);
  EXPECT_EQ(progress.str(),
            "task t1 pending\n"
            "task t1 running: parsing\n"
            "task t1 running: embedding 2/4\n"
            "task t1 completed: done\n");
}

TEST(TaskWaitTest, OnATerminalRewritesOneLineAndClearsIt) {
  ScriptedTaskBackend backend({Task("running", "parsing"), Task("failed", "parsing")});
  std::ostringstream progress;
  Result<TaskWaitOutcome> outcome =
      WaitForTask(backend, "t1", std::nullopt, progress, /*progress_is_tty=*/true, kNoPause);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->task["status"], "failed");
  EXPECT_EQ(progress.str(),
            "\r\033[2Ktask t1 running: parsing"
            "\r\033[2Ktask t1 failed: parsing"
            "\r\033[2K");
}

TEST(TaskWaitTest, StopsAtTheTimeoutWithTheTaskStillRunning) {
  ScriptedTaskBackend backend({Task("running", "embedding")});
  std::ostringstream progress;
  Result<TaskWaitOutcome> outcome = WaitForTask(backend, "t1", std::chrono::milliseconds(0),
                                                progress, /*progress_is_tty=*/false, kNoPause);
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->timed_out);
  EXPECT_EQ(outcome->task["status"], "running");
  EXPECT_EQ(backend.polls(), 1);
}

TEST(TaskWaitTest, AnErrorFromGetTaskEndsTheWait) {
  ScriptedTaskBackend backend({Task("running", "x"), Status::Unavailable("server went away")});
  std::ostringstream progress;
  Result<TaskWaitOutcome> outcome =
      WaitForTask(backend, "t1", std::nullopt, progress, /*progress_is_tty=*/false, kNoPause);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
}

TEST(TaskWaitTest, FinalStatuses) {
  EXPECT_TRUE(IsFinalTaskStatus("completed"));
  EXPECT_TRUE(IsFinalTaskStatus("failed"));
  EXPECT_TRUE(IsFinalTaskStatus("cancelled"));
  EXPECT_FALSE(IsFinalTaskStatus("running"));
  EXPECT_FALSE(IsFinalTaskStatus("pending"));
  EXPECT_FALSE(IsFinalTaskStatus(""));
}

}  // namespace
}  // namespace skald::cli
