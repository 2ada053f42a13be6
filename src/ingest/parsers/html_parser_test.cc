#include "ingest/parsers/html_parser.h"

#include <gtest/gtest.h>

#include "common/strings.h"

namespace skald {
namespace {

Result<ParsedDocument> ParseHtml(std::string_view html) {
  return MakeHtmlParser()->Parse(ParseInput{"page.html", html, html.size()});
}

TEST(HtmlParserTest, ConvertsStructureAndDropsChrome) {
  const std::string html = R"(<!DOCTYPE html><html><head><title>Release  Notes</title>
<style>body { color: red }</style><script>var tracking = 1;</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About navigation</a></nav>
<header>Site banner</header>
<h1>Version 2.0</h1>
<p>This release adds <b>streaming</b> and <a href="x.html">faster imports</a>.</p>
<h2>Changes</h2>
<ul><li>New parser<ul><li>HTML support</li></ul></li><li>Bug fixes</li></ul>
<ol><li>first</li><li>second</li></ol>
<pre><code>make install
  run --fast</code></pre>
<p>Use <code>skald find</code> to search.</p>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>limit</td><td>10 | 20</td></tr></table>
<aside>Related links</aside><footer>Copyright footer</footer>
</body></html>)";
  auto doc = ParseHtml(html);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->title, "Release Notes");
  const std::string& md = doc->markdown;
  EXPECT_EQ(md.rfind("# Release Notes\n\n", 0), 0u) << md;
  EXPECT_NE(md.find("# Version 2.0\n"), std::string::npos) << md;
  EXPECT_NE(md.find("This release adds streaming and faster imports."), std::string::npos) << md;
  EXPECT_NE(md.find("## Changes\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- New parser\n  - HTML support\n- Bug fixes\n"), std::string::npos) << md;
  EXPECT_NE(md.find("1. first\n2. second\n"), std::string::npos) << md;
  EXPECT_NE(md.find("```\nmake install\n  run --fast\n```"), std::string::npos) << md;
  EXPECT_NE(md.find("Use `skald find` to search."), std::string::npos) << md;
  EXPECT_NE(md.find("| Name | Value |\n| --- | --- |\n| limit | 10 \\| 20 |"), std::string::npos) << md;
  for (const char* dropped : {"tracking", "color: red", "navigation", "banner", "Related", "footer"}) {
    EXPECT_EQ(md.find(dropped), std::string::npos) << dropped << "\n" << md;
  }
}

TEST(HtmlParserTest, AcceptsByExtensionOrMarkup) {
  auto parser = MakeHtmlParser();
  EXPECT_TRUE(parser->Accepts({".html", ""}));
  EXPECT_TRUE(parser->Accepts({".htm", ""}));
  EXPECT_FALSE(parser->Accepts({".md", "<html>"}));
  EXPECT_TRUE(parser->Accepts({"", "  <!DOCTYPE HTML><html>"}));
  EXPECT_TRUE(parser->Accepts({"", "<html lang=en>"}));
  EXPECT_FALSE(parser->Accepts({"", "plain text"}));
}

TEST(HtmlParserTest, NonUtf8PageIsTranscoded) {
  std::string html =
      "<html><head><meta charset=\"iso-8859-1\"><title>Caf\xE9</title></head><body><p>Le caf\xE9 "
      "est pr\xEAt et les \xE9l\xE8ves arrivent \xE0 l'heure pour la r\xE9union.</p></body></html>";
  auto doc = ParseHtml(html);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_TRUE(IsValidUtf8(doc->markdown));
  EXPECT_NE(doc->markdown.find("caf\xC3\xA9"), std::string::npos) << doc->markdown;
  ASSERT_FALSE(doc->warnings.empty());
}

TEST(HtmlParserTest, EmptyAndHostileInputAreErrorsNotCrashes) {
  auto empty = ParseHtml("<html><head><script>x()</script></head><body> </body></html>");
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.status().message().find("no text"), std::string::npos);

  // Deep but allowed: the text at the bottom survives.
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "<div><ul><li><span>";
  deep += "bottom text";
  auto nested = ParseHtml(deep);
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  EXPECT_NE(nested->markdown.find("bottom text"), std::string::npos);

  // Deeper: refused before gumbo spends minutes on it.
  std::string deeper;
  for (int i = 0; i < 20000; ++i) deeper += "<div>";
  auto refused = ParseHtml(deeper + "x");
  EXPECT_NE(refused.status().message().find("nested too deeply"), std::string::npos)
      << refused.status().ToString();

  // Thousands of unclosed paragraphs and list items are flat, not deep.
  std::string sloppy = "<ul>";
  for (int i = 0; i < 3000; ++i) sloppy += "<li>item " + std::to_string(i) + "<p>para";
  auto flat = ParseHtml(sloppy);
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  EXPECT_NE(flat->markdown.find("item 2999"), std::string::npos);

  auto garbage = ParseHtml(std::string("<p>\0\xFF<<>>&&#xD800;</p>", 20));
  EXPECT_TRUE(!garbage.ok() || IsValidUtf8(garbage->markdown));
}

TEST(HtmlParserTest, TextThatLooksLikeMarkdownStaysText) {
  auto doc = ParseHtml("<p># not a heading</p><p>&gt; not a quote</p>");
  ASSERT_TRUE(doc.ok());
  EXPECT_NE(doc->markdown.find("\\# not a heading"), std::string::npos) << doc->markdown;
}

}  // namespace
}  // namespace skald
