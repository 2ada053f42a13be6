// Source import with the parsers: documents become Markdown files named
// after their source, media become metadata files, text that is not UTF-8
// is transcoded, and broken documents are skipped with a reason.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "ingest/parser.h"
#include "ingest/parsers/document_test_util.h"
#include "ingest/source_import.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;

void Put(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

const ImportFile* FileAt(const ImportPlan& plan, const std::string& path) {
  for (const ImportFile& f : plan.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

std::string AllWarnings(const ImportPlan& plan) {
  std::string out;
  for (const std::string& w : plan.warnings) out += w + "\n";
  return out;
}

TEST(ParserImportTest, RegistryPicksByExtensionThenByMagic) {
  ParserRegistry parsers = ParserRegistry::BuiltIn();
  auto name = [&](std::string_view ext, std::string_view head) -> std::string {
    const Parser* p = parsers.Find(FileProbe{ext, head});
    return p == nullptr ? "none" : std::string(p->Name());
  };
  EXPECT_EQ(name(".pdf", ""), "pdf");
  EXPECT_EQ(name(".HTML", ""), "none");  // extensions arrive lower-cased
  EXPECT_EQ(name(".docx", "PK"), "docx");
  EXPECT_EQ(name(".pptx", ""), "pptx");
  EXPECT_EQ(name(".xlsx", ""), "xlsx");
  EXPECT_EQ(name(".epub", ""), "epub");
  EXPECT_EQ(name(".jpeg", ""), "media");
  EXPECT_EQ(name(".pdf", "<html>"), "pdf");    // the extension wins
  EXPECT_EQ(name(".bin", "%PDF-1.5"), "pdf");  // no claim: magic bytes
  EXPECT_EQ(name("", "<!doctype html>"), "html");
  EXPECT_EQ(name(".zip", "PK\x03\x04"), "none");  // archives are not documents
  EXPECT_EQ(name(".json", "{}"), "none");
}

// Media kept whole are held in memory until written: past the import's
// media budget, in source order, each is stored as its description.
TEST(ParserImportTest, MediaPastTheImportsBudgetAreStoredAsDescriptions) {
  testing::TempDir tmp;
  std::string root = tmp.Sub("photos");
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x02\0\0\0\x03\x08\x02\0\0\0", 29);
  for (const char* name : {"a.png", "b.png", "c.png"}) Put(root + "/" + name, png);
  ImportOptions options;
  options.max_media_bytes = 60;  // two of the three
  auto plan = PlanImport(root, "", options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const std::string warnings = AllWarnings(*plan);
  ASSERT_NE(FileAt(*plan, "a.png"), nullptr) << warnings;
  EXPECT_EQ(FileAt(*plan, "a.png")->content, png);
  ASSERT_NE(FileAt(*plan, "b.png"), nullptr) << warnings;
  EXPECT_EQ(FileAt(*plan, "c.png"), nullptr);
  const ImportFile* described = FileAt(*plan, "c_png.md");
  ASSERT_NE(described, nullptr) << warnings;
  EXPECT_NE(described->content.find("Image file (PNG), 2 x 3 pixels"), std::string::npos)
      << described->content;
  EXPECT_NE(warnings.find("c.png: over the 60 bytes of pictures"), std::string::npos) << warnings;
}

TEST(ParserImportTest, DocumentsMediaAndLegacyTextInOneFolder) {
  testing::TempDir tmp;
  std::string root = tmp.Sub("mixed");
  Put(root + "/page.html",
      "<html><head><title>Guide</title></head><body><p>Gumbo parsed this page.</p></body></html>");
  Put(root + "/report.pdf", testing::PdfBytes({{"Poppler read this page."}}));
  Put(root + "/spec.docx",
      testing::DocxBytes({{"Heading1", "Scope"}, {"", "Pugixml read this paragraph."}}));
  Put(root + "/photo.png",
      std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x02\0\0\0\x03\x08\x02\0\0\0", 29));
  Put(root + "/clip.mp4", std::string(4096, 'v'));
  Put(root + "/legacy.txt",
      "Caf\xE9 cr\xE8me: les \xE9l\xE8ves arrivent \xE0 l'heure pour la r\xE9union du matin.\n");
  Put(root + "/broken.pdf", "%PDF-1.4 no objects here\n");
  Put(root + "/broken.docx", "PK\x03\x04 not really a zip");
  Put(root + "/bundle.zip", "PK\x05\x06" + std::string(18, '\0'));
  Put(root + "/data.json", "{\"k\": 1}\n");
  ImportOptions options;
  options.max_file_bytes = 3000;  // clip.mp4 is over it
  auto plan = PlanImport(root, "", options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::string warnings = AllWarnings(*plan);

  const ImportFile* page = FileAt(*plan, "page.md");
  ASSERT_NE(page, nullptr) << warnings;
  EXPECT_EQ(page->content, "# Guide\n\nGumbo parsed this page.\n");
  const ImportFile* report = FileAt(*plan, "report.md");
  ASSERT_NE(report, nullptr) << warnings;
  EXPECT_NE(report->content.find("## Page 1\n\nPoppler read this page."), std::string::npos);
  const ImportFile* spec = FileAt(*plan, "spec.md");
  ASSERT_NE(spec, nullptr) << warnings;
  EXPECT_EQ(spec->content, "# Scope\n\nPugixml read this paragraph.\n");
  // Pictures, recordings and videos are kept byte for byte; one over the
  // size limit is stored as its description instead (from its header).
  const ImportFile* photo = FileAt(*plan, "photo.png");
  ASSERT_NE(photo, nullptr) << warnings;
  EXPECT_EQ(photo->content.size(), 29u);
  EXPECT_EQ(photo->content.substr(0, 4), "\x89PNG");
  EXPECT_EQ(FileAt(*plan, "clip.mp4"), nullptr);
  const ImportFile* clip = FileAt(*plan, "clip_mp4.md");
  ASSERT_NE(clip, nullptr) << warnings;
  EXPECT_NE(clip->content.find("Video file (MP4), 4.0 KiB (4096 bytes)"), std::string::npos)
      << clip->content;
  EXPECT_NE(warnings.find("clip.mp4: 4096 bytes, over the 3000 byte limit"), std::string::npos)
      << warnings;
  const ImportFile* legacy = FileAt(*plan, "legacy.md");
  ASSERT_NE(legacy, nullptr) << warnings;
  EXPECT_TRUE(IsValidUtf8(legacy->content));
  EXPECT_NE(legacy->content.find("Caf\xC3\xA9"), std::string::npos) << legacy->content;
  ASSERT_NE(FileAt(*plan, "data.json"), nullptr);

  EXPECT_NE(warnings.find("legacy.txt: transcoded from"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("broken.pdf: skipped (corrupt PDF"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("broken.docx: skipped (not a valid DOCX"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("bundle.zip: skipped (no parser for .zip"), std::string::npos)
      << warnings;
  EXPECT_EQ(warnings.find(tmp.path()), std::string::npos) << warnings;
  EXPECT_EQ(plan->files.size(), 7u) << warnings;
}

TEST(ParserImportTest, SinglePdfIsNamedAfterItsStem) {
  testing::TempDir tmp;
  std::vector<std::vector<std::string>> pages;
  for (int p = 0; p < 12; ++p) {
    std::vector<std::string> lines;
    for (int l = 0; l < 40; ++l)
      lines.push_back("Page " + std::to_string(p) + " line " + std::to_string(l) +
                      " of a long annual report body text.");
    pages.push_back(lines);
  }
  Put(tmp.Sub("upload_1234.claimed"), testing::PdfBytes(pages));
  auto plan = PlanImport(tmp.Sub("upload_1234.claimed"), "Annual Report.pdf", ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->root_name, "Annual_Report");
  EXPECT_GT(plan->files.size(), 1u);  // split into sections of pages
  for (const ImportFile& f : plan->files) EXPECT_LE(f.content.size(), 6000u) << f.path;
}

TEST(ParserImportTest, ASingleBrokenDocumentIsAClearError) {
  testing::TempDir tmp;
  Put(tmp.Sub("upload_1.claimed"), testing::PdfBytes({{"x"}}, "", /*encrypted=*/true));
  auto plan = PlanImport(tmp.Sub("upload_1.claimed"), "secret.pdf", ImportOptions{});
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("secret.pdf: skipped (the PDF file is encrypted"),
            std::string::npos)
      << plan.status().ToString();
}

TEST(ParserImportTest, ExtensionlessFilesAreSniffed) {
  testing::TempDir tmp;
  Put(tmp.Sub("d/page"),
      "<!DOCTYPE html><html><body><h1>Sniffed</h1><p>By its markup.</p></body></html>");
  Put(tmp.Sub("d/paper"), testing::PdfBytes({{"Sniffed by its header."}}));
  auto plan = PlanImport(tmp.Sub("d"), "", ImportOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_NE(FileAt(*plan, "page.md"), nullptr) << AllWarnings(*plan);
  EXPECT_EQ(FileAt(*plan, "page.md")->content, "# Sniffed\n\nBy its markup.\n");
  ASSERT_NE(FileAt(*plan, "paper.md"), nullptr) << AllWarnings(*plan);
}

}  // namespace
}  // namespace skald
