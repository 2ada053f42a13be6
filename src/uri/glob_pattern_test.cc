#include "uri/glob_pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace skald {
namespace {

GlobPattern G(std::string_view pattern) {
  Result<GlobPattern> r = GlobPattern::Compile(pattern);
  EXPECT_TRUE(r.ok()) << pattern << ": " << r.status().ToString();
  return r.ok() ? *r : *GlobPattern::Compile("\\-never-\\-matches-");
}

bool M(std::string_view pattern, std::string_view path) { return G(pattern).Matches(path); }

std::string CompileError(std::string_view pattern) {
  Result<GlobPattern> r = GlobPattern::Compile(pattern);
  if (r.ok()) return "<compiled>";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(GlobPatternTest, RejectsBadPatterns) {
  EXPECT_EQ(CompileError(""), "pattern must not be empty");
  EXPECT_NE(CompileError("/").find("names no path segment"), std::string::npos);
  EXPECT_NE(CompileError("./").find("names no path segment"), std::string::npos);
  EXPECT_NE(CompileError("[abc").find("unterminated '['"), std::string::npos);
  EXPECT_NE(CompileError("a/[b/c").find("unterminated '['"), std::string::npos);
  EXPECT_NE(CompileError("[]").find("unterminated '['"), std::string::npos);
  EXPECT_NE(CompileError("[!]").find("unterminated '['"), std::string::npos);
  EXPECT_NE(CompileError("a\\").find("lone '\\'"), std::string::npos);
  EXPECT_NE(CompileError("[z-a]").find("reversed range"), std::string::npos);
  EXPECT_EQ(CompileError("\xff*.md"), "pattern is not valid UTF-8");
  EXPECT_NE(CompileError(std::string(kMaxGlobPatternBytes + 1, 'a')).find("longer than"),
            std::string::npos);
  // Messages quote the pattern.
  EXPECT_NE(CompileError("x[y").find("'x[y'"), std::string::npos);
}

TEST(GlobPatternTest, SingleSegmentPatternMatchesNameAtAnyDepth) {
  EXPECT_TRUE(M("*.md", "a.md"));
  EXPECT_TRUE(M("*.md", "docs/api/a.md"));
  EXPECT_FALSE(M("*.md", "a.txt"));
  EXPECT_FALSE(M("*.md", "a.md/b"));
  EXPECT_TRUE(M("resource_*", "sub/resource_a"));
  EXPECT_TRUE(M("a.md", "x/a.md"));
  EXPECT_FALSE(M("a.md", "xa.md"));
}

TEST(GlobPatternTest, MultiSegmentPatternMatchesTrailingSegments) {
  EXPECT_TRUE(M("docs/*.md", "docs/a.md"));
  EXPECT_TRUE(M("docs/*.md", "x/y/docs/a.md"));
  EXPECT_FALSE(M("docs/*.md", "docs/x/a.md"));
  EXPECT_FALSE(M("docs/*.md", "mydocs/a.md"));
  EXPECT_TRUE(M("*/c.md", "a/b/c.md"));
  EXPECT_FALSE(M("a/b/c.md", "b/c.md"));
}

TEST(GlobPatternTest, LeadingSlashAnchorsAtBase) {
  EXPECT_TRUE(M("/*.md", "a.md"));
  EXPECT_FALSE(M("/*.md", "x/a.md"));
  EXPECT_TRUE(M("/docs/*.md", "docs/a.md"));
  EXPECT_FALSE(M("/docs/*.md", "x/docs/a.md"));
  EXPECT_TRUE(M("/docs/**/*.md", "docs/a.md"));
  EXPECT_TRUE(M("/docs/**/*.md", "docs/x/y/a.md"));
  EXPECT_FALSE(M("/docs/**/*.md", "x/docs/a.md"));
}

TEST(GlobPatternTest, GlobstarSpansZeroOrMoreSegments) {
  EXPECT_TRUE(M("**/*.md", "a.md"));
  EXPECT_TRUE(M("**/*.md", "x/a.md"));
  EXPECT_TRUE(M("**/*.md", "x/y/z/a.md"));
  EXPECT_TRUE(M("a/**/b", "a/b"));
  EXPECT_TRUE(M("a/**/b", "a/x/b"));
  EXPECT_TRUE(M("a/**/b", "a/x/y/b"));
  EXPECT_FALSE(M("a/**/b", "a/x/y/c"));
  EXPECT_TRUE(M("foo/**", "foo/bar"));
  EXPECT_TRUE(M("foo/**", "foo/bar/baz"));
  EXPECT_TRUE(M("foo/**", "foo"));
  EXPECT_TRUE(M("**/foo", "foo"));
  EXPECT_TRUE(M("**", "anything/at/all"));
  EXPECT_TRUE(M("a/**/**/b", "a/b"));
  // `**` inside a segment is a plain star.
  EXPECT_TRUE(M("a**b", "axxb"));
  EXPECT_FALSE(M("/a**b", "ax/xb"));
}

TEST(GlobPatternTest, QuestionMarkIsOneCodePoint) {
  EXPECT_TRUE(M("?.md", "a.md"));
  EXPECT_TRUE(M("?.md", "é.md"));
  EXPECT_TRUE(M("?.md", "文.md"));
  EXPECT_TRUE(M("?.md", "🎉.md"));
  EXPECT_FALSE(M("?.md", "ab.md"));
  EXPECT_FALSE(M("?.md", ".md"));
  EXPECT_TRUE(M("??", "文档"));
  EXPECT_FALSE(M("/?", "a/b"));
  // A byte that is not UTF-8 still counts as one character.
  EXPECT_TRUE(M("?x", "\xffx"));
}

TEST(GlobPatternTest, CharacterClasses) {
  EXPECT_TRUE(M("[abc].txt", "b.txt"));
  EXPECT_FALSE(M("[abc].txt", "d.txt"));
  EXPECT_TRUE(M("file[0-9]", "file7"));
  EXPECT_FALSE(M("file[0-9]", "filex"));
  EXPECT_TRUE(M("[!a]x", "bx"));
  EXPECT_FALSE(M("[!a]x", "ax"));
  EXPECT_TRUE(M("[^a]x", "bx"));
  EXPECT_FALSE(M("[^a]x", "ax"));
  EXPECT_TRUE(M("[]a]", "]"));
  EXPECT_TRUE(M("[]a]", "a"));
  EXPECT_TRUE(M("[a-]", "-"));
  EXPECT_TRUE(M("[é文]x", "文x"));
  EXPECT_TRUE(M("[α-ω]", "λ"));
  EXPECT_FALSE(M("[α-ω]", "a"));
  EXPECT_TRUE(M("[\\]]", "]"));
  EXPECT_FALSE(M("[!a]", "ab"));
}

TEST(GlobPatternTest, BackslashEscapesWildcards) {
  EXPECT_TRUE(M("\\*.md", "*.md"));
  EXPECT_FALSE(M("\\*.md", "a.md"));
  EXPECT_TRUE(M("a\\?", "a?"));
  EXPECT_FALSE(M("a\\?", "ab"));
  EXPECT_TRUE(M("\\[x]", "[x]"));
}

TEST(GlobPatternTest, IsCaseSensitive) {
  EXPECT_FALSE(M("*.MD", "a.md"));
  EXPECT_TRUE(M("*.MD", "a.MD"));
}

TEST(GlobPatternTest, WildcardsDoNotMatchHiddenNames) {
  EXPECT_FALSE(M("*.md", ".abstract.md"));
  EXPECT_FALSE(M("*", ".git"));
  EXPECT_FALSE(M("?git", ".git"));
  EXPECT_FALSE(M("[.]git", ".git"));
  EXPECT_FALSE(M("*.md", ".git/a.md"));
  EXPECT_FALSE(M("**/*.md", ".git/a.md"));
  EXPECT_FALSE(M("/**/*.md", "x/.cache/a.md"));
  EXPECT_TRUE(M(".*.md", ".abstract.md"));
  EXPECT_TRUE(M(".abstract.md", "docs/.abstract.md"));
  EXPECT_TRUE(M(".git/*.md", ".git/a.md"));
  EXPECT_TRUE(M(".git/*.md", "x/.git/a.md"));
  EXPECT_TRUE(M("/.git/**", ".git/objects/ab"));
  // Only a leading dot hides a name.
  EXPECT_TRUE(M("*.md", "a.b.md"));
  EXPECT_TRUE(M("*", "a."));
}

TEST(GlobPatternTest, IgnoresEmptyAndDotSegments) {
  EXPECT_TRUE(M("a/b.md", "a/./b.md"));
  EXPECT_TRUE(M("./b.md", "a/b.md"));
  EXPECT_TRUE(M("a//b.md", "a/b.md"));
  EXPECT_TRUE(M("a/b.md", "./a//b.md/"));
}

TEST(GlobPatternTest, EmptyPathNeverMatches) {
  EXPECT_FALSE(M("**", ""));
  EXPECT_FALSE(M("*", "/"));
  EXPECT_FALSE(M("*", "."));
}

TEST(GlobPatternTest, DescribesTheWalk) {
  struct Case {
    const char* pattern;
    const char* prefix;
    bool recursive;
    bool anchored;
    size_t segments;
  };
  const Case cases[] = {
      {"*.md", "", true, false, 1},
      {"docs/api/**/*.md", "", true, false, 4},
      {"/docs/api/**/*.md", "docs/api", true, true, 4},
      {"/docs/a.md", "docs", false, true, 2},
      {"/docs/*/x.md", "docs", false, true, 3},
      {"/*.md", "", false, true, 1},
      {"/a\\*b/c", "a*b", false, true, 2},
      {"/a/**/**/b", "a", true, true, 3},
  };
  for (const Case& c : cases) {
    GlobPattern g = G(c.pattern);
    EXPECT_EQ(g.literal_prefix(), c.prefix) << c.pattern;
    EXPECT_EQ(g.recursive(), c.recursive) << c.pattern;
    EXPECT_EQ(g.anchored(), c.anchored) << c.pattern;
    EXPECT_EQ(g.segment_count(), c.segments) << c.pattern;
  }
}

// These would take astronomically long with naive backtracking; they pin the
// polynomial algorithms (a regression shows up as a test timeout).
TEST(GlobPatternTest, PathologicalStarsStayPolynomial) {
  std::string name(20000, 'a');
  EXPECT_FALSE(M("*a*a*a*a*a*a*a*a*a*a*a*a*b", name));
  EXPECT_TRUE(M("*a*a*a*a*a*a*a*a*a*a*a*a*", name));
  EXPECT_FALSE(M("*?*?*?*?*?*?*?*?*?*?*?*?b", name));
}

TEST(GlobPatternTest, PathologicalGlobstarsStayPolynomial) {
  std::string path;
  for (int i = 0; i < 2000; ++i) path += "a/";
  path += "a";
  EXPECT_FALSE(M("**/a/**/a/**/a/**/a/**/a/**/a/**/b", path));
  EXPECT_TRUE(M("**/a/**/a/**/a/**/a/**/a/**/a/**/a", path));
  EXPECT_FALSE(M("*/*/*/*/*/*/*/*/*/b", path));
}

}  // namespace
}  // namespace skald
