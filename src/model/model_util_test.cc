// Unit tests of the provider-independent parts: retry policy, circuit
// breaker (fake clock), token budget, RerankOrFallback (fake reranker).

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "model/circuit_breaker.h"
#include "model/reranker.h"
#include "model/retry.h"
#include "model/token_budget.h"
#include "tests/testutil/fault_injection_env.h"

namespace skald {
namespace {

using std::chrono::milliseconds;

TEST(RetryTest, RetryableStatuses) {
  for (int s : {408, 429, 500, 502, 503, 504}) EXPECT_TRUE(IsRetryableHttpStatus(s)) << s;
  for (int s : {200, 400, 401, 403, 404, 413, 422, 501})
    EXPECT_FALSE(IsRetryableHttpStatus(s)) << s;
}

TEST(RetryTest, BackoffDoublesUpToTheCapWithJitterInHalfToOneAndAHalf) {
  RetryPolicy policy;
  policy.jitter = false;
  EXPECT_EQ(BackoffDelay(policy, 0), milliseconds(500));
  EXPECT_EQ(BackoffDelay(policy, 1), milliseconds(1000));
  EXPECT_EQ(BackoffDelay(policy, 3), milliseconds(4000));
  EXPECT_EQ(BackoffDelay(policy, 10), milliseconds(8000));
  policy.jitter = true;
  for (int i = 0; i < 200; ++i) {
    const milliseconds d = BackoffDelay(policy, 1);
    EXPECT_GE(d, milliseconds(500));
    EXPECT_LT(d, milliseconds(1500));
  }
}

TEST(RetryTest, ParsesRetryAfterSecondsAndDates) {
  EXPECT_EQ(ParseRetryAfter("2", 0), milliseconds(2000));
  EXPECT_EQ(ParseRetryAfter(" 0.25 ", 0), milliseconds(250));
  // 1445412480 = Wed, 21 Oct 2015 07:28:00 GMT.
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 - 30), milliseconds(30000));
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 + 30), milliseconds(0));
  EXPECT_FALSE(ParseRetryAfter("", 0).has_value());
  EXPECT_FALSE(ParseRetryAfter("soon", 0).has_value());
  EXPECT_FALSE(ParseRetryAfter("-3", 0).has_value());
}

using testing::FakeClock;

TEST(CircuitBreakerTest, OpensAfterThresholdAndProbesAfterTimeoutWithDoubling) {
  FakeClock clock;
  CircuitBreakerOptions options;  // OpenViking's defaults: 5, 60 s, 600 s
  CircuitBreaker breaker(options, &clock);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(breaker.Allow());
    breaker.RecordFailure();
  }
  EXPECT_EQ(breaker.state(), CircuitBreaker::State::kClosed);
  ASSERT_TRUE(breaker.Allow());
  breaker.RecordFailure();
  EXPECT_EQ(breaker.state(), CircuitBreaker::State::kOpen);
  milliseconds retry_in{0};
  EXPECT_FALSE(breaker.Allow(&retry_in));
  EXPECT_EQ(retry_in, milliseconds(60000));

  clock.Advance(milliseconds(60000));
  EXPECT_TRUE(breaker.Allow());   // the probe
  EXPECT_FALSE(breaker.Allow());  // only one probe at a time
  breaker.RecordFailure();        // probe failed: open for 120 s
  clock.Advance(milliseconds(119000));
  EXPECT_FALSE(breaker.Allow(&retry_in));
  EXPECT_EQ(retry_in, milliseconds(1000));
  for (int expected_s : {120, 240, 480, 600, 600}) {
    (void)expected_s;
    clock.Advance(milliseconds(600000));
    ASSERT_TRUE(breaker.Allow());
    breaker.RecordFailure();
  }
  EXPECT_FALSE(breaker.Allow(&retry_in));
  EXPECT_EQ(retry_in, milliseconds(600000));  // capped at max_reset_timeout

  clock.Advance(milliseconds(600000));
  ASSERT_TRUE(breaker.Allow());
  breaker.RecordSuccess();
  EXPECT_EQ(breaker.state(), CircuitBreaker::State::kClosed);
  EXPECT_TRUE(breaker.Allow());
  // A success resets the count of consecutive failures.
  for (int i = 0; i < 4; ++i) breaker.RecordFailure();
  breaker.RecordSuccess();
  breaker.RecordFailure();
  EXPECT_EQ(breaker.state(), CircuitBreaker::State::kClosed);
}

TEST(TokenBudgetTest, EstimatesWithOpenVikingWeights) {
  EXPECT_EQ(EstimateTokens(""), 0);
  EXPECT_EQ(EstimateTokens("abcd"), 1);
  EXPECT_EQ(EstimateTokens("abcde"), 2);
  EXPECT_EQ(EstimateTokens("数据"), 3);              // 2 × 1.5
  EXPECT_EQ(EstimateTokens("\xF0\x9F\x98\x80"), 2);  // an emoji: non-BMP = 2
  EXPECT_EQ(EstimateTokens("\xFF\xFE"), 1);          // invalid bytes: 0.25 each
}

TEST(TokenBudgetTest, TruncationKeepsHeadAndTailWithinBudget) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += (i ? " w" : "w") + std::to_string(i);
  ASSERT_GT(EstimateTokens(text), 100);
  const std::string cut = TruncateToTokenBudget(text, 100);
  EXPECT_LE(EstimateTokens(cut), 100);
  EXPECT_EQ(cut.rfind("w0 w1 ", 0), 0u);
  EXPECT_NE(cut.find("\n\xE2\x80\xA6\n"), std::string::npos);
  EXPECT_EQ(cut.substr(cut.size() - 4), "w399");
  const size_t marker = cut.find("\n\xE2\x80\xA6\n");
  const int64_t head = EstimateTokens(cut.substr(0, marker));
  const int64_t tail = EstimateTokens(cut.substr(marker + 5));
  EXPECT_GT(head, 2 * tail);  // 75% / 25%
  EXPECT_EQ(TruncateToTokenBudget("short", 100), "short");
  EXPECT_EQ(TruncateToTokenBudget("long enough text", 0), "");
  // Never splits a UTF-8 sequence.
  const std::string cjk = TruncateToTokenBudget(std::string(300, 'x') + "数据库索引数据库索引", 20);
  EXPECT_LE(EstimateTokens(cjk), 20);
  EXPECT_EQ(TokenBudgetPrefix("数据库", 2), "\xE6\x95\xB0");  // 1.5 fits, 3 does not
}

// The prefix is the longest one within the budget, for texts of the
// heaviest code points (2 units a byte) too, where a short text is returned
// whole without being decoded.
TEST(TokenBudgetTest, PrefixIsTheLongestThatFits) {
  const std::vector<std::string> texts = {
      std::string(40, 'a'), "数据库索引数据库索引数据库", "\xF0\x9F\x98\x80\xF0\x9F\x98\x81"
      "ab\xF0\x9F\x98\x82",
      "caf\xC3\xA9 \xE6\x95\xB0" "x\xFF\xFE" "y", "한국어 텍스트 ok"};
  auto next_len = [](std::string_view rest) -> size_t {
    const auto b = static_cast<unsigned char>(rest[0]);
    const size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
    return n <= rest.size() ? n : 1;
  };
  for (const std::string& text : texts) {
    for (int64_t budget = 1; budget <= 48; ++budget) {
      const std::string_view prefix = TokenBudgetPrefix(text, budget);
      EXPECT_LE(EstimateTokens(prefix), budget) << text << " @" << budget;
      if (prefix.size() < text.size()) {
        const std::string_view rest = std::string_view(text).substr(prefix.size());
        const std::string_view longer = std::string_view(text).substr(0, prefix.size() + next_len(rest));
        EXPECT_GT(EstimateTokens(longer), budget) << text << " @" << budget;
      }
    }
  }
}

class FakeReranker final : public Reranker {
 public:
  std::string provider() const override { return "fake"; }
  std::string model() const override { return "fake-rerank"; }
  Result<std::vector<double>> Rerank(std::string_view query,
                                     std::span<const std::string> documents) override {
    last_query = std::string(query);
    last_documents.assign(documents.begin(), documents.end());
    if (!fail.ok()) return fail;
    std::vector<double> scores;
    for (size_t i = 0; i < documents.size() + extra; ++i) scores.push_back(0.9 - 0.1 * i);
    return scores;
  }
  Status fail;
  size_t extra = 0;
  std::string last_query;
  std::vector<std::string> last_documents;
};

TEST(RerankOrFallbackTest, NoRerankerKeepsScoresAndAppliesThreshold) {
  std::vector<std::string> docs = {"a", "b"};
  std::vector<double> fallback = {0.5, 0.05};
  RerankOutcome out = RerankOrFallback(nullptr, "q", docs, fallback, {});
  EXPECT_EQ(out.scores, fallback);
  EXPECT_FALSE(out.reranked);
  EXPECT_TRUE(out.warning.empty());
  EXPECT_EQ(out.passed, (std::vector<bool>{true, false}));
}

TEST(RerankOrFallbackTest, BlankDocumentsAreNotSentAndKeepTheirScore) {
  FakeReranker reranker;
  std::vector<std::string> docs = {"first", "  ", "second"};
  std::vector<double> fallback = {0.2, 0.7, 0.3};
  RerankOptions options;
  options.threshold = 0.75;
  RerankOutcome out = RerankOrFallback(&reranker, "q", docs, fallback, options);
  EXPECT_TRUE(out.reranked);
  EXPECT_EQ(reranker.last_documents, (std::vector<std::string>{"first", "second"}));
  EXPECT_DOUBLE_EQ(out.scores[0], 0.9);
  EXPECT_DOUBLE_EQ(out.scores[1], 0.7);
  EXPECT_DOUBLE_EQ(out.scores[2], 0.8);
  EXPECT_EQ(out.passed, (std::vector<bool>{true, false, true}));  // threshold on final scores
}

TEST(RerankOrFallbackTest, FailuresFallBackWithAWarning) {
  FakeReranker reranker;
  reranker.fail = Status::Unavailable("rerank provider 'x' model 'y': HTTP 500");
  std::vector<std::string> docs = {"a", "b"};
  std::vector<double> fallback = {0.4, 0.3};
  RerankOutcome out = RerankOrFallback(&reranker, "q", docs, fallback, {});
  EXPECT_FALSE(out.reranked);
  EXPECT_EQ(out.scores, fallback);
  EXPECT_NE(out.warning.find("HTTP 500"), std::string::npos) << out.warning;
  EXPECT_NE(out.warning.find("keeping the vector scores"), std::string::npos);

  reranker.fail = Status::Ok();
  reranker.extra = 1;  // one score too many
  out = RerankOrFallback(&reranker, "q", docs, fallback, {});
  EXPECT_FALSE(out.reranked);
  EXPECT_EQ(out.scores, fallback);
  EXPECT_FALSE(out.warning.empty());
}

TEST(RerankOrFallbackTest, TruncatesQueryToThreeQuartersAndDocumentsToTheRest) {
  FakeReranker reranker;
  std::string long_query(4000, 'q');  // 1000 tokens
  std::string long_doc = "HEAD " + std::string(8000, 'd') + " TAIL";
  std::vector<std::string> docs = {long_doc, "short"};
  std::vector<double> fallback = {0, 0};
  RerankOptions options;
  options.max_input_tokens = 200;
  RerankOutcome out = RerankOrFallback(&reranker, long_query, docs, fallback, options);
  ASSERT_TRUE(out.reranked);
  EXPECT_LE(EstimateTokens(reranker.last_query), 150);
  EXPECT_GE(EstimateTokens(reranker.last_query), 140);
  const int64_t doc_budget = 200 - EstimateTokens(reranker.last_query);
  EXPECT_LE(EstimateTokens(reranker.last_documents[0]), doc_budget);
  EXPECT_EQ(reranker.last_documents[0].rfind("HEAD ", 0), 0u);
  EXPECT_EQ(reranker.last_documents[0].substr(reranker.last_documents[0].size() - 5), " TAIL");
  EXPECT_EQ(reranker.last_documents[1], "short");
}

}  // namespace
}  // namespace skald
