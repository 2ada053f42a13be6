// Archive expansion and staging on real archives the tests write
// (tests/testutil/archive_writer.h), hostile ones included.

#include "ingest/archive_extract.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ingest/source_import.h"
#include "ingest/source_stage.h"
#include "tests/testutil/archive_writer.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using testing::ArchiveFormat;
using testing::ArchiveItem;
using testing::TempDir;
using testing::WriteTestArchive;
using Kind = ArchiveItem::Kind;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<ArchiveItem> NestedTree() {
  return {ArchiveItem::Dir("guide/"),
          ArchiveItem::File("guide/intro.md", "# Intro\n\nWelcome to the quokka handbook.\n"),
          ArchiveItem::File("guide/deep/more/notes.txt", "Notes about marsupials.\n"),
          ArchiveItem::File("README.md", "# Readme\n\nTop level.\n")};
}

TEST(ArchiveExtractTest, NamesAndStems) {
  EXPECT_TRUE(IsArchiveName("docs.zip"));
  EXPECT_TRUE(IsArchiveName("DOCS.TAR.GZ"));
  EXPECT_TRUE(IsArchiveName("a.tgz"));
  EXPECT_TRUE(IsArchiveName("a.tar"));
  EXPECT_FALSE(IsArchiveName("a.gz"));
  EXPECT_FALSE(IsArchiveName(".zip"));
  EXPECT_FALSE(IsArchiveName("notes.md"));
  EXPECT_EQ(ArchiveStem("docs.tar.gz"), "docs");
  EXPECT_EQ(ArchiveStem("docs.zip"), "docs");
  EXPECT_EQ(ArchiveStem("paper.md"), "paper");
  EXPECT_EQ(ArchiveStem("docs"), "docs");
}

TEST(ArchiveExtractTest, ZipAndTarGzOfANestedTreeExpand) {
  for (ArchiveFormat format : {ArchiveFormat::kZip, ArchiveFormat::kTarGz, ArchiveFormat::kTar}) {
    TempDir tmp;
    ASSERT_TRUE(WriteTestArchive(tmp.Sub("a"), format, NestedTree()));
    auto stats = ExtractArchive(tmp.Sub("a"), tmp.Sub("out"), ArchiveLimits{});
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    EXPECT_EQ(stats->files, 3u);
    EXPECT_EQ(Slurp(tmp.Sub("out/guide/deep/more/notes.txt")), "Notes about marsupials.\n");
    EXPECT_EQ(Slurp(tmp.Sub("out/README.md")), "# Readme\n\nTop level.\n");
  }
}

void ExpectRefused(const std::vector<ArchiveItem>& items, ArchiveFormat format, StatusCode code,
                   const std::string& words) {
  TempDir tmp;
  ASSERT_TRUE(WriteTestArchive(tmp.Sub("a"), format, items));
  auto stats = ExtractArchive(tmp.Sub("a"), tmp.Sub("out"), ArchiveLimits{});
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), code) << stats.status().ToString();
  EXPECT_NE(stats.status().message().find(words), std::string::npos) << stats.status().ToString();
  EXPECT_EQ(stats.status().message().find(tmp.path()), std::string::npos);  // no host path
  EXPECT_FALSE(fs::exists(tmp.path() + "/evil.md"));
  EXPECT_FALSE(fs::exists(tmp.Sub("out/link")));
}

TEST(ArchiveExtractTest, EntriesEscapingTheRootAreRefused) {
  for (ArchiveFormat format : {ArchiveFormat::kZip, ArchiveFormat::kTar}) {
    ExpectRefused(
        {ArchiveItem::File("ok.md", "# fine\n"), ArchiveItem::File("../evil.md", "# escaped\n")},
        format, StatusCode::kInvalidArgument, "points outside the archive");
    ExpectRefused({ArchiveItem::File("/tmp/evil.md", "# absolute\n")}, format,
                  StatusCode::kInvalidArgument, "points outside the archive");
    ExpectRefused({ArchiveItem::File("a/../../evil.md", "# escaped\n")}, format,
                  StatusCode::kInvalidArgument, "'a/../../evil.md'");
  }
  ExpectRefused({ArchiveItem::File("..\\evil.md", "# windows\n")}, ArchiveFormat::kZip,
                StatusCode::kInvalidArgument, "points outside the archive");
}

TEST(ArchiveExtractTest, LinksAndDevicesAreRefused) {
  ExpectRefused({ArchiveItem::Symlink("link", "/etc/passwd")}, ArchiveFormat::kZip,
                StatusCode::kInvalidArgument, "symbolic link");
  ExpectRefused({ArchiveItem::Symlink("link", "../x")}, ArchiveFormat::kTarGz,
                StatusCode::kInvalidArgument, "symbolic link");
  ExpectRefused({ArchiveItem::File("a.md", "# a\n"), ArchiveItem::Hardlink("b.md", "a.md")},
                ArchiveFormat::kTar, StatusCode::kInvalidArgument, "hard link");
  ExpectRefused({ArchiveItem::CharDevice("null")}, ArchiveFormat::kTar,
                StatusCode::kInvalidArgument, "device");
}

TEST(ArchiveExtractTest, ZipBombStopsAtTheRatio) {
  TempDir tmp;
  // 64 MiB of zeros deflate to ~64 KiB: a 1000x ratio.
  ASSERT_TRUE(WriteTestArchive(
      tmp.Sub("bomb.zip"), ArchiveFormat::kZip,
      {ArchiveItem::File("readme.md", "# hi\n"), ArchiveItem::File("zeros.txt", "", 64u << 20)}));
  EXPECT_LT(fs::file_size(tmp.Sub("bomb.zip")), 1u << 20);
  auto stats = ExtractArchive(tmp.Sub("bomb.zip"), tmp.Sub("out"), ArchiveLimits{});
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(stats.status().message().find("zip bomb"), std::string::npos)
      << stats.status().ToString();
  // It stopped early: far less than the 64 MiB was written.
  EXPECT_LT(fs::file_size(tmp.Sub("out/zeros.txt")), 16u << 20);
}

TEST(ArchiveExtractTest, TotalSizeAndEntryCountAreCapped) {
  TempDir tmp;
  ASSERT_TRUE(WriteTestArchive(tmp.Sub("a.tar"), ArchiveFormat::kTar,
                               {ArchiveItem::File("a.md", std::string(4000, 'a')),
                                ArchiveItem::File("b.md", std::string(4000, 'b'))}));
  ArchiveLimits small;
  small.max_total_bytes = 6000;
  auto stats = ExtractArchive(tmp.Sub("a.tar"), tmp.Sub("out1"), small);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kResourceExhausted);
  ArchiveLimits few;
  few.max_entries = 1;
  stats = ExtractArchive(tmp.Sub("a.tar"), tmp.Sub("out2"), few);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("entries"), std::string::npos);
}

TEST(ArchiveExtractTest, CorruptAndTruncatedArchivesFailClearly) {
  TempDir tmp;
  { std::ofstream(tmp.Sub("junk.zip"), std::ios::binary) << "this is not a zip file at all\n"; }
  auto stats = ExtractArchive(tmp.Sub("junk.zip"), tmp.Sub("out1"), ArchiveLimits{});
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(stats.status().message().find("corrupt"), std::string::npos)
      << stats.status().ToString();

  ASSERT_TRUE(WriteTestArchive(tmp.Sub("good.tgz"), ArchiveFormat::kTarGz,
                               {ArchiveItem::File("a.md", std::string(200000, 'x') + "\n")}));
  const std::string bytes = Slurp(tmp.Sub("good.tgz"));
  std::ofstream(tmp.Sub("cut.tgz"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  stats = ExtractArchive(tmp.Sub("cut.tgz"), tmp.Sub("out2"), ArchiveLimits{});
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kInvalidArgument) << stats.status().ToString();

  std::ofstream(tmp.Sub("empty.zip"), std::ios::binary) << "";
  stats = ExtractArchive(tmp.Sub("empty.zip"), tmp.Sub("out3"), ArchiveLimits{});
  ASSERT_FALSE(stats.ok());
}

TEST(ArchiveExtractTest, LoneArchiveFileNamesTheOnlyTopLevelFile) {
  TempDir tmp;
  auto lone = [&](const std::string& name, ArchiveFormat format,
                  const std::vector<ArchiveItem>& items) {
    EXPECT_TRUE(WriteTestArchive(tmp.Sub(name), format, items));
    return LoneArchiveFile(tmp.Sub(name));
  };
  const ArchiveItem hello = ArchiveItem::File("hello.md", "# hi\n");
  EXPECT_EQ(lone("a.zip", ArchiveFormat::kZip, {hello}), "hello.md");
  EXPECT_EQ(lone("a.tgz", ArchiveFormat::kTarGz, {hello}), std::nullopt);  // zips only
  EXPECT_EQ(
      lone("fork.zip", ArchiveFormat::kZip, {ArchiveItem::File("__MACOSX/._hello.md", "x"), hello}),
      "hello.md");
  EXPECT_EQ(lone("two.zip", ArchiveFormat::kZip, {hello, ArchiveItem::File("b.md", "b")}),
            std::nullopt);
  EXPECT_EQ(lone("nested.zip", ArchiveFormat::kZip, {ArchiveItem::File("d/hello.md", "x")}),
            std::nullopt);
  EXPECT_EQ(lone("dir.zip", ArchiveFormat::kZip, {ArchiveItem::Dir("d/"), hello}), std::nullopt);
  EXPECT_EQ(lone("empty.tar", ArchiveFormat::kTar, {}), std::nullopt);
  { std::ofstream(tmp.Sub("junk.zip"), std::ios::binary) << "not a zip\n"; }
  EXPECT_EQ(LoneArchiveFile(tmp.Sub("junk.zip")), std::nullopt);
  EXPECT_EQ(LoneArchiveFile(tmp.Sub("missing.zip")), std::nullopt);
}

TEST(SourceStageTest, ArchiveIsPlannedAsATree) {
  TempDir tmp;
  ASSERT_TRUE(WriteTestArchive(tmp.Sub("upload_1.zip"), ArchiveFormat::kZip, NestedTree()));
  StageOptions options;
  options.staging_dir = tmp.Sub("stage");
  auto staged = StageSource("", tmp.Sub("upload_1.zip"), "docs.zip", options);
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  EXPECT_EQ(staged->display_name, "docs");
  // Read into memory: nothing is expanded to disk.
  ASSERT_TRUE(staged->tree.has_value());
  EXPECT_FALSE(fs::exists(options.staging_dir));
  auto plan = PlanStaged(std::move(*staged), ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::vector<std::string> paths;
  for (const ImportFile& f : plan->files) paths.push_back(f.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{"README.md", "guide/deep/more/notes.md", "guide/intro.md"}));
  EXPECT_EQ(plan->root_name, "docs");
}

// An archive is planned exactly as the same files in a folder on disk:
// the same order, names, contents, skipped entries and warnings.
TEST(SourceStageTest, TheArchivePlanIsTheFolderPlan) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"a/x.md", "# X\n\nunder a\n"},
      {"a-b/y.md", "# Y\n\nunder a-b (sorts before a/ as a full path)\n"},
      {"a.md", "# A file beside a folder of its stem\n"},
      {"B.md", "# Upper case sorts first\n"},
      {".hidden/z.md", "# hidden\n"},
      {"c/.h.md", "# hidden file\n"},
      {"node_modules/m.md", "# ignored folder\n"},
      {"c/d.txt", "plain text\n"},
      {"c/latin1.txt",
       "caf\xe9 cr\xe8me br\xfbl\xe9"
       "e, encore et encore\n"},
      {"c/empty.md", ""},
      {"c/blob.bin", std::string("\x00\x01\x02\xff", 4)},
  };
  TempDir tmp;
  std::vector<ArchiveItem> items;
  for (const auto& [path, bytes] : files) {
    items.push_back(ArchiveItem::File(path, bytes));
    fs::create_directories(fs::path(tmp.Sub("folder/docs/" + path)).parent_path());
    std::ofstream(tmp.Sub("folder/docs/" + path), std::ios::binary) << bytes;
  }
  items.push_back(ArchiveItem::Dir("empty/"));
  fs::create_directories(tmp.Sub("folder/docs/empty"));
  ASSERT_TRUE(WriteTestArchive(tmp.Sub("docs.zip"), ArchiveFormat::kZip, items));
  auto from_disk = PlanImport(tmp.Sub("folder/docs"), "", ImportOptions{});
  ASSERT_TRUE(from_disk.ok()) << from_disk.status().ToString();
  StageOptions options;
  options.staging_dir = tmp.Sub("stage");
  auto staged = StageSource("", tmp.Sub("docs.zip"), "docs.zip", options);
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  auto from_archive = PlanStaged(std::move(*staged), ImportOptions{});
  ASSERT_TRUE(from_archive.ok()) << from_archive.status().ToString();
  EXPECT_EQ(from_archive->root_name, from_disk->root_name);
  EXPECT_EQ(from_archive->dirs, from_disk->dirs);
  EXPECT_EQ(from_archive->warnings, from_disk->warnings);
  EXPECT_EQ(from_archive->source_files, from_disk->source_files);
  EXPECT_EQ(from_archive->source_bytes, from_disk->source_bytes);
  ASSERT_EQ(from_archive->files.size(), from_disk->files.size());
  for (size_t i = 0; i < from_disk->files.size(); ++i) {
    EXPECT_EQ(from_archive->files[i].path, from_disk->files[i].path);
    EXPECT_EQ(from_archive->files[i].content, from_disk->files[i].content);
  }
  EXPECT_EQ(from_disk->files.front().path, "B.md");
  EXPECT_GE(from_disk->warnings.size(), 2u);  // the empty and the binary file
}

// Entry paths a file system would not take (too long a name or path, too
// deep) are refused, in memory as on disk.
TEST(ArchiveExtractTest, OverlongAndOverdeepPathsAreRefused) {
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "d/";
  const std::vector<std::vector<ArchiveItem>> cases = {
      {ArchiveItem::File(std::string(300, 'n') + ".md", "x")},
      {ArchiveItem::File(deep + "f.md", "x")},
      {ArchiveItem::File(std::string(2100, 'a') + "/" + std::string(2100, 'b') + "/c.md", "x")}};
  for (size_t i = 0; i < cases.size(); ++i) {
    TempDir tmp;
    ASSERT_TRUE(WriteTestArchive(tmp.Sub("a.tar"), ArchiveFormat::kTar, cases[i])) << i;
    auto read = ReadArchive(tmp.Sub("a.tar"), ArchiveLimits{});
    ASSERT_FALSE(read.ok()) << i;
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument) << i;
    EXPECT_NE(read.status().message().find("the archive is refused"), std::string::npos)
        << read.status().ToString();
    EXPECT_FALSE(ExtractArchive(tmp.Sub("a.tar"), tmp.Sub("out"), ArchiveLimits{}).ok()) << i;
  }
  // At the limits: accepted.
  TempDir tmp;
  std::string at_depth;
  for (int i = 0; i < 255; ++i) at_depth += "d/";
  ASSERT_TRUE(WriteTestArchive(tmp.Sub("ok.tar"), ArchiveFormat::kTar,
                               {ArchiveItem::File(std::string(252, 'n') + ".md", "x"),
                                ArchiveItem::File(at_depth + "f.md", "y")}));
  auto read = ReadArchive(tmp.Sub("ok.tar"), ArchiveLimits{});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->files.size(), 2u);
  EXPECT_EQ(read->dirs.size(), 255u);
}

// A path that an archive makes both a file and a directory cannot be read
// into one tree; a repeated entry replaces the earlier one, as on disk.
TEST(ArchiveExtractTest, ReadIntoMemoryRefusesAFileThatIsAlsoADirectory) {
  TempDir tmp;
  ASSERT_TRUE(WriteTestArchive(tmp.Sub("clash.tar"), ArchiveFormat::kTar,
                               {ArchiveItem::File("a", "file"), ArchiveItem::File("a/b.md", "x")}));
  auto clash = ReadArchive(tmp.Sub("clash.tar"), ArchiveLimits{});
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(clash.status().message().find("both a file and a directory"), std::string::npos)
      << clash.status().ToString();
  ASSERT_TRUE(WriteTestArchive(tmp.Sub("clash2.tar"), ArchiveFormat::kTar,
                               {ArchiveItem::File("d/b.md", "x"), ArchiveItem::File("d", "f")}));
  EXPECT_FALSE(ReadArchive(tmp.Sub("clash2.tar"), ArchiveLimits{}).ok());

  ASSERT_TRUE(WriteTestArchive(tmp.Sub("twice.tar"), ArchiveFormat::kTar,
                               {ArchiveItem::File("n.md", "the first, longer version"),
                                ArchiveItem::File("n.md", "second")}));
  auto twice = ReadArchive(tmp.Sub("twice.tar"), ArchiveLimits{});
  ASSERT_TRUE(twice.ok()) << twice.status().ToString();
  ASSERT_EQ(twice->files.size(), 1u);
  EXPECT_EQ(twice->files.at("n.md"), "second");
  EXPECT_EQ(twice->stats.files, 2u);
}

TEST(SourceStageTest, ASingleTopFolderIsTheRoot) {
  TempDir tmp;
  ASSERT_TRUE(
      WriteTestArchive(tmp.Sub("a.tar.gz"), ArchiveFormat::kTarGz,
                       {ArchiveItem::Dir("docs/"), ArchiveItem::File("docs/a.md", "# A\n\nalpha\n"),
                        ArchiveItem::File("docs/sub/b.md", "# B\n\nbeta\n")}));
  StageOptions options;
  options.staging_dir = tmp.Sub("stage");
  auto staged = StageSource("", tmp.Sub("a.tar.gz"), "docs.tar.gz", options);
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  auto plan = PlanStaged(std::move(*staged), ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->files.size(), 2u);
  EXPECT_EQ(plan->files[0].path, "a.md");
  EXPECT_EQ(plan->files[1].path, "sub/b.md");
}

TEST(SourceStageTest, NonArchivesPassThroughAndErrorsNameTheUpload) {
  TempDir tmp;
  std::ofstream(tmp.Sub("n.md"), std::ios::binary) << "# N\n";
  StageOptions options;
  options.staging_dir = tmp.Sub("stage");
  auto staged = StageSource("", tmp.Sub("n.md"), "n.md", options);
  ASSERT_TRUE(staged.ok());
  EXPECT_EQ(staged->path, tmp.Sub("n.md"));
  EXPECT_FALSE(fs::exists(options.staging_dir));

  std::ofstream(tmp.Sub("bad"), std::ios::binary) << "garbage";
  staged = StageSource("", tmp.Sub("bad"), "site.zip", options);
  ASSERT_FALSE(staged.ok());
  EXPECT_EQ(staged.status().message().rfind("site.zip: ", 0), 0u) << staged.status().ToString();
}

TEST(SourceStageTest, NoSplitLimitsKeepALongDocumentWhole) {
  // The limits import_job uses for parse_mode=no_split.
  TempDir tmp;
  std::string doc;
  for (int s = 0; s < 8; ++s) {
    doc += "# Chapter " + std::to_string(s) + "\n\n" + std::string(3000, 'w') + "\n\n";
  }
  std::ofstream(tmp.Sub("book.md"), std::ios::binary) << doc;
  ImportOptions options;
  options.split.max_section_tokens = 1 << 29;
  options.split.max_section_chars = 1 << 29;
  options.split.min_section_tokens = 0;
  auto plan = PlanImport(tmp.Sub("book.md"), "", options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->files.size(), 1u);
  EXPECT_EQ(plan->files[0].content, doc);
}

}  // namespace
}  // namespace skald
