#include "retrieve/context_budget.h"

#include <gtest/gtest.h>

#include <random>

#include "model/token_budget.h"

namespace skald {
namespace {

ContextCandidate Candidate(std::string uri, std::string abstract, std::string overview,
                           std::string full, ContextDetail preferred = ContextDetail::kAbstract) {
  ContextCandidate c;
  c.uri = std::move(uri);
  c.category = "resources";
  c.text = {std::move(abstract), std::move(overview), std::move(full)};
  c.preferred = preferred;
  return c;
}

std::string Words(int n, const std::string& word) {
  std::string out;
  for (int i = 0; i < n; ++i) out += word + " ";
  return out;
}

TEST(ContextBudgetTest, DetailNamesRoundTrip) {
  for (ContextDetail d : {ContextDetail::kAbstract, ContextDetail::kOverview, ContextDetail::kFull}) {
    EXPECT_EQ(ParseContextDetail(ContextDetailName(d)), d);
  }
  EXPECT_FALSE(ParseContextDetail("everything").has_value());
}

TEST(ContextBudgetTest, RoomyBudgetUpgradesEveryEntryToFull) {
  std::vector<ContextCandidate> c = {Candidate("viking://a", "a short", "a longer overview", "a full text"),
                                     Candidate("viking://b", "b short", "", "b full text")};
  ContextPlan plan = PlanContext(c, 1000);
  ASSERT_EQ(plan.entries.size(), 2u);
  EXPECT_EQ(plan.entries[0].detail, ContextDetail::kFull);
  EXPECT_EQ(plan.entries[0].text, "a full text\n");
  EXPECT_EQ(plan.entries[1].detail, ContextDetail::kFull);
  EXPECT_EQ(plan.rendered, "[resources] viking://a\na full text\n\n[resources] viking://b\nb full text\n\n");
  EXPECT_EQ(plan.left_out, 0);
}

TEST(ContextBudgetTest, TightBudgetDegradesInsteadOfDropping) {
  // The full text alone is larger than the budget: the abstract goes in.
  std::vector<ContextCandidate> c = {
      Candidate("viking://a", "the abstract", "", Words(400, "full"), ContextDetail::kFull)};
  ContextPlan plan = PlanContext(c, 64);
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].detail, ContextDetail::kAbstract);
  EXPECT_LE(plan.tokens, 64);
}

TEST(ContextBudgetTest, WhatDoesNotFitIsLeftOutAndBetterRanksComeFirst) {
  std::vector<ContextCandidate> c;
  for (int i = 0; i < 20; ++i) {
    c.push_back(Candidate("viking://r" + std::to_string(i), Words(20, "w" + std::to_string(i)), "", ""));
  }
  ContextPlan plan = PlanContext(c, 100);
  ASSERT_FALSE(plan.entries.empty());
  EXPECT_LT(plan.entries.size(), 20u);
  EXPECT_EQ(plan.entries[0].candidate, 0u);
  for (size_t i = 1; i < plan.entries.size(); ++i) {
    EXPECT_GT(plan.entries[i].candidate, plan.entries[i - 1].candidate);
  }
  EXPECT_EQ(plan.left_out, static_cast<int64_t>(20 - plan.entries.size()));
  EXPECT_LE(plan.tokens, 100);
}

TEST(ContextBudgetTest, RepeatedLinesAreRenderedOnce) {
  // Two overlapping conversation excerpts: the second adds only its new line.
  std::vector<ContextCandidate> c = {
      Candidate("viking://x1", "", "", "[s1]\nA: one\nB: two\n"),
      Candidate("viking://x2", "", "", "[s1]\nB: two\nA: three\n"),
      Candidate("viking://x3", "", "", "A: one\n")};
  ContextPlan plan = PlanContext(c, 1000);
  ASSERT_EQ(plan.entries.size(), 2u);
  EXPECT_EQ(plan.entries[1].text, "A: three\n");
  EXPECT_EQ(plan.repeated_lines, 3);
  EXPECT_EQ(plan.left_out, 0);  // x3 added nothing: not "left out"
}

TEST(ContextBudgetTest, AGroupRendersAsOneBlockInItsOwnOrder) {
  // Two excerpts of one conversation, the later one ranked first, and a file
  // between them in rank: the conversation is one block, in its order.
  std::vector<ContextCandidate> c = {
      Candidate("viking://s/archive/x2", "", "", "A: three\nB: four\n"),
      Candidate("viking://r/file", "a file", "", ""),
      Candidate("viking://s/archive/x1", "", "", "A: one\nB: two\n")};
  c[0].group = c[2].group = "viking://s/archive";
  c[0].order = 2;
  c[2].order = 1;
  c[0].category = c[2].category = "memories";
  ContextPlan plan = PlanContext(c, 1000);
  ASSERT_EQ(plan.entries.size(), 3u);
  EXPECT_EQ(plan.rendered,
            "[memories] viking://s/archive\nA: one\nB: two\nA: three\nB: four\n\n"
            "[resources] viking://r/file\na file\n\n");
  // The heading is paid for once, by the best-ranked entry of the block.
  EXPECT_GT(plan.entries[0].tokens, plan.entries[2].tokens);
  EXPECT_LE(EstimateTokens(plan.rendered), plan.tokens);
}

TEST(ContextBudgetTest, AGroupWithItsOwnHeadingRendersUnderIt) {
  // A conversation's excerpts bring their "[session ID · day]" line as the
  // heading: it replaces "[category] group" and is paid for once.
  std::vector<ContextCandidate> c = {
      Candidate("viking://s/archive/x2", "", "", "A: three\n"),
      Candidate("viking://s/archive/x1", "", "", "A: one\n")};
  for (ContextCandidate& e : c) {
    e.group = "viking://s/archive";
    e.category = "memories";
    e.heading = "[session s \u00b7 2023-05-08]";
  }
  c[0].order = 2;
  c[1].order = 1;
  ContextPlan plan = PlanContext(c, 1000);
  ASSERT_EQ(plan.entries.size(), 2u);
  EXPECT_EQ(plan.rendered, "[session s \u00b7 2023-05-08]\nA: one\nA: three\n\n");
  EXPECT_EQ(plan.entries[1].tokens, EstimateTokens("A: one") + 1);
  EXPECT_LE(EstimateTokens(plan.rendered), plan.tokens);
  // Without it, the same block costs the longer default heading.
  for (ContextCandidate& e : c) e.heading.clear();
  EXPECT_GT(PlanContext(c, 1000).tokens, plan.tokens);
}

TEST(ContextBudgetTest, CeilingLimitsUpgrades) {
  std::vector<ContextCandidate> c = {Candidate("viking://a", "abs", "over", "full")};
  c[0].ceiling = ContextDetail::kOverview;
  ContextPlan plan = PlanContext(c, 1000);
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].detail, ContextDetail::kOverview);
}

// The contract: never over budget, at any budget, whatever the texts.
TEST(ContextBudgetTest, NeverOverBudgetFrom50To8000Tokens) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> len(0, 600);
  std::vector<ContextCandidate> c;
  for (int i = 0; i < 60; ++i) {
    auto text = [&](int k) {
      std::string s;
      const int lines = 1 + len(rng) % 6;
      for (int l = 0; l < lines; ++l) s += Words(len(rng) / 8 + k, "t" + std::to_string((i + l) % 9)) + "\n";
      return s;
    };
    c.push_back(Candidate("viking://c" + std::to_string(i), text(1), i % 3 ? text(5) : "",
                          text(20), static_cast<ContextDetail>(i % 3)));
    if (i % 4 == 0) {
      c.back().group = "viking://g" + std::to_string(i % 3);
      c.back().order = 60 - i;
    }
  }
  for (int64_t budget : {50, 64, 100, 333, 1000, 1600, 4000, 8000}) {
    ContextPlan plan = PlanContext(c, budget);
    EXPECT_LE(plan.tokens, budget) << budget;
    EXPECT_LE(EstimateTokens(plan.rendered), budget) << budget;
    int64_t sum = 0;
    for (const PlannedEntry& e : plan.entries) sum += e.tokens;
    EXPECT_EQ(sum, plan.tokens);
  }
}

}  // namespace
}  // namespace skald
