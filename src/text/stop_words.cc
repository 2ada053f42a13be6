#include "text/stop_words.h"

#include <algorithm>
#include <array>

namespace skald {

namespace {

constexpr std::array<std::string_view, 33> kEnglish = {
    "a",   "an",    "and",  "are",   "as",    "at",   "be",   "but", "by",  "for",  "if",
    "in",  "into",  "is",   "it",    "no",    "not",  "of",   "on",  "or",  "such", "that",
    "the", "their", "then", "there", "these", "they", "this", "to",  "was", "will", "with",
};

constexpr std::array<std::string_view, 103> kQueryFunctionWords = {
    "a", "about", "after", "again", "all", "also", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "both", "but", "by", "can", "could", "did", "do", "does", "don",
    "down", "each", "few", "for", "from", "had", "has", "have", "he", "her", "here", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "me", "more", "most",
    "my", "no", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out",
    "over", "own", "s", "same", "she", "should", "so", "some", "such", "t", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "too",
    "up", "very", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why",
    "will", "with", "would", "you", "your",
};

// First words that open a question. Sorted.
constexpr std::array<std::string_view, 27> kQuestionOpeners = {
    "am",  "are",  "can",  "could", "did",   "do",   "does",  "had", "has",
    "have", "how", "is",   "may",   "might", "shall", "should", "was", "were",
    "what", "when", "where", "which", "who",  "whom",  "whose", "why", "would",
};

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// True when `word` (ASCII letters) is in the sorted lower-case `list`.
template <size_t N>
bool InList(const std::array<std::string_view, N>& list, std::string_view word) {
  if (word.size() > 8) return false;  // longer than any entry
  char lower[8];
  for (size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    lower[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return std::binary_search(list.begin(), list.end(), std::string_view(lower, word.size()));
}

bool IsFunctionWord(std::string_view word) { return InList(kQueryFunctionWords, word); }

}  // namespace

std::span<const std::string_view> EnglishStopWords() { return kEnglish; }

std::span<const std::string_view> QueryFunctionWords() { return kQueryFunctionWords; }

std::string StripQueryFunctionWords(std::string_view query) {
  std::string out;
  out.reserve(query.size());
  bool kept_content = false;
  size_t i = 0;
  while (i < query.size()) {
    if (!IsAsciiLetter(query[i])) {
      const unsigned char c = static_cast<unsigned char>(query[i]);
      // Digits and non-ASCII bytes (other scripts) are content.
      kept_content = kept_content || (c >= '0' && c <= '9') || c >= 0x80;
      out.push_back(query[i++]);
      continue;
    }
    size_t end = i;
    while (end < query.size() && IsAsciiLetter(query[end])) ++end;
    const std::string_view word = query.substr(i, end - i);
    if (IsFunctionWord(word)) {
      out.push_back(' ');
    } else {
      out.append(word);
      kept_content = true;
    }
    i = end;
  }
  return kept_content ? out : std::string(query);
}

bool IsQuestion(std::string_view query) {
  size_t end = query.size();
  while (end > 0 && (query[end - 1] == ' ' || query[end - 1] == '\t' || query[end - 1] == '\n' ||
                     query[end - 1] == '\r')) {
    --end;
  }
  if (end > 0 && query[end - 1] == '?') return true;
  size_t begin = 0;
  while (begin < end && !IsAsciiLetter(query[begin])) {
    // Only white space and opening punctuation may come before the first word.
    const char c = query[begin];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '"' && c != '\'' && c != '(') {
      return false;
    }
    ++begin;
  }
  size_t word_end = begin;
  while (word_end < end && IsAsciiLetter(query[word_end])) ++word_end;
  return word_end > begin && InList(kQuestionOpeners, query.substr(begin, word_end - begin));
}

}  // namespace skald
