#include "text/summarizer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/strings.h"

namespace skald {
namespace {

std::string Summarize(std::string_view name, std::string_view text) {
  auto summarizer = NewExtractiveSummarizer();
  Result<std::string> summary = summarizer->SummarizeFile(name, text);
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  return summary.ok() ? *summary : "";
}

std::string Overview(std::string_view dir, const std::vector<EntrySummary>& entries, size_t total) {
  auto summarizer = NewExtractiveSummarizer();
  Result<std::string> overview = summarizer->Overview(dir, entries, total);
  EXPECT_TRUE(overview.ok()) << overview.status().ToString();
  return overview.ok() ? *overview : "";
}

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// ---------------------------------------------------------------------------
// TruncateGeneratedText

TEST(TruncateGeneratedTextTest, FittingTextIsUnchanged) {
  EXPECT_EQ(TruncateGeneratedText("", 10), "");
  EXPECT_EQ(TruncateGeneratedText("Short.", 6), "Short.");
  EXPECT_EQ(TruncateGeneratedText("中文句子", 4), "中文句子");  // characters, not bytes
}

TEST(TruncateGeneratedTextTest, CutsAtTheLastSentenceEnd) {
  EXPECT_EQ(TruncateGeneratedText("First one. Second one! Third one is long.", 30),
            "First one. Second one!");
  EXPECT_EQ(TruncateGeneratedText("Is it? Yes it is indeed so.", 12), "Is it?");
  // A period inside a number or a name is not a sentence end.
  EXPECT_EQ(TruncateGeneratedText("Pi is 3.14159 and more words here", 14), "Pi is...");
  EXPECT_EQ(TruncateGeneratedText("See file.txt for the details here", 16), "See file.txt...");
  // Numbers, initials and abbreviations do not end sentences.
  EXPECT_EQ(TruncateGeneratedText("3. Data model is here. More text follows.", 30),
            "3. Data model is here.");
  EXPECT_EQ(TruncateGeneratedText("Use e.g. a key. Then more text follows here.", 20),
            "Use e.g. a key.");
  EXPECT_EQ(TruncateGeneratedText("Ask J. Smith about it. Or not at all, really.", 25),
            "Ask J. Smith about it.");
  EXPECT_EQ(TruncateGeneratedText("Read docs/api.md. Then the rest of it.", 20),
            "Read docs/api.md.");
}

TEST(TruncateGeneratedTextTest, CjkSentenceEnds) {
  EXPECT_EQ(TruncateGeneratedText("第一句。第二句很长很长很长。", 6), "第一句。");
  EXPECT_EQ(TruncateGeneratedText("好吗？好的！然后继续说很多话", 8), "好吗？好的！");
}

TEST(TruncateGeneratedTextTest, FallsBackToWordBoundaryThenCharacters) {
  EXPECT_EQ(TruncateGeneratedText("alpha beta gamma delta", 15), "alpha beta...");
  EXPECT_EQ(TruncateGeneratedText("alpha, beta gamma", 12), "alpha...");  // no dangling comma
  EXPECT_EQ(TruncateGeneratedText("abcdefghij", 6), "abc...");
  EXPECT_EQ(TruncateGeneratedText("无空格的很长中文文本没有句号", 5), "无空...");
  EXPECT_EQ(TruncateGeneratedText("abcdef", 3), "abc");
  EXPECT_EQ(TruncateGeneratedText("abcdef", 0), "");
}

TEST(TruncateGeneratedTextTest, NeverExceedsTheLimitNorCutsACharacter) {
  std::mt19937 rng(3);
  const std::vector<std::string> pieces = {"word", " ",  ". ",   "。",       "字",  "é", "!",
                                           "?",    "\n", "\xff", "\xe4\xbd", "...", "🚀"};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    bool valid = true;
    for (int n = static_cast<int>(rng() % 60); n > 0; --n) {
      const std::string& piece = pieces[rng() % pieces.size()];
      valid &= IsValidUtf8(piece);
      text += piece;
    }
    size_t max = rng() % 40;
    std::string out = TruncateGeneratedText(text, max);
    if (valid) {
      ASSERT_LE(Utf8Length(out), max) << text;
      ASSERT_TRUE(IsValidUtf8(out)) << text;
    } else {
      ASSERT_LE(out.size(), text.size() + 3);
    }
  }
}

// ---------------------------------------------------------------------------
// AbstractFromOverview

TEST(AbstractFromOverviewTest, TakesTheBriefDescription) {
  std::string overview =
      "# auth\n\nHandles login and key rotation.\nTokens expire daily.\n\n"
      "## Directory Coverage\n\nAll 2 entries.\n\n## Detailed Description\n\n### a.md\n\nx";
  EXPECT_EQ(AbstractFromOverview(overview),
            "Handles login and key rotation.\nTokens expire daily.");
}

TEST(AbstractFromOverviewTest, StopsAtTheFirstSubheading) {
  EXPECT_EQ(AbstractFromOverview("Preamble\n# Title\n\nBody text.\n### Sub\nLater"), "Body text.");
  // Without an H1 the brief starts at the top.
  EXPECT_EQ(AbstractFromOverview("Just text.\n## Section\nmore"), "Just text.");
}

TEST(AbstractFromOverviewTest, FallsBackWhenThereIsNoBrief) {
  EXPECT_EQ(AbstractFromOverview("# Title\n## Coverage\nSome text."), "Some text.");
  EXPECT_EQ(AbstractFromOverview("# Only a title"), "Only a title");
  EXPECT_EQ(AbstractFromOverview(""), "");
}

TEST(AbstractFromOverviewTest, CutToTheLimit) {
  std::string overview = "# d\n\n" + Repeat("This sentence has some words. ", 30) + "\n## x";
  std::string abstract = AbstractFromOverview(overview);
  EXPECT_LE(Utf8Length(abstract), 256u);
  EXPECT_TRUE(abstract.ends_with("words.")) << abstract;
  EXPECT_LE(Utf8Length(AbstractFromOverview(overview, 40)), 40u);
}

// ---------------------------------------------------------------------------
// DeterministicSample

TEST(DeterministicSampleTest, AllEntriesWhenFew) {
  EXPECT_EQ(DeterministicSample(0), std::vector<size_t>{});
  EXPECT_EQ(DeterministicSample(3), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(DeterministicSample(32).size(), 32u);
}

TEST(DeterministicSampleTest, MatchesTheReferenceFormula) {
  for (size_t n : {33u, 50u, 100u, 1000u, 123457u}) {
    for (size_t limit : {2u, 5u, 32u}) {
      std::vector<size_t> sample = DeterministicSample(n, limit);
      ASSERT_EQ(sample.size(), limit);
      for (size_t i = 0; i < limit; ++i) {
        EXPECT_EQ(sample[i], i * (n - 1) / (limit - 1)) << n << " " << limit << " " << i;
      }
      EXPECT_EQ(sample.front(), 0u);
      EXPECT_EQ(sample.back(), n - 1);
      for (size_t i = 1; i < limit; ++i) EXPECT_LT(sample[i - 1], sample[i]);
    }
  }
  EXPECT_EQ(DeterministicSample(100, 4), (std::vector<size_t>{0, 33, 66, 99}));
  // Huge directories do not overflow.
  size_t n = size_t{1} << 40;
  EXPECT_EQ(DeterministicSample(n, 32)[31], n - 1);
  EXPECT_EQ(DeterministicSample(n, 32)[16], 16 * (n - 1) / 31);
}

TEST(DeterministicSampleTest, DegenerateLimits) {
  EXPECT_TRUE(DeterministicSample(10, 0).empty());
  EXPECT_EQ(DeterministicSample(10, 1), std::vector<size_t>{0});
  EXPECT_EQ(DeterministicSample(1, 1), std::vector<size_t>{0});
}

// ---------------------------------------------------------------------------
// File summaries

TEST(SummarizeFileTest, DocumentTitleAndLeadingSentences) {
  std::string doc =
      "---\nauthor: someone\n---\n"
      "# Key Rotation\n\n"
      "![diagram](img/rotation.png)\n\n"
      "Keys are   rotated **every day** by the `rotator` service.\n"
      "Old keys stay valid for one hour.\n\n"
      "```bash\nrotate --now  # not prose\n```\n\n"
      "| col | col |\n|-----|-----|\n| cell | cell |\n\n"
      "[Back to index](index.md)\n\n"
      "See [the runbook](runbook.md) when a rotation fails.\n";
  std::string summary = Summarize("rotation.md", doc);
  EXPECT_EQ(summary,
            "Key Rotation: Keys are rotated every day by the rotator service. Old keys stay "
            "valid for one hour. See the runbook when a rotation fails.");
}

TEST(SummarizeFileTest, FrontmatterTitleAndDescription) {
  std::string summary = Summarize(
      "a.md", "---\ntitle: \"Deploy guide\"\ndescription: How to ship.\n---\nRun make deploy.\n");
  EXPECT_EQ(summary, "Deploy guide: How to ship. Run make deploy.");
}

TEST(SummarizeFileTest, ListsAndQuotesKeepTheirText) {
  std::string summary =
      Summarize("l.md", "Steps:\n\n- Install the tool.\n- Run it.\n1. First\n> Quoted words.\n");
  EXPECT_TRUE(Contains(summary, "Install the tool.")) << summary;
  EXPECT_TRUE(Contains(summary, "Quoted words.")) << summary;
  EXPECT_FALSE(Contains(summary, "- ")) << summary;
}

TEST(SummarizeFileTest, PlainTextAndCjk) {
  EXPECT_EQ(Summarize("notes.txt", "Plain text  file.\nSecond line."),
            "Plain text file. Second line.");
  std::string cjk = Summarize("文档.md", "# 密钥轮换\n\n密钥每天轮换一次。旧密钥保留一小时。");
  EXPECT_EQ(cjk, "密钥轮换: 密钥每天轮换一次。旧密钥保留一小时。");
}

TEST(SummarizeFileTest, EmptyInputs) {
  EXPECT_EQ(Summarize("empty.md", ""), "");
  EXPECT_EQ(Summarize("blank.txt", " \n\t\n"), "");
  EXPECT_EQ(Summarize("empty.py", ""), "");
  EXPECT_EQ(Summarize("", "Text without a file name."), "Text without a file name.");
  EXPECT_EQ(Summarize("only.md", "# Just a title\n"), "Just a title");
}

TEST(SummarizeFileTest, HugeInputsStayWithinTheLimit) {
  std::string words = Repeat("Lorem ipsum dolor sit amet consectetur. ", 20000);
  std::string summary = Summarize("big.md", "# Big\n\n" + words);
  EXPECT_LE(Utf8Length(summary), kFileSummaryMaxChars);
  EXPECT_TRUE(summary.starts_with("Big: Lorem ipsum"));
  // About 100 words, never more than 180.
  size_t spaces = std::count(summary.begin(), summary.end(), ' ');
  EXPECT_GE(spaces, 60u);
  EXPECT_LE(spaces, 180u);
  // One giant sentence, one giant CJK line, random bytes.
  EXPECT_LE(Utf8Length(Summarize("a.md", Repeat("word ", 100000))), kFileSummaryMaxChars);
  std::string cjk = Summarize("b.md", Repeat("中文没有空格", 50000));
  EXPECT_LE(Utf8Length(cjk), kFileSummaryMaxChars);
  EXPECT_TRUE(IsValidUtf8(cjk));
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::string bytes(rng() % 3000, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
    EXPECT_LE(Summarize(round % 2 ? "x.md" : "x.cc", bytes).size(), 4 * kFileSummaryMaxChars);
  }
}

TEST(SummarizeFileTest, PythonDocstringAndDefinitions) {
  std::string code =
      "#!/usr/bin/env python3\n"
      "# -*- coding: utf-8 -*-\n"
      "\"\"\"Rotate signing keys.\n\nRuns daily from cron.\n\"\"\"\n"
      "import os\n\n"
      "class Rotator:\n    def rotate(self):\n        pass\n\n"
      "async def main():\n    pass\n\n"
      "def _helper(x):\n    return x\n";
  EXPECT_EQ(Summarize("rotate.py", code),
            "Rotate signing keys. Runs daily from cron. Classes: Rotator. Functions: main, "
            "_helper. Python source, 17 lines.");
}

TEST(SummarizeFileTest, CppSkipsLicenseAndFindsDefinitions) {
  std::string code =
      "// Copyright 2024 Example Inc.\n"
      "// Licensed under the Apache License.\n"
      "\n"
      "#pragma once\n"
      "\n"
      "// Key store: keeps signing keys in memory.\n"
      "// Thread safety: all methods are thread-safe.\n"
      "#include <string>\n"
      "namespace app {\n"
      "class KeyStore {\n"
      " public:\n"
      "  void Add(int key);\n"
      "};\n"
      "class Forward;\n"
      "enum class Mode { kA };\n"
      "std::string Describe(const KeyStore& store);\n"
      "int Count(int a,\n"
      "          int b);\n"
      "TEST(KeyStoreTest, Works) {}\n"
      "}  // namespace app\n";
  EXPECT_EQ(Summarize("key_store.h", code),
            "Key store: keeps signing keys in memory. Thread safety: all methods are "
            "thread-safe. Classes: KeyStore. Enums: Mode. Functions: Describe, Count. C/C++ "
            "header source, 20 lines.");
}

TEST(SummarizeFileTest, OtherLanguages) {
  std::string go =
      "// Package server serves the HTTP API.\npackage server\n\n"
      "type Server struct {\n}\n\nfunc (s *Server) Handle(w Writer) {\n}\n\nfunc New() *Server "
      "{\n}\n";
  EXPECT_EQ(Summarize("server.go", go),
            "Package server serves the HTTP API. Types: Server. Functions: Handle, New. Go "
            "source, 11 lines.");
  std::string ts =
      "/**\n * UI helpers.\n * @module helpers\n */\n"
      "export interface Props {}\nexport const LIMIT = 5;\nexport default function App() {}\n"
      "const hidden = 1;\nexport type Id = string;\n";
  EXPECT_EQ(Summarize("helpers.tsx", ts),
            "UI helpers. Interfaces: Props. Types: Id. Functions: App. Constants: LIMIT. "
            "TypeScript source, 9 lines.");
  std::string rust =
      "//! Vector math.\nuse std::fmt;\npub struct Vec3 {}\nimpl Vec3 {}\n"
      "pub(crate) fn dot() {}\npub trait Norm {}\n";
  EXPECT_EQ(Summarize("vec.rs", rust),
            "Vector math. Traits: Norm. Structs: Vec3. Functions: dot. Rust source, 6 lines.");
  // CMake comments are comments, not markdown headings.
  EXPECT_EQ(Summarize("CMakeLists.txt", "# Builds the app.\nadd_library(app a.cc)\n"),
            "Builds the app. CMake source, 2 lines.");
  // No comment, no definitions: the language and size still say something.
  EXPECT_EQ(Summarize("run.sh", "echo hi\n"), "Shell source, 1 line.");
}

TEST(SummarizeFileTest, LongDefinitionListsAreCapped) {
  std::string code;
  for (int i = 0; i < 30; ++i) code += "def f" + std::to_string(i) + "():\n    pass\n";
  std::string summary = Summarize("many.py", code);
  EXPECT_TRUE(Contains(summary, "Functions: f0, f1,")) << summary;
  EXPECT_TRUE(Contains(summary, "f11 and 18 more.")) << summary;
  EXPECT_FALSE(Contains(summary, "f12")) << summary;
}

TEST(SummarizeFileTest, UntitledDocumentsStateTheirSubject) {
  std::string summary = Summarize(
      "notes.md",
      "Insulin resistance was common in the cohort. Adipose tissue was sampled twice. "
      "Insulin resistance rose where adipose tissue grew.");
  EXPECT_TRUE(summary.starts_with("On insulin resistance and adipose tissue: Insulin resistance was"))
      << summary;
  EXPECT_LE(Utf8Length(summary), kFileSummaryMaxChars);
  // A titled document is introduced by its title; one that repeats nothing
  // by its leading sentences.
  EXPECT_TRUE(Summarize("t.md", "# Hormones\n\nInsulin acts. Insulin binds.").starts_with("Hormones: "));
  EXPECT_EQ(Summarize("r.md", "Read me first."), "Read me first.");
}

TEST(SummarizeFileTest, UnknownExtensionsAreDocuments) {
  EXPECT_EQ(Summarize("data.json", "{\"a\": 1}"), "{\"a\": 1}");
  EXPECT_EQ(Summarize("README", "Read me first."), "Read me first.");
}

// ---------------------------------------------------------------------------
// Overviews

TEST(OverviewTest, Layout) {
  std::vector<EntrySummary> entries = {
      {"login.md", false, "Login: Users sign in with a password or a key. Sessions last a day."},
      {"rotation", true, "Key rotation runbooks and schedules."},
      {"tokens.md", false, "Tokens are signed with the current key."},
  };
  std::string overview = Overview("auth", entries, 3);
  EXPECT_TRUE(overview.starts_with("# auth\n\n")) << overview;
  size_t brief = overview.find("\n\n") + 2;
  EXPECT_NE(overview[brief], '#') << "no heading before the brief description";
  size_t coverage = overview.find("## Directory Coverage");
  size_t detail = overview.find("## Detailed Description");
  ASSERT_NE(coverage, std::string::npos);
  ASSERT_NE(detail, std::string::npos);
  EXPECT_LT(coverage, detail);
  EXPECT_TRUE(Contains(overview, "All 3 entries"));
  size_t login = overview.find("### login.md\n\nLogin: Users sign in");
  size_t rotation = overview.find("### rotation/\n\nKey rotation runbooks");
  size_t tokens = overview.find("### tokens.md\n\nTokens are signed");
  ASSERT_NE(login, std::string::npos) << overview;
  ASSERT_NE(rotation, std::string::npos) << overview;
  ASSERT_NE(tokens, std::string::npos) << overview;
  EXPECT_LT(detail, login);
  EXPECT_LT(login, rotation);
  EXPECT_LT(rotation, tokens);

  // The L0 says what the directory is about: its entries' salient terms.
  std::string abstract = AbstractFromOverview(overview);
  EXPECT_TRUE(abstract.starts_with("Covers ")) << abstract;
  for (const char* term : {"login", "rotation", "password", "tokens", "runbooks"}) {
    EXPECT_TRUE(Contains(abstract, term)) << term << " in " << abstract;
  }
  EXPECT_LE(Utf8Length(abstract), kAbstractMaxChars);
  // Where to look: leading topics point at the entries that hold them.
  size_t where = overview.find("## Where to Look\n");
  ASSERT_NE(where, std::string::npos) << overview;
  EXPECT_LT(where, coverage);
  EXPECT_TRUE(Contains(overview, "\n- rotation: rotation/\n")) << overview;
  EXPECT_TRUE(Contains(overview, "\n- login: login.md\n")) << overview;

  // Entries with no word of a topic fall back to their leading sentences.
  std::string wordless = AbstractFromOverview(
      Overview("d", {{"a.md", false, "Go on. 42."}, {"b", true, "Up 7."}}, 2));
  EXPECT_EQ(wordless, "a.md: Go on. b/: Up 7.");
}

// A directory is judged by all its entries (not only the described sample)
// against the background of the indexed files.
TEST(OverviewTest, TopicsComeFromEveryEntryAgainstTheBackground) {
  TermStatistics background;
  std::vector<EntrySummary> all;
  for (int i = 0; i < 100; ++i) {
    std::string summary = "Insulin resistance in the clinical trial cohort " + std::to_string(i) +
                          (i == 1 || i == 2 ? ", with thermogenesis measured." : ".");
    all.push_back({"e" + std::to_string(1000 + i) + ".md", false, summary});
    background.Add(summary);
  }
  for (int i = 0; i < 400; ++i) {
    background.Add("A clinical trial of drug " + std::to_string(i) + " in the cohort.");
  }
  std::vector<EntrySummary> sampled;
  for (size_t i : DeterministicSample(all.size())) sampled.push_back(all[i]);
  ASSERT_FALSE(Contains(sampled[1].summary, "thermogenesis"));  // entries 1 and 2 are not described

  auto summarizer = NewExtractiveSummarizer();
  OverviewContext context;
  context.all_entries = all;
  context.background = &background;
  Result<std::string> overview = summarizer->Overview("d", sampled, all.size(), context);
  ASSERT_TRUE(overview.ok()) << overview.status().ToString();
  std::string abstract = AbstractFromOverview(*overview);
  EXPECT_TRUE(abstract.starts_with("Covers insulin resistance")) << abstract;
  EXPECT_TRUE(Contains(*overview, "thermogenesis")) << *overview;
  EXPECT_FALSE(Contains(*overview, "### e1001.md"));
  EXPECT_LE(Utf8Length(*overview), kOverviewMaxChars);

  // Without the background the trial is as salient as the resistance: both
  // are in every entry.
  Result<std::string> alone = summarizer->Overview("d", sampled, all.size());
  ASSERT_TRUE(alone.ok());
  EXPECT_TRUE(Contains(AbstractFromOverview(*alone), "clinical trial")) << *alone;

  // The same input gives the same overview.
  EXPECT_EQ(*summarizer->Overview("d", sampled, all.size(), context), *overview);
}

// A big directory routes by every entry's own words, not only its most
// frequent ones: a query usually targets one entry of hundreds.
TEST(OverviewTest, EveryEntrysOwnWordsInABigDirectory) {
  TermStatistics background;
  std::vector<EntrySummary> all;
  std::vector<std::string> own;
  for (int i = 0; i < 300; ++i) {
    own.push_back(std::string("kelp") + static_cast<char>('a' + i % 26) +
                  static_cast<char>('a' + i / 26));
    std::string summary = "Report on " + own.back() + " in the cohort of the survey.";
    all.push_back({std::to_string(10000000 + i) + ".md", false, summary});
    background.Add(summary);
  }
  for (int i = 0; i < 400; ++i) background.Add("The survey of the cohort, report " + std::to_string(i));
  std::vector<EntrySummary> sampled;
  for (size_t i : DeterministicSample(all.size())) sampled.push_back(all[i]);
  OverviewContext context;
  context.all_entries = all;
  context.background = &background;
  Result<std::string> overview =
      NewExtractiveSummarizer()->Overview("d", sampled, all.size(), context);
  ASSERT_TRUE(overview.ok()) << overview.status().ToString();
  EXPECT_LE(Utf8Length(*overview), kOverviewMaxChars);
  for (const std::string& word : own) EXPECT_TRUE(Contains(*overview, word)) << word;
  size_t topics = overview->find("\n## Topics\n\nAlso: ");
  size_t entries = overview->find("\n## Entry Keywords\n\n");
  size_t coverage = overview->find("\n## Directory Coverage\n\n32 of 300 entries");
  ASSERT_NE(topics, std::string::npos) << *overview;
  ASSERT_NE(entries, std::string::npos) << *overview;
  ASSERT_NE(coverage, std::string::npos) << *overview;
  EXPECT_LT(topics, entries);
  EXPECT_LT(entries, coverage);
  EXPECT_TRUE(Contains(*overview, "## Detailed Description\n\n### 10000000.md")) << *overview;
  // The words shared with the whole background say nothing about the directory.
  EXPECT_FALSE(Contains(overview->substr(0, coverage), "survey")) << *overview;
}

TEST(OverviewTest, SampledCoverage) {
  std::vector<EntrySummary> entries;
  for (size_t i : DeterministicSample(100)) {
    entries.push_back(
        {"file" + std::to_string(i) + ".md", false, "About topic " + std::to_string(i) + "."});
  }
  std::string overview = Overview("many", entries, 100);
  EXPECT_TRUE(Contains(overview, "32 of 100 entries")) << overview;
  EXPECT_TRUE(Contains(overview, "other 68")) << overview;
  EXPECT_TRUE(Contains(overview, "### file99.md")) << overview;
}

TEST(OverviewTest, HugeInputsAreShortenedEvenly) {
  std::vector<EntrySummary> entries;
  for (int i = 0; i < 32; ++i) {
    std::string summary = "Entry " + std::to_string(i) + " explains things. " +
                          Repeat("这是一个很长的中文摘要句子。", 300);
    entries.push_back({"entry_" + std::to_string(i) + ".md", i % 5 == 0, summary});
  }
  std::string overview = Overview("big", entries, 5000);
  EXPECT_LE(Utf8Length(overview), kOverviewMaxChars);
  EXPECT_GT(Utf8Length(overview), kOverviewMaxChars - 450);  // the budget is used
  EXPECT_TRUE(IsValidUtf8(overview));
  // Every entry keeps a heading and a (shortened) summary.
  for (int i = 0; i < 32; ++i) {
    std::string heading = "### entry_" + std::to_string(i) + ".md" + (i % 5 == 0 ? "/" : "");
    std::string expected = heading + "\n\nEntry " + std::to_string(i) + " explains things.";
    EXPECT_TRUE(Contains(overview, expected)) << heading;
  }
  std::string abstract = AbstractFromOverview(overview);
  EXPECT_FALSE(abstract.empty());
  EXPECT_LE(Utf8Length(abstract), kAbstractMaxChars);
}

TEST(OverviewTest, LongNamesStillFit) {
  std::vector<EntrySummary> entries;
  for (int i = 0; i < 32; ++i) {
    entries.push_back({std::to_string(i) + std::string(250, 'n'), false, "Summary text."});
  }
  std::string overview = Overview(std::string(300, 'd'), entries, 32);
  EXPECT_LE(Utf8Length(overview), kOverviewMaxChars);
  EXPECT_TRUE(overview.starts_with("# ddd"));
  EXPECT_FALSE(AbstractFromOverview(overview).empty());
}

TEST(OverviewTest, EmptyDirectoryAndEmptySummaries) {
  std::string empty = Overview("nothing", {}, 0);
  EXPECT_TRUE(empty.starts_with("# nothing\n\nEmpty directory.")) << empty;
  EXPECT_TRUE(Contains(empty, "## Directory Coverage"));
  EXPECT_EQ(AbstractFromOverview(empty), "Empty directory.");

  std::string no_summaries = Overview("d", {{"a.md", false, ""}, {"b", true, "  "}}, 2);
  EXPECT_EQ(AbstractFromOverview(no_summaries), "Contains a.md, b/.") << no_summaries;
  EXPECT_TRUE(Contains(no_summaries, "### a.md\n\n(no summary)"));
}

TEST(OverviewTest, RejectsFewerTotalEntriesThanGiven) {
  auto summarizer = NewExtractiveSummarizer();
  std::vector<EntrySummary> entries = {{"a", false, "x"}, {"b", false, "y"}};
  EXPECT_EQ(summarizer->Overview("d", entries, 1).status().code(), StatusCode::kInvalidArgument);
}

TEST(ExtractiveSummarizerTest, NameAndConcurrentUse) {
  auto summarizer = NewExtractiveSummarizer();
  EXPECT_EQ(summarizer->Name(), "extractive:v3");
  const std::string doc = "# T\n\nSome text here. More text.";
  const std::string expected = *summarizer->SummarizeFile("t.md", doc);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        Result<std::string> s = summarizer->SummarizeFile("t.md", doc);
        if (!s.ok() || *s != expected) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
}  // namespace skald
