#pragma once

// White-space helpers shared by the extractive summarizer and its code side
// (internal to skald_text). Byte-wise over ASCII white space, so they never
// split or change a UTF-8 sequence and do not depend on the C locale.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string>
#include <string_view>

namespace skald {

// True for the six ASCII white-space bytes: ' ', '\t', '\n', '\r', '\f', '\v'.
// Inline: the summarizer calls it once per byte of a document.
inline bool IsSpace(char c) {
  // One bit per byte up to ' ': '\t' '\n' '\v' '\f' '\r' (9-13) and ' ' (32).
  const unsigned u = static_cast<unsigned char>(c);
  return u <= 32u && ((uint64_t{0x100003E00} >> u) & 1u) != 0;
}

// ASCII classes and case, as <cctype> answers them in the "C" locale
// (Skald never sets another), without a library call per character.
inline bool IsAsciiUpper(char c) { return unsigned{static_cast<unsigned char>(c)} - 'A' < 26u; }
inline bool IsAsciiAlpha(char c) {
  return (unsigned{static_cast<unsigned char>(c)} | 0x20u) - 'a' < 26u;
}
inline bool IsAsciiDigit(char c) { return unsigned{static_cast<unsigned char>(c)} - '0' < 10u; }
inline bool IsAsciiHexDigit(char c) {
  return IsAsciiDigit(c) || (unsigned{static_cast<unsigned char>(c)} | 0x20u) - 'a' < 6u;
}
inline char AsciiToLower(char c) { return IsAsciiUpper(c) ? static_cast<char>(c + 32) : c; }

// `s` without the white space (IsSpace) at either end.
inline std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// `text` with every run of white space (IsSpace) replaced by one space and
// none left at either end; all other bytes are copied unchanged.
std::string CollapseSpace(std::string_view text);
// Whether CollapseSpace(text) == text: no white space at either end, none
// but single ' ' between words.
bool IsCollapsedSpace(std::string_view text);

// `s` on one line: every '\n' and '\r' replaced by a space (markdown names
// may hold line breaks).
std::string OneLine(std::string_view s);

}  // namespace skald
