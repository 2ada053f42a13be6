// Chat and rerank clients against the loopback FakeModelServer.

#include <gtest/gtest.h>

#include "model/factory.h"
#include "model/fake_model_server.h"
#include "model/token_budget.h"

namespace skald {
namespace {

using testing::FakeModelServer;
using testing::Fault;

class ChatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.provider = "openai";
    config_.model = "fake-chat";
    config_.api_base = server_.base_url() + "/v1";
    config_.api_key = "sk-chat-key-123456";
    config_.temperature = 0.2;
    config_.max_tokens = 64;
  }
  std::unique_ptr<Llm> Make() {
    Result<std::unique_ptr<Llm>> made = NewLlm(config_);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }
  FakeModelServer server_;
  LlmConfig config_;
};

TEST_F(ChatTest, OpenAiChatSendsMessagesAndSettings) {
  std::unique_ptr<Llm> llm = Make();
  ASSERT_TRUE(llm);
  ChatRequest request;
  request.messages = {{"system", "be brief"}, {"user", "hi"}};
  Result<ChatResponse> reply = llm->Chat(request);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->content, "hello from the fake model");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->prompt_tokens, 11);
  EXPECT_EQ(reply->completion_tokens, 5);
  const auto r = server_.requests().at(0);
  EXPECT_EQ(r.path, "/v1/chat/completions");
  EXPECT_EQ(r.body["model"], "fake-chat");
  EXPECT_EQ(r.body["messages"][0]["role"], "system");
  EXPECT_EQ(r.body["messages"][1]["content"], "hi");
  EXPECT_DOUBLE_EQ(r.body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(r.body["max_tokens"], 64);
  EXPECT_EQ(r.body["stream"], false);
  EXPECT_FALSE(r.body.contains("response_format"));
  EXPECT_EQ(r.authorization, "Bearer sk-chat-key-123456");

  request.temperature = 0.9;
  request.max_tokens = 5;
  ASSERT_TRUE(llm->Chat(request).ok());
  EXPECT_DOUBLE_EQ(server_.requests().at(1).body["temperature"].get<double>(), 0.9);
  EXPECT_EQ(server_.requests().at(1).body["max_tokens"], 5);
}

TEST_F(ChatTest, JsonModeAsksForJsonStripsFencesAndRejectsNonJson) {
  std::unique_ptr<Llm> llm = Make();
  ChatRequest request;
  request.messages = {{"user", "give me json"}};
  request.json_output = true;
  server_.SetChatReply("```json\n{\"queries\": []}\n```");
  Result<ChatResponse> reply = llm->Chat(request);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->content, "{\"queries\": []}");
  EXPECT_EQ(server_.requests().at(0).body["response_format"]["type"], "json_object");

  server_.SetChatReply("Sure! Here is your answer.");
  Result<ChatResponse> bad = llm->Chat(request);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("chat provider 'openai' model 'fake-chat'"),
            std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("not valid JSON"), std::string::npos);
}

TEST_F(ChatTest, OllamaNativeChat) {
  config_.provider = "ollama";
  config_.api_base = server_.base_url();
  std::unique_ptr<Llm> llm = Make();
  ChatRequest request;
  request.messages = {{"user", "hi"}};
  request.json_output = true;
  server_.SetChatReply("{\"ok\": true}");
  Result<ChatResponse> reply = llm->Chat(request);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->content, "{\"ok\": true}");
  EXPECT_EQ(reply->prompt_tokens, 7);
  const auto r = server_.requests().at(0);
  EXPECT_EQ(r.path, "/api/chat");
  EXPECT_EQ(r.body["format"], "json");
  EXPECT_EQ(r.body["stream"], false);
  EXPECT_EQ(r.body["options"]["num_predict"], 64);
}

TEST_F(ChatTest, ErrorsNameProviderModelAndStatusWithoutTheKey) {
  config_.max_retries = 1;
  Fault echo;
  echo.status = 502;
  echo.echo_auth = true;
  server_.SetDefaultFault(echo);
  ChatRequest request;
  request.messages = {{"user", "hi"}};
  Result<ChatResponse> reply = Make()->Chat(request);
  ASSERT_FALSE(reply.ok());
  const std::string msg = reply.status().ToString();
  EXPECT_NE(msg.find("chat provider 'openai' model 'fake-chat': HTTP 502"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("sk-chat-key-123456"), std::string::npos) << msg;
  EXPECT_EQ(server_.request_count(), 2);
}

TEST(LlmFactoryTest, NoModelMeansNoLlm) {
  Result<std::unique_ptr<Llm>> none = NewLlm(LlmConfig());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  LlmConfig config;
  config.model = "m";
  config.provider = "openai-codex";
  EXPECT_FALSE(NewLlm(config).ok());
}

class RerankTest : public ::testing::Test {
 protected:
  std::unique_ptr<Reranker> Make() {
    Result<std::unique_ptr<Reranker>> made = NewReranker(config_);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }
  FakeModelServer server_;
  RerankConfig config_;
};

TEST_F(RerankTest, CohereShapeReturnsScoresInInputOrder) {
  config_.provider = "cohere";
  config_.api_base = server_.base_url();
  config_.api_key = "co-key-abcdef";
  std::unique_ptr<Reranker> reranker = Make();
  EXPECT_EQ(reranker->model(), "rerank-v3.5");
  std::vector<std::string> docs = {"nothing here", "rotate keys", "keys"};
  Result<std::vector<double>> scores = reranker->Rerank("rotate keys", docs);
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  EXPECT_EQ(*scores, (std::vector<double>{0.0, 1.0, 0.5}));
  const auto r = server_.requests().at(0);
  EXPECT_EQ(r.path, "/v1/rerank");
  EXPECT_EQ(r.body["top_n"], 3);
  EXPECT_EQ(r.body["return_documents"], false);
  EXPECT_EQ(r.authorization, "Bearer co-key-abcdef");
}

TEST_F(RerankTest, OpenAiCompatibleShapeAndUrlRules) {
  config_.provider = "openai";
  config_.model = "qwen3-rerank";
  config_.api_base = server_.base_url() + "/compatible/rerank";  // a full endpoint URL
  std::vector<std::string> docs = {"a b", "b"};
  Result<std::vector<double>> scores = Make()->Rerank("b", docs);
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  EXPECT_EQ(*scores, (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(server_.requests().at(0).path, "/compatible/rerank");
  EXPECT_FALSE(server_.requests().at(0).body.contains("top_n"));

  config_.provider = "jina";
  config_.api_base = server_.base_url() + "/v2";  // a version segment: <base>/rerank
  ASSERT_TRUE(Make()->Rerank("b", docs).ok());
  EXPECT_EQ(server_.requests().at(1).path, "/v2/rerank");
}

TEST_F(RerankTest, AutomaticProviderFollowsOpenViking) {
  config_.api_key = "k";
  EXPECT_EQ(config_.EffectiveProvider(), "cohere");
  config_.api_base = "http://x";
  EXPECT_EQ(config_.EffectiveProvider(), "openai");
  RerankConfig vikingdb;
  vikingdb.ak = "a";
  vikingdb.sk = "s";
  EXPECT_FALSE(NewReranker(vikingdb).ok());
  EXPECT_EQ(*NewReranker(RerankConfig{}), nullptr);
}

TEST_F(RerankTest, FallbackTruncationAndBlankDocumentsEndToEnd) {
  config_.provider = "cohere";
  config_.api_base = server_.base_url();
  config_.max_retries = 0;
  std::unique_ptr<Reranker> reranker = Make();
  RerankOptions options;
  options.max_input_tokens = 128;
  options.threshold = 0.4;
  const std::string query = "rotate keys " + std::string(2000, 'q');
  std::vector<std::string> docs = {"rotate keys " + std::string(4000, 'd') + " end", "", "keys"};
  std::vector<double> fallback = {0.3, 0.6, 0.2};
  RerankOutcome out = RerankOrFallback(reranker.get(), query, docs, fallback, options);
  ASSERT_TRUE(out.reranked) << out.warning;
  const auto sent = server_.requests().at(0).body;
  ASSERT_EQ(sent["documents"].size(), 2u);  // the blank one stayed home
  const int64_t q_tokens = EstimateTokens(sent["query"].get<std::string>());
  EXPECT_LE(q_tokens, 96);
  EXPECT_LE(EstimateTokens(sent["documents"][0].get<std::string>()), 128 - q_tokens);
  EXPECT_DOUBLE_EQ(out.scores[1], 0.6);  // blank: fallback score kept
  EXPECT_EQ(out.passed, (std::vector<bool>{out.scores[0] > 0.4, true, out.scores[2] > 0.4}));

  Fault broken;
  broken.status = 500;
  server_.SetDefaultFault(broken);
  out = RerankOrFallback(reranker.get(), "q", docs, fallback, options);
  EXPECT_FALSE(out.reranked);
  EXPECT_EQ(out.scores, fallback);
  EXPECT_NE(out.warning.find("HTTP 500"), std::string::npos) << out.warning;

  Fault short_reply;
  short_reply.rerank_drop = 1;
  server_.SetDefaultFault(short_reply);
  out = RerankOrFallback(reranker.get(), "q", docs, fallback, options);
  EXPECT_FALSE(out.reranked);
  EXPECT_NE(out.warning.find("returned 1 scores for 2 documents"), std::string::npos)
      << out.warning;
}

}  // namespace
}  // namespace skald
