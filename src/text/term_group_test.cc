#include "text/term_group.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace skald {
namespace {

size_t IndexOf(const TermGroup& group, std::string_view key) {
  for (size_t k = 0; k < group.size(); ++k) {
    if (group.Key(k) == key) return k;
  }
  return group.size();
}

TEST(TermScannerTest, ScansAsExtractTerms) {
  const std::string text = "Insulin resistance in mice; insulin resistance and DNA repair. Insulin";
  TermScanner scan;
  scan.Scan(text, true);
  std::vector<TextTerm> terms = ExtractTerms(text);
  ASSERT_EQ(scan.size(), terms.size());
  for (size_t i = 0; i < terms.size(); ++i) {
    EXPECT_EQ(scan.Key(i), terms[i].key);
    EXPECT_EQ(scan.Display(i), terms[i].display);
    EXPECT_EQ(scan.Count(i), terms[i].count);
    EXPECT_EQ(scan.HashAt(i), FlatStringMap<int>::Hash(terms[i].key));
    EXPECT_TRUE(scan.Contains(terms[i].key, scan.HashAt(i)));
  }
  EXPECT_FALSE(scan.Contains("absent", FlatStringMap<int>::Hash("absent")));
  // Without spellings: the same keys and counts, no display.
  TermScanner keys_only;
  keys_only.Scan(text, false);
  ASSERT_EQ(keys_only.size(), terms.size());
  EXPECT_EQ(keys_only.Key(0), terms[0].key);
  EXPECT_EQ(keys_only.Display(0), "");
  scan.Scan("", true);
  EXPECT_EQ(scan.size(), 0u);
}

// Spellings merge per text (each text's shown spelling with its count);
// keyphrases prefer a lower-case spelling on a tie, words the smallest.
TEST(TermGroupTest, CountsSourcesAndSpellings) {
  TermGroup group;
  group.AddText(std::vector<TextTerm>{{"dna", "DNA", 2}, {"repair", "repair", 1}});
  group.AddText(std::vector<TextTerm>{{"yeast", "yeast", 1}});
  group.AddText(std::vector<TextTerm>{{"dna", "dna", 1}, {"dna repair", "DNA repair", 1}});
  group.AddText(std::vector<TextTerm>{{"dna", "dna", 1}});
  ASSERT_EQ(group.texts(), 4u);
  ASSERT_EQ(group.size(), 4u);
  const size_t dna = IndexOf(group, "dna");
  EXPECT_EQ(dna, 0u);  // order of first occurrence
  EXPECT_EQ(IndexOf(group, "dna repair"), 3u);
  EXPECT_EQ(group.Count(dna), 4u);
  EXPECT_EQ(group.Held(dna), 3u);
  EXPECT_EQ(group.Sources(dna), (std::vector<size_t>{0, 2, 3}));
  EXPECT_TRUE(group.IsWord(dna));
  EXPECT_FALSE(group.IsWord(3));
  // "DNA" x2 and "dna" x2: a tie.
  EXPECT_EQ(group.KeyphraseSpelling(dna), "dna");
  EXPECT_EQ(group.WordSpelling(dna), "DNA");
  EXPECT_EQ(group.KeyphraseSpelling(3), "DNA repair");
  ASSERT_EQ(group.TermsOf(2).size(), 2u);
  EXPECT_EQ(group.TermsOf(2)[0].term, dna);
  EXPECT_EQ(group.TermsOf(2)[1].term, 3u);
  EXPECT_EQ(group.TermsOf(0)[0].count, 2u);
  EXPECT_TRUE(group.TermsOf(1).size() == 1 && group.TermsOf(1)[0].term == 2u);
}

TEST(TermGroupTest, LeadsMarkTheirTextsTerms) {
  TermGroup by_scan, by_terms;
  TermScanner scan, lead;
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"Glaciers. Moraines and fjords of glaciers.", "Glaciers."},
      {"Deserts. Dunes and oases.", "Dunes and oases."}};
  for (const auto& [text, lead_text] : texts) {
    scan.Scan(text, true);
    by_scan.AddText(scan);
    lead.Scan(lead_text, false);
    by_scan.MarkLead(lead);
    by_terms.AddText(ExtractTerms(text));
    by_terms.MarkLead(ExtractTerms(lead_text));
  }
  for (const TermGroup* group : {&by_scan, &by_terms}) {
    std::vector<std::string> led;
    for (size_t t = 0; t < group->texts(); ++t) {
      for (const TermGroup::TextTermRef& ref : group->TermsOf(t)) {
        if (ref.in_lead) led.emplace_back(group->Key(ref.term));
      }
    }
    // "glaciers" of the first text ("moraines" and "fjords" are not in its
    // lead), "dunes" and "oases" of the second ("and" joins no bigram).
    ASSERT_EQ(led.size(), 3u);
    EXPECT_EQ(led[0], ExtractTerms("glaciers")[0].key);
    EXPECT_EQ(led[1], ExtractTerms("dunes")[0].key);
    EXPECT_EQ(led[2], ExtractTerms("oases")[0].key);
  }
}

TEST(TermGroupTest, DocumentFrequenciesAsAskedOneByOne) {
  TermStatistics background;
  background.Add("yeast cells and DNA repair");
  background.Add("yeast genetics");
  for (int i = 0; i < 100; ++i) background.Add("survey number " + std::to_string(i));
  TermGroup group;
  TermScanner scan;
  for (const char* text : {"Yeast cells: DNA repair in yeast.", "A survey of comets", ""}) {
    scan.Scan(text, true);
    group.AddText(scan);
  }
  std::vector<uint32_t> df = group.DocumentFrequencies(background);
  ASSERT_EQ(df.size(), group.size());
  size_t absent = 0;
  for (size_t k = 0; k < group.size(); ++k) {
    EXPECT_EQ(df[k], background.DocumentFrequency(group.Key(k))) << group.Key(k);
    absent += df[k] == 0;
  }
  EXPECT_GT(absent, 0u);  // "comet" is not in the background
  EXPECT_EQ(df[IndexOf(group, ExtractTerms("yeast")[0].key)], 2u);
}

}  // namespace
}  // namespace skald
