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
    SKALD_RETURN_IF_ERROR(swap->Commit());
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
  Result<uint64_t> found = RecoverTreeSwaps(*store);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, 0u);
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
    Result<uint64_t> recovered = RecoverTreeSwaps(*store);
    ASSERT_TRUE(recovered.ok()) << "budget " << budget << ": " << recovered.status().ToString();
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

}  // namespace
}  // namespace skald
