#include "uri/uri_path.h"

#include <gtest/gtest.h>

namespace skald {
namespace {

TEST(UriPathTest, DepthAndParent) {
  EXPECT_EQ(UriDepth("viking://"), 0);
  EXPECT_EQ(UriDepth("viking://resources"), 1);
  EXPECT_EQ(UriDepth("viking://resources/a/b.md"), 3);
  EXPECT_EQ(UriDepth("viking://resources/a/"), 2);
  EXPECT_EQ(UriDepth("viking://a//b/"), 2);
  EXPECT_EQ(UriParent("viking://resources/a/b.md"), "viking://resources/a");
  EXPECT_EQ(UriParent("viking://resources"), "viking://");
  EXPECT_EQ(UriParent("viking://"), "");
  EXPECT_EQ(UriParent("viking://resources/a/"), "viking://resources");
}

TEST(UriPathTest, WithinRespectsSegmentBoundaries) {
  EXPECT_TRUE(UriWithin("viking://a/b", "viking://a"));
  EXPECT_TRUE(UriWithin("viking://a/b", "viking://a/b/"));
  EXPECT_TRUE(UriWithin("viking://a/b/c", "viking://"));
  EXPECT_FALSE(UriWithin("viking://a/bc", "viking://a/b"));
  EXPECT_FALSE(UriWithin("viking://a", "viking://a/b"));
}

TEST(UriPathTest, TrimsTrailingSlashesButKeepsTheRoot) {
  EXPECT_EQ(UriSchemeEnd("viking://a"), 9u);
  EXPECT_EQ(UriSchemeEnd("a/b"), 0u);
  EXPECT_EQ(UriTrimTrailingSlashes("viking://a//"), "viking://a");
  EXPECT_EQ(UriTrimTrailingSlashes("viking://"), "viking://");
}

TEST(UriPathTest, PathsWithoutScheme) {
  EXPECT_EQ(UriOfPath("resources/a"), "viking://resources/a");
  EXPECT_EQ(ParentPath("resources/a/b"), "resources/a");
  EXPECT_EQ(ParentPath("resources"), "");
  EXPECT_EQ(BaseName("resources/a/b.md"), "b.md");
  EXPECT_EQ(BaseName("resources"), "resources");
  EXPECT_EQ(PathSegments("user//u/x/"), (std::vector<std::string_view>{"user", "u", "x"}));
  EXPECT_EQ(JoinPath("resources/a", "b.md"), "resources/a/b.md");
  EXPECT_EQ(JoinPath("", "b.md"), "b.md");
  EXPECT_TRUE(PathHasHiddenSegment(".git/config"));
  EXPECT_TRUE(PathHasHiddenSegment("a/.abstract.md"));
  EXPECT_FALSE(PathHasHiddenSegment("a.b/c.d"));
  EXPECT_FALSE(PathHasHiddenSegment(""));
}

TEST(UriPathTest, KnowsTheNamespaceRoots) {
  EXPECT_EQ(NamespaceRootDepth("resources/a"), 1);
  EXPECT_EQ(NamespaceRootDepth("agent/skills/x"), 2);
  EXPECT_EQ(NamespaceRootDepth("user/u/memories/x"), 3);
  EXPECT_EQ(NamespaceRootDepth("user/u/peers/p/memories"), 5);
  EXPECT_EQ(NamespaceRootDepth("user/u/sessions/s"), 0);
  EXPECT_EQ(NamespaceRootDepth("session/x"), 0);
}

TEST(UriPathTest, IndexesSessionArchivesThroughTheirExcerptsOnly) {
  const std::string archive = "user/u/sessions/s/history/archive_001";
  EXPECT_EQ(NamespaceRootDepth(archive), 6);
  EXPECT_EQ(NamespaceRootDepth(archive + "/excerpt_0003.md"), 6);
  EXPECT_EQ(NamespaceRootDepth(archive + "/.overview.md"), 6);
  EXPECT_EQ(NamespaceRootDepth(archive + "/messages.jsonl"), 0);
  EXPECT_EQ(NamespaceRootDepth(archive + "/excerpt_x.md"), 0);
  EXPECT_EQ(NamespaceRootDepth("user/u/sessions/s/messages.jsonl"), 0);
  EXPECT_EQ(NamespaceRootDepth("user/u/sessions/s/history"), 0);
  EXPECT_TRUE(IsSessionExcerptName("excerpt_0001.md"));
  EXPECT_FALSE(IsSessionExcerptName("excerpt_.md"));
  EXPECT_FALSE(IsSessionExcerptName("excerpt_12.txt"));
}

TEST(UriPathTest, IntersectSpansKeepsTheDeeperUriAndTheDepthsBothAllow) {
  auto both = [](UriSpan a, UriSpan b) {
    std::optional<UriSpan> ab = IntersectSpans(a, b), ba = IntersectSpans(b, a);
    EXPECT_EQ(ab.has_value(), ba.has_value());  // symmetric
    if (ab && ba) {
      EXPECT_EQ(ab->uri, ba->uri);
      EXPECT_EQ(ab->min_depth, ba->min_depth);
      EXPECT_EQ(ab->max_depth, ba->max_depth);
    }
    return ab;
  };
  // A whole subtree and one inside it: the inner one.
  auto r = both({"viking://r", 0, -1}, {"viking://r/a", 0, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->uri, "viking://r/a");
  EXPECT_EQ(r->min_depth, 0);
  EXPECT_EQ(r->max_depth, 1);
  // Children of r (depth 1..1) and the subtree of r/a: r/a itself only.
  r = both({"viking://r", 1, 1}, {"viking://r/a", 0, -1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->uri, "viking://r/a");
  EXPECT_EQ(r->min_depth, 0);
  EXPECT_EQ(r->max_depth, 0);
  // Two levels below r reach r/a/b's children at most one level down.
  r = both({"viking://r", 2, 3}, {"viking://r/a/b", 0, -1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->min_depth, 0);
  EXPECT_EQ(r->max_depth, 1);
  // Too shallow to reach, beside each other, or depths that exclude each other.
  EXPECT_FALSE(both({"viking://r", 0, 1}, {"viking://r/a/b", 0, -1}));
  EXPECT_FALSE(both({"viking://r/a", 0, -1}, {"viking://r/ab", 0, -1}));
  EXPECT_FALSE(both({"viking://r/a", 2, -1}, {"viking://r/a", 0, 1}));
  // The scheme's root holds every URI.
  r = both({"viking://", 0, -1}, {"viking://r", 0, 2});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->uri, "viking://r");
}

}  // namespace
}  // namespace skald
