#include "ingest/source_import.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void Put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> Paths(const ImportPlan& plan) {
  std::vector<std::string> out;
  for (const ImportFile& f : plan.files) out.push_back(f.path);
  return out;
}

TEST(SourceImportTest, SmallMarkdownFileBecomesOneFileInItsRoot) {
  TempDir tmp;
  Put(tmp.Sub("Guide Book.md"), "# Guide\n\nShort text.\n");
  auto plan = PlanImport(tmp.Sub("Guide Book.md"), "", ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->root_name, "Guide_Book");
  ASSERT_EQ(plan->files.size(), 1u);
  EXPECT_EQ(plan->files[0].content, "# Guide\n\nShort text.\n");
  EXPECT_TRUE(plan->dirs.empty());
}

TEST(SourceImportTest, LargeMarkdownIsSplitIntoSections) {
  TempDir tmp;
  std::string doc;
  for (int s = 0; s < 6; ++s) {
    doc += "# Chapter " + std::to_string(s) + "\n\n";
    for (int p = 0; p < 40; ++p) doc += "Sentence number " + std::to_string(p) + " of a long chapter body. ";
    doc += "\n\n";
  }
  Put(tmp.Sub("book.md"), doc);
  auto plan = PlanImport(tmp.Sub("book.md"), "", ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_GT(plan->files.size(), 1u);
  for (const ImportFile& f : plan->files) EXPECT_LE(f.content.size(), 6000u) << f.path;
}

TEST(SourceImportTest, DirectoryImportSkipsWhatIsNotText) {
  TempDir tmp;
  std::string root = tmp.Sub("proj");
  Put(root + "/README.md", "# Project\n\nAbout it.\n");
  Put(root + "/src/main.py", "print('hi')\n");
  Put(root + "/.hidden/secret.md", "# Secret\n");
  Put(root + "/node_modules/x/index.js", "module.exports = 1;\n");
  Put(root + "/empty.txt", "");
  Put(root + "/image.png", std::string("\x89PNG\0\0", 6));
  Put(root + "/blob.dat", std::string("\x01\x02\x00\x03", 4));
  Put(root + "/doc.pdf", "%PDF-1.4 not really\n");
  auto plan = PlanImport(root, "", ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->root_name, "proj");
  std::vector<std::string> paths = Paths(*plan);
  // The picture is kept as it is (the indexer describes it).
  EXPECT_EQ(paths, (std::vector<std::string>{"README.md", "image.png", "src/main.py"}));
  EXPECT_EQ(plan->dirs, (std::vector<std::string>{"src"}));
  std::string warnings;
  for (const std::string& w : plan->warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("empty.txt"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("blob.dat: skipped (binary"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("doc.pdf: skipped (corrupt PDF"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("secret"), std::string::npos);
}

TEST(SourceImportTest, IncludeExcludeAndIgnoreDirs) {
  TempDir tmp;
  std::string root = tmp.Sub("r");
  Put(root + "/a.md", "# A\n");
  Put(root + "/b.txt", "B\n");
  Put(root + "/skipme/c.md", "# C\n");
  Put(root + "/keep/d.md", "# D\n");
  ImportOptions options;
  options.include = {"*.md"};
  options.exclude = {"keep/*"};
  options.ignore_dirs = {"skipme"};
  auto plan = PlanImport(root, "", options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Paths(*plan), (std::vector<std::string>{"a.md"}));
}

// A source that is missing, empty or unreadable is named by its display
// name (for an upload: the original file name), never by its host path.
TEST(SourceImportTest, ErrorsNameTheSourceNotItsHostPath) {
  TempDir tmp;
  auto missing = PlanImport(tmp.Sub("upload_0123.claimed"), "report.md", ImportOptions{});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("does not exist: report.md"), std::string::npos)
      << missing.status().ToString();
  EXPECT_EQ(missing.status().message().find(tmp.path()), std::string::npos)
      << missing.status().ToString();

  Put(tmp.Sub("upload_4567.claimed"), "");
  auto empty = PlanImport(tmp.Sub("upload_4567.claimed"), "empty.md", ImportOptions{});
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.status().message().find("empty.md"), std::string::npos)
      << empty.status().ToString();
  EXPECT_EQ(empty.status().message().find(tmp.path()), std::string::npos)
      << empty.status().ToString();

  // A file the process cannot read (root reads everything: then only the
  // missing and empty cases above run).
  Put(tmp.Sub("locked/secret.md"), "# Secret\n");
  fs::permissions(tmp.Sub("locked/secret.md"), fs::perms::none);
  std::ifstream probe(tmp.Sub("locked/secret.md"));
  if (!probe) {
    auto unreadable = PlanImport(tmp.Sub("locked/secret.md"), "", ImportOptions{});
    EXPECT_FALSE(unreadable.ok());
    EXPECT_NE(unreadable.status().message().find("secret.md"), std::string::npos)
        << unreadable.status().ToString();
    EXPECT_NE(unreadable.status().message().find("cannot read"), std::string::npos)
        << unreadable.status().ToString();
    EXPECT_EQ(unreadable.status().message().find(tmp.path()), std::string::npos)
        << unreadable.status().ToString();
  }
  fs::permissions(tmp.Sub("locked/secret.md"), fs::perms::owner_all);
}

TEST(SourceImportTest, ClearErrorsForMissingAndEmptySources) {
  TempDir tmp;
  auto missing = PlanImport(tmp.Sub("nope"), "", ImportOptions{});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  fs::create_directories(tmp.Sub("empty"));
  auto empty = PlanImport(tmp.Sub("empty"), "", ImportOptions{});
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.status().message().find("nothing to import"), std::string::npos);
  ImportOptions few;
  few.max_files = 1;
  Put(tmp.Sub("two/a.md"), "a");
  Put(tmp.Sub("two/b.md"), "b");
  EXPECT_EQ(PlanImport(tmp.Sub("two"), "", few).status().code(),
            StatusCode::kResourceExhausted);
  ImportOptions small;
  small.max_total_bytes = 1;
  auto too_big = PlanImport(tmp.Sub("two"), "", small);
  EXPECT_EQ(too_big.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(too_big.status().message().find("in parts"), std::string::npos);
}

TEST(SourceImportTest, UnsafeNamesAreSanitizedAndCollisionsSuffixed) {
  TempDir tmp;
  std::string root = tmp.Sub("r");
  Put(root + "/we?ird.py", "x = 1\n");
  Put(root + "/we_ird.py", "y = 2\n");
  auto plan = PlanImport(root, "", ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->files.size(), 2u);
  EXPECT_NE(plan->files[0].path, plan->files[1].path);
  for (const ImportFile& f : plan->files) {
    EXPECT_EQ(f.path.find('?'), std::string::npos) << f.path;
  }
}

// Files are read two at a time in groups; the plan is still in source
// order, warnings included, whatever thread read which file.
TEST(SourceImportTest, ManyFilesKeepSourceOrderAndWarningsInPlace) {
  TempDir tmp;
  std::string root = tmp.Sub("many");
  std::vector<std::string> expected_files;
  std::vector<std::string> expected_warnings;
  for (int i = 0; i < 150; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "f%03d", i);
    if (i % 17 == 5) {
      Put(root + "/" + name + ".md", "");
      expected_warnings.push_back(std::string(name) + ".md: skipped (empty file)");
    } else if (i % 23 == 7) {
      Put(root + "/" + name + ".bin", std::string("\x01\x02\0\xff\xfe", 5) + std::string(64, '\0'));
      expected_warnings.push_back(std::string(name) + ".bin: skipped (binary file)");
    } else {
      Put(root + "/" + name + ".md", "# Note " + std::to_string(i) + "\n\nBody " + name + ".\n");
      expected_files.push_back(std::string(name) + ".md");
    }
  }
  auto plan = PlanImport(root, "", ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Paths(*plan), expected_files);
  EXPECT_EQ(plan->warnings, expected_warnings);
  EXPECT_EQ(plan->source_files, 150u);
  for (const ImportFile& f : plan->files) {
    EXPECT_NE(f.content.find("Body " + f.path.substr(0, 4) + "."), std::string::npos) << f.path;
  }
}

TEST(SourceImportTest, TotalTextLimitStopsAManyFileImport) {
  TempDir tmp;
  std::string root = tmp.Sub("big");
  for (int i = 0; i < 100; ++i) Put(root + "/f" + std::to_string(100 + i) + ".md", std::string(1000, 'a'));
  ImportOptions options;
  options.max_total_bytes = 70 * 1000 + 10;  // the 71st file is one too many
  auto plan = PlanImport(root, "", options);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted) << plan.status().ToString();
  options.max_total_bytes = 100 * 1000;
  EXPECT_TRUE(PlanImport(root, "", options).ok());
}

TEST(SourceImportTest, DisplayNameNamesAnUploadedFile) {
  TempDir tmp;
  Put(tmp.Sub("upload_0123.md"), "# Notes\n\nbody\n");
  auto plan = PlanImport(tmp.Sub("upload_0123.md"), "meeting notes.md", ImportOptions{});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->root_name, "meeting_notes");
}

}  // namespace
}  // namespace skald
