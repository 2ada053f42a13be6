// Auto-commit policy normalization and the retention plans of a commit.

#include "session/session_policy.h"

#include <gtest/gtest.h>

#include "session/message.h"

namespace skald {
namespace {

Json Msg(const std::string& role, const std::string& text) {
  return Json{{"id", NewMessageId()},
              {"role", role},
              {"parts", Json::array({Json{{"type", "text"}, {"text", text}}})}};
}

TEST(SessionPolicyTest, PolicyGetsDefaultsAndRejectsBadFields) {
  Result<Json> policy = NormalizeAutoCommitPolicy(Json{{"message_count_threshold", 5}});
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  EXPECT_EQ((*policy)["message_count_threshold"], 5);
  EXPECT_EQ((*policy)["pending_token_threshold"], 150000);
  EXPECT_EQ((*policy)["idle_timeout_seconds"], 86400);
  EXPECT_EQ((*policy)["keep_recent_count"], 0);
  EXPECT_EQ((*policy)["min_commit_interval_seconds"], 0);
  EXPECT_TRUE(NormalizeAutoCommitPolicy(Json(nullptr))->is_null());

  for (const Json& bad : {Json{{"message_count_threshold", "5"}}, Json{{"bogus", 1}},
                          Json{{"message_count_threshold", 0}},
                          Json{{"message_count_threshold", 1001}},
                          Json{{"pending_token_threshold", 1.5}},
                          Json{{"min_commit_interval_seconds", -1}}, Json::array()}) {
    Result<Json> r = NormalizeAutoCommitPolicy(bad);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad.dump();
  }
  EXPECT_TRUE(ValidateMemoryExtractionConfig(Json{{"events", {{"tags", {"a", "b"}}}}}).ok());
  EXPECT_FALSE(ValidateMemoryExtractionConfig(Json{{"events", {{"tags", {1}}}}}).ok());
  EXPECT_FALSE(ValidateMemoryExtractionConfig(Json{{"events", "x"}}).ok());
  EXPECT_FALSE(ValidateMemoryExtractionConfig(Json("x")).ok());
}

TEST(SessionPolicyTest, KeepRecentKeepsTheNewestMessages) {
  RetentionPlan plan = PlanKeepRecent(5, 2);
  EXPECT_EQ(plan.archived, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(plan.retained, (std::vector<size_t>{3, 4}));
  EXPECT_TRUE(PlanKeepRecent(2, 4).archived.empty());
}

TEST(SessionPolicyTest, TurnBudgetKeepsWholeTurnsWithinTheBudget) {
  // Turns: [0,1] [2,3,4] [5,6] — each message 25 tokens (100 ASCII chars).
  const std::string t(100, 'x');
  std::vector<Json> m = {Msg("assistant", t), Msg("assistant", t), Msg("user", t),
                         Msg("assistant", t), Msg("assistant", t), Msg("user", t),
                         Msg("assistant", t)};
  ASSERT_EQ(MessageTokens(m[0]), 25);
  RetentionPlan two = PlanTurnBudget(m, 2, 1000, 1);
  EXPECT_EQ(two.archived, (std::vector<size_t>{0, 1}));
  EXPECT_FALSE(two.budget_exceeded);
  // A budget of 100 tokens holds the newest turn (50) but not the newest two (125).
  RetentionPlan tight = PlanTurnBudget(m, 3, 100, 1);
  EXPECT_EQ(tight.retained, (std::vector<size_t>{5, 6}));
  // Everything fits: nothing to archive.
  EXPECT_TRUE(PlanTurnBudget(m, 5, 100000, 1).archived.empty());
  EXPECT_EQ(PlanTurnBudget(m, 0, 100000, 1).archived.size(), m.size());
}

TEST(SessionPolicyTest, AnOversizedTurnKeepsItsUserMessageAndTail) {
  const std::string t(100, 'x');
  std::vector<Json> m = {Msg("user", t), Msg("user", t),      Msg("assistant", t),
                         Msg("assistant", t), Msg("assistant", t), Msg("assistant", t)};
  // The newest turn (1..5) is 125 tokens > 60: keep 1 and the last 1 step.
  RetentionPlan plan = PlanTurnBudget(m, 3, 60, 1);
  EXPECT_EQ(plan.retained, (std::vector<size_t>{1, 5}));
  EXPECT_EQ(plan.archived, (std::vector<size_t>{0, 2, 3, 4}));
  EXPECT_FALSE(plan.budget_exceeded);  // 50 <= 60
  RetentionPlan two_steps = PlanTurnBudget(m, 3, 60, 2);
  EXPECT_EQ(two_steps.retained, (std::vector<size_t>{1, 4, 5}));
  EXPECT_TRUE(two_steps.budget_exceeded);  // 75 > 60
}

}  // namespace
}  // namespace skald
