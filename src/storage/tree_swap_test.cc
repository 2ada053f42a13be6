#include "storage/tree_swap.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>

#include "common/env.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

// Files (path -> bytes) and directories ("path/") under `prefix` as Scan
// reports them.
std::map<std::string, std::string> TreeOf(ContentStore& store, const std::string& prefix) {
  std::map<std::string, std::string> out;
  Result<std::vector<ContentEntry>> scan = store.Scan("acct");
  if (!scan.ok()) return {{"error", scan.status().ToString()}};
  for (const ContentEntry& e : *scan) {
    if (!e.path.starts_with(prefix + "/")) continue;
    if (e.is_dir) {
      out[e.path + "/"] = "";
    } else {
      Result<std::string> bytes = store.ReadFile("acct", e.path);
      out[e.path] = bytes.ok() ? *bytes : "unreadable";
    }
  }
  return out;
}

// An Env that "crashes" after `budget` changes to the file system: from then
// on every change fails, as if the process had died there (the disk keeps
// what was done before). Reads still work.
class CrashingEnv final : public EnvWrapper {
 public:
  CrashingEnv() : EnvWrapper(Env::Default()) {}
  // From now on, `budget` more changes succeed.
  void Arm(int64_t budget) { left_.store(budget); }
  bool crashed() const { return left_.load() < 0; }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, const WritableFileOptions& options) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::NewWritableFile(path, options);
  }
  Status SyncDir(const std::string& path) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::SyncDir(path);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::Rename(from, to);
  }
  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::RenameNoReplace(from, to);
  }
  Status RemoveFile(const std::string& path) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::RemoveFile(path);
  }
  Status RemoveTree(const std::string& path) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::RemoveTree(path);
  }
  Status CreateDir(const std::string& path) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::CreateDir(path);
  }
  Status CreateDirs(const std::string& path) override {
    SKALD_RETURN_IF_ERROR(Step());
    return EnvWrapper::CreateDirs(path);
  }

 private:
  Status Step() { return left_.fetch_sub(1) > 0 ? Status::Ok() : Status::IOError("crashed"); }
  std::atomic<int64_t> left_{INT64_MAX};
};

class TreeSwapTest : public ::testing::Test {
 protected:
  std::unique_ptr<ContentStore> Open(Env* env) {
    LocalContentStoreOptions options;
    options.root = dir_.Sub("content");
    options.trash_dir = dir_.Sub("trash");
    options.env = env;
    auto store = NewLocalContentStore(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // resources/keep (untouched), resources/a (replaced), resources/gone
  // (removed); resources/b is new.
  void WriteOldTrees(ContentStore& store) {
    ASSERT_TRUE(store
                    .MakeDirs("acct", std::vector<std::string>{"", "resources", "resources/keep",
                                                               "resources/a", "resources/a/sub",
                                                               "resources/gone"})
                    .ok());
    for (const auto& [path, bytes] :
         std::map<std::string, std::string>{{"resources/keep/k.md", "keep"},
                                            {"resources/a/old.md", "old a"},
                                            {"resources/a/sub/deep.md", "old deep"},
                                            {"resources/gone/g.md", "gone"}}) {
      ASSERT_TRUE(store.WriteFile("acct", path, bytes).ok()) << path;
    }
  }

  // Stages the new trees and commits; `committed` says whether Commit
  // returned Ok. Returns the first error.
  static Status StageAndSwap(ContentStore& store, bool* committed) {
    *committed = false;
    SKALD_ASSIGN_OR_RETURN(std::unique_ptr<TreeSwap> swap, TreeSwap::Begin(&store, "acct"));
    size_t a = swap->AddTarget("resources/a", true);
    size_t b = swap->AddTarget("resources/b.md", true);
    size_t gone = swap->AddTarget("resources/gone", false);
    (void)gone;
    SKALD_RETURN_IF_ERROR(store.MakeDirs(
        "acct", std::vector<std::string>{swap->StagedPath(a, ""), swap->StagedPath(a, "n")}));
    std::string p1 = swap->StagedPath(a, "new.md"), p2 = swap->StagedPath(a, "n/x.md");
    std::string p3 = swap->StagedPath(b, "");
    std::vector<ContentStore::FileWrite> writes = {{p1, "new a"}, {p2, "new x"}, {p3, "new b"}};
    SKALD_ASSIGN_OR_RETURN(std::vector<ContentAttr> attrs, store.WriteFiles("acct", writes));
    (void)attrs;
    JobSpec job;
    job.kind = JobKind::kIndex;
    job.account = "acct";
    job.resource_id = "viking://resources/a";
    job.payload = R"({"path":"resources/a","carried_tags":{"viking://resources/a":["t=1"]}})";
    job.task_id = "task-of-a";  // named: recovery does not queue it twice
    SKALD_RETURN_IF_ERROR(swap->Commit({job}));
    *committed = true;
    SKALD_RETURN_IF_ERROR(swap->Apply());
    return swap->Finish();
  }

  const std::map<std::string, std::string> kOld = {
      {"resources/a/", ""},     {"resources/a/old.md", "old a"},
      {"resources/a/sub/", ""}, {"resources/a/sub/deep.md", "old deep"},
      {"resources/gone/", ""},  {"resources/gone/g.md", "gone"},
      {"resources/keep/", ""},  {"resources/keep/k.md", "keep"}};
  const std::map<std::string, std::string> kNew = {{"resources/a/", ""},
                                                   {"resources/a/n/", ""},
                                                   {"resources/a/n/x.md", "new x"},
                                                   {"resources/a/new.md", "new a"},
                                                   {"resources/b.md", "new b"},
                                                   {"resources/keep/", ""},
                                                   {"resources/keep/k.md", "keep"}};

  testing::TempDir dir_;
};

TEST_F(TreeSwapTest, ReplacesAddsAndRemovesTargetsAndLeavesNoStagingArea) {
  std::unique_ptr<ContentStore> store = Open(nullptr);
  WriteOldTrees(*store);
  EXPECT_EQ(TreeOf(*store, "resources"), kOld);
  bool committed = false;
  Status swapped = StageAndSwap(*store, &committed);
  ASSERT_TRUE(swapped.ok()) << swapped.ToString();
  EXPECT_EQ(TreeOf(*store, "resources"), kNew);
  Result<std::vector<std::string>> names = store->ListStoredNames("acct", "");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"resources"});
  auto found = RecoverTreeSwaps(*store);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->empty());
}

TEST_F(TreeSwapTest, AnUncommittedSwapIsDroppedWithTheOldTreesKept) {
  std::unique_ptr<ContentStore> store = Open(nullptr);
  WriteOldTrees(*store);
  {
    auto swap = TreeSwap::Begin(store.get(), "acct");
    ASSERT_TRUE(swap.ok());
    size_t a = (*swap)->AddTarget("resources/a", true);
    ASSERT_TRUE(store->WriteFile("acct", (*swap)->StagedPath(a, ""), "staged").ok());
    // Staged files are out of sight: no scan reports them.
    EXPECT_EQ(TreeOf(*store, "resources"), kOld);
    EXPECT_EQ(store->Scan("acct")->size(), kOld.size() + 1);  // + resources/
  }
  EXPECT_EQ(TreeOf(*store, "resources"), kOld);
  EXPECT_EQ(*store->ListStoredNames("acct", ""), std::vector<std::string>{"resources"});
}

// A crash after every number of file-system changes the swap makes: after a
// restart and recovery the targets hold all the old trees or all the new
// ones — the new ones whenever Commit had returned — and nothing staged is
// left.
TEST_F(TreeSwapTest, ACrashAtAnyPointLeavesAllOldOrAllNewAfterRecovery) {
  int old_outcomes = 0, new_outcomes = 0;
  for (int64_t budget = 0;; ++budget) {
    {
      std::unique_ptr<ContentStore> clean = Open(nullptr);
      ASSERT_TRUE(clean->Remove("acct", "resources").ok());
      ASSERT_TRUE(clean->CleanLeftovers().ok());
      WriteOldTrees(*clean);
    }
    CrashingEnv env;
    bool committed = false;
    Status swapped;
    {
      std::unique_ptr<ContentStore> store = Open(&env);
      env.Arm(budget);
      swapped = StageAndSwap(*store, &committed);
    }
    // The restart.
    std::unique_ptr<ContentStore> store = Open(nullptr);
    auto recovered = RecoverTreeSwaps(*store);
    ASSERT_TRUE(recovered.ok()) << "budget " << budget << ": " << recovered.status().ToString();
    // A committed swap comes back with its plan's job (carried tags and
    // all), unless the crash came as Finish had removed the plan already.
    // (A plan can be in place although Commit failed: the crash came after
    // its rename, before the directory was synced.)
    ASSERT_LE(recovered->size(), 1u) << "budget " << budget;
    if (!recovered->empty()) {
      ASSERT_EQ((*recovered)[0].jobs.size(), 1u);
      EXPECT_EQ((*recovered)[0].jobs[0].kind, JobKind::kIndex);
      EXPECT_NE((*recovered)[0].jobs[0].payload.find("t=1"), std::string::npos);
      EXPECT_EQ((*recovered)[0].jobs[0].task_id, "task-of-a");
      EXPECT_EQ((*recovered)[0].targets,
                (std::vector<std::string>{"resources/a", "resources/b.md", "resources/gone"}));
    }
    ASSERT_TRUE(store->CleanLeftovers().ok());
    std::map<std::string, std::string> tree = TreeOf(*store, "resources");
    if (committed) {
      EXPECT_EQ(tree, kNew) << "budget " << budget;
    } else {
      EXPECT_TRUE(tree == kOld || tree == kNew) << "budget " << budget;
    }
    (tree == kNew ? new_outcomes : old_outcomes) += 1;
    EXPECT_EQ(*store->ListStoredNames("acct", ""), std::vector<std::string>{"resources"})
        << "budget " << budget;
    if (!env.crashed()) {
      ASSERT_TRUE(swapped.ok()) << swapped.ToString();
      break;
    }
    ASSERT_LT(budget, 500) << "the swap never finished";
  }
  // Both outcomes were reached: the crash points straddle the commit.
  EXPECT_GT(old_outcomes, 0);
  EXPECT_GT(new_outcomes, 1);
}

// A failed Apply rolled back under the caller's locks: every old tree is
// back, nothing staged is left, and no plan is left to recovery.
TEST_F(TreeSwapTest, ARollBackAfterAFailedApplyRestoresEveryOldTree) {
  for (int64_t budget = 0;; ++budget) {
    {
      std::unique_ptr<ContentStore> clean = Open(nullptr);
      ASSERT_TRUE(clean->Remove("acct", "resources").ok());
      WriteOldTrees(*clean);
    }
    CrashingEnv env;
    std::unique_ptr<ContentStore> store = Open(&env);
    auto swap = TreeSwap::Begin(store.get(), "acct");
    ASSERT_TRUE(swap.ok());
    size_t a = (*swap)->AddTarget("resources/a", true);
    (*swap)->AddTarget("resources/gone", false);
    ASSERT_TRUE(store->WriteFile("acct", (*swap)->StagedPath(a, ""), "new a").ok());
    ASSERT_TRUE((*swap)->Commit({}).ok());
    env.Arm(budget);  // Apply fails after `budget` changes
    Status applied = (*swap)->Apply();
    env.Arm(INT64_MAX);
    if (applied.ok()) break;  // every budget that fails Apply was tried
    Status rolled_back = (*swap)->RollBack();
    ASSERT_TRUE(rolled_back.ok()) << "budget " << budget << ": " << rolled_back.ToString();
    swap->reset();  // uncommitted again: the staging area goes
    EXPECT_EQ(TreeOf(*store, "resources"), kOld) << "budget " << budget;
    EXPECT_EQ(*store->ListStoredNames("acct", ""), std::vector<std::string>{"resources"});
    auto recovered = RecoverTreeSwaps(*store);
    ASSERT_TRUE(recovered.ok());
    EXPECT_TRUE(recovered->empty());
    ASSERT_LT(budget, 50);
  }
}

// A plan left behind after its swap completed (its removal failed) is
// applied again at the next recovery without touching what was written at
// its targets since: replaying never removes anything.
TEST_F(TreeSwapTest, ReplayingAFinishedPlanRemovesNothingWrittenSince) {
  std::unique_ptr<ContentStore> store = Open(nullptr);
  WriteOldTrees(*store);
  auto swap = TreeSwap::Begin(store.get(), "acct");
  ASSERT_TRUE(swap.ok());
  size_t a = (*swap)->AddTarget("resources/a", true);
  (*swap)->AddTarget("resources/gone", false);
  ASSERT_TRUE(store->WriteFile("acct", (*swap)->StagedPath(a, ""), "new a").ok());
  ASSERT_TRUE((*swap)->Commit({}).ok());
  ASSERT_TRUE((*swap)->Apply().ok());
  swap->reset();  // as if Finish had failed: a committed swap keeps its plan
  // Later writes at both targets.
  ASSERT_TRUE(store->Remove("acct", "resources/a").ok());
  ASSERT_TRUE(store->MakeDir("acct", "resources/a").ok());
  ASSERT_TRUE(store->WriteFile("acct", "resources/a/later.md", "later a").ok());
  ASSERT_TRUE(store->MakeDir("acct", "resources/gone").ok());
  ASSERT_TRUE(store->WriteFile("acct", "resources/gone/later.md", "later gone").ok());
  auto recovered = RecoverTreeSwaps(*store);
  ASSERT_TRUE(recovered.ok()) << recovered.status().ToString();
  EXPECT_EQ(recovered->size(), 1u);
  EXPECT_EQ(*store->ReadFile("acct", "resources/a/later.md"), "later a");
  EXPECT_EQ(*store->ReadFile("acct", "resources/gone/later.md"), "later gone");
  EXPECT_EQ(*store->ListStoredNames("acct", ""), std::vector<std::string>{"resources"});
}

// A committed swap whose target's parent is gone by the time recovery runs:
// the parent is made again rather than refusing to open the workspace.
TEST_F(TreeSwapTest, RecoveryMakesAMissingParentOfATarget) {
  std::unique_ptr<ContentStore> store = Open(nullptr);
  WriteOldTrees(*store);
  ASSERT_TRUE(store->MakeDirs("acct", std::vector<std::string>{"resources/p"}).ok());
  auto swap = TreeSwap::Begin(store.get(), "acct");
  ASSERT_TRUE(swap.ok());
  size_t t = (*swap)->AddTarget("resources/p/proj", true);
  ASSERT_TRUE(store->WriteFile("acct", (*swap)->StagedPath(t, ""), "proj").ok());
  ASSERT_TRUE((*swap)->Commit({}).ok());
  swap->reset();  // the process died here: a committed swap is left as it is
  ASSERT_TRUE(store->Remove("acct", "resources/p").ok());
  auto recovered = RecoverTreeSwaps(*store);
  ASSERT_TRUE(recovered.ok()) << recovered.status().ToString();
  EXPECT_EQ(*store->ReadFile("acct", "resources/p/proj"), "proj");
}

}  // namespace
}  // namespace skald
