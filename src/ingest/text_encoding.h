#pragma once

// Text that is not valid UTF-8, made UTF-8: decoded from the charset ICU's
// detector names (ucsdet), or repaired byte by byte (every byte that is not
// part of a well-formed sequence becomes U+FFFD). Never fails.
//
// Thread safety: pure functions (each call opens its own ICU objects).

#include <string>
#include <string_view>

namespace skald {

struct Utf8Text {
  std::string text;     // valid UTF-8
  std::string charset;  // the charset decoded from ("windows-1252"); "" = none (already UTF-8, or repaired)
  bool repaired = false;  // invalid bytes were replaced with U+FFFD
};

// `bytes` as UTF-8: unchanged when valid already (a UTF-8 BOM dropped);
// UTF-16 with a BOM decoded; else decoded from the detected charset when
// the detector is confident enough, else repaired.
Utf8Text ToUtf8(std::string_view bytes);

// `bytes` with every byte that is not part of a well-formed UTF-8 sequence
// replaced by U+FFFD.
std::string RepairUtf8(std::string_view bytes);

// Whether `bytes` reads as text in some charset: a UTF-16 BOM, or no NUL
// byte and few control characters (binary formats have many).
bool PlausiblyText(std::string_view bytes);

}  // namespace skald
