// An add-resource killed mid-import: a child process imports a directory of
// a few hundred files with the background workers on, reports the task id
// through a pipe and is SIGKILLed while the import runs (after a different
// delay each round). Reopening the workspace must finish the import: the
// task completes, the tree holds every file once (no second root, no
// duplicate or orphan record: exactly one record per file and two per
// directory) and fsck finds content and catalog in agreement.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "skald/db.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

const Identity kWho{"default", "default", Role::kRoot};
constexpr int kFiles = 400;
constexpr int kDirs = 8;

Result<std::unique_ptr<Db>> OpenDb(const std::string& workspace, int workers) {
  DbOptions options;
  options.workspace = workspace;
  options.background_workers = workers;
  return Db::Open(options);
}

void WriteSource(const std::string& root) {
  for (int f = 0; f < kFiles; ++f) {
    std::string dir = root + "/part" + std::to_string(f % kDirs);
    std::filesystem::create_directories(dir);
    std::ofstream out(dir + "/note" + std::to_string(f) + ".md");
    out << "# Note " << f << "\n\n";
    for (int line = 0; line < 40; ++line) {
      out << "Note " << f << " line " << line << " mentions topic" << (f * 7 + line) % 97
          << " and the marker word kestrel" << f << ".\n";
    }
  }
}

// The child: starts the import and waits to be killed.
[[noreturn]] void RunChild(const std::string& workspace, const std::string& source, int fd) {
  auto db = OpenDb(workspace, 2);
  if (!db.ok()) _exit(10);
  AddResourceRequest add;
  add.path = source;
  add.to = "viking://resources/corpus";
  auto added = (*db)->AddResource(kWho, add);
  if (!added.ok() || added->task_id.empty()) _exit(11);
  std::string line = added->task_id + "\n";
  if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(12);
  for (;;) pause();
}

TEST(ImportResumeTest, KilledImportFinishesOnceAfterRestart) {
  testing::TempDir dir;
  const std::string source = dir.Sub("corpus");
  WriteSource(source);
  for (int delay_ms : {150, 600, 1500}) {
    SCOPED_TRACE("killed after " + std::to_string(delay_ms) + " ms");
    const std::string workspace = dir.Sub("ws" + std::to_string(delay_ms));
    testing::ForkedChild child =
        testing::ForkChild([&](int fd) { RunChild(workspace, source, fd); });
    ASSERT_GE(child.pid, 0);
    const std::string task_id = testing::ReadLine(child.from_child);
    close(child.from_child);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    const int status = testing::KillAndReap(child.pid);
    ASSERT_FALSE(task_id.empty()) << "the child did not start the import (exit "
                                  << WEXITSTATUS(status) << ")";

    auto db = OpenDb(workspace, 2);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->WaitIdle(120'000).ok());
    auto task = (*db)->GetTask(kWho, task_id);
    ASSERT_TRUE(task.ok()) << task.status().ToString();
    EXPECT_EQ(task->status, TaskState::kCompleted) << task->error;

    // One root, every file once.
    LsOptions top;
    auto roots = (*db)->Ls(kWho, "viking://resources", top);
    ASSERT_TRUE(roots.ok()) << roots.status().ToString();
    ASSERT_EQ(roots->size(), 1u);
    EXPECT_EQ(roots->front().node.uri, "viking://resources/corpus");
    LsOptions all;
    all.recursive = true;
    all.level_limit = 5;
    all.node_limit = 10000;
    auto tree = (*db)->Ls(kWho, "viking://resources/corpus", all);
    ASSERT_TRUE(tree.ok()) << tree.status().ToString();
    int files = 0;
    for (const LsEntry& e : *tree) files += e.node.is_dir ? 0 : 1;
    EXPECT_EQ(files, kFiles);

    // Records: one per file, two per directory (the root and its parts);
    // none without content.
    ReindexRequest count;
    count.uri = "viking://resources/corpus";
    count.dry_run = true;
    auto counted = (*db)->Reindex(kWho, count);
    ASSERT_TRUE(counted.ok()) << counted.status().ToString();
    EXPECT_EQ(counted->scanned_records, static_cast<uint64_t>(kFiles + 2 * (kDirs + 1)));
    count.mode = "prune_orphans";
    auto orphans = (*db)->Reindex(kWho, count);
    ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
    EXPECT_EQ(orphans->would_delete_records, 0u);

    FindRequest find;
    find.query = "kestrel123";
    auto found = (*db)->Find(kWho, find);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    bool hit = false;
    for (const MatchedContext& m : found->resources) {
      hit = hit || m.uri == "viking://resources/corpus/part3/note123.md";
    }
    EXPECT_TRUE(hit) << "note123.md is found by its marker word";

    auto fsck = (*db)->Fsck(/*repair=*/false);
    ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
    for (const FsckIssue& issue : fsck->issues) {
      ADD_FAILURE() << "fsck: " << issue.kind << " " << issue.uri << " " << issue.detail;
    }
  }
}

}  // namespace
}  // namespace skald
