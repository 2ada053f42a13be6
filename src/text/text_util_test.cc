#include "text/text_util.h"

#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

namespace skald {
namespace {

// The ASCII helpers answer as <cctype> does in the "C" locale, for every byte.
TEST(TextUtilTest, AsciiClassesMatchTheCLocale) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const auto u = static_cast<unsigned char>(b);
    EXPECT_EQ(IsAsciiUpper(c), std::isupper(u) != 0) << b;
    EXPECT_EQ(IsAsciiAlpha(c), std::isalpha(u) != 0) << b;
    EXPECT_EQ(IsAsciiDigit(c), std::isdigit(u) != 0) << b;
    EXPECT_EQ(IsAsciiHexDigit(c), std::isxdigit(u) != 0) << b;
    EXPECT_EQ(static_cast<unsigned char>(AsciiToLower(c)), std::tolower(u)) << b;
  }
}

TEST(TextUtilTest, IsCollapsedSpaceIsCollapseSpaceChangingNothing) {
  const std::vector<std::string> pieces = {"a", "word", " ", "  ", "\t", "\n", "\r\n", ".",
                                           "\xC3\xA9", "\v", "\f"};
  std::mt19937_64 rng(3);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    for (size_t i = 0, n = rng() % 8; i < n; ++i) text += pieces[rng() % pieces.size()];
    EXPECT_EQ(IsCollapsedSpace(text), CollapseSpace(text) == text) << "[" << text << "]";
  }
}

// CollapseSpace, word by word, against the byte-by-byte definition: every
// run of IsSpace bytes one ' ', none at either end, every other byte kept.
TEST(TextUtilTest, CollapseSpaceMatchesItsDefinitionOnAnyBytes) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    for (size_t i = 0, n = rng() % 40; i < n; ++i) {
      // Half the bytes white space, so that runs of each length occur.
      const char spaces[] = {' ', '\t', '\n', '\r', '\f', '\v'};
      text += rng() % 2 ? spaces[rng() % 6] : static_cast<char>(rng() % 256);
    }
    std::string expected;
    bool space = false;
    for (char c : text) {
      const bool is_space =
          c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
      EXPECT_EQ(IsSpace(c), is_space);
      if (is_space) {
        space = true;
        continue;
      }
      if (space && !expected.empty()) expected += ' ';
      space = false;
      expected += c;
    }
    EXPECT_EQ(CollapseSpace(text), expected);
  }
}

}  // namespace
}  // namespace skald
