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

}  // namespace
}  // namespace skald
