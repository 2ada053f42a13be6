#include "cli/local_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/backend.h"

namespace skald::cli {
namespace {

namespace fs = std::filesystem;

class LocalFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "skald-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path dir_;
};

TEST_F(LocalFileTest, WriteReplacesAtomicallyAndLeavesNoTemporaries) {
  fs::path target = dir_ / "out.bin";
  std::string bytes("x\0y", 3);
  ASSERT_TRUE(WriteFileAtomically(target.string(), "old").ok());
  ASSERT_TRUE(WriteFileAtomically(target.string(), bytes).ok());
  EXPECT_EQ(Slurp(target), bytes);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u);
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST_F(LocalFileTest, WriteIntoMissingDirectoryFailsWithoutNamingThePath) {
  // The status may reach an API client; the CLI adds the path itself.
  std::string target = (dir_ / "no" / "such" / "f").string();
  Status s = WriteFileAtomically(target, "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message().find(dir_.string()), std::string::npos);
}

TEST_F(LocalFileTest, ReadLocalInput) {
  fs::path src = dir_ / "in.txt";
  std::ofstream(src) << "hello";
  Result<std::string> got = ReadLocalInput(src.string());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "hello");
  EXPECT_FALSE(ReadLocalInput((dir_ / "missing").string()).ok());
  EXPECT_FALSE(ReadLocalInput(dir_.string()).ok());  // a directory
}

TEST_F(LocalFileTest, DownloadPathIntoDirectoryUsesTheUriName) {
  EXPECT_EQ(ResolveDownloadPath("viking://resources/a/b.md", dir_.string()),
            (dir_ / "b.md").string());
  EXPECT_EQ(ResolveDownloadPath("viking://resources/a/b.md", (dir_ / "x.md").string()),
            (dir_ / "x.md").string());
}

TEST_F(LocalFileTest, WorkspaceDirMayBeMissingButNotItsParent) {
  const std::string dir = dir_.string();
  EXPECT_TRUE(CheckWorkspaceDir(dir).ok());                   // exists
  EXPECT_TRUE(CheckWorkspaceDir(dir + "/ws").ok());           // created by the open
  EXPECT_TRUE(CheckWorkspaceDir(dir + "/ws/").ok());          // the same, with a slash
  EXPECT_TRUE(CheckWorkspaceDir("skald-cli-test-missing").ok());  // in the current directory

  Status missing = CheckWorkspaceDir(dir + "/typo/ws");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.reason(), kUsageErrorReason);
  EXPECT_NE(missing.message().find(dir + "/typo does not exist"), std::string::npos)
      << missing.message();
  EXPECT_FALSE(fs::exists(dir_ / "typo"));

  std::ofstream(dir_ / "file") << "x";
  Status file = CheckWorkspaceDir(dir + "/file");
  EXPECT_EQ(file.reason(), kUsageErrorReason);
  EXPECT_NE(file.message().find("not a directory"), std::string::npos) << file.message();
  Status below_file = CheckWorkspaceDir(dir + "/file/ws");
  EXPECT_EQ(below_file.reason(), kUsageErrorReason);
  EXPECT_NE(below_file.message().find("not a directory"), std::string::npos)
      << below_file.message();
}

}  // namespace
}  // namespace skald::cli
