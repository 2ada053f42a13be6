#pragma once

// Test support for the document parsers: builds small but real files —
// zip containers written with libarchive, PDFs written by hand with a
// correct cross-reference table, and a minimal DOCX.
//
// Thread safety: pure functions.

#include <string>
#include <utility>
#include <vector>

namespace skald::testing {

using ZipEntries = std::vector<std::pair<std::string, std::string>>;

// A zip file (deflate) holding `entries` (path → content), in order.
std::string ZipBytes(const ZipEntries& entries);

// A PDF 1.4 file with one page per element of `pages`, each page's text
// given as lines (Helvetica, WinAnsi: ASCII only); `title` in the Info
// dictionary when not empty. `encrypted`: the trailer names a standard
// security handler whose user password is not the empty one, so readers
// must ask for a password.
std::string PdfBytes(const std::vector<std::vector<std::string>>& pages, const std::string& title = "",
                     bool encrypted = false);

// A DOCX whose body is `paragraphs` (style id → text; style "" = normal,
// "Heading1".."Heading6" and "Title" are declared in styles.xml).
std::string DocxBytes(const std::vector<std::pair<std::string, std::string>>& paragraphs,
                      const std::string& title = "");

// `text` with &, <, > and " escaped for XML.
std::string XmlEscape(const std::string& text);

}  // namespace skald::testing
