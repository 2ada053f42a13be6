// Pins the exact output of the extractive summarizer and the keyphrase
// functions on a fixed generated corpus: speed work on the tokenizer and the
// keyphrase code must not change a byte of any summary, overview or ranking.
// The digest below was computed by the code of 79e2f04 (before the
// throughput work); on a mismatch the full dump is written next to the test
// binary (summary_golden_dump.txt) to diff against the old code's.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "common/hash.h"
#include "text/keyphrases.h"
#include "text/summarizer.h"

namespace skald {
namespace {

// Words of the corpus: plain, capitalized, acronyms, mixed case, hyphenated,
// with digits, hex ids, stop words, apostrophes (ASCII and U+2019), and
// non-ASCII (accents, ligatures and full-width forms that NFKC folds, Greek,
// Cyrillic, CJK, Thai, emoji, combining marks).
const std::vector<std::string>& Words() {
  static const std::vector<std::string> kWords = {
      "insulin", "Insulin", "resistance", "resistant", "Resistance", "DNA", "mRNA", "repair",
      "repairs", "repaired", "beta", "cells", "cell", "Cell", "glucose", "tolerance", "mice",
      "mouse", "protein", "proteins", "kinase", "signaling", "signalling", "pathway",
      "pathways", "tumor", "tumour", "growth", "factor", "receptor", "receptors", "p53",
      "covid19", "e1000", "2024", "3.14", "afc1dbf8", "deadbeef42", "the", "and", "of", "in",
      "with", "for", "is", "are", "was", "about", "study", "results", "data", "using",
      "machine", "learning", "Machine", "Learning", "neural", "network", "networks",
      "retrieval", "index", "indexes", "indexing", "vector", "vectors", "search", "query",
      "queries", "ranking", "ranked", "BM25", "HNSW", "graph", "graphs", "database",
      "databases", "storage", "context", "agent", "agents", "memory", "memories", "session",
      "sessions", "state-of-the-art", "long-term", "short-term", "well-known", "end-to-end",
      "don't", "can't", "it's", "don\xE2\x80\x99t", "users\xE2\x80\x99", "na\xC3\xAFve",
      "caf\xC3\xA9", "Caf\xC3\xA9", "M\xC3\xBCller", "stra\xC3\x9F" "e", "\xEF\xAC\x81nance",
      "\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\xA3", "\xCE\xB1\xCE\xBB\xCF\x86\xCE\xB1",
      "\xD0\xB1\xD0\xB5\xD1\x82\xD0\xB0", "\xE7\xB3\x96\xE5\xB0\xBF\xE7\x97\x85",
      "\xE6\x95\xB0\xE6\x8D\xAE\xE5\xBA\x93", "\xE0\xB8\xA0\xE0\xB8\xB2\xE0\xB8\xA9\xE0\xB8\xB2",
      "\xF0\x9F\x98\x80", "e\xCC\x81t\xC3\xA9", "x_y", "foo_bar", "v1.2.3", "U.S.", "e.g.",
      "i.e.", "etc.", "3rd", "1990s", "A", "I", "ok", "go", "run", "runs", "running", "ran",
      "summary", "summaries", "Covers", "topics", "files", "entries", "Where", "Look"};
  return kWords;
}

const std::vector<std::string>& Separators() {
  static const std::vector<std::string> kSeps = {
      " ", " ", " ", " ", " ", " ", " ", " ", " ", "  ", "-", ", ", ", ", "; ", ": ", ". ",
      ". ", "! ", "? ", " - ", " (", ") ", "/", " \"", "\" ", "'", " \xE2\x80\x94 ", "\n",
      "\xE3\x80\x82", " & ", "*", "`", " [", "](x) "};
  return kSeps;
}

std::string Sentence(std::mt19937& rng, size_t words) {
  const auto& w = Words();
  const auto& s = Separators();
  std::string out;
  for (size_t i = 0; i < words; ++i) {
    if (i > 0) out += s[rng() % s.size()];
    out += w[rng() % w.size()];
  }
  return out;
}

// A summary-like text: sentences, sometimes a "Covers a, b and c." list.
std::string Text(std::mt19937& rng) {
  std::string out;
  size_t sentences = 1 + rng() % 8;
  for (size_t i = 0; i < sentences; ++i) {
    if (!out.empty()) out += ' ';
    if (rng() % 6 == 0) {
      out += "Covers " + Sentence(rng, 2) + ", " + Sentence(rng, 1) + ", " + Sentence(rng, 2) +
             " and " + Sentence(rng, 1) + ".";
    } else {
      out += Sentence(rng, 3 + rng() % 14) + ".";
    }
  }
  return out;
}

// A markdown file: sometimes with a title, frontmatter, lists, code.
std::string Markdown(std::mt19937& rng) {
  std::string out;
  if (rng() % 5 == 0) out += "---\ntitle: " + Sentence(rng, 3) + "\n---\n";
  if (rng() % 2 == 0) out += "# " + Sentence(rng, 3) + "\n\n";
  size_t paragraphs = 1 + rng() % 6;
  for (size_t i = 0; i < paragraphs; ++i) {
    switch (rng() % 6) {
      case 0: out += "- " + Sentence(rng, 4) + "\n- " + Sentence(rng, 5) + "\n\n"; break;
      case 1: out += "```\ncode " + Sentence(rng, 3) + "\n```\n\n"; break;
      case 2: out += "## " + Sentence(rng, 2) + "\n\n"; break;
      default: out += Text(rng) + "\n\n"; break;
    }
  }
  return out;
}

void DumpPhrases(const std::vector<Keyphrase>& phrases, std::string* dump) {
  for (const Keyphrase& k : phrases) {
    char score[64];
    std::snprintf(score, sizeof score, "%.17g", k.score);
    *dump += k.text + "|" + score + "|";
    for (size_t s : k.sources) *dump += std::to_string(s) + ",";
    *dump += "\n";
  }
}

std::string GoldenDump() {
  std::mt19937 rng(20261202);
  std::string dump;
  auto summarizer = NewExtractiveSummarizer();

  // Files and their summaries.
  std::vector<std::string> summaries;
  TermStatistics background;
  for (int i = 0; i < 240; ++i) {
    std::string name = "doc_" + std::to_string(i) + (i % 7 == 0 ? ".txt" : ".md");
    Result<std::string> summary = summarizer->SummarizeFile(name, Markdown(rng));
    EXPECT_TRUE(summary.ok());
    std::string s = summary.ok() ? *summary : "";
    dump += "file " + name + ": " + s + "\n";
    summaries.push_back(s);
    background.Add(s);
  }
  // Terms and single-text keyphrases of each summary.
  for (const std::string& s : summaries) {
    for (const TextTerm& t : ExtractTerms(s)) {
      dump += t.key + "|" + t.display + "|" + std::to_string(t.count) + ";";
    }
    dump += "\n";
    DumpPhrases(TextKeyphrases(s, &background, 8), &dump);
    DumpPhrases(TextKeyphrases(s, nullptr, 3), &dump);
  }
  dump += "df: " + std::to_string(background.documents()) + " " +
          std::to_string(background.DocumentFrequency("insulin")) + " " +
          std::to_string(background.DocumentFrequency("insulin resist")) + "\n";
  // Directories of 1 to 60 entries, with and without the background, with
  // sampled entries, then a parent over their abstracts.
  std::vector<EntrySummary> parent;
  size_t next = 0;
  for (int d = 0; d < 12; ++d) {
    size_t n = d == 0 ? 1 : d == 1 ? 60 : 4 + rng() % 30;
    std::vector<EntrySummary> entries;
    for (size_t i = 0; i < n; ++i) {
      size_t at = next++ % summaries.size();
      EntrySummary e;
      e.name = "doc-" + std::to_string(at) + (i % 3 == 0 ? ".md" : "_notes.txt");
      e.summary = i % 11 == 5 ? "" : summaries[at];
      entries.push_back(e);
    }
    std::vector<EntrySummary> sampled;
    for (size_t i : DeterministicSample(entries.size(), 8)) sampled.push_back(entries[i]);
    OverviewContext context;
    context.all_entries = entries;
    context.background = d % 3 == 2 ? nullptr : &background;
    std::string dir = "topic-" + std::to_string(d);
    Result<std::string> overview = summarizer->Overview(dir, sampled, entries.size(), context);
    EXPECT_TRUE(overview.ok());
    std::string text = overview.ok() ? *overview : "";
    std::string abstract = AbstractFromOverview(text);
    dump += "dir " + dir + "\n" + text + "\nL0: " + abstract + "\n";
    Result<std::string> plain = summarizer->Overview(dir, entries, entries.size());
    dump += "plain " + (plain.ok() ? *plain : "") + "\n";
    parent.push_back(EntrySummary{dir, true, abstract});
    std::vector<std::string> texts;
    for (const EntrySummary& e : entries) texts.push_back(e.summary);
    DumpPhrases(RankKeyphrases(texts, &background, 50), &dump);
    DumpPhrases(RankKeyphrases(texts, nullptr, 50), &dump);
  }
  OverviewContext context;
  context.background = &background;
  Result<std::string> root = summarizer->Overview("root", parent, parent.size(), context);
  dump += "root\n" + (root.ok() ? *root : "") + "\n";
  return dump;
}

TEST(SummaryGoldenTest, OutputIsByteIdenticalToTheReference) {
  std::string dump = GoldenDump();
  std::string digest = Sha256Hex(dump);
  // Computed by the extractive:v3 summarizer (the routing branch) before
  // the tokenizer and keyphrase speed-ups merged beside it: they must not
  // change a byte. (extractive:v2, at 79e2f04: 928598f7…48dc.)
  constexpr const char* kGolden =
      "c119993921ab4770c81499b0b23c44ea7c11b19ee6d8d11e944b56c583427639";
  if (digest != kGolden) {
    std::ofstream("summary_golden_dump.txt", std::ios::binary) << dump;
  }
  EXPECT_EQ(digest, kGolden) << "dump (" << dump.size()
                             << " bytes) written to summary_golden_dump.txt";
}

}  // namespace
}  // namespace skald
