#include "text/sentences.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "text/text_util.h"

namespace skald {
namespace {

using Sentences = std::vector<std::string_view>;

TEST(SentencesTest, SplitsAtSentenceEnds) {
  EXPECT_EQ(SentencesOf("Hello world. J. Smith wrote e.g. this!  Next? 3. Data model"),
            (Sentences{"Hello world.", "J. Smith wrote e.g. this!", "Next?", "3. Data model"}));
  EXPECT_EQ(SentencesOf("file.txt is here. done"), (Sentences{"file.txt is here.", "done"}));
  EXPECT_EQ(SentencesOf("\xE6\x95\xB0\xE6\x8D\xAE\xE3\x80\x82next"),
            (Sentences{"\xE6\x95\xB0\xE6\x8D\xAE\xE3\x80\x82", "next"}));
  EXPECT_EQ(SentencesOf(""), Sentences{});
  EXPECT_EQ(SentencesOf("   "), Sentences{});
  EXPECT_EQ(SentencesOf(" . . x"), (Sentences{".", ".", "x"}));
  EXPECT_EQ(FirstSentence("  One.  Two."), "One.");
  EXPECT_EQ(FirstSentence("no end "), "no end");
  EXPECT_EQ(FirstSentence(" "), "");
}

// One walk over the whole text, as the summarizer split text before
// NextSentence: every end found from the start, empty pieces dropped.
Sentences OneWalk(std::string_view text) {
  Sentences out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); i += Utf8CharLength(text, i)) {
    size_t end = SentenceEndAt(text, i);
    if (end == 0) continue;
    if (std::string_view s = TrimSpace(text.substr(start, end - start)); !s.empty()) {
      out.push_back(s);
    }
    start = end;
  }
  if (std::string_view rest = TrimSpace(text.substr(start)); !rest.empty()) out.push_back(rest);
  return out;
}

// Resuming at each sentence's end finds what one walk finds, on random
// text of ends, abbreviations, numbers, CJK marks and broken UTF-8.
TEST(SentencesTest, NextSentenceResumesAsOneWalk) {
  const std::vector<std::string> pieces = {
      "a",    "word", " ",    "  ",   ".",   "!",   "?",   "e.g.", "3",  "3.", "J.",
      "\n",   "\t",   "\xE3\x80\x82", "\xEF\xBC\x9F", "\xEF\xBC\x81", "\xE3\x80", "\xff",
      "\xC3\xA9", "U.S.", "file.txt", "...", "\xE2", "\xF0\x9F", "\xE3\x81\x82"};
  std::mt19937_64 rng(11);
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    size_t n = rng() % 16;
    for (size_t i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    Sentences expected = OneWalk(text);
    EXPECT_EQ(SentencesOf(text), expected) << text;
    EXPECT_EQ(FirstSentence(text), expected.empty() ? "" : expected.front()) << text;
  }
}

}  // namespace
}  // namespace skald
