// Long names across a crash: segments over 255 bytes are stored on disk under
// shortened names; the recovery that runs after an unclean shutdown, and
// fsck, must match them with their nodes, not adopt the shortened names.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "skald/db.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

Result<std::unique_ptr<Db>> OpenWorkspace(const std::string& dir) {
  DbOptions options;
  options.workspace = dir;
  return Db::Open(options);
}

// Every file and directory under viking://resources, uri -> content ("/" for
// a directory).
std::map<std::string, std::string> Snapshot(Db& db) {
  Identity who{"default", "default", Role::kRoot};
  LsOptions all;
  all.node_limit = 1 << 20;
  all.level_limit = 100;
  std::map<std::string, std::string> out;
  auto entries = db.Tree(who, "viking://resources", all);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  if (!entries.ok()) return out;
  for (const LsEntry& e : *entries) {
    if (e.node.is_dir) {
      out[e.node.uri] = "/";
    } else {
      auto bytes = db.Read(who, e.node.uri, 0, -1, /*raw=*/true);
      EXPECT_TRUE(bytes.ok()) << e.node.uri << ": " << bytes.status().ToString();
      out[e.node.uri] = bytes.ok() ? *bytes : "<unreadable>";
    }
  }
  return out;
}

void ExpectFsckClean(Db& db, bool repair) {
  auto report = db.Fsck(repair);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  for (const FsckIssue& issue : report->issues) {
    ADD_FAILURE() << "fsck" << (repair ? " --repair" : "") << ": " << issue.kind << " "
                  << issue.uri.substr(0, 80) << "... (" << issue.detail << ")";
  }
}

TEST(LongNamesTest, LongNamedTreeSurvivesCrashRecoveryAndFsckUnchanged) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("ws");
  const std::string top = "viking://resources/" + std::string(300, 'd');
  const std::string moved = "viking://resources/" + std::string(260, 'm');
  const std::string deep = top + "/" + std::string(270, 's');
  const std::string long_file = std::string(280, 'f') + ".md";
  std::map<std::string, std::string> expected = {
      {top, "/"},
      {top + "/" + long_file, "long file in a long directory"},
      {top + "/short.md", "short file in a long directory"},
      {deep, "/"},
      {deep + "/" + long_file, "two long levels down"},
      {moved, "/"},
      {moved + "/" + long_file, "moved under a long name"},
  };

  // The child builds the tree, reports, then dies without closing the Db (an
  // unclean shutdown: the next open runs recovery).
  testing::ForkedChild child = testing::ForkChild([&](int report_fd) {
    auto db = OpenWorkspace(dir);
    if (!db.ok()) _exit(2);
    Identity who{"default", "default", Role::kRoot};
    auto create = [&](const std::string& uri, const std::string& text) {
      if (!(*db)->Write(who, {uri, text, WriteMode::kCreate}).ok()) _exit(3);
    };
    if (!(*db)->Mkdir(who, deep, "").ok()) _exit(3);
    create(top + "/" + long_file, "long file in a long directory");
    create(top + "/short.md", "short file in a long directory");
    create(deep + "/" + long_file, "two long levels down");
    create("viking://resources/before-move/" + long_file, "moved under a long name");
    if (!(*db)->Mv(who, "viking://resources/before-move", moved).ok()) _exit(3);
    if (write(report_fd, "ok\n", 3) != 3) _exit(4);
    _exit(0);
  });
  ASSERT_GE(child.pid, 0);
  const std::string reported = testing::ReadLine(child.from_child);
  close(child.from_child);
  const int status = testing::KillAndReap(child.pid);
  ASSERT_EQ(reported, "ok") << "the child failed (exit status " << WEXITSTATUS(status) << ")";

  {
    auto db = OpenWorkspace(dir);  // recovery runs here
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_EQ(Snapshot(**db), expected);
    ExpectFsckClean(**db, /*repair=*/false);
    ExpectFsckClean(**db, /*repair=*/true);
    EXPECT_EQ(Snapshot(**db), expected);
  }
  auto again = OpenWorkspace(dir);  // and after a clean reopen
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Snapshot(**again), expected);
  ExpectFsckClean(**again, false);
}

}  // namespace
}  // namespace skald
