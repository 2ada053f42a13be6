#pragma once

// PPTX → Markdown (zip + PresentationML with pugixml): one section per
// slide in presentation order, "## Slide i" with the slide's title as
// "### title", then its text paragraphs and tables. Speaker notes are left
// out (as the reference's default).
//
// Thread safety: the parser is immutable.

#include <memory>

#include "ingest/parser.h"

namespace skald {

// Takes .pptx and .pptm files.
std::unique_ptr<Parser> MakePptxParser();

}  // namespace skald
