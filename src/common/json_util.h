#pragma once

// JSON helpers on nlohmann::json that never throw across module boundaries.
//
// Thread safety: pure functions.

#include <string_view>

#include <nlohmann/json.hpp>

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

}  // namespace skald
