#pragma once

// PDF → Markdown with poppler-cpp: one section per page ("## Page N", its
// text in reading order), the document's Title (if any) as "# title" above
// them. Pages without text are left out; a PDF with no text at all (a scan)
// is InvalidArgument, as are encrypted (password-protected) and corrupt
// files, each with a message saying which.
//
// Thread safety: the parser is immutable; poppler documents are per call.

#include <memory>

#include "ingest/parser.h"

namespace skald {

// Takes .pdf files, and files without an extension that start with "%PDF-".
std::unique_ptr<Parser> MakePdfParser();

}  // namespace skald
