#pragma once

// HTML → Markdown with gumbo (an HTML5 parser: any tag soup parses).
// Headings become #…######, paragraphs and lists stay paragraphs and lists
// ("- " / "1. ", nested by indentation), <pre> becomes a fenced code block,
// inline <code> back-quoted, tables become Markdown tables, links keep
// their text. Scripts, styles, templates, forms and page chrome (nav,
// header, footer, aside) are dropped. <title> is the document title.
//
// Thread safety: pure functions; the parser is immutable.

#include <memory>
#include <string>
#include <string_view>

#include "ingest/parser.h"

namespace skald {

// Takes .html, .htm and .xhtml files, and files without an extension that
// start with "<!doctype html" or "<html". Input that is not UTF-8 is
// transcoded first. A page with no text at all is InvalidArgument.
std::unique_ptr<Parser> MakeHtmlParser();

// Pages nested deeper than this (elements inside elements, counted from the
// tags before parsing) are refused: gumbo's time grows with the square of
// the depth, and real pages stay far below.
inline constexpr int kMaxHtmlNesting = 1000;

// The Markdown of `html` (UTF-8), without a title heading; `*title` (if not
// null) receives the text of <title>, "" when there is none.
// InvalidArgument only for a page nested deeper than kMaxHtmlNesting.
Result<std::string> HtmlToMarkdown(std::string_view html, std::string* title);

}  // namespace skald
