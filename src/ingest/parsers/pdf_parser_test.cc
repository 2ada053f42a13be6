#include "ingest/parsers/pdf_parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ingest/parsers/document_test_util.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

Result<ParsedDocument> ParsePdf(std::string_view bytes) {
  return MakePdfParser()->Parse(ParseInput{"report.pdf", bytes, bytes.size()});
}

TEST(PdfParserTest, OneSectionPerPageWithTheTitle) {
  // Written to disk and read back, as an import does.
  testing::TempDir tmp;
  {
    std::ofstream out(tmp.Sub("report.pdf"), std::ios::binary);
    out << testing::PdfBytes({{"Quarterly revenue grew by twelve percent.", "Costs stayed flat."},
                              {},
                              {"Outlook: hiring (two teams) in spring."}},
                             "Annual Report");
  }
  std::ifstream in(tmp.Sub("report.pdf"), std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  auto doc = ParsePdf(bytes.str());
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->title, "Annual Report");
  const std::string& md = doc->markdown;
  EXPECT_EQ(md.rfind("# Annual Report\n\n## Page 1\n\n", 0), 0u) << md;
  EXPECT_NE(md.find("Quarterly revenue grew by twelve percent."), std::string::npos) << md;
  EXPECT_NE(md.find("Costs stayed flat."), std::string::npos) << md;
  EXPECT_EQ(md.find("## Page 2"), std::string::npos) << md;  // no text on page 2
  EXPECT_NE(md.find("## Page 3\n\nOutlook: hiring (two teams) in spring."), std::string::npos) << md;
  ASSERT_EQ(doc->warnings.size(), 1u);
  EXPECT_NE(doc->warnings[0].find("1 of 3 pages"), std::string::npos);
}

TEST(PdfParserTest, CorruptEncryptedAndEmptyPdfsAreClearErrors) {
  auto corrupt = ParsePdf("%PDF-1.4\nthis is not a real PDF body\n");
  EXPECT_EQ(corrupt.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(corrupt.status().message().find("PDF"), std::string::npos) << corrupt.status().ToString();

  auto not_pdf = ParsePdf("hello world");
  EXPECT_NE(not_pdf.status().message().find("not a PDF"), std::string::npos);

  auto locked = ParsePdf(testing::PdfBytes({{"secret text"}}, "", /*encrypted=*/true));
  EXPECT_EQ(locked.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(locked.status().message().find("encrypted"), std::string::npos)
      << locked.status().ToString();

  auto blank = ParsePdf(testing::PdfBytes({{}, {}}));
  EXPECT_NE(blank.status().message().find("no extractable text"), std::string::npos)
      << blank.status().ToString();

  // Every truncation of a valid file: an error or some text, never a crash.
  std::string full = testing::PdfBytes({{"Truncated document text"}});
  for (size_t cut = 0; cut < full.size(); cut += 37) {
    auto part = ParsePdf(std::string_view(full).substr(0, cut));
    if (part.ok()) {
      EXPECT_FALSE(part->markdown.empty());
    }
  }
}

TEST(PdfParserTest, AcceptsByExtensionOrMagic) {
  auto parser = MakePdfParser();
  EXPECT_TRUE(parser->Accepts({".pdf", ""}));
  EXPECT_TRUE(parser->Accepts({"", "%PDF-1.7\n"}));
  EXPECT_FALSE(parser->Accepts({".txt", "%PDF-1.7"}));
}

}  // namespace
}  // namespace skald
