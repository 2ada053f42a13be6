#include "retrieve/scoring.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "retrieve/retriever.h"

namespace skald {
namespace {

constexpr int64_t kDay = 86'400'000'000'000;

TEST(ScoringTest, ClampScoreMapsEverythingIntoTheUnitInterval) {
  EXPECT_EQ(ClampScore(0.25), 0.25);
  EXPECT_EQ(ClampScore(-0.3), 0.0);
  EXPECT_EQ(ClampScore(1.7), 1.0);
  EXPECT_EQ(ClampScore(std::nan("")), 0.0);
  EXPECT_EQ(ClampScore(std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(ClampScore(-std::numeric_limits<double>::infinity()), 0.0);
}

TEST(ScoringTest, Bm25NormalizationRules) {
  EXPECT_DOUBLE_EQ(NormalizeBm25(4, 8, LexicalNormalization::kMax, 10), 0.5);
  EXPECT_DOUBLE_EQ(NormalizeBm25(8, 8, LexicalNormalization::kMax, 10), 1.0);
  EXPECT_DOUBLE_EQ(NormalizeBm25(10, 8, LexicalNormalization::kSaturate, 10), 0.5);
  EXPECT_DOUBLE_EQ(NormalizeBm25(30, 0, LexicalNormalization::kSaturate, 10), 0.75);
  // No lexical match, a broken score or a broken stage maximum: 0.
  EXPECT_EQ(NormalizeBm25(0, 8, LexicalNormalization::kMax, 10), 0.0);
  EXPECT_EQ(NormalizeBm25(std::nan(""), 8, LexicalNormalization::kSaturate, 10), 0.0);
  EXPECT_EQ(NormalizeBm25(3, 0, LexicalNormalization::kMax, 10), 0.0);
  EXPECT_EQ(NormalizeBm25(3, 8, LexicalNormalization::kSaturate, 0), 0.0);
}

TEST(ScoringTest, FusionWeighsTheLexicalShareAndClampsTheCosine) {
  EXPECT_DOUBLE_EQ(FuseScores(0.8, 0.2, 0.0), 0.8);
  EXPECT_DOUBLE_EQ(FuseScores(0.8, 0.2, 1.0), 0.2);
  EXPECT_DOUBLE_EQ(FuseScores(0.8, 0.2, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(FuseScores(-0.9, 1.0, 0.3), 0.3);  // a negative cosine counts as 0
  EXPECT_EQ(FuseScores(std::nan(""), std::nan(""), 0.5), 0.0);
}

TEST(ScoringTest, HotnessFollowsUsageAndAHalfLifeOfSevenDays) {
  const int64_t now = 1000 * kDay;
  // Unused and just updated: sigmoid(log1p(0)) = 0.5.
  EXPECT_NEAR(Hotness(0, now, now), 0.5, 1e-12);
  // A week old: half of that.
  EXPECT_NEAR(Hotness(0, now - 7 * kDay, now), 0.25, 1e-12);
  // Used once: sigmoid(ln 2) = 1 / (1 + 1/2).
  EXPECT_NEAR(Hotness(1, now, now), 2.0 / 3.0, 1e-12);
  EXPECT_GT(Hotness(100, now, now), Hotness(3, now, now));
  // Unknown or future update times count as new.
  EXPECT_NEAR(Hotness(0, 0, now), 0.5, 1e-12);
  EXPECT_NEAR(Hotness(0, now + kDay, now), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(BlendHotness(0.8, 0.4, 0.0), 0.8);
  EXPECT_DOUBLE_EQ(BlendHotness(0.8, 0.4, 0.5), 0.6);
}

TEST(ScoringTest, ChildScopesNarrowInsteadOfWidening) {
  // No caller scope: the plain child scope.
  auto scopes = ChildScopesWithin("viking://resources/a", {});
  ASSERT_TRUE(scopes.has_value());
  ASSERT_EQ(scopes->size(), 1u);
  EXPECT_EQ((*scopes)[0].uri, "viking://resources/a");
  EXPECT_EQ((*scopes)[0].min_depth, 1);
  EXPECT_EQ((*scopes)[0].max_depth, 1);

  // The directory is inside a caller scope: the child scope alone.
  scopes = ChildScopesWithin("viking://resources/a", {UriScope::Subtree("viking://user/u1"),
                                                      UriScope::Subtree("viking://resources")});
  ASSERT_TRUE(scopes.has_value());
  ASSERT_EQ(scopes->size(), 1u);
  EXPECT_EQ((*scopes)[0].uri, "viking://resources/a");
  EXPECT_EQ((*scopes)[0].min_depth, 1);

  // The directory is outside every caller scope: nothing to search.
  EXPECT_FALSE(ChildScopesWithin("viking://user/u2", {UriScope::Subtree("viking://user/u1"),
                                                      UriScope::Subtree("viking://resources")})
                   .has_value());

  // A caller scope that is one child of the directory: only that child.
  scopes = ChildScopesWithin("viking://user", {UriScope::Subtree("viking://user/u1"),
                                               UriScope::Subtree("viking://user/u1/x/y")});
  ASSERT_TRUE(scopes.has_value());
  ASSERT_EQ(scopes->size(), 1u);
  EXPECT_EQ((*scopes)[0].uri, "viking://user/u1");
  EXPECT_EQ((*scopes)[0].min_depth, 0);
  EXPECT_EQ((*scopes)[0].max_depth, 0);

  // Depth bounds of the caller's scope: children of a dir two levels below a
  // scope limited to depth 2 are three levels below it.
  UriScope shallow{"viking://resources", 0, 2};
  EXPECT_TRUE(ChildScopesWithin("viking://resources/a", {shallow}).has_value());
  EXPECT_FALSE(ChildScopesWithin("viking://resources/a/b", {shallow}).has_value());
}

TEST(ScoringTest, OptionsValidateNamesTheBadField) {
  EXPECT_TRUE(RetrievalOptions().Validate().ok());
  RetrievalOptions options;
  options.hybrid_weight = 1.5;
  Status status = options.Validate();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("hybrid_weight"), std::string::npos) << status.ToString();
  options = {};
  options.score_propagation_alpha = std::nan("");
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.hotness_alpha = -0.1;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.directories_per_round = 0;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.max_convergence_rounds = 0;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.rerank_max_input_tokens = 64;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.lexical_saturation = 0;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.score_threshold = std::nan("");
  status = options.Validate();
  EXPECT_NE(status.message().find("rerank.threshold"), std::string::npos) << status.ToString();
}

}  // namespace
}  // namespace skald
