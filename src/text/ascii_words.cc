// ASCII word segments without ICU (ascii_words.h).

#include "text/ascii_words.h"

#include <array>

namespace skald {

namespace {

// UAX #29 Word_Break classes of the ASCII characters, as ICU's root rules
// use them: '@' is a letter (ICU adds it, for e-mail addresses) and the
// colon is not MidLetter.
enum Cls : uint8_t {
  kOther,
  kLetter,       // ALetter: A-Z a-z @
  kNumeric,      // 0-9
  kExtendNumLet, // _
  kMidNumLet,    // .
  kSingleQuote,  // '
  kMidNum,       // , ;
  kSpace,        // WSegSpace: ' '
  kCR,
  kLF,
  kNewline,      // \v \f
};

constexpr std::array<Cls, 128> MakeClasses() {
  std::array<Cls, 128> c{};
  for (int i = 'a'; i <= 'z'; ++i) c[i] = kLetter;
  for (int i = 'A'; i <= 'Z'; ++i) c[i] = kLetter;
  c['@'] = kLetter;
  for (int i = '0'; i <= '9'; ++i) c[i] = kNumeric;
  c['_'] = kExtendNumLet;
  c['.'] = kMidNumLet;
  c['\''] = kSingleQuote;
  c[','] = kMidNum;
  c[';'] = kMidNum;
  c[' '] = kSpace;
  c['\r'] = kCR;
  c['\n'] = kLF;
  c['\v'] = kNewline;
  c['\f'] = kNewline;
  return c;
}

constexpr std::array<Cls, 128> kClasses = MakeClasses();

// Per byte (as kClasses reads it: the low 7 bits): 1 for a letter or digit,
// 2 for a space or an "other" byte, 0 for the rest.
constexpr std::array<uint8_t, 256> MakeKinds() {
  std::array<uint8_t, 256> k{};
  for (int b = 0; b < 256; ++b) {
    const Cls c = kClasses[b & 0x7F];
    k[b] = (c == kLetter || c == kNumeric) ? 1 : (c == kSpace || c == kOther) ? 2 : 0;
  }
  return k;
}

constexpr std::array<uint8_t, 256> kKinds = MakeKinds();

bool MidLetterOrQ(Cls c) { return c == kMidNumLet || c == kSingleQuote; }
bool MidNumOrQ(Cls c) { return c == kMidNum || c == kMidNumLet || c == kSingleQuote; }

}  // namespace

void AsciiWordSegments(std::string_view text, std::vector<std::pair<uint32_t, uint32_t>>* words) {
  const size_t n = text.size();
  auto cls = [&](size_t i) -> Cls {
    return i < n ? kClasses[static_cast<unsigned char>(text[i]) & 0x7F] : kOther;
  };
  // No break between text[i-1] and text[i] (0 < i < n)?
  auto joined = [&](size_t i) {
    Cls a = cls(i - 1), b = cls(i);
    if (a == kCR && b == kLF) return true;                                        // WB3
    if (a == kCR || a == kLF || a == kNewline) return false;                      // WB3a
    if (b == kCR || b == kLF || b == kNewline) return false;                      // WB3b
    if (a == kSpace && b == kSpace) return true;                                  // WB3d
    if (a == kLetter && b == kLetter) return true;                                // WB5
    if (a == kLetter && MidLetterOrQ(b) && cls(i + 1) == kLetter) return true;    // WB6
    if (i >= 2 && cls(i - 2) == kLetter && MidLetterOrQ(a) && b == kLetter) return true;  // WB7
    if (a == kNumeric && b == kNumeric) return true;                              // WB8
    if (a == kLetter && b == kNumeric) return true;                               // WB9
    if (a == kNumeric && b == kLetter) return true;                               // WB10
    if (i >= 2 && cls(i - 2) == kNumeric && MidNumOrQ(a) && b == kNumeric) return true;  // WB11
    if (a == kNumeric && MidNumOrQ(b) && cls(i + 1) == kNumeric) return true;     // WB12
    if ((a == kLetter || a == kNumeric || a == kExtendNumLet) && b == kExtendNumLet) {
      return true;  // WB13a
    }
    if (a == kExtendNumLet && (b == kLetter || b == kNumeric)) return true;      // WB13b
    return false;                                                                 // WB999
  };
  auto alnum = [](Cls c) { return c == kLetter || c == kNumeric; };
  // A space or an "other" byte neither joins the byte before it nor the one
  // after it (no rule but WB3d, space to space, names them; WB6, WB7 and
  // WB11, WB12 look across Mid bytes only): a run of them bounds segments on
  // both sides and is a segment of no word, skipped whole.
  auto kind = [&](size_t i) { return kKinds[static_cast<unsigned char>(text[i])]; };
  for (size_t i = 0; i < n;) {
    while (i < n && kind(i) == 2) ++i;
    if (i == n) break;
    const size_t start = i;
    bool any_alnum = alnum(cls(i));  // in text[start, i)
    for (++i; i < n; ++i) {
      // Letters and digits run on (WB5, WB8-WB10; no earlier rule applies
      // to them): the common case, skipped in a tight loop.
      if (kind(i - 1) == 1) {
        while (i < n && kind(i) == 1) ++i;
        if (i == n) break;
      }
      if (!joined(i)) break;
      any_alnum = any_alnum || alnum(cls(i));
    }
    // A segment is a word when it holds a letter or a digit, or is a run
    // joined to a leading '_' ("__": ICU's status is a letter's).
    if (any_alnum || (i - start >= 2 && cls(start) == kExtendNumLet)) {
      words->emplace_back(static_cast<uint32_t>(start), static_cast<uint32_t>(i));
    }
  }
}

}  // namespace skald
