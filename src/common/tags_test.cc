#include "common/tags.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace skald {
namespace {

using Tags = std::vector<std::string>;

TEST(TagsTest, NormalizedTrimmedLowerCasedLastValueWins) {
  auto tags = NormalizeTags(Tags{" Env=Prod ", "team=Search", "env=dev", "team=search"});
  ASSERT_TRUE(tags.ok()) << tags.status().ToString();
  EXPECT_EQ(*tags, (Tags{"env=dev", "team=search"}));
  EXPECT_EQ(*NormalizeTags(Tags{}), Tags{});
}

TEST(TagsTest, MalformedTagsAreErrorsOrDropped) {
  for (const char* bad : {"", "  ", "project-a", "a=b=c", "=v", "k=", " = "}) {
    auto tags = NormalizeTags(Tags{"ok=1", bad});
    ASSERT_FALSE(tags.ok()) << bad;
    EXPECT_EQ(tags.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(NormalizeTagsLeniently(Tags{"ok=1", bad}), Tags{"ok=1"}) << bad;
  }
  EXPECT_EQ(NormalizeTags(Tags{"project-a"}).status().message(),
            "invalid search tag 'project-a': expected strict k=v format");
  EXPECT_EQ(NormalizeTags(Tags{"k="}).status().message(),
            "invalid search tag 'k=': key and value must both be non-empty");
}

TEST(TagsTest, AppendMergesByKeyReplaceSets) {
  const Tags existing = {"lang=en", "team=infra", "bare"};
  EXPECT_EQ(MergeTags(existing, Tags{"Team=Search", "tier=1"}),
            (Tags{"lang=en", "team=search", "tier=1"}));
  EXPECT_EQ(ApplyTags(existing, Tags{"x=1"}, TagMode::kReplace), Tags{"x=1"});
  EXPECT_EQ(ApplyTags(existing, Tags{}, TagMode::kReplace), Tags{});
  EXPECT_EQ(ApplyTags(existing, Tags{}, TagMode::kAppend), (Tags{"lang=en", "team=infra"}));
}

TEST(TagsTest, ManyTagsKeepOneValuePerKeyInFirstPosition) {
  Tags many;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 2000; ++k) many.push_back(fmt::format("k{}=v{}", k, round));
  }
  Tags normalized = NormalizeTagsLeniently(many);
  ASSERT_EQ(normalized.size(), 2000u);
  EXPECT_EQ(normalized.front(), "k0=v2");
  EXPECT_EQ(normalized.back(), "k1999=v2");
  EXPECT_EQ(MergeTags(Tags{"k5=old", "x=1"}, Tags{"k5=new"}), (Tags{"k5=new", "x=1"}));
}

TEST(TagsTest, Modes) {
  EXPECT_EQ(*ParseTagMode("replace"), TagMode::kReplace);
  EXPECT_EQ(*ParseTagMode("append"), TagMode::kAppend);
  auto bad = ParseTagMode("clear");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unsupported tag mode: clear");
  EXPECT_EQ(TagModeName(TagMode::kAppend), "append");
}

}  // namespace
}  // namespace skald
