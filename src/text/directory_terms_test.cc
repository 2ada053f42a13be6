#include "text/directory_terms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/strings.h"

namespace skald {
namespace {

std::vector<std::vector<TextTerm>> TermsOf(const std::vector<std::string>& texts) {
  std::vector<std::vector<TextTerm>> out;
  for (const std::string& t : texts) out.push_back(ExtractTerms(t));
  return out;
}

size_t Rank(const DirectoryWords& words, const std::string& display) {
  for (size_t i = 0; i < words.display.size(); ++i) {
    if (words.display[i] == display) return i;
  }
  return words.display.size();
}

TEST(RankDirectoryWordsTest, SingleWordsOfEveryEntryAgainstTheBackground) {
  std::vector<std::string> texts = {"Telescope mirrors: grinding telescope mirrors.",
                                    "Telescope survey of comets.",
                                    "Telescope optics and lenses."};
  TermStatistics background;
  for (const std::string& t : texts) background.Add(t);
  for (int i = 0; i < 50; ++i) background.Add("A survey of lenses, number " + std::to_string(i));
  DirectoryWords words = RankDirectoryWords(TermsOf(texts), {}, &background);
  ASSERT_EQ(words.entries.size(), 3u);
  ASSERT_EQ(words.keys.size(), words.display.size());
  // Single words only: no bigram, each word once.
  for (const std::string& d : words.display) EXPECT_EQ(d.find(' '), std::string::npos) << d;
  std::unordered_set<std::string> keys(words.keys.begin(), words.keys.end());
  EXPECT_EQ(keys.size(), words.keys.size());
  // Held by every entry and rare elsewhere: the directory's first word.
  EXPECT_EQ(Rank(words, "telescope"), 0u);
  // Common in the background: below the words rare there.
  EXPECT_LT(Rank(words, "comets"), Rank(words, "survey"));
  EXPECT_LT(Rank(words, "optics"), Rank(words, "lenses"));
  // Each entry's own words, most distinctive first, rare words ahead of the
  // shared one ("mirrors" twice in its text).
  ASSERT_FALSE(words.entries[0].empty());
  EXPECT_EQ(words.display[words.entries[0].front()], "mirrors");
  EXPECT_TRUE(RankDirectoryWords({}, {}, nullptr).keys.empty());
}

TEST(RankDirectoryWordsTest, WordsOfTheLeadWeighMore) {
  std::vector<std::string> texts = {"Moraines and fjords. Glaciers.", "Dunes and oases. Deserts."};
  std::vector<std::vector<TextTerm>> leads = TermsOf({"Glaciers.", "Deserts."});
  DirectoryWords plain = RankDirectoryWords(TermsOf(texts), {}, nullptr);
  DirectoryWords led = RankDirectoryWords(TermsOf(texts), leads, nullptr);
  // Alone, ties go to the word said first; with the leads, the titles lead.
  EXPECT_EQ(plain.display[plain.entries[0].front()], "moraines");
  EXPECT_EQ(led.display[led.entries[0].front()], "glaciers");
  EXPECT_EQ(led.display[led.entries[1].front()], "deserts");
  EXPECT_LT(Rank(plain, "moraines"), Rank(plain, "deserts"));
  EXPECT_LT(Rank(led, "deserts"), Rank(led, "moraines"));
  EXPECT_EQ(plain.keys.size(), led.keys.size());
}

TEST(EntryWordGroupsTest, EveryEntryBeforeAnySecondWord) {
  std::vector<std::string> texts = {"Glaciers, moraines, fjords, crevasses.",
                                    "Deserts, dunes, oases, mesas.",
                                    "Volcanoes, calderas, magma, lava."};
  DirectoryWords words = RankDirectoryWords(TermsOf(texts), {}, nullptr);
  std::unordered_set<std::string> said;
  std::string all = EntryWordGroups(words, 4000, &said);
  // Entry by entry in order, separated by "; ".
  EXPECT_EQ(std::count(all.begin(), all.end(), ';'), 2) << all;
  EXPECT_LT(all.find("glaciers"), all.find("dunes")) << all;
  EXPECT_LT(all.find("dunes"), all.find("lava")) << all;
  EXPECT_EQ(said.size(), words.keys.size());

  // A tight budget: one word per entry, none repeated from what was said.
  std::unordered_set<std::string> some_said;
  std::string listed = SalientWordList(words, 8, &some_said);  // one word fits
  ASSERT_FALSE(listed.empty());
  ASSERT_EQ(some_said.size(), 1u);
  std::string tight = EntryWordGroups(words, 30, &some_said);
  EXPECT_LE(Utf8Length(tight), 30u) << tight;
  EXPECT_EQ(std::count(tight.begin(), tight.end(), ';'), 2) << tight;
  EXPECT_EQ(tight.find(listed), std::string::npos) << tight;
  EXPECT_EQ(std::count(tight.begin(), tight.end(), ','), 0) << tight;

  // Nothing left to say.
  std::unordered_set<std::string> everything(words.keys.begin(), words.keys.end());
  EXPECT_EQ(EntryWordGroups(words, 4000, &everything), "");
  EXPECT_EQ(SalientWordList(words, 4000, &everything), "");
}

// DirectoryTopicsOf scans each entry once into one group; the same ranking
// from each entry's and lead's ExtractTerms through the public functions.
TEST(DirectoryTopicsOfTest, RanksAsTheTermFunctions) {
  const std::vector<std::string> words = {
      "insulin", "Insulin", "resistance", "DNA", "repair", "yeast", "Yeast", "cells",
      "telescope", "mirrors", "survey", "comets", "glaciers", "moraines", "the", "and", "of",
      "caf\xC3\xA9", "M\xC3\xBCller", "well-known", "p53", "2024"};
  const std::vector<std::string> seps = {" ", " ", " ", ", ", ". ", "-", "; "};
  std::mt19937_64 rng(3);
  TermStatistics background;
  size_t with_words = 0;
  for (int round = 0; round < 30; ++round) {
    std::vector<EntrySummary> entries;
    std::vector<std::string> leads;
    const size_t n = 1 + rng() % 12;
    for (size_t i = 0; i < n; ++i) {
      std::string text;
      for (size_t w = 0, len = rng() % 30; w < len; ++w) {
        text += words[rng() % words.size()] + seps[rng() % seps.size()];
      }
      background.Add(text);
      const bool dir = rng() % 2 == 0;
      entries.push_back({"entry" + std::to_string(i) + (dir ? "" : ".md"), dir, text});
      size_t end = text.find(". ");
      leads.push_back(end == std::string::npos ? text : text.substr(0, end + 1));
    }
    const TermStatistics* bg = round % 3 == 0 ? nullptr : &background;
    DirectoryTopics topics = DirectoryTopicsOf(entries, leads, bg);

    std::vector<std::vector<TextTerm>> terms, lead_terms;
    for (size_t i = 0; i < n; ++i) {
      std::string name = "entry" + std::to_string(i);
      terms.push_back(ExtractTerms(name + ". " + entries[i].summary));
      lead_terms.push_back(ExtractTerms(name + ". " + leads[i]));
    }
    std::vector<Keyphrase> phrases = RankKeyphrasesOfTerms(terms, bg, 200);
    ASSERT_EQ(topics.phrases.size(), phrases.size()) << round;
    for (size_t i = 0; i < phrases.size(); ++i) {
      EXPECT_EQ(topics.phrases[i].text, phrases[i].text);
      EXPECT_EQ(topics.phrases[i].score, phrases[i].score);
      EXPECT_EQ(topics.phrases[i].sources, phrases[i].sources);
    }
    if (topics.brief.empty()) continue;
    with_words += topics.words.keys.empty() ? 0 : 1;
    DirectoryWords expected = RankDirectoryWords(terms, lead_terms, bg);
    EXPECT_EQ(topics.words.keys, expected.keys) << round;
    EXPECT_EQ(topics.words.display, expected.display) << round;
    EXPECT_EQ(topics.words.entries, expected.entries) << round;
  }
  EXPECT_GT(with_words, 15u);  // the words were compared
}

}  // namespace
}  // namespace skald
