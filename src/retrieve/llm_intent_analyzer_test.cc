// The LLM query planner against a loopback chat server (OpenAI wire
// format): its plan is used when valid; a failed call or a bad answer gives
// the rule-based plan.

#include "retrieve/llm_intent_analyzer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "model/factory.h"
#include "model/fake_model_server.h"

namespace skald {
namespace {

using Json = nlohmann::json;
using testing::FakeModelServer;
using testing::Fault;

class LlmIntentAnalyzerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Llm>> made =
        NewLlm(server_.ChatConfig("fake-planner", "query_planner"));
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    llm_ = std::move(made).value();
    analyzer_ = std::make_unique<LlmIntentAnalyzer>(llm_.get(), &rules_);
  }

  // The user message of the n-th request the server received.
  std::string Prompt(int n) {
    return server_.requests().at(static_cast<size_t>(n)).body["messages"][1]["content"];
  }

  FakeModelServer server_;
  std::unique_ptr<Llm> llm_;
  RuleIntentAnalyzer rules_;
  std::unique_ptr<LlmIntentAnalyzer> analyzer_;
};

TEST_F(LlmIntentAnalyzerTest, UsesTheModelsTypedQueries) {
  server_.SetChatReply(Json{
      {"reasoning", "The user wants the Marshall amp manual and their taste."},
      {"queries",
       {{{"query", "Marshall JCM800 amplifier manual"},
         {"context_type", "resource"},
         {"intent", "the manual"},
         {"priority", 1}},
        {{"query", "user's preferred guitar amplifier"},
         {"context_type", "memories"},
         {"intent", "taste"},
         {"priority",
          2}}}}}.dump());
  SessionHints hints;
  hints.archive_overview = "We compared Fender and Marshall amplifiers.";
  hints.recent_messages = {"I like the Fender one.", "Which Marshall did you mean?"};
  Result<QueryPlan> plan = analyzer_->Analyze("and the other one?", hints);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->queries.size(), 2u);
  EXPECT_EQ(plan->queries[0].query, "Marshall JCM800 amplifier manual");
  EXPECT_EQ(plan->queries[0].context_type, "resource");
  EXPECT_EQ(plan->queries[1].context_type, "memory");  // plural normalized
  EXPECT_EQ(plan->queries[1].priority, 2);
  EXPECT_EQ(plan->reasoning, "The user wants the Marshall amp manual and their taste.");

  // One JSON-mode call that carries the session.
  ASSERT_EQ(server_.request_count(), 1);
  const Json body = server_.requests()[0].body;
  EXPECT_EQ(body["response_format"]["type"], "json_object");
  EXPECT_EQ(body["messages"][0]["role"], "system");
  const std::string prompt = Prompt(0);
  EXPECT_NE(prompt.find("We compared Fender and Marshall amplifiers."), std::string::npos);
  EXPECT_NE(prompt.find("- Which Marshall did you mean?"), std::string::npos);
  EXPECT_NE(prompt.find("## Current message\nand the other one?"), std::string::npos);
  EXPECT_LT(prompt.find("I like the Fender one."), prompt.find("Which Marshall"));  // oldest first
}

TEST_F(LlmIntentAnalyzerTest, AnEmptyListIsAValidPlanForSmallTalk) {
  server_.SetChatReply(R"({"reasoning": "Just a greeting.", "queries": []})");
  Result<QueryPlan> plan =
      analyzer_->Analyze("good morning, how are you doing on this Tuesday", {});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->queries.empty());
  EXPECT_EQ(plan->reasoning, "Just a greeting.");
  EXPECT_NE(Prompt(0).find("There is no earlier conversation."), std::string::npos);
}

TEST_F(LlmIntentAnalyzerTest, GarbageFallsBackToTheRuleBasedPlan) {
  const Result<QueryPlan> rules = rules_.Analyze("postgres vacuum settings", {});
  ASSERT_TRUE(rules.ok());
  for (const std::string& reply :
       {std::string("I think you should search for postgres."),  // not JSON
        std::string(R"({"plan": "postgres"})"),                  // no queries
        std::string(R"({"queries": [{"query": "postgres"}]})"),  // no type
        std::string(R"({"queries": [{"query": " ", "context_type": "resource"}]})"),
        std::string(R"({"queries": [{"query": "x", "context_type": "website"}]})"),
        std::string(R"([{"query": "x", "context_type": "resource"}])")}) {
    server_.SetChatReply(reply);
    Result<QueryPlan> plan = analyzer_->Analyze("postgres vacuum settings", {});
    ASSERT_TRUE(plan.ok()) << reply;
    ASSERT_EQ(plan->queries.size(), rules->queries.size()) << reply;
    EXPECT_EQ(plan->queries[0].query, rules->queries[0].query) << reply;
    EXPECT_EQ(plan->queries[0].context_type, rules->queries[0].context_type) << reply;
    EXPECT_NE(plan->reasoning.find("not a valid plan"), std::string::npos) << plan->reasoning;
    EXPECT_NE(plan->reasoning.find("Rule-based plan"), std::string::npos) << plan->reasoning;
  }
}

TEST_F(LlmIntentAnalyzerTest, HttpErrorAndTimeoutFallBack) {
  Fault error;
  error.status = 500;
  server_.PushFault(error);
  Result<QueryPlan> plan = analyzer_->Analyze("how do I rotate the API keys", {});
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->queries.empty());
  EXPECT_NE(plan->reasoning.find("HTTP 500"), std::string::npos) << plan->reasoning;
  EXPECT_EQ(plan->reasoning.find("127.0.0.1"), std::string::npos) << "no endpoint shown";

  Fault slow;
  slow.delay = std::chrono::milliseconds(3000);
  server_.PushFault(slow);
  const auto start = std::chrono::steady_clock::now();
  plan = analyzer_->Analyze("how do I rotate the API keys", {});
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->queries.empty());
  EXPECT_NE(plan->reasoning.find("in time"), std::string::npos) << plan->reasoning;
  EXPECT_LT(waited, std::chrono::milliseconds(2500));  // the 0.5 s timeout, not the reply
}

TEST_F(LlmIntentAnalyzerTest, BlankQueryIsRejectedWithoutACall) {
  EXPECT_EQ(analyzer_->Analyze("  ", {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server_.request_count(), 0);
}

TEST(ParsePlannerReplyTest, OrdersCapsAndCleansTheQueries) {
  Json queries = Json::array();
  for (int i = 0; i < 7; ++i) {
    queries.push_back({{"query", "topic " + std::to_string(i)},
                       {"context_type", "Resource"},
                       {"priority", 7 - i}});
  }
  queries.push_back({{"query", "TOPIC 6"}, {"context_type", "resource"}});  // duplicate
  Result<QueryPlan> plan = ParsePlannerReply(Json{{"queries", queries}}.dump());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->queries.size(), 5u);
  for (const TypedQuery& q : plan->queries) {
    EXPECT_GE(q.priority, 1);
    EXPECT_LE(q.priority, 5);
    EXPECT_EQ(q.context_type, "resource");
  }
  EXPECT_EQ(plan->queries[0].query, "topic 6");  // priority 1 first
  EXPECT_EQ(plan->queries[0].priority, 1);

  Result<QueryPlan> long_query = ParsePlannerReply(
      Json{{"queries", {{{"query", std::string(1000, 'a')}, {"context_type", "skill"}}}}}.dump(),
      50);
  ASSERT_TRUE(long_query.ok());
  EXPECT_EQ(long_query->queries[0].query.size(), 50u);
  EXPECT_EQ(long_query->queries[0].priority, 1);  // missing: its position
}

}  // namespace
}  // namespace skald
