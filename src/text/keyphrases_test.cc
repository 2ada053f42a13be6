#include "text/keyphrases.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace skald {
namespace {

std::vector<std::string> Texts(const std::vector<Keyphrase>& phrases) {
  std::vector<std::string> out;
  for (const Keyphrase& k : phrases) out.push_back(k.text);
  return out;
}

bool Has(const std::vector<TextTerm>& terms, const std::string& display) {
  for (const TextTerm& t : terms) {
    if (t.display == display) return true;
  }
  return false;
}

TEST(ExtractTermsTest, WordsAndAdjacentPairsWithTheirSpelling) {
  std::vector<TextTerm> terms =
      ExtractTerms("Insulin resistance in mice; insulin resistance and DNA repair. 2024 at");
  EXPECT_TRUE(Has(terms, "insulin resistance"));
  EXPECT_TRUE(Has(terms, "DNA repair"));
  EXPECT_TRUE(Has(terms, "mice"));
  // Not adjacent across a dropped word or punctuation; no numbers, no short
  // or function words.
  EXPECT_FALSE(Has(terms, "resistance mice"));
  EXPECT_FALSE(Has(terms, "mice insulin"));
  EXPECT_FALSE(Has(terms, "2024"));
  EXPECT_FALSE(Has(terms, "and"));
  for (const TextTerm& t : terms) {
    if (t.display == "insulin resistance") {
      EXPECT_EQ(t.count, 2u);
    }
  }
  std::vector<TextTerm> numbered = ExtractTerms("p53 mutations in e1000");
  EXPECT_TRUE(Has(numbered, "p53"));
  EXPECT_FALSE(Has(numbered, "e1000"));
  // Hex ids (a memory file's hash suffix) are not topics; hex-only words
  // without a digit, and short ones, are words.
  std::vector<TextTerm> ids = ExtractTerms("green tea afc1dbf8 decade b12a");
  EXPECT_FALSE(Has(ids, "afc1dbf8"));
  EXPECT_TRUE(Has(ids, "green tea"));
  EXPECT_TRUE(Has(ids, "decade"));
  EXPECT_TRUE(ExtractTerms("").empty());
  EXPECT_TRUE(ExtractTerms("\xff\xfe of the 12").empty());
}

TEST(RankKeyphrasesTest, SalientAgainstTheBackground) {
  std::vector<std::string> texts = {"Telescope mirrors and the survey.",
                                    "Grinding telescope mirrors for the survey.",
                                    "The survey of telescope mirrors at night."};
  TermStatistics background;
  for (const std::string& t : texts) background.Add(t);
  for (int i = 0; i < 50; ++i) background.Add("The survey number " + std::to_string(i) + ".");
  std::vector<Keyphrase> ranked = RankKeyphrases(texts, &background, 5);
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked[0].text, "telescope mirrors");
  EXPECT_EQ(ranked[0].sources, (std::vector<size_t>{0, 1, 2}));
  // The pair says its words: they are not repeated.
  std::vector<std::string> shown = Texts(ranked);
  EXPECT_EQ(std::count(shown.begin(), shown.end(), "telescope"), 0);
  EXPECT_EQ(std::count(shown.begin(), shown.end(), "mirrors"), 0);
  // "survey" is everywhere in the background: last if at all.
  auto survey = std::find(shown.begin(), shown.end(), "survey");
  EXPECT_TRUE(survey == shown.end() || survey == shown.end() - 1);
  // Deterministic, and bounded by the limit.
  EXPECT_EQ(Texts(RankKeyphrases(texts, &background, 5)), shown);
  EXPECT_EQ(RankKeyphrases(texts, &background, 1).size(), 1u);
  EXPECT_TRUE(RankKeyphrases({}, nullptr, 5).empty());
}

TEST(TextKeyphrasesTest, RepeatedTermsOfOneText) {
  std::vector<Keyphrase> ranked = TextKeyphrases(
      "Gene editing in yeast. Gene editing needs guides. Yeast grows.", nullptr, 3);
  ASSERT_GE(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].text, "gene editing");
  EXPECT_EQ(ranked[1].text, "yeast");
}

TEST(TermStatisticsTest, CountsDocumentsNotOccurrences) {
  TermStatistics stats;
  stats.Add("yeast yeast yeast");
  stats.Add("yeast cells");
  stats.Add("");
  EXPECT_EQ(stats.documents(), 3u);
  std::vector<TextTerm> terms = ExtractTerms("yeast");
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(stats.DocumentFrequency(terms[0].key), 2u);
  EXPECT_EQ(stats.DocumentFrequency("absent"), 0u);
}

TEST(TermStatisticsTest, KeysTakenApartCountTheSame) {
  const std::vector<std::string> texts = {"Insulin resistance in mice; insulin resistance.",
                                          "DNA repair and beta cells", "",
                                          "Covers gene editing, yeast and DNA repair."};
  TermStatistics direct, apart;
  for (const std::string& t : texts) {
    direct.Add(t);
    apart.Add(TermStatistics::KeysOf(t));
  }
  EXPECT_EQ(apart.documents(), direct.documents());
  for (const std::string& t : texts) {
    for (const TextTerm& term : ExtractTerms(t)) {
      EXPECT_EQ(apart.DocumentFrequency(term.key), direct.DocumentFrequency(term.key)) << term.key;
    }
  }
  TermKeys keys = TermStatistics::KeysOf("yeast cells, yeast");
  EXPECT_EQ(keys.ends.size(), ExtractTerms("yeast cells, yeast").size());
}

TEST(TermStatisticsTest, PartsMergedCountAsOne) {
  const std::vector<std::string> texts = {"Insulin resistance in mice; insulin resistance.",
                                          "DNA repair and beta cells", "",
                                          "Covers gene editing, yeast and DNA repair.",
                                          "yeast cells", "beta cells of mice"};
  TermStatistics whole, first, second;
  for (size_t i = 0; i < texts.size(); ++i) {
    whole.Add(texts[i]);
    (i % 2 == 0 ? first : second).Add(TermStatistics::KeysOf(texts[i]));
  }
  first.Merge(std::move(second));
  first.Merge(TermStatistics());  // nothing to add
  EXPECT_EQ(first.documents(), whole.documents());
  for (const std::string& t : texts) {
    for (const TextTerm& term : ExtractTerms(t)) {
      EXPECT_EQ(first.DocumentFrequency(term.key), whole.DocumentFrequency(term.key)) << term.key;
    }
  }
  std::vector<TextTerm> yeast = ExtractTerms("yeast");
  ASSERT_EQ(yeast.size(), 1u);
  EXPECT_EQ(first.DocumentFrequency(yeast[0].key), 2u);
}

TEST(RankKeyphrasesTest, OfTermsRanksAsTheTexts) {
  const std::vector<std::string> texts = {
      "Insulin resistance in mice; insulin resistance.", "DNA repair and beta cells", "",
      "Covers gene editing, yeast and DNA repair.", "Yeast cells: DNA Repair in yeast cells"};
  TermStatistics background;
  for (const std::string& t : texts) background.Add(t);
  background.Add("gene editing of yeast");
  std::vector<std::vector<TextTerm>> terms;
  for (const std::string& t : texts) terms.push_back(ExtractTerms(t));
  const TermStatistics* with = &background;
  for (const TermStatistics* bg : {static_cast<const TermStatistics*>(nullptr), with}) {
    std::vector<Keyphrase> a = RankKeyphrases(texts, bg, 20);
    std::vector<Keyphrase> b = RankKeyphrasesOfTerms(terms, bg, 20);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].text, b[i].text);
      EXPECT_EQ(a[i].score, b[i].score);
      EXPECT_EQ(a[i].sources, b[i].sources);
    }
  }
}

}  // namespace
}  // namespace skald
