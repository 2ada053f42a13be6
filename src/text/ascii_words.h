#pragma once

// The word segments of pure-ASCII text exactly as ICU's root word break
// iterator finds them (UAX #29 over the ASCII word-break classes), without
// ICU: the tokenizer's fast path (internal to skald_text). tokenizer_test
// checks it against ICU on every string of up to five characters over the
// distinct ASCII classes and on random longer ones.
//
// Thread safety: pure function.

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace skald {

// Appends to `words` the [begin, end) byte ranges of the segments of `text`
// that ICU marks as words (rule status >= UBRK_WORD_NONE_LIMIT: numbers and
// letters), in order. `text` must be ASCII (every byte < 0x80).
void AsciiWordSegments(std::string_view text, std::vector<std::pair<uint32_t, uint32_t>>* words);

}  // namespace skald
