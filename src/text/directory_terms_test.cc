#include "text/directory_terms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/strings.h"
#include "text/sentences.h"
#include "text/term_list.h"
#include "text/tokenizer.h"
#include "text/text_util.h"

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

// Files scanned ahead (ScanFileEntry, as ingestion does when it summarizes
// them) give the same topics as the directory scanning them itself, and the
// same keys as KeysOf of their summaries.
TEST(DirectoryTopicsOfTest, EntriesScannedAheadGiveTheSameTopics) {
  const std::vector<std::string> words = {
      "insulin", "Insulin", "resistance", "DNA", "repair", "yeast", "Yeast", "cells",
      "telescope", "Mirrors", "survey", "comets", "glaciers", "moraines", "the", "and", "of",
      "caf\xC3\xA9", "M\xC3\xBCller", "well-known", "p53", "2024", "Covers", "mRNA"};
  const std::vector<std::string> seps = {" ", " ", " ", ", ", ". ", "-", "; ", "\n\n", ".  ",
                                         "? "};
  const std::vector<std::string> names = {"notes_on-Insulin.md", "yeast.cells.v2.txt",
                                          "Survey", "DNA-repair_2024.md", "a.b", ".hidden.md"};
  std::mt19937_64 rng(11);
  size_t compared = 0;
  for (int round = 0; round < 40; ++round) {
    TermStatistics background, background_ahead;
    std::vector<EntrySummary> entries;
    std::vector<std::string> leads;
    std::vector<FileEntryScan> scans;
    const size_t n = 1 + rng() % 10;
    for (size_t i = 0; i < n; ++i) {
      std::string text;
      for (size_t w = 0, len = rng() % 40; w < len; ++w) {
        text += words[rng() % words.size()] + seps[rng() % seps.size()];
      }
      const bool dir = rng() % 4 == 0;
      std::string name = names[rng() % names.size()] + std::to_string(i);
      if (!dir && rng() % 2 == 0) name += ".md";
      entries.push_back({name, dir, text});
      leads.emplace_back(FirstSentence(CollapseSpace(text)));
      background.Add(TermStatistics::KeysOf(text));
      FileEntryScan scan = ScanFileEntry(name, text);
      background_ahead.Add(scan.keys);
      // The same keys as KeysOf, as a set.
      TermKeys keys = TermStatistics::KeysOf(text);
      std::vector<std::string> a, b;
      for (size_t k = 0, begin = 0; k < keys.ends.size(); begin = keys.ends[k++]) {
        a.push_back(keys.bytes.substr(begin, keys.ends[k] - begin));
      }
      for (size_t k = 0, begin = 0; k < scan.keys.ends.size(); begin = scan.keys.ends[k++]) {
        b.push_back(scan.keys.bytes.substr(begin, scan.keys.ends[k] - begin));
      }
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b) << round << " " << text;
      scans.push_back(std::move(scan));
    }
    // Directories are never scanned ahead; some files are not either.
    std::vector<const EntryTerms*> scanned(n, nullptr);
    for (size_t i = 0; i < n; ++i) {
      if (!entries[i].is_dir && rng() % 4 != 0) scanned[i] = scans[i].entry.get();
    }
    const TermStatistics* bg = round % 3 == 0 ? nullptr : &background;
    DirectoryTopics plain = DirectoryTopicsOf(entries, leads, bg);
    DirectoryTopics ahead = DirectoryTopicsOf(entries, leads, bg, scanned);
    EXPECT_EQ(plain.brief, ahead.brief) << round;
    ASSERT_EQ(plain.phrases.size(), ahead.phrases.size()) << round;
    for (size_t i = 0; i < plain.phrases.size(); ++i) {
      EXPECT_EQ(plain.phrases[i].text, ahead.phrases[i].text);
      EXPECT_EQ(plain.phrases[i].score, ahead.phrases[i].score);
      EXPECT_EQ(plain.phrases[i].sources, ahead.phrases[i].sources);
    }
    EXPECT_EQ(plain.words.keys, ahead.words.keys) << round;
    EXPECT_EQ(plain.words.display, ahead.words.display) << round;
    EXPECT_EQ(plain.words.entries, ahead.words.entries) << round;
    compared += plain.words.keys.empty() ? 0 : 1;
    // The background counted from the scans answers as the one from KeysOf.
    for (const EntrySummary& e : entries) {
      for (const TextTerm& t : ExtractTerms(e.summary)) {
        EXPECT_EQ(background.DocumentFrequency(t.key), background_ahead.DocumentFrequency(t.key));
      }
    }
  }
  EXPECT_GT(compared, 20u);
}

// Up to 29 of `words`, each followed by one of `seps`, drawn from `rng`.
std::string RandomText(std::mt19937_64& rng, const std::vector<std::string>& words,
                       const std::vector<std::string>& seps) {
  std::string text;
  for (size_t w = 0, len = rng() % 30; w < len; ++w) {
    text += words[rng() % words.size()] + seps[rng() % seps.size()];
  }
  return text;
}

// An entry scanned ahead marks as in its lead exactly the terms of its
// name and its summary's first sentence (collapsed), whether that lead is
// found within the one scan (a collapsed summary) or scanned apart.
TEST(ScanFileEntryTest, LeadTermsAreTheTermsOfNameAndFirstSentence) {
  const std::vector<std::string> words = {
      "insulin", "Insulin", "resistance", "DNA", "repair", "yeast", "cells", "U.S.",
      "e.g.", "3.14", "J.", "well-known", "p53", "caf\xC3\xA9", "\xE6\xB0\xB4\xE7\x94\xB0",
      "the", "of", "Survey"};
  const std::vector<std::string> seps = {" ", " ", " ", ", ", ". ", "-", "? ", "! ", "\n",
                                         ".  ", " \t", "\xE3\x80\x82", "."};
  const std::vector<std::string> names = {"notes_on-Insulin.md", "yeast.cells.txt", "Survey",
                                          "DNA  repair", "a.b"};
  std::mt19937_64 rng(5);
  size_t one_scan = 0, apart = 0;
  for (int round = 0; round < 400; ++round) {
    std::string summary = RandomText(rng, words, seps);
    if (rng() % 3 == 0) summary = CollapseSpace(summary);
    const std::string name = names[rng() % names.size()];
    (IsCollapsedSpace(summary) ? one_scan : apart)++;
    // The entry's name as ScanFileEntry reads it: '_' and '-' as spaces,
    // the extension dropped.
    std::string entry_name = name;
    std::replace_if(entry_name.begin(), entry_name.end(),
                    [](char c) { return c == '_' || c == '-'; }, ' ');
    if (size_t dot = entry_name.rfind('.'); dot != std::string::npos && dot > 0) {
      entry_name.resize(dot);
    }
    std::set<std::string> lead;
    for (const TextTerm& t :
         ExtractTerms(entry_name + ". " + std::string(FirstSentence(CollapseSpace(summary))))) {
      lead.insert(t.key);
    }
    FileEntryScan scan = ScanFileEntry(name, summary);
    ASSERT_NE(scan.entry, nullptr);
    for (const EntryTerms::Term& t : scan.entry->terms) {
      const std::string key(scan.entry->Key(t));
      EXPECT_EQ(t.in_lead, lead.count(key) > 0) << round << " [" << summary << "] " << key;
    }
  }
  EXPECT_GT(one_scan, 100u);
  EXPECT_GT(apart, 100u);
}

// An entry's terms keep the spelling the scan shows (ExtractTerms'
// display), stored only when it differs from the key; a spelling of 64 KiB
// or more (a word padded with ignorable soft hyphens) is shown as its key.
TEST(ScanFileEntryTest, EntryTermsKeepTheShownSpelling) {
  const std::string summary = "Insulin resistance in DNA repair and mRNA splicing of beta cells";
  FileEntryScan scan = ScanFileEntry("notes.md", summary);
  ASSERT_NE(scan.entry, nullptr);
  std::map<std::string, std::string> shown;
  for (const TextTerm& t : ExtractTerms("notes. " + summary)) shown[t.key] = t.display;
  ASSERT_EQ(scan.entry->terms.size(), shown.size());
  size_t same = 0;
  for (const EntryTerms::Term& t : scan.entry->terms) {
    const std::string key(scan.entry->Key(t));
    EXPECT_EQ(scan.entry->Display(t), shown[key]) << key;
    same += t.display_size == EntryTerms::kSameAsKey ? 1 : 0;
  }
  EXPECT_GT(same, 0u);                           // "beta", "cells"...
  EXPECT_LT(same, scan.entry->terms.size());     // "DNA", "mRNA", "resistance"...

  std::string padded = "ins";
  for (int i = 0; i < 40000; ++i) padded += "\xC2\xAD";  // U+00AD, 2 bytes each
  padded += "ulin";
  FileEntryScan long_word = ScanFileEntry("notes.md", padded + " resistance");
  ASSERT_NE(long_word.entry, nullptr);
  bool found = false;
  for (const EntryTerms::Term& t : long_word.entry->terms) {
    if (long_word.entry->Key(t) != "insulin") continue;
    found = true;
    EXPECT_EQ(long_word.entry->Display(t), "insulin");
  }
  EXPECT_TRUE(found);
}

// The summary's terms an entry scan hands on (for its record's lexical
// abstract) are the tokenizer's terms of the summary alone, for summaries
// of Latin, CJK, numbers, abbreviations and punctuation; none are handed on
// for a summary that does not start with an ASCII letter or digit.
TEST(ScanFileEntryTest, SummaryTermsAreTheTokenizersTermsOfTheSummary) {
  struct Collect final : TermSink {
    void Term(std::string_view term) override { terms.emplace_back(term); }
    std::vector<std::string> terms;
  };
  auto tokenizer = NewIcuTokenizer();
  ASSERT_TRUE(tokenizer.ok());
  const std::vector<std::string> words = {
      "insulin", "Insulin", "resistance", "DNA", "repair", "U.S.", "e.g.", "3.14", "J.",
      "well-known", "p53", "caf\xC3\xA9", "\xE6\xB0\xB4\xE7\x94\xB0", "the", "(a)", "'s",
      "\xE0\xB8\xAA\xE0\xB8\xA7\xE0\xB8\xB1\xE0\xB8\xAA\xE0\xB8\x94\xE0\xB8\xB5"};
  const std::vector<std::string> seps = {" ", ", ", ". ", "-", "? ", "\n", ".", ":", "'"};
  std::mt19937_64 rng(7);
  size_t handed = 0, not_handed = 0;
  for (int round = 0; round < 400; ++round) {
    std::string summary = RandomText(rng, words, seps);
    FileEntryScan scan =
        ScanFileEntry(round % 2 ? "notes.md" : "a-b_c", summary, /*with_summary_terms=*/true);
    const bool alnum = !summary.empty() && (IsAsciiAlpha(summary[0]) || IsAsciiDigit(summary[0]));
    if (!alnum) {
      EXPECT_EQ(scan.summary_terms, nullptr) << summary;
      ++not_handed;
      continue;
    }
    ASSERT_NE(scan.summary_terms, nullptr) << summary;
    ++handed;
    EXPECT_EQ(scan.summary_terms->tokenizer_name(), (*tokenizer)->Name());
    EXPECT_EQ(scan.summary_terms->text_bytes(), summary.size());
    Collect given, alone;
    scan.summary_terms->Replay(&given);
    (*tokenizer)->ForEachTerm(summary, &alone);
    EXPECT_EQ(given.terms, alone.terms) << round << " [" << summary << "]";
  }
  EXPECT_GT(handed, 100u);
  EXPECT_GT(not_handed, 50u);
}

}  // namespace
}  // namespace skald
