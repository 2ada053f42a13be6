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

#include "common/strings.h"

namespace skald {

// Full-width sentence ends: 。？！
inline constexpr std::array<std::string_view, 3> kCjkSentenceEnds = {
    "\xE3\x80\x82", "\xEF\xBC\x9F", "\xEF\xBC\x81"};

// Length in bytes of the character at s[i] (1 for a byte that does not
// start a well-formed UTF-8 sequence). REQUIRES: i < s.size(). Inline: the
// summarizer calls it once per character.
inline size_t Utf8CharLength(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0xC0) return 1;
  const size_t len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  return s.size() - i >= len && IsValidUtf8(s.substr(i, len)) ? len : 1;
}

// If a sentence ends with the character at s[i], the byte offset just past
// it; else 0. A sentence ends at '.', '!' or '?' followed by white space or
// the end of the text (a '.' not after a number, a single letter or a
// dotted abbreviation: "3.", "J.", "e.g."), or at one of kCjkSentenceEnds.
size_t SentenceEndAt(std::string_view s, size_t i);

// The sentences of collapsed text, each trimmed and keeping its terminator,
// empty ones left out; the text after the last end is the last sentence.
std::vector<std::string_view> SentencesOf(std::string_view text);

// The sentence of SentencesOf(text) that starts at or after byte `*pos`
// (0, or where the previous call left it), moving `*pos` past it; "" when
// none is left. Reads no further than the sentence's end.
std::string_view NextSentence(std::string_view text, size_t* pos);

// The first of SentencesOf(text), "" when there is none.
inline std::string_view FirstSentence(std::string_view text) {
  size_t pos = 0;
  return NextSentence(text, &pos);
}

}  // namespace skald
