// UnifiedDiff: exact output on small cases, and on random texts a diff that
// turns the one text into the other when applied.

#include "text/unified_diff.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace skald {
namespace {

std::string Diff(std::string_view a, std::string_view b) {
  auto d = UnifiedDiff(a, b, "a", "b");
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : "";
}

TEST(UnifiedDiffTest, SmallCasesAsDiffUPrintsThem) {
  EXPECT_EQ(Diff("same\n", "same\n"), "");
  EXPECT_EQ(Diff("# API\nold auth\nline3\n", "# API v2\nnew auth\nline3\n"),
            "--- a\n+++ b\n@@ -1,3 +1,3 @@\n-# API\n-old auth\n+# API v2\n+new auth\n line3\n");
  EXPECT_EQ(Diff("", "x\ny\n"), "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  EXPECT_EQ(Diff("x\n", ""), "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n");
  EXPECT_EQ(Diff("x\n", "x"), "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n");
}

TEST(UnifiedDiffTest, ChangesFarApartAreHunksOfTheirOwnCloseOnesShareOne) {
  std::string a, b;
  for (int i = 1; i <= 20; ++i) a += std::to_string(i) + "\n";
  b = a;
  b.replace(b.find("2\n"), 2, "two\n");
  b.replace(b.find("18\n"), 3, "eighteen\n");
  EXPECT_EQ(Diff(a, b),
            "--- a\n+++ b\n"
            "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
            "@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n");
  std::string c = a;
  c.replace(c.find("5\n"), 2, "five\n");
  c.replace(c.find("10\n"), 3, "ten\n");  // 4 lines between: one hunk
  EXPECT_EQ(Diff(a, c),
            "--- a\n+++ b\n@@ -2,12 +2,12 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n-10\n+ten\n"
            " 11\n 12\n 13\n");
}

// Applies a unified diff to `a` (REQUIRES: well formed, hunks in order).
std::string Apply(const std::string& a, const std::string& diff) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < a.size();) {
    size_t end = a.find('\n', pos);
    end = end == std::string::npos ? a.size() : end + 1;
    lines.push_back(a.substr(pos, end - pos));
    pos = end;
  }
  std::string out;
  size_t next = 0;  // next line of `a` not yet copied
  size_t pos = diff.find("@@");
  while (pos != std::string::npos && pos < diff.size()) {
    const size_t minus = diff.find('-', pos);
    size_t start = std::stoul(diff.substr(minus + 1));
    const size_t comma = diff.find_first_of(", ", minus);
    const size_t len = diff[comma] == ',' ? std::stoul(diff.substr(comma + 1)) : 1;
    if (len > 0) --start;  // 1-based, an empty range names the line before
    for (; next < start; ++next) out += lines[next];
    pos = diff.find('\n', pos) + 1;
    while (pos < diff.size() && diff.compare(pos, 2, "@@") != 0) {
      size_t end = diff.find('\n', pos) + 1;
      std::string line = diff.substr(pos + 1, end - pos - 1);
      const char op = diff[pos];
      pos = end;
      if (diff.compare(pos, 2, "\\ ") == 0) {  // the line had no '\n'
        line.pop_back();
        pos = diff.find('\n', pos) + 1;
      }
      if (op == ' ' || op == '-') ++next;
      if (op == ' ' || op == '+') out += line;
    }
  }
  for (; next < lines.size(); ++next) out += lines[next];
  return out;
}

TEST(UnifiedDiffTest, RandomTextsDiffIntoEachOther) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const int vocabulary = 2 + static_cast<int>(rng() % 6);
    auto text = [&](int lines) {
      std::string t;
      for (int i = 0; i < lines; ++i) t += "l" + std::to_string(rng() % vocabulary) + "\n";
      if (rng() % 4 == 0 && !t.empty()) t.pop_back();
      return t;
    };
    const std::string a = text(static_cast<int>(rng() % 40));
    const std::string b = text(static_cast<int>(rng() % 40));
    const std::string d = Diff(a, b);
    if (a == b) {
      EXPECT_EQ(d, "");
      continue;
    }
    EXPECT_EQ(Apply(a, d), b) << "a:\n" << a << "\nb:\n" << b << "\ndiff:\n" << d;
  }
}

TEST(UnifiedDiffTest, ManyChangesStillDiffCorrectlyAndLimitsAreEnforced) {
  std::string a, b;
  for (size_t i = 0; i < 3 * kMaxExactEdits; ++i) {
    a += "a" + std::to_string(i) + "\n";
    b += "b" + std::to_string(i) + "\n";
  }
  const std::string d = Diff(a, b);
  EXPECT_EQ(Apply(a, d), b);
  EXPECT_EQ(UnifiedDiff(a, b, "a", "b", {/*max_lines=*/100, size_t{20} << 20}).status().code(),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(UnifiedDiff(a, b, "a", "b", {100000, /*max_output_bytes=*/1000}).status().code(),
            StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace skald
