#include "ingest/parsers/pptx_parser.h"

#include <gtest/gtest.h>

#include "ingest/parsers/document_test_util.h"

namespace skald {
namespace {

const char* kNs =
    "xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\" "
    "xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" "
    "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";

std::string Slide(const std::string& title, const std::vector<std::string>& lines,
                  const std::string& extra = "") {
  std::string s = std::string("<p:sld ") + kNs + "><p:cSld><p:spTree>";
  if (!title.empty()) {
    s += "<p:sp><p:nvSpPr><p:cNvPr id=\"1\" name=\"Title\"/><p:cNvSpPr/><p:nvPr><p:ph type=\"title\"/></p:nvPr></p:nvSpPr>"
         "<p:txBody><a:p><a:r><a:t>" + title + "</a:t></a:r></a:p></p:txBody></p:sp>";
  }
  s += "<p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"Body\"/><p:cNvSpPr/><p:nvPr><p:ph idx=\"1\"/></p:nvPr></p:nvSpPr><p:txBody>";
  for (const std::string& line : lines) s += "<a:p><a:r><a:t>" + line + "</a:t></a:r></a:p>";
  s += "</p:txBody></p:sp>" + extra + "</p:spTree></p:cSld></p:sld>";
  return s;
}

TEST(PptxParserTest, SlidesInPresentationOrder) {
  std::string table =
      "<p:graphicFrame><a:graphic><a:graphicData><a:tbl>"
      "<a:tr><a:tc><a:txBody><a:p><a:r><a:t>Region</a:t></a:r></a:p></a:txBody></a:tc>"
      "<a:tc><a:txBody><a:p><a:r><a:t>Sales</a:t></a:r></a:p></a:txBody></a:tc></a:tr>"
      "<a:tr><a:tc><a:txBody><a:p><a:r><a:t>North</a:t></a:r></a:p></a:txBody></a:tc>"
      "<a:tc><a:txBody><a:p><a:r><a:t>42</a:t></a:r></a:p></a:txBody></a:tc></a:tr>"
      "</a:tbl></a:graphicData></a:graphic></p:graphicFrame>";
  // slide2.xml is shown first: the order comes from p:sldIdLst.
  std::string bytes = testing::ZipBytes({
      {"ppt/presentation.xml",
       std::string("<p:presentation ") + kNs +
           "><p:sldIdLst><p:sldId id=\"256\" r:id=\"rId7\"/><p:sldId id=\"257\" r:id=\"rId8\"/></p:sldIdLst></p:presentation>"},
      {"ppt/_rels/presentation.xml.rels",
       "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
       "<Relationship Id=\"rId7\" Type=\"slide\" Target=\"slides/slide2.xml\"/>"
       "<Relationship Id=\"rId8\" Type=\"slide\" Target=\"/ppt/slides/slide1.xml\"/></Relationships>"},
      {"ppt/slides/slide1.xml", Slide("Roadmap", {"Ship parsers", "Measure throughput"}, table)},
      {"ppt/slides/slide2.xml", Slide("Welcome", {"Kickoff meeting"})},
      {"ppt/media/image1.png", "not read"},
  });
  auto doc = MakePptxParser()->Parse(ParseInput{"deck.pptx", bytes, bytes.size()});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->markdown,
            "## Slide 1\n\n### Welcome\n\nKickoff meeting\n\n"
            "## Slide 2\n\n### Roadmap\n\nShip parsers\nMeasure throughput\n\n"
            "| Region | Sales |\n| --- | --- |\n| North | 42 |\n");
}

TEST(PptxParserTest, SpeakerNotesFollowTheirSlide) {
  const std::string notes =
      std::string("<p:notes ") + kNs + "><p:cSld><p:spTree>"
      "<p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"Slide Image\"/><p:cNvSpPr/><p:nvPr><p:ph type=\"sldImg\"/></p:nvPr></p:nvSpPr></p:sp>"
      "<p:sp><p:nvSpPr><p:cNvPr id=\"3\" name=\"Notes\"/><p:cNvSpPr/><p:nvPr><p:ph type=\"body\" idx=\"1\"/></p:nvPr></p:nvSpPr>"
      "<p:txBody><a:p><a:r><a:t>Mention the budget</a:t></a:r></a:p><a:p><a:r><a:t># not a heading</a:t></a:r></a:p></p:txBody></p:sp>"
      "<p:sp><p:nvSpPr><p:cNvPr id=\"4\" name=\"Number\"/><p:cNvSpPr/><p:nvPr><p:ph type=\"sldNum\"/></p:nvPr></p:nvSpPr>"
      "<p:txBody><a:p><a:r><a:t>1</a:t></a:r></a:p></p:txBody></p:sp>"
      "</p:spTree></p:cSld></p:notes>";
  std::string bytes = testing::ZipBytes({
      {"ppt/slides/slide1.xml", Slide("Plan", {"Hire two engineers"})},
      {"ppt/slides/_rels/slide1.xml.rels",
       "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
       "<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide\" "
       "Target=\"../notesSlides/notesSlide1.xml\"/></Relationships>"},
      {"ppt/notesSlides/notesSlide1.xml", notes},
      {"ppt/slides/slide2.xml", Slide("Close", {"Questions"})},
  });
  auto doc = MakePptxParser()->Parse(ParseInput{"deck.pptx", bytes, bytes.size()});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->markdown,
            "## Slide 1\n\n### Plan\n\nHire two engineers\n\n#### Notes\n\n"
            "Mention the budget\n\\# not a heading\n\n"
            "## Slide 2\n\n### Close\n\nQuestions\n");
}

TEST(PptxParserTest, WithoutSlidesIsAnError) {
  std::string bytes = testing::ZipBytes({{"ppt/presentation.xml", "<p:presentation/>"}});
  auto doc = MakePptxParser()->Parse(ParseInput{"deck.pptx", bytes, bytes.size()});
  EXPECT_NE(doc.status().message().find("no slides"), std::string::npos) << doc.status().ToString();
}

}  // namespace
}  // namespace skald
