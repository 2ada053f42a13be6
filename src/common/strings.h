#pragma once

// Small string helpers used across modules.
//
// Thread safety: pure functions.

#include <string>
#include <string_view>
#include <vector>

namespace skald {

// True when `s` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
bool IsValidUtf8(std::string_view s);

// Splits on `sep`; keeps empty pieces.
std::vector<std::string> Split(std::string_view s, char sep);

std::string Join(const std::vector<std::string>& parts, std::string_view sep);

// ASCII whitespace trimmed from both ends.
std::string_view Trim(std::string_view s);

// `s` on one line: every run of spaces, tabs and line breaks becomes one
// space, none at either end.
std::string CollapseWhitespace(std::string_view s);

// ASCII lower-case copy.
std::string AsciiLower(std::string_view s);

// Case-insensitive ASCII parse of "true/false/1/0/yes/no/on/off".
// Returns false (and leaves *out unchanged) for anything else.
bool ParseBool(std::string_view s, bool* out);

// Parses a base-10 integer that fills the whole string.
bool ParseInt64(std::string_view s, long long* out);

// Parses a finite decimal number that fills the whole string.
bool ParseDouble(std::string_view s, double* out);

// Cuts `s` to at most `max_bytes` bytes without splitting a UTF-8 sequence.
std::string_view TruncateUtf8(std::string_view s, size_t max_bytes);

// Number of UTF-8 code points in `s` (invalid bytes count as one each).
size_t Utf8Length(std::string_view s);

// First `max_chars` code points of `s`.
std::string_view Utf8Prefix(std::string_view s, size_t max_chars);

}  // namespace skald
