#include "text/tokenizer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "text/stop_words.h"
#include "text/text_util.h"

namespace skald {
namespace {

std::unique_ptr<Tokenizer> Make(const TokenizerOptions& options = {}) {
  auto tokenizer = NewIcuTokenizer(options);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return std::move(tokenizer).value();
}

std::vector<std::string> Terms(const Tokenizer& tokenizer, std::string_view text) {
  std::vector<Token> tokens;
  tokenizer.Tokenize(text, &tokens);
  std::vector<std::string> terms;
  for (const Token& token : tokens) {
    EXPECT_LE(token.begin, token.end);
    EXPECT_LE(token.end, text.size());
    terms.push_back(token.term);
  }
  return terms;
}

using Strings = std::vector<std::string>;

TEST(TokenizerTest, EnglishIsLowerCasedStemmedAndStopWordsDropped) {
  auto t = Make();
  EXPECT_EQ(Terms(*t, "The Running Cats are jumping over the fences."),
            (Strings{"run", "cat", "jump", "over", "fenc"}));
  EXPECT_EQ(Terms(*t, "CONNECTION connected Connecting"),
            (Strings{"connect", "connect", "connect"}));
  // Possessives with either apostrophe.
  EXPECT_EQ(Terms(*t, "patient's patient\u2019s"), (Strings{"patient", "patient"}));
}

TEST(TokenizerTest, StemmingAndStopWordsCanBeTurnedOff) {
  TokenizerOptions options;
  options.stem_english = false;
  options.remove_stop_words = false;
  auto t = Make(options);
  EXPECT_EQ(Terms(*t, "The Running Cats"), (Strings{"the", "running", "cats"}));
}

TEST(TokenizerTest, CustomStopWordsAreNormalized) {
  TokenizerOptions options;
  options.stop_words = {"Running", "ＣＡＴＳ"};  // full-width folds to "cats"
  auto t = Make(options);
  // "the" is no longer a stop word; custom entries match case-insensitively.
  EXPECT_EQ(Terms(*t, "the running cats jump"), (Strings{"the", "jump"}));
}

TEST(TokenizerTest, NameReflectsOptions) {
  TokenizerOptions plain;
  plain.stem_english = false;
  TokenizerOptions custom;
  custom.stop_words = {"foo"};
  std::string a = Make()->Name(), b = Make(plain)->Name(), c = Make(custom)->Name();
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(b, c);
  EXPECT_EQ(a, Make()->Name());
}

TEST(TokenizerTest, RejectsBadStopWords) {
  TokenizerOptions options;
  options.stop_words = {""};
  EXPECT_EQ(NewIcuTokenizer(options).status().code(), StatusCode::kInvalidArgument);
  options.stop_words = {"bad\xff"};
  EXPECT_EQ(NewIcuTokenizer(options).status().code(), StatusCode::kInvalidArgument);
}

TEST(TokenizerTest, OffsetsPointAtSourceWords) {
  auto t = Make();
  std::string text = "  Hello, Wörld!";
  std::vector<Token> tokens;
  t->Tokenize(text, &tokens);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(text.substr(tokens[0].begin, tokens[0].end - tokens[0].begin), "Hello");
  EXPECT_EQ(text.substr(tokens[1].begin, tokens[1].end - tokens[1].begin), "Wörld");
  EXPECT_EQ(tokens[1].term, "wörld");
}

TEST(TokenizerTest, AppendsToExistingTokens) {
  auto t = Make();
  std::vector<Token> tokens{{"x", 0, 1}};
  t->Tokenize("cats", &tokens);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[1].term, "cat");
}

TEST(TokenizerTest, ChineseIsSegmentedIntoWords) {
  auto t = Make();
  EXPECT_EQ(Terms(*t, "我爱北京天安门，今天天气很好"),
            (Strings{"我", "爱", "北京", "天安门", "今天", "天气", "很好"}));
}

TEST(TokenizerTest, JapaneseIsSegmentedAndKanaKept) {
  auto t = Make();
  Strings terms = Terms(*t, "東京都に住んでいます。カタカナもテスト");
  EXPECT_NE(std::find(terms.begin(), terms.end(), "東京"), terms.end());
  EXPECT_NE(std::find(terms.begin(), terms.end(), "カタカナ"), terms.end());
  EXPECT_NE(std::find(terms.begin(), terms.end(), "テスト"), terms.end());
  for (const std::string& term : terms) EXPECT_NE(term, "。");
  // Half-width katakana folds to full-width (NFKC).
  EXPECT_EQ(Terms(*t, "ﾃｽﾄ"), (Strings{"テスト"}));
}

TEST(TokenizerTest, ThaiIsSegmentedByDictionary) {
  auto t = Make();
  EXPECT_EQ(Terms(*t, "ภาษาไทยเป็นภาษาที่ยาก"), (Strings{"ภาษา", "ไทย", "เป็น", "ภาษา", "ที่", "ยาก"}));
}

TEST(TokenizerTest, MixedScriptsOnlyStemLatin) {
  auto t = Make();
  EXPECT_EQ(Terms(*t, "Searching 北京 databases Москва running"),
            (Strings{"search", "北京", "databas", "москва", "run"}));
  // A word mixing Latin with another script is not stemmed.
  EXPECT_EQ(Terms(*t, "runningмир"), (Strings{"runningмир"}));
}

TEST(TokenizerTest, NfkcCaseFolding) {
  auto t = Make();
  TokenizerOptions options;
  options.stem_english = false;
  auto plain = Make(options);
  EXPECT_EQ(Terms(*plain, "ＡＢＣ ﬁnance Straße ÉCOLE"),
            (Strings{"abc", "finance", "strasse", "école"}));
  // Composed and decomposed forms match.
  EXPECT_EQ(Terms(*plain, "e\u0301cole"), Terms(*plain, "\u00e9cole"));
}

TEST(TokenizerTest, EmojiAndPunctuationAreDropped) {
  auto t = Make();
  EXPECT_EQ(Terms(*t, "I ❤️ pizza 🍕 👨‍👩‍👧 done!!! -- ... ~~"),
            (Strings{"i", "pizza", "done"}));
  EXPECT_TRUE(Terms(*t, "🍕🍕🍕 ¡¿ … —").empty());
}

TEST(TokenizerTest, NumbersAreKeptWhole) {
  auto t = Make();
  EXPECT_EQ(Terms(*t, "3.14 1,000 IL-6 covid19 2024"),
            (Strings{"3.14", "1,000", "il", "6", "covid19", "2024"}));
}

TEST(TokenizerTest, EmptyAndBlankInput) {
  auto t = Make();
  EXPECT_TRUE(Terms(*t, "").empty());
  EXPECT_TRUE(Terms(*t, "   \n\t ").empty());
  EXPECT_TRUE(Terms(*t, "the of and").empty());
}

TEST(TokenizerTest, InvalidUtf8IsSkipped) {
  auto t = Make();
  EXPECT_EQ(Terms(*t, "bad\xff\xfe bytes"), (Strings{"bad", "byte"}));
  // A bad byte inside a word separates it; nothing else is lost.
  EXPECT_EQ(Terms(*t, "wo\x80rld"), (Strings{"wo", "rld"}));
  // Truncated sequence at the end, overlong encoding, lone surrogate.
  EXPECT_EQ(Terms(*t, "caf\xc3"), (Strings{"caf"}));
  EXPECT_EQ(Terms(*t, "a\xc0\xafz"), (Strings{"z"}));  // "a" is a stop word
  EXPECT_EQ(Terms(*t, "x\xed\xa0\x80y"), (Strings{"x", "y"}));
  std::string with_nul("left\0right", 10);
  EXPECT_EQ(Terms(*t, with_nul), (Strings{"left", "right"}));
}

TEST(TokenizerTest, RandomBytesNeverCrash) {
  auto t = Make();
  std::mt19937 rng(42);
  std::vector<Token> tokens;
  for (int round = 0; round < 2000; ++round) {
    std::string text(rng() % 64, '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xFF);
    tokens.clear();
    t->Tokenize(text, &tokens);
    for (const Token& token : tokens) {
      ASSERT_LT(token.begin, token.end);
      ASSERT_LE(token.end, text.size());
      ASSERT_FALSE(token.term.empty());
    }
  }
}

TEST(TokenizerTest, OverlongTermsAreDropped) {
  auto t = Make();
  std::string blob(Tokenizer::kMaxTermBytes + 1, 'q');
  EXPECT_EQ(Terms(*t, "short " + blob + " words"), (Strings{"short", "word"}));
}

// ForEachTerm (the lexical index's path) yields exactly Tokenize's terms.
TEST(TokenizerTest, ForEachTermYieldsTheTokenizeTerms) {
  struct Collect final : TermSink {
    Strings terms;
    void Term(std::string_view term) override { terms.emplace_back(term); }
  };
  auto t = Make();
  const std::string long_word(60, 'z');  // longer than the per-thread memo keeps
  std::vector<std::string> texts = {
      "The Running Cats are jumping over the fences.",
      "Mixed 北京大学 ภาษาไทย café naïve patient\u2019s 12345 " + long_word,
      "bad \xff bytes " + std::string(Tokenizer::kMaxTermBytes + 1, 'q') + " end",
      "",
  };
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::string text(rng() % 64, '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xFF);
    texts.push_back(std::move(text));
  }
  for (const std::string& text : texts) {
    Collect collect;
    t->ForEachTerm(text, &collect);
    EXPECT_EQ(collect.terms, Terms(*t, text)) << text;
  }
}

// A tokenizer that implements only Tokenize gets ForEachTerm from it.
TEST(TokenizerTest, DefaultForEachTermCallsTokenize) {
  struct Words final : Tokenizer {
    std::string Name() const override { return "words"; }
    void Tokenize(std::string_view text, std::vector<Token>* out) const override {
      for (std::string_view word : {text.substr(0, 2), text.substr(2)}) {
        out->push_back(Token{std::string(word), 0, 0});
      }
    }
  };
  struct Collect final : TermSink {
    Strings terms;
    void Term(std::string_view term) override { terms.emplace_back(term); }
  };
  Words words;
  Collect collect;
  words.ForEachTerm("abcd", &collect);
  EXPECT_EQ(collect.terms, (Strings{"ab", "cd"}));
}

TEST(TokenizerTest, ConcurrentUseGivesSameResults) {
  auto t = Make();
  const std::string text = "Concurrent tokenizers 北京 ภาษาไทย running quickly";
  const Strings expected = Terms(*t, text);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      for (int n = 0; n < 500; ++n) {
        if (Terms(*t, text) != expected) ++mismatches[i];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(TokenizerTest, TokenizersWithOtherOptionsKeepTheirOwnTermsOnOneThread) {
  // Each tokenizer remembers the terms of the words it has seen; another
  // configuration used in between on the same thread must not change them.
  auto plain = Make();
  TokenizerOptions raw_options;
  raw_options.stem_english = false;
  raw_options.remove_stop_words = false;
  auto raw = Make(raw_options);
  for (int round = 0; round < 3; ++round) {
    for (std::string_view text : {"The running dogs", "the caf\xC3\xA9 runs"}) {
      std::vector<std::string> a = Terms(*plain, text);
      std::vector<std::string> b = Terms(*raw, text);
      if (text[0] == 'T') {
        EXPECT_EQ(a, (std::vector<std::string>{"run", "dog"}));
        EXPECT_EQ(b, (std::vector<std::string>{"the", "running", "dogs"}));
      } else {
        EXPECT_EQ(a, (std::vector<std::string>{"caf\xC3\xA9", "run"}));
        EXPECT_EQ(b, (std::vector<std::string>{"the", "caf\xC3\xA9", "runs"}));
      }
    }
  }
}

TEST(TokenizerTest, BuiltInStopListIsFolded) {
  for (std::string_view word : EnglishStopWords()) {
    for (char c : word) EXPECT_TRUE(c >= 'a' && c <= 'z') << word;
  }
}

TEST(QueryFunctionWordsTest, SortedLowerCaseAndUnique) {
  const auto words = QueryFunctionWords();
  ASSERT_FALSE(words.empty());
  for (size_t i = 1; i < words.size(); ++i) EXPECT_LT(words[i - 1], words[i]) << words[i];
  for (std::string_view w : words) {
    for (char c : w) EXPECT_TRUE(c >= 'a' && c <= 'z') << w;
  }
}

TEST(QueryFunctionWordsTest, StripsFunctionWordsOnly) {
  // Each function word becomes one space (collapsed here for reading).
  const auto stripped = [](std::string_view q) { return CollapseSpace(StripQueryFunctionWords(q)); };
  EXPECT_EQ(StripQueryFunctionWords("What did Melanie paint?"), "    Melanie paint?");
  EXPECT_EQ(stripped("WHEN Did she go"), "go");
  // Digits, other scripts and words that merely contain a function word stay.
  EXPECT_EQ(stripped("the 2022 trip"), "2022 trip");
  EXPECT_EQ(stripped("whatever others"), "whatever others");
  EXPECT_EQ(stripped("what is \u6771\u4eac"), "\u6771\u4eac");
  // Apostrophes split words as the tokenizer does: "she's" loses "she" and "s".
  EXPECT_EQ(stripped("she's painting"), "' painting");
}

TEST(QueryFunctionWordsTest, AllFunctionWordsKeepTheQuery) {
  EXPECT_EQ(StripQueryFunctionWords("who are you?"), "who are you?");
  EXPECT_EQ(StripQueryFunctionWords(""), "");
  EXPECT_EQ(StripQueryFunctionWords("  ?! "), "  ?! ");
}

TEST(QueryFunctionWordsTest, QuestionsAreRecognized) {
  EXPECT_TRUE(IsQuestion("When did Caroline go to the support group?"));
  EXPECT_TRUE(IsQuestion("what does melanie paint"));
  EXPECT_TRUE(IsQuestion("  Did she adopt a dog"));
  EXPECT_TRUE(IsQuestion("her favourite book? "));
  EXPECT_TRUE(IsQuestion("\"How\" is it spelled"));
  // Claims, keyword lists and imperatives are not questions.
  EXPECT_FALSE(IsQuestion("Vitamin D deficiency increases the risk of falls."));
  EXPECT_FALSE(IsQuestion("whatever happened"));  // a longer word, not "what"
  EXPECT_FALSE(IsQuestion("show me the config"));
  EXPECT_FALSE(IsQuestion("- what"));
  EXPECT_FALSE(IsQuestion(""));
}

}  // namespace
}  // namespace skald
