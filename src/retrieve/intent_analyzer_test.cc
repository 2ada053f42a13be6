#include "retrieve/intent_analyzer.h"

#include <gtest/gtest.h>

namespace skald {
namespace {

TEST(IntentAnalyzerTest, RecognizesFollowUps) {
  EXPECT_TRUE(IsFollowUpQuery("and the other one?"));
  EXPECT_TRUE(IsFollowUpQuery("What about its price?"));
  EXPECT_TRUE(IsFollowUpQuery("how about that?"));
  EXPECT_TRUE(IsFollowUpQuery("Or cheaper?"));
  EXPECT_TRUE(IsFollowUpQuery("is it any good?"));
  EXPECT_FALSE(IsFollowUpQuery("how do I rotate the API keys of a tenant"));
  EXPECT_FALSE(IsFollowUpQuery("kubernetes ingress timeouts"));
  EXPECT_FALSE(IsFollowUpQuery(""));
}

TEST(IntentAnalyzerTest, WithoutASessionTheQueryIsSearchedAsAsked) {
  RuleIntentAnalyzer analyzer;
  Result<QueryPlan> plan = analyzer.Analyze("and the other one?", {});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->queries.size(), 1u);
  EXPECT_EQ(plan->queries[0].query, "and the other one?");
  EXPECT_FALSE(plan->reasoning.empty());
}

TEST(IntentAnalyzerTest, FollowUpBecomesSelfContainedFromRecentMessages) {
  RuleIntentAnalyzer analyzer;
  SessionHints hints;
  hints.recent_messages = {"I like the Fender guitar amplifier.",
                           "Which Marshall amplifier models do you compare?"};
  Result<QueryPlan> plan = analyzer.Analyze("and the other one?", hints);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->queries.size(), 1u);
  const std::string& q = plan->queries[0].query;
  EXPECT_EQ(q.rfind("and the other one?", 0), 0u) << q;  // the question stays
  EXPECT_NE(q.find("marshall"), std::string::npos) << q;  // newest message first
  EXPECT_NE(q.find("amplifier"), std::string::npos) << q;
  EXPECT_EQ(q.find(" which"), std::string::npos) << q;  // function words are not topics
  EXPECT_NE(plan->reasoning.find("recent messages"), std::string::npos);
}

TEST(IntentAnalyzerTest, StandaloneQueryIgnoresTheSession) {
  RuleIntentAnalyzer analyzer;
  SessionHints hints;
  hints.recent_messages = {"Tell me about guitar amplifiers."};
  Result<QueryPlan> plan = analyzer.Analyze("postgres vacuum settings for large tables", hints);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->queries[0].query, "postgres vacuum settings for large tables");
}

TEST(IntentAnalyzerTest, ArchiveOverviewServesWhenNoMessageIsLive) {
  RuleIntentAnalyzer analyzer;
  SessionHints hints;
  hints.archive_overview = "Alice planned the Lisbon conference trip.";
  Result<QueryPlan> plan = analyzer.Analyze("what about them?", hints);
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->queries[0].query.find("lisbon"), std::string::npos) << plan->queries[0].query;
  EXPECT_NE(plan->reasoning.find("overview"), std::string::npos);
}

TEST(IntentAnalyzerTest, EmptyQueryIsRefused) {
  RuleIntentAnalyzer analyzer;
  EXPECT_FALSE(analyzer.Analyze("  ", {}).ok());
}

}  // namespace
}  // namespace skald
