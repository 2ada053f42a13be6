#include "cli/dir_zip.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

namespace skald::cli {
namespace {

namespace fs = std::filesystem;

void WriteText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Every regular entry of the zip at `path`: name -> bytes.
std::map<std::string, std::string> ZipEntries(const std::string& path) {
  std::map<std::string, std::string> out;
  std::unique_ptr<archive, int (*)(archive*)> a(archive_read_new(), archive_read_free);
  archive_read_support_format_zip(a.get());
  EXPECT_EQ(archive_read_open_filename(a.get(), path.c_str(), 64 * 1024), ARCHIVE_OK)
      << archive_error_string(a.get());
  archive_entry* entry = nullptr;
  while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
    std::string bytes;
    char buf[8192];
    la_ssize_t n;
    while ((n = archive_read_data(a.get(), buf, sizeof buf)) > 0) bytes.append(buf, n);
    EXPECT_EQ(n, 0) << archive_error_string(a.get());
    out[archive_entry_pathname(entry)] = bytes;
  }
  return out;
}

class DirZipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "skald-zip-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }

  // A folder "docs" holding guide/keys.md (`guide_`, repetitive text),
  // README.md, a hidden .git/config and a link: its path.
  fs::path WriteDocs() {
    for (int i = 0; i < 400; ++i) {
      guide_ += "Rotate the signing keys every quarter. Step " + std::to_string(i) + ".\n";
    }
    const fs::path src = root_ / "docs";
    WriteText(src / "guide" / "keys.md", guide_);
    WriteText(src / "README.md", "# Readme\n");
    WriteText(src / ".git" / "config", "hidden, left out\n");
    fs::create_symlink(src / "README.md", src / "link.md");
    return src;
  }

  // Zips WriteDocs() and checks what the zip holds: its size over the
  // files' bytes.
  double ZipRatio(bool compress) {
    const fs::path src = WriteDocs();
    const std::string zip = (root_ / "docs.zip").string();
    Result<ZipStats> stats = ZipDirectory(src.string(), zip, compress);
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    if (!stats.ok()) return 0;
    EXPECT_EQ(stats->files, 2u);
    EXPECT_EQ(stats->bytes, guide_.size() + 9);
    std::map<std::string, std::string> entries = ZipEntries(zip);
    EXPECT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries["guide/keys.md"], guide_);
    EXPECT_EQ(entries["README.md"], "# Readme\n");
    return static_cast<double>(fs::file_size(zip)) / static_cast<double>(stats->bytes);
  }

  fs::path root_;
  std::string guide_;
};

TEST_F(DirZipTest, HoldsTheFilesRelativeToTheFolderCompressed) {
  // Deflated, not stored: repetitive text shrinks several times over.
  EXPECT_LT(ZipRatio(/*compress=*/true), 0.25);
}

// Not compressed (for a server on this machine): the same entries, stored.
TEST_F(DirZipTest, StoredWhenNotCompressed) {
  EXPECT_GT(ZipRatio(/*compress=*/false), 1.0);  // the bytes as they are, plus headers
}

TEST_F(DirZipTest, AFolderThatCannotBeListedIsAnIOError) {
  Result<ZipStats> stats = ZipDirectory((root_ / "missing").string(), (root_ / "x.zip").string());
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kIOError);
}

}  // namespace
}  // namespace skald::cli
