#pragma once

// JSON helpers on nlohmann::json that never throw across module boundaries.
//
// Thread safety: pure functions.

#include <nlohmann/json.hpp>
#include <string_view>

#include "skald/result.h"

namespace skald {

using Json = nlohmann::json;

// Parses `text`; InvalidArgument "Invalid JSON: ..." on malformed input or
// invalid UTF-8 inside strings.
Result<Json> ParseJson(std::string_view text);

// Serializes without throwing: invalid UTF-8 in strings is replaced (U+FFFD).
std::string DumpJson(const Json& value, int indent = -1);

// A string's own text (no quotes); any other value serialized (DumpJson).
std::string ScalarText(const Json& value);

// True when the JSON text opens more than `max_depth` arrays or objects at
// once (brackets inside strings do not count). Checked before parsing what
// a client sends: nlohmann parses any depth, but copying, comparing or
// printing a value recurses.
bool NestsDeeperThan(std::string_view text, int max_depth);

}  // namespace skald
