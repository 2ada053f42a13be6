#include "ingest/parsers/epub_parser.h"

#include <gtest/gtest.h>

#include "ingest/parsers/document_test_util.h"

namespace skald {
namespace {

std::string Chapter(const std::string& heading, const std::string& text) {
  return "<?xml version=\"1.0\" encoding=\"utf-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head>"
         "<title>" + heading + "</title></head><body><h2>" + heading + "</h2><p>" + text +
         "</p></body></html>";
}

std::string Book(const std::string& spine) {
  return testing::ZipBytes({
      {"mimetype", "application/epub+zip"},
      {"META-INF/container.xml",
       "<?xml version=\"1.0\"?><container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">"
       "<rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/>"
       "</rootfiles></container>"},
      {"OEBPS/content.opf",
       "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\">"
       "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>The Lighthouse</dc:title>"
       "<dc:creator>A. Keeper</dc:creator></metadata><manifest>"
       "<item id=\"c1\" href=\"text/one.xhtml\" media-type=\"application/xhtml+xml\"/>"
       "<item id=\"c2\" href=\"text/two%20b.xhtml\" media-type=\"application/xhtml+xml\"/>"
       "<item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>"
       "<item id=\"gone\" href=\"text/missing.xhtml\" media-type=\"application/xhtml+xml\"/>"
       "</manifest><spine>" + spine + "</spine></package>"},
      {"OEBPS/text/one.xhtml", Chapter("Arrival", "The keeper climbs the stairs at dusk.")},
      {"OEBPS/text/two b.xhtml", Chapter("Storm", "Waves break over the rocks all night.")},
  });
}

TEST(EpubParserTest, ChaptersInSpineOrder) {
  std::string bytes = Book("<itemref idref=\"c2\"/><itemref idref=\"css\"/><itemref idref=\"c1\"/><itemref idref=\"gone\"/>");
  auto doc = MakeEpubParser()->Parse(ParseInput{"book.epub", bytes, bytes.size()});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->title, "The Lighthouse");
  EXPECT_EQ(doc->markdown,
            "# The Lighthouse\n\n**Author:** A. Keeper\n\n## Storm\n\nWaves break over the rocks all night.\n\n"
            "## Arrival\n\nThe keeper climbs the stairs at dusk.\n");
  ASSERT_EQ(doc->warnings.size(), 1u);
  EXPECT_NE(doc->warnings[0].find("missing"), std::string::npos);
}

TEST(EpubParserTest, BrokenBooksAreClearErrors) {
  auto parser = MakeEpubParser();
  std::string no_container = testing::ZipBytes({{"mimetype", "application/epub+zip"}});
  EXPECT_NE(parser->Parse(ParseInput{"b.epub", no_container, no_container.size()})
                .status().message().find("container.xml"),
            std::string::npos);
  std::string empty_spine = Book("");
  EXPECT_NE(parser->Parse(ParseInput{"b.epub", empty_spine, empty_spine.size()})
                .status().message().find("no text chapters"),
            std::string::npos);
}

}  // namespace
}  // namespace skald
