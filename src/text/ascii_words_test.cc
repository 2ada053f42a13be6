// AsciiWordSegments against ICU's root word break iterator, which it must
// match exactly (the tokenizer's ASCII fast path relies on it).

#include "text/ascii_words.h"

#include <gtest/gtest.h>
#include <unicode/brkiter.h>
#include <unicode/rbbi.h>
#include <unicode/utext.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace skald {
namespace {

using Segments = std::vector<std::pair<uint32_t, uint32_t>>;

class IcuWords {
 public:
  IcuWords() {
    UErrorCode status = U_ZERO_ERROR;
    words_.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    EXPECT_TRUE(U_SUCCESS(status));
  }
  ~IcuWords() { utext_close(&text_); }

  Segments Of(std::string_view s) {
    Segments out;
    UErrorCode status = U_ZERO_ERROR;
    utext_openUTF8(&text_, s.data(), static_cast<int64_t>(s.size()), &status);
    words_->setText(&text_, status);
    int32_t start = words_->first();
    for (int32_t end = words_->next(); end != icu::BreakIterator::DONE;
         start = end, end = words_->next()) {
      if (words_->getRuleStatus() < UBRK_WORD_NONE_LIMIT) continue;
      out.emplace_back(static_cast<uint32_t>(start), static_cast<uint32_t>(end));
    }
    return out;
  }

 private:
  std::unique_ptr<icu::BreakIterator> words_;
  UText text_ = UTEXT_INITIALIZER;
};

Segments Fast(std::string_view s) {
  Segments out;
  AsciiWordSegments(s, &out);
  return out;
}

// One character of each ASCII word-break class (and of the classes that
// only matter next to other scripts: '"' and ':').
constexpr std::string_view kAlphabet = "aZ5_@:.',;\" \r\n\v-";

TEST(AsciiWordSegmentsTest, MatchesIcuOnEveryShortString) {
  IcuWords icu;
  std::string s;
  size_t checked = 0, failures = 0;
  for (size_t length = 1; length <= 5; ++length) {
    std::vector<size_t> digits(length, 0);
    s.assign(length, kAlphabet[0]);
    while (true) {
      if (Fast(s) != icu.Of(s) && ++failures <= 10) ADD_FAILURE() << "differs on '" << s << "'";
      ++checked;
      size_t k = 0;
      while (k < length && ++digits[k] == kAlphabet.size()) digits[k++] = 0;
      if (k == length) break;
      for (size_t j = 0; j <= k; ++j) s[j] = kAlphabet[digits[j]];
    }
  }
  EXPECT_EQ(failures, 0u) << "of " << checked;
}

TEST(AsciiWordSegmentsTest, MatchesIcuOnEveryAsciiStringOfThree) {
  IcuWords icu;
  size_t failures = 0;
  for (int a = 0; a < 128; ++a) {
    for (int b = -1; b < 128; ++b) {
      for (int c = -1; c < 128; ++c) {
        std::string s(1, static_cast<char>(a));
        if (b >= 0) s += static_cast<char>(b);
        if (b >= 0 && c >= 0) s += static_cast<char>(c);
        if (b < 0 && c >= 0) continue;
        if (Fast(s) != icu.Of(s) && ++failures <= 10) {
          ADD_FAILURE() << "differs on bytes " << a << " " << b << " " << c;
        }
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(AsciiWordSegmentsTest, MatchesIcuOnRandomAsciiText) {
  IcuWords icu;
  std::mt19937 rng(7);
  const std::string words[] = {"the", "Insulin", "don't", "e.g.", "3.14", "1,000", "v1.2.3",
                               "foo_bar", "__init__", "a:b", "x'y'z", "U.S.A.", "p53", "\t",
                               "  ", "\r\n", "--", "...", "''", "#", "a.1", "1.a", "_1_"};
  for (int i = 0; i < 100000; ++i) {
    std::string s;
    size_t parts = 1 + rng() % 20;
    for (size_t p = 0; p < parts; ++p) {
      if (rng() % 3 == 0) {
        s += static_cast<char>(rng() % 128);  // any ASCII byte, controls included
      } else {
        s += words[rng() % std::size(words)];
      }
    }
    ASSERT_EQ(Fast(s), icu.Of(s)) << "differs on '" << s << "'";
  }
}

}  // namespace
}  // namespace skald
