#pragma once

// XLSX → Markdown (zip + SpreadsheetML with pugixml): one section per
// sheet in workbook order ("## Sheet: name"), its cells as a Markdown table
// (the first row is the header; shared strings, inline strings, numbers and
// booleans as stored — formulas give their cached value). At most
// kMaxSheetRows rows and kMaxSheetColumns columns per sheet; the rest is cut
// with a warning.
//
// Thread safety: the parser is immutable.

#include <memory>

#include "ingest/parser.h"

namespace skald {

inline constexpr int kMaxSheetRows = 1000;
inline constexpr int kMaxSheetColumns = 64;

// Takes .xlsx and .xlsm files.
std::unique_ptr<Parser> MakeXlsxParser();

}  // namespace skald
