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
  ASSERT_FALSE(plan->queries.empty());
  for (const TypedQuery& q : plan->queries) EXPECT_EQ(q.query, "and the other one?");
  EXPECT_FALSE(plan->reasoning.empty());
}

TEST(IntentAnalyzerTest, FollowUpBecomesSelfContainedFromRecentMessages) {
  RuleIntentAnalyzer analyzer;
  SessionHints hints;
  hints.recent_messages = {"I like the Fender guitar amplifier.",
                           "Which Marshall amplifier models do you compare?"};
  Result<QueryPlan> plan = analyzer.Analyze("and the other one?", hints);
  ASSERT_TRUE(plan.ok());
  ASSERT_FALSE(plan->queries.empty());
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

// The context types of a plan, in order.
std::vector<std::string> Types(const QueryPlan& plan) {
  std::vector<std::string> out;
  for (const TypedQuery& q : plan.queries) out.push_back(q.context_type);
  return out;
}

QueryPlan PlanOf(std::string_view query) {
  Result<QueryPlan> plan = RuleIntentAnalyzer().Analyze(query, {});
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : QueryPlan();
}

TEST(IntentAnalyzerTest, SmallTalkGivesNoQuery) {
  for (const char* q : {"hi", "Hello!", "thanks a lot", "thank you", "ok", "good morning",
                        "how are you doing?", "see you later", "\xe4\xbd\xa0\xe5\xa5\xbd"}) {
    QueryPlan plan = PlanOf(q);
    EXPECT_TRUE(plan.queries.empty()) << q;
    EXPECT_FALSE(plan.reasoning.empty()) << q;
  }
  // Greetings with a topic still search it.
  EXPECT_FALSE(PlanOf("hi, where are the kubernetes ingress docs?").queries.empty());
  EXPECT_FALSE(PlanOf("\xe8\xae\xa4\xe8\xaf\x81").queries.empty());  // 认证
}

TEST(IntentAnalyzerTest, RequestsGiveASkillQueryFirst) {
  EXPECT_EQ(Types(PlanOf("Write a release note for version 2")),
            (std::vector<std::string>{"skill", "resource", "memory"}));
  EXPECT_EQ(Types(PlanOf("please deploy the staging site")),
            (std::vector<std::string>{"skill", "resource", "memory"}));
  EXPECT_EQ(Types(PlanOf("can you translate this contract into German")),
            (std::vector<std::string>{"skill", "resource", "memory"}));
  // A request that is also about the user: skill, memory, resource.
  EXPECT_EQ(Types(PlanOf("draft an email to my landlord about the heating")),
            (std::vector<std::string>{"skill", "memory", "resource"}));
}

TEST(IntentAnalyzerTest, QuestionsAboutTheUserGiveAMemoryQueryFirst) {
  EXPECT_EQ(Types(PlanOf("what is my favorite programming language?")),
            (std::vector<std::string>{"memory", "resource"}));
  EXPECT_EQ(Types(PlanOf("which editor do I prefer")),
            (std::vector<std::string>{"memory", "resource"}));
  EXPECT_EQ(Types(PlanOf("what do I like?")), (std::vector<std::string>{"memory"}));
  QueryPlan plan = PlanOf("what is my favorite programming language?");
  ASSERT_EQ(plan.queries.size(), 2u);
  EXPECT_EQ(plan.queries[0].priority, 1);
  EXPECT_EQ(plan.queries[1].priority, 2);
  EXPECT_EQ(plan.queries[0].query, "what is my favorite programming language?");
}

TEST(IntentAnalyzerTest, TopicsGiveResourceThenMemoryQueries) {
  EXPECT_EQ(Types(PlanOf("kubernetes ingress timeouts")),
            (std::vector<std::string>{"resource", "memory"}));
  EXPECT_EQ(Types(PlanOf("When did Caroline go to the support group?")),
            (std::vector<std::string>{"resource", "memory"}));
  // A procedure adds a skill query.
  EXPECT_EQ(Types(PlanOf("how do I rotate the API keys of a tenant")),
            (std::vector<std::string>{"memory", "resource", "skill"}));
  EXPECT_EQ(Types(PlanOf("how to rotate api keys")),
            (std::vector<std::string>{"resource", "memory", "skill"}));
  EXPECT_LE(PlanOf("draft my how to guide").queries.size(), 5u);
}

TEST(IntentAnalyzerTest, EmptyQueryIsRefused) {
  RuleIntentAnalyzer analyzer;
  EXPECT_FALSE(analyzer.Analyze("  ", {}).ok());
}

}  // namespace
}  // namespace skald
