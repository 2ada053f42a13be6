#pragma once

// Markdown output helpers the document parsers share.
//
// Thread safety: pure functions.

#include <string>
#include <string_view>
#include <vector>

#include "ingest/parser.h"

namespace skald {

// A GitHub-style Markdown table of `rows`: the first row is the header;
// shorter rows are padded; cells are put on one line and '|' escaped.
// "" when `rows` is empty or every cell is empty.
std::string MarkdownTable(const std::vector<std::vector<std::string>>& rows);

// Appends `block` to `out` as a block of its own (a blank line between
// blocks); blank blocks add nothing.
void AppendBlock(std::string* out, std::string_view block);

// Completes `doc` with `body`: "# {doc->title}" above it when the title is
// set and the body does not start with that heading already, and the
// "format" (and "title") metadata.
void SetMarkdown(ParsedDocument* doc, std::string body, std::string_view format);

}  // namespace skald
