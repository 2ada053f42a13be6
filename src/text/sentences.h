#pragma once

// Characters and sentences of generated text, for the extractive summarizer
// (internal to skald_text). Text is UTF-8; a byte that does not start a
// well-formed UTF-8 sequence counts as one character.
//
// Thread safety: pure functions.

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

namespace skald {

// Full-width sentence ends: 。？！
inline constexpr std::array<std::string_view, 3> kCjkSentenceEnds = {
    "\xE3\x80\x82", "\xEF\xBC\x9F", "\xEF\xBC\x81"};

// Length in bytes of the character at s[i] (1 for a byte that does not
// start a well-formed UTF-8 sequence). REQUIRES: i < s.size().
size_t Utf8CharLength(std::string_view s, size_t i);

// If a sentence ends with the character at s[i], the byte offset just past
// it; else 0. A sentence ends at '.', '!' or '?' followed by white space or
// the end of the text (a '.' not after a number, a single letter or a
// dotted abbreviation: "3.", "J.", "e.g."), or at one of kCjkSentenceEnds.
size_t SentenceEndAt(std::string_view s, size_t i);

// The sentences of collapsed text, each trimmed and keeping its terminator,
// empty ones left out; the text after the last end is the last sentence.
std::vector<std::string_view> SentencesOf(std::string_view text);

// The first of SentencesOf(text), "" when there is none: the same, without
// reading past the first sentence.
std::string_view FirstSentence(std::string_view text);

}  // namespace skald
