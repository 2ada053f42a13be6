#pragma once

// Markdown splitter: plans how one markdown (or plain-text) document becomes a
// directory tree of markdown files, the layout OpenViking's markdown parser
// produces (docs: reference/openviking-internals.md §1.4). Pure layout
// planning: no I/O; the caller creates `dirs` and writes `files`.
//
// Layout, in short:
//   - a document that fits (≤ max_section_tokens and ≤ max_section_chars) is
//     one file `{doc}.md` holding the input unchanged;
//   - without headings it is cut at blank lines into `{doc}_{i}.md` (1-based);
//   - with headings it is cut into its top-level sections (text before the
//     first of them is a virtual section named `{doc}`). Small sections
//     (< min_section_tokens) are merged with their neighbours into files named
//     `{first}_{n}more_{hash8}.md`; a section that does not fit becomes a
//     directory `{name}/` holding its child sections (its text before the
//     first child is a virtual child `{name}`), or, without children, the
//     paragraph parts `{name}_{i}.md`. When a single heading spans the
//     whole document (a title), its children are the top level instead, so
//     the root does not hold just one directory.
//
// Every output file is a contiguous slice of the input with ASCII whitespace
// trimmed at its ends (the single-file case keeps the input whole), so the
// files, read in order, hold every non-whitespace byte of the input in order.
// No file exceeds max_section_chars: text that no blank line or line break
// can cut is cut at whitespace or, failing that, between characters.
//
// Units: "characters" are Unicode code points; a byte that is not part of a
// well-formed UTF-8 sequence counts as one character. Invalid UTF-8 is never
// an error: its bytes are preserved in the file contents (cuts never fall
// inside a well-formed sequence) and dropped from names.
//
// Headings are ATX lines `^#{1,6}[ \t]+title` outside fenced code blocks
// (``` or ~~~, closed by a fence of the same character at least as long),
// HTML comments and YAML frontmatter. Since the `#` must be in the first
// column, indented code never yields a heading. A closing `#` sequence is
// not part of the title.
//
// Thread safety: pure functions.

#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

struct MarkdownSplitOptions {
  // A file holds at most this many estimated tokens (EstimateParserTokens).
  // Larger sections become directories or are cut into parts; smaller values
  // give more, shorter files (finer retrieval, more summaries to generate).
  int max_section_tokens = 2048;
  // Sections under this many tokens are merged with neighbouring sections
  // instead of becoming files of their own, so a document with many short
  // sections does not turn into many tiny files.
  int min_section_tokens = 512;
  // Hard cap on the characters of one file, whatever its token estimate.
  int max_section_chars = 6000;

  // InvalidArgument unless max_section_tokens ≥ 1, max_section_chars ≥ 1 and
  // 0 ≤ min_section_tokens ≤ max_section_tokens.
  Status Validate() const;
};

// One file to write.
struct SplitFile {
  // Relative to the document root directory, "/"-separated, ends in ".md".
  std::string path;
  std::string content;
};

// The planned layout of one document.
struct MarkdownSplit {
  // Sanitized document title: the directory the caller creates for the
  // document; `dirs` and `files` are relative to it.
  std::string root_name;
  // Relative sub-directories to create, parents before children.
  std::vector<std::string> dirs;
  // Files in document order. Names are unique within each directory, also
  // when compared ignoring ASCII case (repeated names get `_2`, `_3`, ...).
  std::vector<SplitFile> files;
};

// OpenViking's parser-local token estimate:
// int(cjk * 0.7 + other_non_whitespace * 0.3), where cjk counts code points
// in U+4E00–9FFF, U+3040–30FF and U+AC00–D7AF, whitespace is Unicode white
// space, and each invalid UTF-8 byte counts as one "other" character.
int EstimateParserTokens(std::string_view text);

// A file or directory name made from a title: keeps letters, digits, marks,
// `_`, `-` and `.` (any script: Latin, Cyrillic, Arabic, CJK, kana, Hangul,
// ...), turns each run of white space into one `_`, drops everything else
// (punctuation, symbols, `/`, control characters, invalid UTF-8), strips `.`
// and `_` from both ends, gives "section" when nothing is left, and shortens
// a name longer than 50 characters to its first 41 characters + `_` + the
// first 8 hex digits of the SHA-256 of the whole sanitized name. The result is
// valid UTF-8, never empty, never "." or "..", and at most 50 characters.
std::string SanitizePathSegment(std::string_view name);

// A heading found by the rules at the top of this file.
struct MarkdownHeading {
  int level = 1;        // 1..6: the number of `#`
  std::string title;    // trimmed, without the closing `#` sequence
  size_t begin = 0;     // byte offset of the heading line
  size_t line_end = 0;  // byte offset just past the line's text (before '\n')
};

// Every heading of `text`, in order.
std::vector<MarkdownHeading> FindMarkdownHeadings(std::string_view text);

// Plans the split of `text` (markdown or plain text) into files. The
// document title is the frontmatter `title` (a leading `---` block of
// `key: value` lines, which stays in the text), else `doc_name`, else
// "Document"; `root_name` and the `{doc}` file names use it sanitized.
// Deterministic: the same input always gives the same layout. Runs in time
// linear in the size of the input (times the heading depth).
// Returns InvalidArgument when `options` are invalid.
Result<MarkdownSplit> SplitMarkdown(std::string_view text, std::string_view doc_name,
                                    const MarkdownSplitOptions& options = {});

}  // namespace skald
