// End-to-end through the Db facade: a folder holding an HTML page, a PDF, a
// DOCX, an image, a Latin-1 text file and a corrupt PDF (all written by the
// test) is imported with add-resource; each document becomes Markdown that
// `find` locates by its text, and the broken or legacy files end in
// warnings, never in a failed import.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "ingest/parsers/document_test_util.h"
#include "skald/db.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void Put(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

Identity Root() { return Identity{"default", "default", Role::kRoot}; }

std::unique_ptr<Db> OpenDb(const TempDir& tmp) {
  DbOptions options;
  options.workspace = tmp.Sub("ws");
  options.sync_writes = false;
  auto db = Db::Open(options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

// add-resource of a local path, waiting for the task.
Result<AddResourceResult> Import(Db& db, const std::string& path) {
  AddResourceRequest add;
  add.path = path;
  add.wait = true;
  return db.AddResource(Root(), add);
}

std::string TopHit(Db& db, const std::string& query) {
  FindRequest request;
  request.query = query;
  request.score_threshold = 0.0;
  auto found = db.Find(Root(), request);
  EXPECT_TRUE(found.ok()) << found.status().ToString();
  if (!found.ok() || found->resources.empty()) return "";
  return found->resources[0].uri;
}

TEST(DocumentsFindTest, HtmlPdfAndDocxAreFoundByTheirText) {
  TempDir tmp;
  std::string src = tmp.Sub("library");
  Put(src + "/lighthouse.html",
      "<html><head><title>Lighthouse keeping</title><script>var lamp = 'tracking';</script></head>"
      "<body><nav>Home About</nav><h1>Lamp care</h1><p>Trim the paraffin wick every evening and "
      "polish the Fresnel lens before sunset.</p></body></html>");
  Put(src + "/harvest.pdf",
      testing::PdfBytes({{"The barley harvest begins when the grain moisture drops below",
                          "fourteen percent; combines work the southern fields first."}},
                        "Harvest plan"));
  Put(src + "/glacier.docx",
      testing::DocxBytes({{"Heading1", "Glacier survey"},
                          {"",
                           "Crevasse depth was measured with ground penetrating radar "
                           "along the moraine."}}));
  Put(src + "/diagram.png",
      std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x01\x00\0\0\0\xC8\x08\x02\0\0\0", 29));
  Put(src + "/notes.txt",
      "Caf\xE9 cr\xE8me recipe: steam the milk, pour the espresso, "
      "dust with cocoa. Les \xE9l\xE8ves adorent.\n");
  Put(src + "/broken.pdf", "%PDF-1.7\n1 0 obj <<< garbage\n");

  auto db = OpenDb(tmp);
  ASSERT_NE(db, nullptr);
  auto added = Import(*db, src);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(added->task_status, TaskState::kCompleted);
  std::string warnings;
  for (const std::string& w : added->warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("broken.pdf: skipped (corrupt PDF"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("notes.txt: transcoded from"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find(tmp.path()), std::string::npos) << warnings;

  const std::string root = "viking://resources/library/";
  EXPECT_EQ(TopHit(*db, "paraffin wick Fresnel lens"), root + "lighthouse.md");
  EXPECT_EQ(TopHit(*db, "barley harvest grain moisture"), root + "harvest.md");
  EXPECT_EQ(TopHit(*db, "crevasse radar moraine"), root + "glacier.md");
  EXPECT_EQ(TopHit(*db, "espresso cocoa milk"), root + "notes.md");
  // The picture is stored as it is, found by its description.
  EXPECT_EQ(TopHit(*db, "diagram png image 256 200 pixels"), root + "diagram.png");

  auto page = db->Read(Root(), root + "lighthouse.md", 0, -1, /*raw=*/true);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->rfind("# Lighthouse keeping\n", 0), 0u) << *page;
  EXPECT_EQ(page->find("tracking"), std::string::npos) << *page;
  EXPECT_EQ(db->Read(Root(), root + "diagram.png", 0, -1, /*raw=*/true).status().code(),
            StatusCode::kInvalidArgument);  // not text: downloaded, not read
  auto image = db->DownloadFile(Root(), root + "diagram.png");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->bytes,
            std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x01\x00\0\0\0\xC8\x08\x02\0\0\0", 29));
  FindRequest request;
  request.query = "diagram png image";
  request.score_threshold = 0.0;
  auto found = db->Find(Root(), request);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  std::string abstract;
  for (const auto& hit : found->resources) {
    if (hit.uri == root + "diagram.png") abstract = hit.abstract;
  }
  EXPECT_NE(abstract.find("256 x 200 pixels"), std::string::npos) << abstract;
}

// A single upload that is a broken document: the task fails with the
// reason, and the database keeps working.
TEST(DocumentsFindTest, ASingleEncryptedPdfFailsWithItsReason) {
  TempDir tmp;
  Put(tmp.Sub("secret.pdf"), testing::PdfBytes({{"classified"}}, "", /*encrypted=*/true));
  auto db = OpenDb(tmp);
  ASSERT_NE(db, nullptr);
  auto added = Import(*db, tmp.Sub("secret.pdf"));
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.status().message().find("encrypted"), std::string::npos)
      << added.status().ToString();
  EXPECT_EQ(added.status().message().find(tmp.path()), std::string::npos)
      << added.status().ToString();
}

}  // namespace
}  // namespace skald
