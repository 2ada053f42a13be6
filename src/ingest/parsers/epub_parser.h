#pragma once

// EPUB → Markdown: the package document (META-INF/container.xml → OPF)
// gives the title, the authors and the spine; each XHTML chapter in spine
// order is converted by the HTML parser (HtmlToMarkdown) and appended.
// Chapters that are missing or not text are skipped with a warning.
//
// Thread safety: the parser is immutable.

#include <memory>

#include "ingest/parser.h"

namespace skald {

// Takes .epub files.
std::unique_ptr<Parser> MakeEpubParser();

}  // namespace skald
