#include "text/stop_words.h"

#include <array>

namespace skald {

namespace {

constexpr std::array<std::string_view, 33> kEnglish = {
    "a",   "an",    "and",  "are",   "as",    "at",   "be",   "but", "by",  "for",  "if",
    "in",  "into",  "is",   "it",    "no",    "not",  "of",   "on",  "or",  "such", "that",
    "the", "their", "then", "there", "these", "they", "this", "to",  "was", "will", "with",
};

}  // namespace

std::span<const std::string_view> EnglishStopWords() { return kEnglish; }

}  // namespace skald
