#include "ingest/parsers/xlsx_parser.h"

#include <gtest/gtest.h>

#include "ingest/parsers/document_test_util.h"

namespace skald {
namespace {

const char* kSheetNs =
    "xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
    "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";

std::string Workbook(const std::string& sheet_data, const std::string& second = "") {
  std::string sheets = "<sheet name=\"Budget\" sheetId=\"1\" r:id=\"rId1\"/>";
  std::string rels = "<Relationship Id=\"rId1\" Type=\"worksheet\" Target=\"worksheets/sheet1.xml\"/>"
                     "<Relationship Id=\"rId3\" Type=\"sharedStrings\" Target=\"sharedStrings.xml\"/>";
  testing::ZipEntries entries = {
      {"xl/sharedStrings.xml", std::string("<sst ") + kSheetNs +
                                   "><si><t>Item</t></si><si><t>Cost</t></si><si><r><t>Ser</t></r><r><t>vers</t></r></si></sst>"},
      {"xl/worksheets/sheet1.xml", std::string("<worksheet ") + kSheetNs + "><sheetData>" + sheet_data +
                                       "</sheetData></worksheet>"},
  };
  if (!second.empty()) {
    sheets += "<sheet name=\"Notes\" sheetId=\"2\" r:id=\"rId2\"/>";
    rels += "<Relationship Id=\"rId2\" Type=\"worksheet\" Target=\"worksheets/sheet2.xml\"/>";
    entries.emplace_back("xl/worksheets/sheet2.xml", std::string("<worksheet ") + kSheetNs + "><sheetData>" +
                                                         second + "</sheetData></worksheet>");
  }
  entries.emplace_back("xl/workbook.xml", std::string("<workbook ") + kSheetNs + "><sheets>" + sheets +
                                              "</sheets></workbook>");
  entries.emplace_back("xl/_rels/workbook.xml.rels",
                       "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">" +
                           rels + "</Relationships>");
  return testing::ZipBytes(entries);
}

Result<ParsedDocument> ParseXlsx(const std::string& bytes) {
  return MakeXlsxParser()->Parse(ParseInput{"budget.xlsx", bytes, bytes.size()});
}

TEST(XlsxParserTest, OneTablePerSheetWithSharedStrings) {
  std::string bytes = Workbook(
      "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v>1</v></c></row>"
      "<row r=\"2\"><c r=\"A2\" t=\"s\"><v>2</v></c><c r=\"B2\"><v>1200.5</v></c><c r=\"D2\" t=\"b\"><v>1</v></c></row>"
      "<row r=\"3\"><c r=\"A3\" t=\"inlineStr\"><is><t>Desks</t></is></c><c r=\"B3\" t=\"str\"><f>B2/2</f><v>600.25</v></c></row>",
      "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>Approved</t></is></c></row>");
  auto doc = ParseXlsx(bytes);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->markdown,
            "**Sheets:** Budget, Notes\n\n"
            "## Sheet: Budget\n\n| Item | Cost |  |  |\n| --- | --- | --- | --- |\n"
            "| Servers | 1200.5 |  | TRUE |\n| Desks | 600.25 |  |  |\n\n"
            "## Sheet: Notes\n\n| Approved |\n| --- |\n");
}

TEST(XlsxParserTest, LongSheetsAreCutWithAWarning) {
  std::string rows;
  for (int r = 1; r <= kMaxSheetRows + 5; ++r) {
    rows += "<row r=\"" + std::to_string(r) + "\"><c r=\"A" + std::to_string(r) + "\"><v>" +
            std::to_string(r) + "</v></c></row>";
  }
  auto doc = ParseXlsx(Workbook(rows));
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->warnings.size(), 1u);
  EXPECT_NE(doc->warnings[0].find("cut at 1000 rows"), std::string::npos);
  EXPECT_NE(doc->markdown.find("| 1000 |"), std::string::npos);
  EXPECT_EQ(doc->markdown.find("| 1001 |"), std::string::npos);
}

TEST(XlsxParserTest, BrokenWorkbooksAreClearErrors) {
  EXPECT_NE(ParseXlsx("PK\x03\x04 broken").status().message().find("XLSX"), std::string::npos);
  EXPECT_NE(ParseXlsx(testing::ZipBytes({{"a.txt", "x"}})).status().message().find("xl/workbook.xml"),
            std::string::npos);
  EXPECT_NE(ParseXlsx(Workbook("")).status().message().find("no cell values"), std::string::npos);
}

}  // namespace
}  // namespace skald
