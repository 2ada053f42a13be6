#pragma once

// DOCX → Markdown (zip + WordprocessingML with pugixml): paragraphs in
// order, paragraphs with a heading style ("heading N", "Title", or an
// outline level) as #…######, list paragraphs as "- ", tables as Markdown
// tables; deleted revisions and field codes left out. The core properties'
// title (docProps/core.xml) is the document title.
//
// Thread safety: the parser is immutable.

#include <memory>

#include "ingest/parser.h"

namespace skald {

// Takes .docx and .docm files.
std::unique_ptr<Parser> MakeDocxParser();

}  // namespace skald
