// Characters and sentences of generated text (sentences.h).

#include "text/sentences.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "common/strings.h"
#include "text/text_util.h"

namespace skald {

size_t Utf8CharLength(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t len = b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  return len > 1 && s.size() - i >= len && IsValidUtf8(s.substr(i, len)) ? len : 1;
}

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

std::vector<std::string_view> SentencesOf(std::string_view text) {
  std::vector<std::string_view> sentences;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); i += Utf8CharLength(text, i)) {
    size_t end = SentenceEndAt(text, i);
    if (end == 0) continue;
    std::string_view sentence = TrimSpace(text.substr(start, end - start));
    if (!sentence.empty()) sentences.push_back(sentence);
    start = end;
  }
  std::string_view rest = TrimSpace(text.substr(std::min(start, text.size())));
  if (!rest.empty()) sentences.push_back(rest);
  return sentences;
}

std::string_view FirstSentence(std::string_view text) {
  size_t start = 0;
  for (size_t i = 0; i < text.size(); i += Utf8CharLength(text, i)) {
    size_t end = SentenceEndAt(text, i);
    if (end == 0) continue;
    std::string_view sentence = TrimSpace(text.substr(start, end - start));
    if (!sentence.empty()) return sentence;
    start = end;
  }
  return TrimSpace(text.substr(std::min(start, text.size())));
}

}  // namespace skald
