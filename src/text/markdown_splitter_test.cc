#include "text/markdown_splitter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/strings.h"

namespace skald {
namespace {

// Characters as the splitter counts them: well-formed UTF-8 sequences count
// one, every other byte counts one (IsValidUtf8 is the oracle).
size_t Chars(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    i += (len > 1 && i + len <= s.size() && IsValidUtf8(s.substr(i, len))) ? len : 1;
  }
  return n;
}

std::string NonSpace(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') out += c;
  }
  return out;
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> Paths(const MarkdownSplit& split) {
  std::vector<std::string> paths;
  for (const SplitFile& f : split.files) paths.push_back(f.path);
  return paths;
}

MarkdownSplit Split(std::string_view text, std::string_view name,
                    const MarkdownSplitOptions& options = {}) {
  Result<MarkdownSplit> split = SplitMarkdown(text, name, options);
  EXPECT_TRUE(split.ok()) << split.status().ToString();
  return split.ok() ? std::move(split).value() : MarkdownSplit{};
}

// The invariants every split must keep.
void CheckInvariants(const MarkdownSplit& split, std::string_view input,
                     const MarkdownSplitOptions& options) {
  ASSERT_FALSE(split.files.empty());
  EXPECT_FALSE(split.root_name.empty());
  EXPECT_TRUE(IsValidUtf8(split.root_name));
  std::string joined;
  std::set<std::string> dirs{""};
  for (const std::string& dir : split.dirs) {
    EXPECT_TRUE(dirs.count(DirOf(dir))) << "parent created after child: " << dir;
    EXPECT_TRUE(dirs.insert(dir).second) << "dir listed twice: " << dir;
  }
  std::map<std::string, std::set<std::string>> names;  // dir -> lower-case entry names
  for (const std::string& dir : split.dirs) {
    EXPECT_TRUE(names[DirOf(dir)].insert(AsciiLower(BaseOf(dir))).second) << dir;
  }
  for (const SplitFile& file : split.files) {
    joined += file.content;
    EXPECT_TRUE(file.path.ends_with(".md")) << file.path;
    EXPECT_TRUE(IsValidUtf8(file.path)) << file.path;
    EXPECT_TRUE(dirs.count(DirOf(file.path))) << "no dir for " << file.path;
    EXPECT_TRUE(names[DirOf(file.path)].insert(AsciiLower(BaseOf(file.path))).second)
        << "duplicate name " << file.path;
    for (const std::string& part : skald::Split(file.path, '/')) {
      EXPECT_FALSE(part.empty() || part == "." || part == "..") << file.path;
    }
    EXPECT_LE(Chars(file.content), static_cast<size_t>(options.max_section_chars)) << file.path;
    EXPECT_LE(EstimateParserTokens(file.content), options.max_section_tokens) << file.path;
  }
  EXPECT_EQ(NonSpace(joined), NonSpace(input)) << "content lost, duplicated or reordered";
}

std::string Words(int n, const std::string& word = "lorem") {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += (i % 12 == 0) ? ".\n" : " ";
    out += word;
  }
  return out + ".";
}

// A section of about `tokens` tokens (each "word " is 5 x 0.3 = 1.5 tokens).
std::string Section(const std::string& heading, int tokens) {
  return heading + "\n\n" + Words(tokens * 2 / 3) + "\n\n";
}

TEST(EstimateParserTokensTest, WeightsCjkAndOtherCharacters) {
  EXPECT_EQ(EstimateParserTokens(""), 0);
  EXPECT_EQ(EstimateParserTokens("   \n\t "), 0);
  EXPECT_EQ(EstimateParserTokens("hello world"), 3);           // 10 x 0.3
  EXPECT_EQ(EstimateParserTokens("你好世界"), 2);              // 4 x 0.7 = 2.8
  EXPECT_EQ(EstimateParserTokens("かなカナ한국"), 4);          // kana and Hangul: 6 x 0.7 = 4.2
  EXPECT_EQ(EstimateParserTokens("中文 text"), 2);             // 1.4 + 1.2 = 2.6
  EXPECT_EQ(EstimateParserTokens("abc\u3000def\u00a0gh"), 2);  // Unicode spaces skipped: 8 x 0.3
  EXPECT_EQ(EstimateParserTokens("\xff\xfe\xfd\xfc"), 1);      // invalid bytes: 4 x 0.3
  EXPECT_EQ(EstimateParserTokens(std::string(1000, 'x')), 300);
  EXPECT_EQ(EstimateParserTokens(std::string(3000, 'x')), 900);
}

TEST(MarkdownSplitOptionsTest, Validate) {
  EXPECT_TRUE(MarkdownSplitOptions{}.Validate().ok());
  MarkdownSplitOptions o;
  o.max_section_tokens = 0;
  EXPECT_EQ(o.Validate().code(), StatusCode::kInvalidArgument);
  o = {};
  o.max_section_chars = 0;
  EXPECT_EQ(o.Validate().code(), StatusCode::kInvalidArgument);
  o = {};
  o.min_section_tokens = o.max_section_tokens + 1;
  EXPECT_EQ(o.Validate().code(), StatusCode::kInvalidArgument);
  o.min_section_tokens = -1;
  EXPECT_EQ(o.Validate().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SplitMarkdown("text", "doc", o).status().code(), StatusCode::kInvalidArgument);
}

TEST(SanitizePathSegmentTest, KeepsWordCharactersOfAnyScript) {
  EXPECT_EQ(SanitizePathSegment("Hello World"), "Hello_World");
  EXPECT_EQ(SanitizePathSegment("  a \t\n b  "), "a_b");
  EXPECT_EQ(SanitizePathSegment("API: Keys/Tokens?"), "API_KeysTokens");
  EXPECT_EQ(SanitizePathSegment("a & b"), "a_b");
  EXPECT_EQ(SanitizePathSegment("v1.2-beta_3"), "v1.2-beta_3");
  EXPECT_EQ(SanitizePathSegment("..hidden_."), "hidden");
  EXPECT_EQ(SanitizePathSegment("认证 指南"), "认证_指南");
  EXPECT_EQ(SanitizePathSegment("Привет, мир!"), "Привет_мир");
  EXPECT_EQ(SanitizePathSegment("مرحبا بالعالم"), "مرحبا_بالعالم");
  EXPECT_EQ(SanitizePathSegment("カタカナ ひらがな"), "カタカナ_ひらがな");
  EXPECT_EQ(SanitizePathSegment("한국어 문서"), "한국어_문서");
  EXPECT_EQ(SanitizePathSegment("Café crème"), "Café_crème");
  EXPECT_EQ(SanitizePathSegment("emoji 🚀 rocket"), "emoji_rocket");
}

TEST(SanitizePathSegmentTest, EmptyAndUnsafeNamesBecomeSection) {
  EXPECT_EQ(SanitizePathSegment(""), "section");
  EXPECT_EQ(SanitizePathSegment("???"), "section");
  EXPECT_EQ(SanitizePathSegment("."), "section");
  EXPECT_EQ(SanitizePathSegment(".."), "section");
  EXPECT_EQ(SanitizePathSegment("/"), "section");
  EXPECT_EQ(SanitizePathSegment("../../etc/passwd"), "etcpasswd");
}

TEST(SanitizePathSegmentTest, InvalidUtf8IsDropped) {
  EXPECT_EQ(SanitizePathSegment("a\xff"
                                "b\xc3"),
            "ab");
  EXPECT_EQ(SanitizePathSegment("\xed\xa0\x80x"), "x");  // surrogate
  EXPECT_TRUE(IsValidUtf8(SanitizePathSegment("\xe4\xbd mixed \xa0 bytes")));
}

TEST(SanitizePathSegmentTest, LongNamesAreShortenedWithAHash) {
  std::string long_name(80, 'a');
  std::string out = SanitizePathSegment(long_name);
  EXPECT_EQ(Utf8Length(out), 50u);
  EXPECT_EQ(out.substr(0, 42), std::string(41, 'a') + "_");
  EXPECT_EQ(out, SanitizePathSegment(long_name));
  EXPECT_NE(out, SanitizePathSegment(std::string(81, 'a')));  // same prefix, other hash
  // 50 characters exactly are kept; CJK counts characters, not bytes.
  EXPECT_EQ(SanitizePathSegment(std::string(50, 'b')), std::string(50, 'b'));
  std::string cjk;
  for (int i = 0; i < 60; ++i) cjk += "字";
  EXPECT_EQ(Utf8Length(SanitizePathSegment(cjk)), 50u);
  EXPECT_TRUE(IsValidUtf8(SanitizePathSegment(cjk)));
}

TEST(FindMarkdownHeadingsTest, AtxHeadingsOnly) {
  auto headings = FindMarkdownHeadings(
      "# One\n"
      "text\n"
      "## Two ##\n"
      "#hashtag is not a heading\n"
      "####### seven is not a heading\n"
      "###### Six\n"
      "    # indented code\n"
      "#\n"
      "### C#\n");
  ASSERT_EQ(headings.size(), 4u);
  EXPECT_EQ(headings[0].level, 1);
  EXPECT_EQ(headings[0].title, "One");
  EXPECT_EQ(headings[0].begin, 0u);
  EXPECT_EQ(headings[0].line_end, 5u);
  EXPECT_EQ(headings[1].title, "Two");
  EXPECT_EQ(headings[1].level, 2);
  EXPECT_EQ(headings[2].title, "Six");
  EXPECT_EQ(headings[2].level, 6);
  EXPECT_EQ(headings[3].title, "C#");
}

TEST(FindMarkdownHeadingsTest, IgnoresCodeFencesCommentsAndFrontmatter) {
  auto headings = FindMarkdownHeadings(
      "---\n"
      "title: Doc\n"
      "# yaml comment\n"
      "---\n"
      "# Real\n"
      "```python\n"
      "# comment in code\n"
      "```\n"
      "~~~~\n"
      "# still code\n"
      "~~~\n"
      "# still code: the closing fence is too short\n"
      "~~~~~\n"
      "<!-- comment\n"
      "# hidden\n"
      "-->\n"
      "<!-- one line --> text\n"
      "## After\n");
  ASSERT_EQ(headings.size(), 2u);
  EXPECT_EQ(headings[0].title, "Real");
  EXPECT_EQ(headings[1].title, "After");
}

TEST(FindMarkdownHeadingsTest, UnclosedFenceHidesTheRest) {
  EXPECT_TRUE(FindMarkdownHeadings("```\n# a\n# b\n").empty());
  // Inline triple backticks are not a fence.
  EXPECT_EQ(FindMarkdownHeadings("```code``` inline\n# a\n").size(), 1u);
}

TEST(SplitMarkdownTest, SmallDocumentIsOneFileKeptWhole) {
  std::string text = "# Title\n\nShort text.\n\n## Part\n\nMore.\n";
  MarkdownSplit split = Split(text, "Guide");
  EXPECT_EQ(split.root_name, "Guide");
  EXPECT_TRUE(split.dirs.empty());
  ASSERT_EQ(split.files.size(), 1u);
  EXPECT_EQ(split.files[0].path, "Guide.md");
  EXPECT_EQ(split.files[0].content, text);
}

TEST(SplitMarkdownTest, EmptyAndBlankDocuments) {
  for (std::string text : {"", "   \n\n\t\n"}) {
    MarkdownSplit split = Split(text, "empty doc");
    EXPECT_EQ(split.root_name, "empty_doc");
    ASSERT_EQ(split.files.size(), 1u);
    EXPECT_EQ(split.files[0].path, "empty_doc.md");
    EXPECT_EQ(split.files[0].content, text);
  }
  // More white space than one file may hold: one empty file.
  MarkdownSplit blank = Split(std::string(10000, '\n'), "blank");
  ASSERT_EQ(blank.files.size(), 1u);
  EXPECT_EQ(blank.files[0].path, "blank.md");
  EXPECT_EQ(blank.files[0].content, "");
  EXPECT_EQ(Split("x", "").root_name, "Document");
  EXPECT_EQ(Split("x", "???").root_name, "section");
}

TEST(SplitMarkdownTest, FrontmatterTitleNamesTheDocumentAndStaysInTheBody) {
  std::string text = "---\ntitle: \"Key Rotation\"\nauthor: x\n---\nBody.\n";
  MarkdownSplit split = Split(text, "file-stem");
  EXPECT_EQ(split.root_name, "Key_Rotation");
  ASSERT_EQ(split.files.size(), 1u);
  EXPECT_EQ(split.files[0].path, "Key_Rotation.md");
  EXPECT_EQ(split.files[0].content, text);
  // An unclosed block is not frontmatter.
  EXPECT_EQ(Split("---\ntitle: X\nBody.\n", "stem").root_name, "stem");
}

TEST(SplitMarkdownTest, NoHeadingsSplitsAtParagraphs) {
  std::string text;
  std::vector<std::string> paragraphs;
  for (int i = 0; i < 40; ++i) {
    paragraphs.push_back("Paragraph " + std::to_string(i) + " " + Words(150));
    text += paragraphs.back() + "\n\n";
  }
  MarkdownSplitOptions options;
  MarkdownSplit split = Split(text, "notes");
  CheckInvariants(split, text, options);
  ASSERT_GT(split.files.size(), 3u);
  for (size_t i = 0; i < split.files.size(); ++i) {
    EXPECT_EQ(split.files[i].path, "notes_" + std::to_string(i + 1) + ".md");
    // Cuts fall between paragraphs.
    EXPECT_TRUE(split.files[i].content.starts_with("Paragraph ")) << i;
    EXPECT_TRUE(split.files[i].content.ends_with(".")) << i;
  }
  EXPECT_EQ(split.files[0].content.substr(0, paragraphs[0].size()), paragraphs[0]);
}

TEST(SplitMarkdownTest, PlainTextGoesThroughTheSameSplitter) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "Line " + std::to_string(i) + ": " + Words(120) + "\n\n";
  MarkdownSplit split = Split(text, "readme.txt");
  CheckInvariants(split, text, {});
  EXPECT_EQ(split.root_name, "readme.txt");
  EXPECT_EQ(split.files[0].path, "readme.txt_1.md");
}

TEST(SplitMarkdownTest, TopLevelSectionsBecomeFiles) {
  std::string text = "Intro before the first heading. " + Words(700) + "\n\n" +
                     Section("# Install", 900) + Section("# Configure", 900) +
                     Section("# Run", 900);
  MarkdownSplit split = Split(text, "guide");
  CheckInvariants(split, text, {});
  EXPECT_EQ(Paths(split),
            (std::vector<std::string>{"guide.md", "Install.md", "Configure.md", "Run.md"}));
  EXPECT_TRUE(split.files[1].content.starts_with("# Install\n"));
  EXPECT_TRUE(split.dirs.empty());
}

TEST(SplitMarkdownTest, ATitleHeadingDoesNotAddADirectoryLevel) {
  std::string text = "# Handbook\n\nWelcome. " + Words(100) + "\n\n" + Section("## Install", 900) +
                     Section("## Configure", 900) + Section("## Run", 900);
  MarkdownSplit split = Split(text, "handbook");
  CheckInvariants(split, text, {});
  EXPECT_TRUE(split.dirs.empty());
  std::vector<std::string> paths = Paths(split);
  ASSERT_EQ(paths.size(), 3u);
  // The title's own text is merged with the first section.
  EXPECT_TRUE(paths[0].starts_with("Handbook_1more_")) << paths[0];
  EXPECT_TRUE(split.files[0].content.starts_with("# Handbook\n\nWelcome."));
  EXPECT_EQ(paths[1], "Configure.md");
  EXPECT_EQ(paths[2], "Run.md");
}

TEST(SplitMarkdownTest, ATitleAfterFrontmatterDoesNotAddADirectoryLevel) {
  std::string text = "---\ntitle: Handbook\n---\n# Handbook\n\n" + Section("## Install", 900) +
                     Section("## Configure", 900) + Section("## Run", 900);
  MarkdownSplit split = Split(text, "x");
  CheckInvariants(split, text, {});
  EXPECT_TRUE(split.dirs.empty());
  std::vector<std::string> paths = Paths(split);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_TRUE(paths[0].starts_with("Handbook_2more_"))
      << paths[0];  // frontmatter + title + Install
  EXPECT_TRUE(split.files[0].content.starts_with("---\ntitle: Handbook\n---\n# Handbook"));
}

TEST(SplitMarkdownTest, SmallSectionsAreMerged) {
  std::string text;
  for (int i = 0; i < 12; ++i) text += Section("## Step " + std::to_string(i), 100);
  text += Section("## Big", 900);
  MarkdownSplit split = Split(text, "steps");
  CheckInvariants(split, text, {});
  ASSERT_GE(split.files.size(), 2u);
  // 12 x ~100 tokens: merged into files of at most 2048 tokens.
  EXPECT_LT(split.files.size(), 6u);
  for (const SplitFile& f : split.files) {
    if (f.path == "Big.md") continue;
    std::string stem = f.path.substr(0, f.path.size() - 3);
    EXPECT_LE(Utf8Length(stem), 32u) << stem;
    EXPECT_TRUE(stem.starts_with("Step_")) << stem;
    EXPECT_NE(stem.find("more_"), std::string::npos) << stem;
    EXPECT_EQ(stem.size() - stem.rfind('_') - 1, 8u) << stem;  // hash8
  }
}

TEST(SplitMarkdownTest, MergedNamesAreShortenedToThirtyTwoCharacters) {
  std::string text;
  for (int i = 0; i < 6; ++i) {
    text += Section("## A very long section heading that goes on and on " + std::to_string(i), 100);
  }
  text += Section("## Tail", 2000);
  MarkdownSplit split = Split(text, "d");
  CheckInvariants(split, text, {});
  ASSERT_FALSE(split.files.empty());
  std::string stem = split.files[0].path.substr(0, split.files[0].path.size() - 3);
  EXPECT_EQ(Utf8Length(stem), 32u) << stem;
  EXPECT_TRUE(stem.starts_with("A_very_long")) << stem;
  EXPECT_NE(stem.find("_5more_"), std::string::npos) << stem;
}

TEST(SplitMarkdownTest, ALoneSmallSectionJoinsThePreviousFile) {
  std::string text = Section("# Huge", 1200) + Section("# Big", 1000) + Section("# Tiny", 50);
  MarkdownSplit split = Split(text, "doc");
  CheckInvariants(split, text, {});
  std::vector<std::string> paths = Paths(split);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "Huge.md");
  EXPECT_TRUE(paths[1].starts_with("Big_1more_")) << paths[1];
  EXPECT_TRUE(split.files[1].content.ends_with(Words(33)));
}

TEST(SplitMarkdownTest, OversizeSectionWithChildrenBecomesADirectory) {
  std::string text = Section("# Overview", 900) + "# API\n\nThe API has these parts. " +
                     Words(300) + "\n\n" + Section("## Auth", 1200) + Section("## Search", 700) +
                     Section("### Filters", 500) + Section("# Appendix", 900);
  MarkdownSplit split = Split(text, "manual");
  CheckInvariants(split, text, {});
  EXPECT_EQ(split.dirs, (std::vector<std::string>{"API"}));
  EXPECT_EQ(Paths(split), (std::vector<std::string>{"Overview.md", "API/API.md", "API/Auth.md",
                                                    "API/Search.md", "Appendix.md"}));
  // The direct content (a virtual child) keeps the section's heading.
  EXPECT_TRUE(split.files[1].content.starts_with("# API\n\nThe API has these parts."));
  EXPECT_TRUE(split.files[3].content.find("### Filters") != std::string::npos);
}

TEST(SplitMarkdownTest, OversizeSectionWithoutChildrenIsCutIntoParts) {
  std::string big = "# Reference\n\n";
  for (int i = 0; i < 12; ++i) big += Words(400) + "\n\n";
  std::string text = Section("# Intro", 900) + big + Section("# End", 900);
  MarkdownSplit split = Split(text, "doc");
  CheckInvariants(split, text, {});
  EXPECT_EQ(split.dirs, (std::vector<std::string>{"Reference"}));
  std::vector<std::string> paths = Paths(split);
  ASSERT_GE(paths.size(), 5u);
  EXPECT_EQ(paths[1], "Reference/Reference_1.md");
  EXPECT_EQ(paths[2], "Reference/Reference_2.md");
  EXPECT_EQ(paths.back(), "End.md");
}

TEST(SplitMarkdownTest, HeadingSkipsUseTheHighestLevelPresent) {
  // "#" then "###": the children of a section are its highest-level headings.
  std::string text = "# Top\n\n" + Words(200) + "\n\n" + Section("### A", 1200) +
                     Section("### B", 1200) + Section("# Other", 900);
  MarkdownSplit split = Split(text, "doc");
  CheckInvariants(split, text, {});
  EXPECT_EQ(Paths(split),
            (std::vector<std::string>{"Top/Top.md", "Top/A.md", "Top/B.md", "Other.md"}));
}

TEST(SplitMarkdownTest, LowerLevelHeadingsBeforeTheFirstTopHeading) {
  std::string text = "Preface. " + Words(100) + "\n\n" + Section("## Early", 1200) +
                     Section("## Earlier", 1200) + Section("# Main", 900);
  MarkdownSplit split = Split(text, "book");
  CheckInvariants(split, text, {});
  EXPECT_EQ(split.dirs, (std::vector<std::string>{"book"}));
  // The short preface is merged with the first "##" section.
  std::vector<std::string> paths = Paths(split);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_TRUE(paths[0].starts_with("book/book_1more_")) << paths[0];
  EXPECT_TRUE(split.files[0].content.starts_with("Preface."));
  EXPECT_EQ(paths[1], "book/Earlier.md");
  EXPECT_EQ(paths[2], "Main.md");
}

TEST(SplitMarkdownTest, RepeatedHeadingsGetUniqueNames) {
  std::string text;
  for (int i = 0; i < 4; ++i) text += Section("## Example", 900);
  text += Section("## example", 900);
  MarkdownSplit split = Split(text, "doc");
  CheckInvariants(split, text, {});
  EXPECT_EQ(Paths(split), (std::vector<std::string>{"Example.md", "Example_2.md", "Example_3.md",
                                                    "Example_4.md", "example_5.md"}));
}

TEST(SplitMarkdownTest, HeadingInsideCodeFenceIsNotASection) {
  std::string text = "Some prose. " + Words(900) + "\n\n```bash\n# Install step\nmake\n```\n\n" +
                     Words(900) + "\n\n~~~\n# Another comment\n~~~\n\n" + Words(900);
  MarkdownSplit split = Split(text, "script");
  CheckInvariants(split, text, {});
  for (const SplitFile& f : split.files) {
    EXPECT_TRUE(f.path.starts_with("script_")) << f.path;  // the no-heading layout
  }
}

TEST(SplitMarkdownTest, CodeBlocksWithBlankLinesStayTogether) {
  std::string code = "```\nline one\n\nline two after a blank line\n```";
  std::string text = Words(1300) + "\n\n" + code + "\n\n" + Words(1300);
  MarkdownSplit split = Split(text, "doc");
  CheckInvariants(split, text, {});
  bool found = false;
  for (const SplitFile& f : split.files) found |= f.content.find(code) != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(SplitMarkdownTest, CjkTextIsCutByTokensAndCharacters) {
  std::string sentence = "这是一个关于数据库的中文句子，用来测试分割。";  // 22 characters
  std::string text;
  for (int i = 0; i < 600; ++i) text += sentence;  // one paragraph, no whitespace at all
  MarkdownSplitOptions options;
  MarkdownSplit split = Split(text, "中文文档");
  CheckInvariants(split, text, options);
  EXPECT_EQ(split.root_name, "中文文档");
  ASSERT_GT(split.files.size(), 3u);
  for (const SplitFile& f : split.files) {
    EXPECT_TRUE(IsValidUtf8(f.content)) << "cut inside a character in " << f.path;
    EXPECT_LE(Utf8Length(f.content), 2925u);  // 2048 / 0.7
  }
}

TEST(SplitMarkdownTest, CjkHeadingsNameFilesAndDirectories) {
  std::string body;
  for (int i = 0; i < 200; ++i) body += "内容很长的段落。";
  std::string text =
      "# 第一章 简介\n\n" + body + "\n\n# 第二章\n\n" + body + "\n\n# 第三章\n\n" + body;
  MarkdownSplit split = Split(text, "书");
  CheckInvariants(split, text, {});
  EXPECT_EQ(Paths(split), (std::vector<std::string>{"第一章_简介.md", "第二章.md", "第三章.md"}));
}

TEST(SplitMarkdownTest, LongLinesWithoutWhitespaceAreForceSplit) {
  std::string text = "# Data\n\n" + std::string(20000, 'x') + "\n\n# More\n\n" + Words(1500);
  MarkdownSplit split = Split(text, "blob");
  CheckInvariants(split, text, {});
  EXPECT_GT(split.files.size(), 4u);
}

TEST(SplitMarkdownTest, WhitespaceHeavyTextRespectsTheCharacterCap) {
  // Few tokens but many characters: the char cap alone forces cuts.
  std::string text;
  for (int i = 0; i < 400; ++i) text += "a" + std::string(40, ' ') + "\n";
  MarkdownSplitOptions options;
  MarkdownSplit split = Split(text, "sparse");
  CheckInvariants(split, text, options);
  EXPECT_GT(split.files.size(), 1u);
}

TEST(SplitMarkdownTest, InvalidUtf8BytesArePreserved) {
  std::string text = "# Bad \xff bytes\n\n";
  for (int i = 0; i < 3000; ++i) text += "ok \xc3\x28 \xed\xa0\x80 \xf0\x9f\x98 caf\xc3\xa9 ";
  text += "\n\n# Second\n\n" + Words(2000);
  MarkdownSplit split = Split(text, "bad\xfe name");
  CheckInvariants(split, text, {});
  EXPECT_EQ(split.root_name, "bad_name");
}

TEST(SplitMarkdownTest, Deterministic) {
  std::string text;
  for (int i = 0; i < 30; ++i) {
    text += Section("## Part " + std::to_string(i % 7), 50 + (i * 137) % 1500);
  }
  MarkdownSplit a = Split(text, "doc"), b = Split(text, "doc");
  EXPECT_EQ(a.root_name, b.root_name);
  EXPECT_EQ(a.dirs, b.dirs);
  ASSERT_EQ(a.files.size(), b.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) {
    EXPECT_EQ(a.files[i].path, b.files[i].path);
    EXPECT_EQ(a.files[i].content, b.files[i].content);
  }
  CheckInvariants(a, text, {});
}

TEST(SplitMarkdownTest, OneMegabyteDocument) {
  std::string text;
  int section = 0;
  while (text.size() < (1u << 20)) {
    text += "# Chapter " + std::to_string(section) + "\n\n";
    for (int s = 0; s < 5; ++s) {
      text += "## Topic " + std::to_string(s) + "\n\n" + Words(200 + 90 * ((section + s) % 9)) +
              "\n\n```\ncode();\n```\n\n";
    }
    ++section;
  }
  MarkdownSplit split = Split(text, "big");
  CheckInvariants(split, text, {});
  EXPECT_GT(split.files.size(), 100u);
  EXPECT_FALSE(split.dirs.empty());
}

TEST(SplitMarkdownTest, OneMegabyteWithoutStructure) {
  // One huge line: no heading, no blank line, no whitespace.
  std::string text(1 << 20, 'z');
  MarkdownSplit split = Split(text, "flat");
  CheckInvariants(split, text, {});
  // Chunks of 2925 characters (2048 / 0.7: any script fits), packed two
  // to a file as 5850 characters stay under both limits.
  EXPECT_EQ(split.files.size(), (text.size() + 5849) / 5850);
}

TEST(SplitMarkdownTest, SmallLimitsStillHold) {
  MarkdownSplitOptions options;
  options.max_section_tokens = 1;
  options.min_section_tokens = 0;
  options.max_section_chars = 1;
  std::string text = "# A\n\nbc 中\xff";
  MarkdownSplit split = Split(text, "tiny", options);
  CheckInvariants(split, text, options);
}

// Random documents built from markdown pieces, split with small limits so
// every path of the planner runs.
TEST(SplitMarkdownTest, RandomDocumentsKeepTheInvariants) {
  const std::vector<std::string> pieces = {
      "# H1 title",
      "## H2 title",
      "### H3",
      "#### Deep",
      "###### Six",
      "#nothead",
      "```",
      "~~~",
      "<!--",
      "-->",
      "    # indented",
      "",
      "",
      "",
      "plain words here",
      "这是中文。",
      "한국어 텍스트",
      "カタカナ",
      "\xff\xfe",
      "caf\xc3\xa9",
      "a-very-long-token-"
      "without-spaces-that-keeps-going-and-going-and-going-and-going",
      "| a | b |",
      "---",
      "title: x",
      "   ",
      "\t",
      "## Example",
      "## example"};
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int lines = 1 + static_cast<int>(rng() % 120);
    for (int i = 0; i < lines; ++i) {
      text += pieces[rng() % pieces.size()];
      if (rng() % 4 == 0) text += " " + pieces[rng() % pieces.size()];
      text += (rng() % 10 == 0) ? "\r\n" : "\n";
    }
    MarkdownSplitOptions options;
    options.max_section_tokens = 5 + static_cast<int>(rng() % 60);
    options.min_section_tokens = static_cast<int>(rng() % options.max_section_tokens);
    options.max_section_chars = 8 + static_cast<int>(rng() % 200);
    MarkdownSplit split = Split(text, "random", options);
    CheckInvariants(split, text, options);
    if (testing::Test::HasFailure()) {
      ADD_FAILURE() << "round " << round << " text:\n" << text;
      return;
    }
  }
}

TEST(SplitMarkdownTest, RandomBytesNeverCrash) {
  std::mt19937 rng(11);
  MarkdownSplitOptions options;
  options.max_section_tokens = 20;
  options.min_section_tokens = 5;
  options.max_section_chars = 50;
  for (int round = 0; round < 300; ++round) {
    std::string text(rng() % 400, '\0');
    for (char& c : text) {
      unsigned r = rng() % 8;
      c = r == 0 ? '\n' : r == 1 ? '#' : r == 2 ? ' ' : static_cast<char>(rng() & 0xFF);
    }
    MarkdownSplit split = Split(text, text.substr(0, 20), options);
    CheckInvariants(split, text, options);
    if (testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace skald
