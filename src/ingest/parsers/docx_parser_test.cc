#include "ingest/parsers/docx_parser.h"

#include <gtest/gtest.h>

#include "ingest/parsers/document_test_util.h"

namespace skald {
namespace {

using testing::ZipBytes;

Result<ParsedDocument> ParseDocx(std::string_view bytes) {
  return MakeDocxParser()->Parse(ParseInput{"spec.docx", bytes, bytes.size()});
}

const char* kW = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"";

TEST(DocxParserTest, HeadingsParagraphsListsAndTables) {
  std::string body =
      "<w:p><w:pPr><w:pStyle w:val=\"Heading1\"/></w:pPr><w:r><w:t>Design</w:t></w:r></w:p>"
      "<w:p><w:r><w:t xml:space=\"preserve\">The cache keeps </w:t></w:r>"
      "<w:hyperlink><w:r><w:t>hot pages</w:t></w:r></w:hyperlink>"
      "<w:del><w:r><w:delText>removed words</w:delText></w:r></w:del>"
      "<w:r><w:t>.</w:t></w:r></w:p>"
      "<w:p><w:pPr><w:pStyle w:val=\"Berschrift2\"/></w:pPr><w:r><w:t>Limits</w:t></w:r></w:p>"
      "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"0\"/></w:numPr></w:pPr><w:r><w:t>one</w:t></w:r></w:p>"
      "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"0\"/></w:numPr></w:pPr><w:r><w:t>two</w:t></w:r></w:p>"
      "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Key</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Value</w:t></w:r></w:p></w:tc></w:tr>"
      "<w:tr><w:tc><w:p><w:r><w:t>size</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>64</w:t></w:r></w:p></w:tc></w:tr></w:tbl>";
  std::string styles = std::string("<w:styles ") + kW +
                       "><w:style w:type=\"paragraph\" w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style>"
                       "<w:style w:type=\"paragraph\" w:styleId=\"Berschrift2\"><w:name w:val=\"heading 2\"/></w:style></w:styles>";
  std::string bytes = ZipBytes({{"word/document.xml", std::string("<w:document ") + kW + "><w:body>" + body +
                                                           "</w:body></w:document>"},
                                {"word/styles.xml", styles}});
  auto doc = ParseDocx(bytes);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->markdown,
            "# Design\n\nThe cache keeps hot pages.\n\n## Limits\n\n- one\n- two\n\n"
            "| Key | Value |\n| --- | --- |\n| size | 64 |\n");
}

TEST(DocxParserTest, TitleFromCoreProperties) {
  auto doc = ParseDocx(testing::DocxBytes({{"", "Body text."}}, "Handbook"));
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->title, "Handbook");
  EXPECT_EQ(doc->markdown, "# Handbook\n\nBody text.\n");
}

TEST(DocxParserTest, BrokenFilesAreClearErrors) {
  auto not_zip = ParseDocx("this is not a zip file at all");
  EXPECT_EQ(not_zip.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(not_zip.status().message().find("DOCX"), std::string::npos) << not_zip.status().ToString();

  auto no_document = ParseDocx(ZipBytes({{"readme.txt", "hello"}}));
  EXPECT_NE(no_document.status().message().find("word/document.xml"), std::string::npos);

  auto bad_xml = ParseDocx(ZipBytes({{"word/document.xml", "<w:document><w:body><w:p>"}}));
  EXPECT_NE(bad_xml.status().message().find("not well-formed XML"), std::string::npos)
      << bad_xml.status().ToString();

  auto empty = ParseDocx(testing::DocxBytes({}));
  EXPECT_NE(empty.status().message().find("no text"), std::string::npos);

  std::string good = testing::DocxBytes({{"", "Some words here."}});
  for (size_t cut = 0; cut < good.size(); cut += 41) {
    auto part = ParseDocx(std::string_view(good).substr(0, cut));
    if (part.ok()) {
      EXPECT_FALSE(part->markdown.empty());
    }
  }
}

}  // namespace
}  // namespace skald
