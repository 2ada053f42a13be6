// Db::CheckConsistency (POST /api/v1/system/consistency): the index records
// a subtree's content calls for, against those the catalog holds. After an
// import every one is there; a file written while no worker runs (its index
// job waits) is named, with its path and level, until the job has run.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "skald/db.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

using testing::TempDir;

Identity Root() { return Identity{"default", "default", Role::kRoot}; }

DbOptions Options(const TempDir& tmp, int workers) {
  DbOptions options;
  options.workspace = tmp.Sub("ws");
  options.sync_writes = false;
  options.background_workers = workers;
  return options;
}

void WriteLocal(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(ConsistencyTest, NamesTheRecordsTheContentCallsForAndTheCatalogLacks) {
  TempDir tmp;
  WriteLocal(tmp.Sub("docs/tides.md"), "# Tides\n\nThe moon pulls the sea twice a day.\n");
  WriteLocal(tmp.Sub("docs/sub/reefs.md"), "# Reefs\n\nCorals build reefs in warm water.\n");
  {
    auto db = Db::Open(Options(tmp, 2));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    AddResourceRequest add;
    add.path = tmp.Sub("docs");
    add.wait = true;
    ASSERT_TRUE((*db)->AddResource(Root(), add).ok());
    auto report = (*db)->CheckConsistency(Root(), "viking://resources/docs");
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->ok());
    // docs/ and docs/sub/ (L0 and L1 each), the two files (L2).
    EXPECT_EQ(report->expected_count, 6u);
    EXPECT_TRUE(report->missing.empty());
  }
  {
    auto db = Db::Open(Options(tmp, 0));  // index jobs wait
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    WriteRequest write;
    write.uri = "viking://resources/docs/sub/lagoons.md";
    write.content = "# Lagoons\n\nA reef can close a lagoon.\n";
    write.mode = WriteMode::kCreate;
    ASSERT_TRUE((*db)->Write(Root(), write).ok());
    auto report = (*db)->CheckConsistency(Root(), "viking://resources/docs");
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_FALSE(report->ok());
    EXPECT_EQ(report->expected_count, 7u);
    EXPECT_EQ(report->missing_count, 1u);
    ASSERT_EQ(report->missing.size(), 1u);
    EXPECT_EQ(report->missing[0].uri, "viking://resources/docs/sub/lagoons.md");
    EXPECT_EQ(report->missing[0].path, "sub/lagoons.md");
    EXPECT_EQ(report->missing[0].level, 2);
    // The file itself: its path is "".
    auto file = (*db)->CheckConsistency(Root(), "viking://resources/docs/sub/lagoons.md");
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_EQ(file->expected_count, 1u);
    ASSERT_EQ(file->missing.size(), 1u);
    EXPECT_EQ(file->missing[0].path, "");
    // The whole space: the same one record missing.
    auto all = (*db)->CheckConsistency(Root(), "viking://");
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(all->missing_count, 1u);
    EXPECT_GT(all->expected_count, 7u);  // viking://resources too
    EXPECT_EQ((*db)->CheckConsistency(Root(), "viking://resources/nowhere").status().code(),
              StatusCode::kNotFound);
  }
  auto db = Db::Open(Options(tmp, 2));  // the waiting job runs
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->WaitIdle(120'000, /*wait_for_retries=*/true).ok());
  auto report = (*db)->CheckConsistency(Root(), "viking://resources/docs");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->missing_count;
  EXPECT_EQ(report->expected_count, 7u);
}

}  // namespace
}  // namespace skald
