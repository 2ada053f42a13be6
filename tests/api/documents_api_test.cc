// Documents over HTTP, as `ov add-resource` sends them: temp_upload of a
// PDF, a DOCX and an HTML page (written by the test), POST
// /api/v1/resources, then find locates each by its text. A broken document
// fails its task with the reason and the server keeps serving; text that
// is not UTF-8 is imported with a warning.

#include <regex>
#include <thread>

#include "api_fixture.h"
#include "ingest/parsers/document_test_util.h"

namespace skald::apitest {
namespace {

class DocumentsApiTest : public ApiTest {
 protected:
  // Uploads `bytes` as `filename` and adds it as a resource; returns the
  // POST /api/v1/resources reply.
  Reply AddFile(const std::string& filename, const std::string& bytes, bool wait) {
    const std::string id = UploadTemp(bytes, filename);
    return PostJson("/api/v1/resources", {{"temp_file_id", id}, {"wait", wait}});
  }

  // The URI of the best resource hit for `query` ("" when none).
  std::string TopHit(const std::string& query) {
    Reply r = PostJson("/api/v1/search/find", {{"query", query}, {"limit", 3}});
    EXPECT_EQ(r.status, 200) << r.raw;
    const Json& hits = r.json["result"]["resources"];
    if (!hits.is_array() || hits.empty()) return "";
    return hits[0].value("uri", "");
  }
};

TEST_F(DocumentsApiTest, PdfDocxAndHtmlUploadsAreFound) {
  Reply pdf = AddFile("harvest.pdf",
                      testing::PdfBytes({{"The barley harvest starts when grain moisture falls",
                                          "below fourteen percent."}}),
                      true);
  ASSERT_EQ(pdf.status, 200) << pdf.raw;
  EXPECT_EQ(pdf.json["result"]["root_uri"], "viking://resources/harvest") << pdf.raw;
  Reply docx = AddFile("glacier.docx",
                       testing::DocxBytes({{"Heading1", "Glacier survey"},
                                           {"", "Crevasse depth was measured with ground "
                                                "penetrating radar along the moraine."}}),
                       true);
  ASSERT_EQ(docx.status, 200) << docx.raw;
  Reply html = AddFile("lamp.html",
                       "<html><head><title>Lamp care</title></head><body><nav>menu</nav><p>Trim "
                       "the paraffin wick and polish the Fresnel lens.</p></body></html>",
                       true);
  ASSERT_EQ(html.status, 200) << html.raw;

  EXPECT_EQ(TopHit("barley harvest grain moisture").rfind("viking://resources/harvest/", 0), 0u);
  EXPECT_EQ(TopHit("crevasse radar moraine").rfind("viking://resources/glacier/", 0), 0u);
  EXPECT_EQ(TopHit("paraffin wick Fresnel lens").rfind("viking://resources/lamp/", 0), 0u);
}

// A picture added on its own, as `ov add-resource diagram.png` sends it, is
// kept byte for byte in a directory `{stem}_{ext}` under
// viking://resources/images/YYYY/MM/DD (OpenViking's layout) and found by
// its description; given a file `to`, it is that file. (It was replaced by
// a Markdown description, so `ov get` downloaded text.)
TEST_F(DocumentsApiTest, AnImageIsKeptAsItIsAndFoundByItsDescription) {
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x01\x00\0\0\0\xC8\x08\x02\0\0\0", 29);
  Reply added = AddFile("diagram.png", png, true);
  ASSERT_EQ(added.status, 200) << added.raw;
  const std::string root = added.json["result"].value("root_uri", "");
  EXPECT_TRUE(std::regex_match(
      root, std::regex(R"(viking://resources/images/\d{4}/\d{2}/\d{2}/diagram_png)")))
      << root;
  Reply got = Get("/api/v1/content/download?uri=" + Q(root + "/diagram.png"));
  ASSERT_EQ(got.status, 200) << got.raw;
  EXPECT_EQ(got.raw, png);
  // Read as text, it is a clear 400 that says where its bytes are.
  Reply read = Get("/api/v1/content/read?uri=" + Q(root + "/diagram.png"));
  EXPECT_EQ(read.status, 400) << read.raw;
  EXPECT_NE(read.raw.find("content/download"), std::string::npos) << read.raw;
  EXPECT_EQ(TopHit("diagram png image 256 x 200 pixels").rfind(root, 0), 0u);
  // A reindex embeds its description again (it counted pictures unsupported).
  Reply reindexed = PostJson("/api/v1/content/reindex",
                             {{"uri", root}, {"mode", "vectors_only"}, {"wait", true}});
  ASSERT_EQ(reindexed.status, 200) << reindexed.raw;
  EXPECT_EQ(reindexed.json["result"]["unsupported_records"], 0) << reindexed.raw;
  EXPECT_GE(reindexed.json["result"]["rebuilt_records"], 3) << reindexed.raw;  // dir L0, L1, file
  EXPECT_EQ(TopHit("diagram png image 256 x 200 pixels").rfind(root, 0), 0u);

  Reply placed = PostJson("/api/v1/resources", {{"temp_file_id", UploadTemp(png, "diagram.png")},
                                                {"to", "viking://resources/media/p.png"},
                                                {"wait", true}});
  ASSERT_EQ(placed.status, 200) << placed.raw;
  EXPECT_EQ(placed.json["result"]["root_uri"], "viking://resources/media/p.png") << placed.raw;
  got = Get("/api/v1/content/download?uri=" + Q("viking://resources/media/p.png"));
  ASSERT_EQ(got.status, 200) << got.raw;
  EXPECT_EQ(got.raw, png);
}

TEST_F(DocumentsApiTest, BrokenDocumentFailsItsTaskAndTheServerServes) {
  Reply added = AddFile("secret.pdf", testing::PdfBytes({{"classified"}}, "", /*encrypted=*/true),
                        false);
  ASSERT_EQ(added.status, 200) << added.raw;
  std::string task_id = added.json["result"].value("task_id", "");
  Json task;
  for (int i = 0; i < 300; ++i) {
    task = Get("/api/v1/tasks/" + task_id).json["result"];
    if (task.value("status", "") == "failed" || task.value("status", "") == "completed") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(task.value("status", ""), "failed") << task.dump();
  EXPECT_NE(task.dump().find("encrypted"), std::string::npos) << task.dump();
  ExpectHealthy();

  Reply legacy = AddFile("notes.txt",
                         "Caf\xE9 cr\xE8me: steam the milk, pour the espresso, dust with cocoa.\n",
                         true);
  ASSERT_EQ(legacy.status, 200) << legacy.raw;
  EXPECT_NE(legacy.raw.find("transcoded from"), std::string::npos) << legacy.raw;
}

}  // namespace
}  // namespace skald::apitest
