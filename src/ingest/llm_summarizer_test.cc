// The LLM summarizer against a loopback chat server speaking the OpenAI
// wire format: the model's abstracts and overviews are used and capped; a
// failed call or a bad answer gives the extractive summary of that node.

#include "ingest/llm_summarizer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "model/factory.h"
#include "model/fake_model_server.h"

namespace skald {
namespace {

using Json = nlohmann::json;
using testing::FakeModelServer;
using testing::Fault;

constexpr std::string_view kDoc =
    "# Tide tables\n\nThe harbour of Porto publishes tide tables every week. High water comes "
    "twice a day. Fishermen plan their trips around the spring tides.\n";

class LlmSummarizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<Llm>> made = NewLlm(server_.ChatConfig("fake-writer"));
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    llm_ = std::move(made).value();
    extractive_ = NewExtractiveSummarizer();
  }

  std::unique_ptr<LlmSummarizer> Make(LlmSummarizerOptions options = {}) {
    EXPECT_TRUE(options.Validate().ok());
    return std::make_unique<LlmSummarizer>(llm_.get(), extractive_.get(), options);
  }

  static std::vector<EntrySummary> Entries() {
    return {{"tides.md", false, "Weekly tide tables of the harbour of Porto."},
            {"boats", true, "Fishing boats registered in Porto and their owners."}};
  }

  FakeModelServer server_;
  std::unique_ptr<Llm> llm_;
  std::unique_ptr<Summarizer> extractive_;
};

TEST_F(LlmSummarizerTest, FileAbstractComesFromTheModelAndIsCapped) {
  auto summarizer = Make();
  server_.SetChatReply(
      Json{{"abstract", "Porto's weekly  tide tables,\n high water twice daily."}}.dump());
  Result<std::string> summary = summarizer->SummarizeFile("tides.md", kDoc);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(*summary, "Porto's weekly tide tables, high water twice daily.");  // one line

  ASSERT_EQ(server_.request_count(), 1);  // one call per node
  const Json body = server_.requests()[0].body;
  EXPECT_EQ(body["response_format"]["type"], "json_object");
  const std::string prompt = body["messages"][1]["content"];
  EXPECT_NE(prompt.find("File name: tides.md"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("spring tides"), std::string::npos) << prompt;

  std::string sentences;
  for (int i = 0; i < 300; ++i) sentences += "Tides rise. ";
  server_.SetChatReply(Json{{"abstract", sentences}}.dump());
  summary = summarizer->SummarizeFile("tides.md", kDoc);
  ASSERT_TRUE(summary.ok());
  EXPECT_LE(Utf8Length(*summary), kFileSummaryMaxChars);
  EXPECT_GT(Utf8Length(*summary), kFileSummaryMaxChars / 2);
  EXPECT_EQ(summarizer->stats().fallbacks, 0u);
}

TEST_F(LlmSummarizerTest, LongFilesAreCutBeforeTheCall) {
  auto summarizer = Make({.max_input_tokens = 300});
  server_.SetChatReply(Json{{"abstract", "A long log."}}.dump());
  std::string text = "START ";
  for (int i = 0; i < 5000; ++i) text += "filler words here ";
  text += "FINISH";
  ASSERT_TRUE(summarizer->SummarizeFile("log.txt", text).ok());
  const std::string prompt = server_.requests().at(0).body["messages"][1]["content"];
  EXPECT_LT(prompt.size(), 2000u);
  EXPECT_NE(prompt.find("START"), std::string::npos);  // head and tail kept
  EXPECT_NE(prompt.find("FINISH"), std::string::npos);
}

TEST_F(LlmSummarizerTest, DirectoryOverviewCarriesTheModelsAbstractWithinTheCaps) {
  auto summarizer = Make();
  std::string body = "## Topics\n\nTides and boats of Porto.\n\n## Contents\n\n### tides.md\n\n";
  for (int i = 0; i < 600; ++i) body += "More detail. ";
  const std::string abstract(300, 'x');  // over the L0 cap, no sentence end
  server_.SetChatReply(Json{{"abstract", "Porto's harbour: tide tables and fishing boats."},
                            {"overview", "# porto\n\n" + body}}
                           .dump());
  const std::vector<EntrySummary> entries = Entries();
  Result<std::string> overview = summarizer->Overview("porto", entries, 2);
  ASSERT_TRUE(overview.ok()) << overview.status().ToString();
  EXPECT_EQ(overview->rfind("# porto\n\nPorto's harbour: tide tables and fishing boats.\n\n## "
                            "Topics",
                            0),
            0u)
      << *overview;
  EXPECT_LE(Utf8Length(*overview), kOverviewMaxChars);
  EXPECT_EQ(AbstractFromOverview(*overview), "Porto's harbour: tide tables and fishing boats.");
  EXPECT_EQ(overview->find("# porto", 1), std::string::npos) << "the model's H1 is dropped";

  const std::string prompt = server_.requests().at(0).body["messages"][1]["content"];
  EXPECT_NE(prompt.find("Directory: porto"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("- tides.md: Weekly tide tables"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("- boats/: Fishing boats"), std::string::npos) << prompt;

  server_.SetChatReply(
      Json{{"abstract", abstract}, {"overview", "Plain text, no heading."}}.dump());
  overview = summarizer->Overview("porto", entries, 2);
  ASSERT_TRUE(overview.ok());
  const std::string l0 = AbstractFromOverview(*overview);
  EXPECT_LE(Utf8Length(l0), kAbstractMaxChars);
  EXPECT_FALSE(l0.empty());
  EXPECT_NE(overview->find("## Overview\n\nPlain text, no heading."), std::string::npos)
      << *overview;
}

TEST_F(LlmSummarizerTest, AnyFailureGivesTheExtractiveSummaryOfThatNode) {
  auto summarizer = Make();
  const std::vector<EntrySummary> entries = Entries();
  const std::string file_fallback = *extractive_->SummarizeFile("tides.md", kDoc);
  const std::string dir_fallback = *extractive_->Overview("porto", entries, 2);
  ASSERT_FALSE(file_fallback.empty());

  const std::vector<std::string> bad_replies = {
      "Here is a summary: tides.",                          // not JSON
      R"({"summary": "wrong field"})",                      // no abstract
      R"({"abstract": "   "})",                             // blank
      R"({"abstract": 42, "overview": "## Topics\n\nx"})",  // not text
  };
  uint64_t expected_fallbacks = 0;
  for (const std::string& reply : bad_replies) {
    server_.SetChatReply(reply);
    EXPECT_EQ(*summarizer->SummarizeFile("tides.md", kDoc), file_fallback) << reply;
    EXPECT_EQ(*summarizer->Overview("porto", entries, 2), dir_fallback) << reply;
    expected_fallbacks += 2;
  }
  // The overview answer needs both fields, as text; a file answer is not enough.
  for (const std::string& reply :
       {std::string(R"({"abstract": "Tides of Porto."})"),
        std::string(R"({"abstract": "Tides.", "overview": "\n \n"})")}) {
    server_.SetChatReply(reply);
    EXPECT_EQ(*summarizer->Overview("porto", entries, 2), dir_fallback) << reply;
    ++expected_fallbacks;
  }

  Fault error;
  error.status = 500;
  server_.PushFault(error);
  EXPECT_EQ(*summarizer->SummarizeFile("tides.md", kDoc), file_fallback);
  Fault slow;
  slow.delay = std::chrono::milliseconds(3000);
  server_.PushFault(slow);
  EXPECT_EQ(*summarizer->Overview("porto", entries, 2), dir_fallback);
  expected_fallbacks += 2;
  EXPECT_EQ(summarizer->stats().fallbacks, expected_fallbacks);
  EXPECT_EQ(summarizer->stats().calls, expected_fallbacks);  // one call per node, no retry
}

TEST_F(LlmSummarizerTest, BlankFilesNeedNoCall) {
  auto summarizer = Make();
  Result<std::string> summary = summarizer->SummarizeFile("empty.md", " \n ");
  ASSERT_TRUE(summary.ok());
  EXPECT_TRUE(summary->empty());
  EXPECT_EQ(server_.request_count(), 0);
}

TEST_F(LlmSummarizerTest, CallsInFlightStayWithinTheLimit) {
  auto summarizer = Make({.max_concurrent = 2});
  server_.SetChatReply(Json{{"abstract", "Tides."}}.dump());
  Fault slow;
  slow.delay = std::chrono::milliseconds(150);
  server_.SetDefaultFault(slow);
  std::vector<std::thread> threads;
  std::vector<std::string> results(6);
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = *summarizer->SummarizeFile("tides.md", kDoc); });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& r : results) EXPECT_EQ(r, "Tides.");
  EXPECT_EQ(server_.request_count(), 6);
  EXPECT_LE(server_.max_in_flight(), 2);
  EXPECT_GE(server_.max_in_flight(), 1);
}

TEST(LlmSummarizerOptionsTest, ValidateNamesTheField) {
  EXPECT_NE(
      LlmSummarizerOptions{.max_input_tokens = 10}.Validate().message().find("max_input_tokens"),
      std::string::npos);
  EXPECT_NE(LlmSummarizerOptions{.max_concurrent = 0}.Validate().message().find("max_concurrent"),
            std::string::npos);
}

}  // namespace
}  // namespace skald
