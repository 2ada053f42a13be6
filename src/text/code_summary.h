#pragma once

// Code files for the extractive summarizer (internal to skald_text): which
// file names are code, and what a code file's summary is built from — its
// leading comment or docstring and its top-level definitions. Line-based
// heuristics, not a parser: no language is tokenized.
//
// Thread safety: pure functions over immutable static data.

#include <cstddef>
#include <string>
#include <string_view>

namespace skald {

// A programming language the summarizer recognizes, as an entry of a static
// table that lives for the whole program.
struct CodeLanguage {
  std::string_view extensions;    // " ext1 ext2 ": lower case, space-separated
  std::string_view name;          // "Python"
  std::string_view line_comment;  // "//", "#", "--", ...
  bool block_comments;            // /* ... */
  bool docstrings;                // Python """ ... """
  bool c_functions;               // column-0 "type name(" definitions
};

// The language of `file_name` by its extension, ignoring ASCII case, or by
// its whole name ("CMakeLists.txt"); nullptr when it is not code. The result
// points into static data (never freed).
const CodeLanguage* CodeLanguageOf(std::string_view file_name);

// What a code file's summary is made of.
struct CodeOutline {
  // The first comment block or docstring before the code starts (a shebang,
  // blank lines and license headers skipped), white space collapsed to
  // single spaces; empty if none.
  std::string leading_comment;
  // Top-level definitions grouped by kind, types before functions before
  // the rest, e.g. "Classes: Parser, Lexer. Functions: Main and 3 more.";
  // empty if none. Only definitions starting in column 0 count.
  std::string definitions;
  // Number of lines of the file (a final line without '\n' counts).
  size_t lines = 0;
};

// The outline of `text`, a file in `language`. Never fails: text that is
// not valid code, or not valid UTF-8, gives whatever the heuristics find.
CodeOutline OutlineCode(std::string_view text, const CodeLanguage& language);

}  // namespace skald
