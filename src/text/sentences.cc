// Characters and sentences of generated text (sentences.h).

#include "text/sentences.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "text/text_util.h"

namespace skald {

size_t SentenceEndAt(std::string_view s, size_t i) {
  char c = s[i];
  if (c == '.' || c == '!' || c == '?') {
    if (i + 1 < s.size() && !IsSpace(s[i + 1])) return 0;
    if (c == '.') {
      // Not after a number ("3. Data model"), an initial ("J. Smith") or an
      // abbreviation with inner dots ("e.g. this").
      size_t start = i;
      while (start > 0 && !IsSpace(s[start - 1])) --start;
      std::string_view word = s.substr(start, i - start);
      bool number = !word.empty() && word.find_first_not_of("0123456789.") == std::string::npos;
      bool initial = word.size() == 1 && std::isalpha(static_cast<unsigned char>(word[0]));
      bool abbreviation = word.find('.') != std::string_view::npos;
      for (size_t k = 0, run = 0; k < word.size() && abbreviation; ++k) {
        run = word[k] == '.' ? 0 : run + 1;
        abbreviation = run <= 2;  // "e.g", "i.e", "U.S"; not "file.txt"
      }
      if (number || initial || abbreviation) return 0;
    }
    return i + 1;
  }
  for (std::string_view end : kCjkSentenceEnds) {
    if (s.substr(i, end.size()) == end) return i + end.size();
  }
  return 0;
}

// NextSentence looks for the CJK ends at these first bytes only.
constexpr bool CjkEndsStartWithE3OrEf() {
  for (std::string_view end : kCjkSentenceEnds) {
    const auto first = static_cast<unsigned char>(end.front());
    if (first != 0xE3 && first != 0xEF) return false;
  }
  return true;
}
static_assert(CjkEndsStartWithE3OrEf());

std::string_view NextSentence(std::string_view text, size_t* pos) {
  size_t start = std::min(*pos, text.size());
  // A sentence ends where the next character starts, so stepping on from
  // `start` visits the characters a walk from the text's start would. Only
  // bytes that may start a sentence end are looked at: '.', '!', '?' and the
  // first bytes of kCjkSentenceEnds. None is a UTF-8 continuation byte, so
  // every one of them starts a character of that walk (which steps over the
  // continuation bytes of well-formed sequences only).
  for (size_t i = start; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b != '.' && b != '!' && b != '?' && b != 0xE3 && b != 0xEF) continue;
    size_t end = SentenceEndAt(text, i);
    if (end == 0) continue;
    std::string_view sentence = TrimSpace(text.substr(start, end - start));
    start = end;
    if (!sentence.empty()) {
      *pos = end;
      return sentence;
    }
  }
  *pos = text.size();
  return TrimSpace(text.substr(start));
}

std::vector<std::string_view> SentencesOf(std::string_view text) {
  std::vector<std::string_view> sentences;
  for (size_t pos = 0;;) {
    std::string_view sentence = NextSentence(text, &pos);
    if (sentence.empty()) break;
    sentences.push_back(sentence);
  }
  return sentences;
}

}  // namespace skald
