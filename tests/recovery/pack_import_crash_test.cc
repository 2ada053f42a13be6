// A pack import that overwrites a tree, killed at different moments: a child
// process imports a package (on_conflict overwrite) over an indexed tree of
// a few hundred files and is SIGKILLed after a different delay each round.
// After a restart the tree is wholly the old one or wholly the new one —
// the new one whenever the import had answered — never a mix and never
// missing; its records match its files (no orphan, none missing) and fsck
// finds content and catalog in agreement.

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "skald/db.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

const Identity kWho{"default", "default", Role::kRoot};
constexpr int kFiles = 300;
constexpr int kDirs = 6;

using Tree = std::map<std::string, std::string>;  // URI -> bytes

Result<std::unique_ptr<Db>> OpenDb(const std::string& workspace) {
  DbOptions options;
  options.workspace = workspace;
  options.background_workers = 2;
  return Db::Open(options);
}

// A folder of kFiles notes whose words depend on `flavor`; the tree it
// becomes at viking://resources/proj.
Tree WriteSource(const std::string& root, const std::string& flavor) {
  Tree tree;
  for (int f = 0; f < kFiles; ++f) {
    // The old and new trees share some names and differ in others.
    const std::string part = "part" + std::to_string(f % kDirs);
    const std::string name = flavor + std::to_string(f % 2 ? f : f / 2) + ".md";
    std::filesystem::create_directories(root + "/" + part);
    std::string text = "# " + flavor + " note " + std::to_string(f) + "\n\n";
    for (int line = 0; line < 10; ++line) {
      text += flavor + " note " + std::to_string(f) + " line " + std::to_string(line) +
              " names the marker " + flavor + "marker" + std::to_string(f) + ".\n";
    }
    std::ofstream(root + "/" + part + "/" + name) << text;
    tree["viking://resources/proj/" + part + "/" + name] = text;
  }
  return tree;
}

void AddTree(Db& db, const std::string& source) {
  AddResourceRequest add;
  add.path = source;
  add.to = "viking://resources/proj";
  add.wait = true;
  auto added = db.AddResource(kWho, add);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  ASSERT_TRUE(db.WaitIdle(120'000).ok());
}

// The files below viking://resources/proj (hidden summaries left out).
Tree TreeOf(Db& db) {
  Tree tree;
  LsOptions all;
  all.recursive = true;
  all.level_limit = 5;
  all.node_limit = 10000;
  auto listed = db.Ls(kWho, "viking://resources/proj", all);
  if (!listed.ok()) return {{"error", listed.status().ToString()}};
  for (const LsEntry& e : *listed) {
    if (e.node.is_dir) continue;
    auto bytes = db.Read(kWho, e.node.uri, 0, -1, /*raw=*/true);
    tree[e.node.uri] = bytes.ok() ? *bytes : bytes.status().ToString();
  }
  return tree;
}

// The child: uploads the package, says so, imports it, says so, waits.
[[noreturn]] void RunChild(const std::string& workspace, const std::string& package, int fd) {
  auto db = OpenDb(workspace);
  if (!db.ok()) _exit(10);
  auto upload = (*db)->TempUpload(kWho, "proj.ovpack", package);
  if (!upload.ok()) _exit(11);
  auto say = [fd](const char* line) {
    if (write(fd, line, strlen(line)) != static_cast<ssize_t>(strlen(line))) _exit(12);
  };
  say("go\n");
  PackImportRequest import;
  import.temp_file_id = *upload;
  import.parent = "viking://resources";
  import.on_conflict = "overwrite";
  auto imported = (*db)->ImportPack(kWho, import);
  if (!imported.ok()) _exit(13);
  say("done\n");
  for (;;) pause();
}

TEST(PackImportCrashTest, AKilledOverwriteLeavesTheOldTreeOrTheNewOne) {
  testing::TempDir dir;
  const Tree old_tree = WriteSource(dir.Sub("old/proj"), "old");
  const Tree new_tree = WriteSource(dir.Sub("new/proj"), "new");
  std::string package;
  {
    auto db = OpenDb(dir.Sub("packer"));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    AddTree(**db, dir.Sub("new/proj"));
    // Tags the package's records carry, to come back with the new tree.
    SetTagsRequest tag;
    tag.uri = "viking://resources/proj/part1";
    tag.tags = {"team=core"};
    tag.recursive = true;
    ASSERT_TRUE((*db)->SetTags(kWho, tag).ok());
    auto exported = (*db)->ExportPack(kWho, "viking://resources/proj", false);
    ASSERT_TRUE(exported.ok()) << exported.status().ToString();
    package = std::move(exported->bytes);
  }
  int old_outcomes = 0, new_outcomes = 0;
  // -1: killed as soon as the swap's plan is written (its commit point).
  for (int delay_ms : {-1, 0, 20, 60, 120, 250, 3000}) {
    SCOPED_TRACE("killed after " + std::to_string(delay_ms) + " ms");
    const std::string workspace = dir.Sub("ws" + std::to_string(delay_ms));
    {
      auto db = OpenDb(workspace);
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      AddTree(**db, dir.Sub("old/proj"));
      ASSERT_EQ(TreeOf(**db), old_tree);
    }
    testing::ForkedChild child =
        testing::ForkChild([&](int fd) { RunChild(workspace, package, fd); });
    ASSERT_GE(child.pid, 0);
    ASSERT_EQ(testing::ReadLine(child.from_child), "go");
    if (delay_ms >= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    } else {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      bool planned = false;
      while (!planned && std::chrono::steady_clock::now() < give_up) {
        std::error_code ec;
        for (const auto& e :
             std::filesystem::directory_iterator(workspace + "/content/default", ec)) {
          planned = planned || std::filesystem::exists(e.path() / "plan.json");
        }
      }
      EXPECT_TRUE(planned) << "the import never wrote its plan";
    }
    const int status = testing::KillAndReap(child.pid);
    // What the child said before it died: "done" once the import answered.
    const bool answered = testing::ReadLine(child.from_child) == "done";
    close(child.from_child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited with " << WEXITSTATUS(status);

    auto db = OpenDb(workspace);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->WaitIdle(120'000).ok());
    const Tree tree = TreeOf(**db);
    if (answered) {
      EXPECT_EQ(tree, new_tree);
    } else {
      EXPECT_TRUE(tree == old_tree || tree == new_tree)
          << "a tree of " << tree.size() << " files that is neither the old nor the new one";
    }
    (tree == new_tree ? new_outcomes : old_outcomes) += 1;

    // Records: one per file, two per directory (proj and its parts), none
    // without content.
    ReindexRequest count;
    count.uri = "viking://resources/proj";
    count.dry_run = true;
    auto counted = (*db)->Reindex(kWho, count);
    ASSERT_TRUE(counted.ok()) << counted.status().ToString();
    EXPECT_EQ(counted->scanned_records, static_cast<uint64_t>(kFiles + 2 * (kDirs + 1)));
    count.mode = "prune_orphans";
    auto orphans = (*db)->Reindex(kWho, count);
    ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
    EXPECT_EQ(orphans->would_delete_records, 0u);

    // The tree there is the one search finds, with the tags its package
    // carried when it is the new one (also when the crash came after the
    // swap's commit point, before the import answered).
    const bool is_new = tree == new_tree;
    auto attrs = (*db)->Attrs(kWho, "viking://resources/proj/part1/new7.md");
    if (is_new) {
      ASSERT_TRUE(attrs.ok()) << attrs.status().ToString();
      EXPECT_EQ(attrs->tags, std::vector<std::string>{"team=core"});
    }
    FindRequest find;
    find.query = is_new ? "newmarker7" : "oldmarker7";
    auto found = (*db)->Find(kWho, find);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    bool hit = false;
    for (const MatchedContext& m : found->resources) {
      hit = hit || m.uri == std::string("viking://resources/proj/part1/") +
                                (is_new ? "new7.md" : "old7.md");
    }
    EXPECT_TRUE(hit) << "note 7 is found by its marker word";

    auto fsck = (*db)->Fsck(/*repair=*/false);
    ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
    for (const FsckIssue& issue : fsck->issues) {
      ADD_FAILURE() << "fsck: " << issue.kind << " " << issue.uri << " " << issue.detail;
    }
  }
  // The longest delay lets the import finish.
  EXPECT_GT(new_outcomes, 0);
  std::printf("outcomes: %d old, %d new\n", old_outcomes, new_outcomes);
}

}  // namespace
}  // namespace skald
