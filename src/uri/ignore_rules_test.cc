// IgnoreRules: .ovgitignore rules matched against account-relative paths.

#include "uri/ignore_rules.h"

#include <gtest/gtest.h>

namespace skald {
namespace {

IgnoreRules Rules(std::string_view text) {
  auto rules = IgnoreRules::Parse(text);
  EXPECT_TRUE(rules.ok()) << rules.status().ToString();
  return rules.ok() ? std::move(*rules) : IgnoreRules();
}

TEST(IgnoreRulesTest, NamesMatchAtAnyDepthAnchoredRulesFromTheRoot) {
  IgnoreRules r =
      Rules("# build output\n\n*.log\n/resources/cache/**\nresources/tmp/*\n  notes.txt  \n");
  EXPECT_TRUE(r.Ignored("a.log"));
  EXPECT_TRUE(r.Ignored("resources/x/y/debug.log"));
  EXPECT_FALSE(r.Ignored("resources/x/log.md"));
  EXPECT_TRUE(r.Ignored("resources/cache/a/b.md"));
  EXPECT_FALSE(r.Ignored("user/u/resources/cache/a.md"));  // anchored at the root
  EXPECT_TRUE(r.Ignored("resources/tmp/a.md"));
  EXPECT_TRUE(r.Ignored("resources/tmp/deeper/a.md"));  // its directory is matched
  EXPECT_TRUE(r.Ignored("resources/d/notes.txt"));      // trimmed
  EXPECT_FALSE(r.Ignored("resources/d/notes.txt.md"));
}

TEST(IgnoreRulesTest, ADirectoryRuleTakesWhatIsBelowItNotAFileOfThatName) {
  IgnoreRules r = Rules("tmp/\n/cache/\n");
  EXPECT_TRUE(r.Ignored("resources/tmp/a.md"));
  EXPECT_TRUE(r.Ignored("tmp/a.md"));
  EXPECT_FALSE(r.Ignored("resources/tmp"));  // a file named tmp
  EXPECT_TRUE(r.Ignored("cache/a.md"));
  EXPECT_FALSE(r.Ignored("resources/cache/a.md"));
}

TEST(IgnoreRulesTest, NegationBackslashesBadUtf8AndSizeAreRefused) {
  for (std::string_view bad : {"*.log\n!keep.log\n", "a\\#b\n", "[z-a]\n"}) {
    auto rules = IgnoreRules::Parse(bad);
    EXPECT_EQ(rules.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(IgnoreRules::Parse("ok\n!x").status().message().find("line 2"), std::string::npos);
  EXPECT_EQ(IgnoreRules::Parse("\xff\n").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(IgnoreRules::Parse(std::string(kMaxIgnoreBytes + 1, 'a')).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(Rules("").empty());
  EXPECT_FALSE(Rules("").Ignored("resources/a.md"));
}

}  // namespace
}  // namespace skald
