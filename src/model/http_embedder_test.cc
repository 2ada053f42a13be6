// HTTP embedders against the loopback FakeModelServer: batching, bounded
// concurrency, retries and Retry-After, the circuit breaker, timeouts,
// malformed replies, the dimension check and API-key redaction.

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>
#include <sstream>

#include "model/factory.h"
#include "model/fake_model_server.h"
#include "tests/testutil/fault_injection_env.h"

namespace skald {
namespace {

using std::chrono::milliseconds;
using testing::FakeModelServer;
using testing::Fault;

constexpr char kApiKey[] = "sk-test-SECRET-0123456789abcdef";

class HttpEmbedderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<HttpTransport>> transport = NewCurlTransport();
    ASSERT_TRUE(transport.ok());
    transport_ = std::move(transport).value();
    env_.transport = transport_;
    env_.env = &clock_;
    config_.provider = "openai";
    config_.model = "fake-embed";
    config_.api_base = server_.base_url() + "/v1";
    config_.api_key = kApiKey;
    config_.dimension = 8;
    config_.batch_size = 4;
    config_.max_concurrent = 2;
    config_.timeout = 10;
  }

  std::unique_ptr<Embedder> Make() {
    Result<std::unique_ptr<Embedder>> made = NewEmbedder(config_, env_);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }

  static std::vector<std::string> Texts(int n) {
    std::vector<std::string> texts;
    for (int i = 0; i < n; ++i) texts.push_back("document number " + std::to_string(i));
    return texts;
  }

  std::vector<milliseconds> sleeps() {
    std::vector<milliseconds> out;
    for (auto d : clock_.sleeps()) out.push_back(std::chrono::duration_cast<milliseconds>(d));
    return out;
  }
  void Advance(milliseconds d) { clock_.Advance(d); }

  FakeModelServer server_{8};
  std::shared_ptr<HttpTransport> transport_;
  ModelEnv env_;
  EmbeddingConfig config_;
  skald::testing::FakeClock clock_;
};

TEST_F(HttpEmbedderTest, SendsOneRequestPerBatchAndPlacesVectorsByIndex) {
  std::unique_ptr<Embedder> embedder = Make();
  ASSERT_TRUE(embedder);
  EXPECT_EQ(embedder->Name(), "openai:fake-embed:8");
  const std::vector<std::string> texts = Texts(10);
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(texts);
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 10u);
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ((*vectors)[i], server_.VectorFor(texts[i]));

  const std::vector<testing::RecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);  // 4 + 4 + 2
  size_t sent = 0;
  for (const auto& r : requests) {
    EXPECT_EQ(r.path, "/v1/embeddings");
    EXPECT_EQ(r.body["model"], "fake-embed");
    EXPECT_EQ(r.body["encoding_format"], "float");
    EXPECT_FALSE(r.body.contains("dimensions"));  // generic servers never get it
    EXPECT_LE(r.body["input"].size(), 4u);
    EXPECT_EQ(r.authorization, std::string("Bearer ") + kApiKey);
    sent += r.body["input"].size();
  }
  EXPECT_EQ(sent, 10u);
  EXPECT_EQ(embedder->stats().requests, 3u);
  EXPECT_EQ(embedder->stats().calls, 1u);

  // Connections are kept alive and reused: at most one per concurrent slot.
  ASSERT_TRUE(embedder->Embed(Texts(8)).ok());
  EXPECT_LE(transport_->connections_opened(), 2u);
}

TEST_F(HttpEmbedderTest, InFlightRequestsAreBoundedByMaxConcurrent) {
  config_.batch_size = 1;
  config_.max_concurrent = 3;
  Fault slow;
  slow.delay = milliseconds(300);
  server_.SetDefaultFault(slow);
  std::unique_ptr<Embedder> embedder = Make();
  ASSERT_TRUE(embedder->Embed(Texts(9)).ok());
  EXPECT_EQ(server_.request_count(), 9);
  EXPECT_LE(server_.max_in_flight(), 3);
  EXPECT_GE(server_.max_in_flight(), 2);  // batches really run in parallel
}

TEST_F(HttpEmbedderTest, BlankTextsAreZeroVectorsAndNotSent) {
  std::unique_ptr<Embedder> embedder = Make();
  std::vector<std::string> texts = {"", "real text", "  \n"};
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(texts);
  ASSERT_TRUE(vectors.ok());
  EXPECT_EQ((*vectors)[0], std::vector<float>(8, 0.0f));
  EXPECT_EQ((*vectors)[1], server_.VectorFor("real text"));
  EXPECT_EQ((*vectors)[2], std::vector<float>(8, 0.0f));
  ASSERT_EQ(server_.request_count(), 1);
  EXPECT_EQ(server_.requests()[0].body["input"].size(), 1u);
  ASSERT_TRUE(embedder->Embed(std::vector<std::string>{}).ok());
  EXPECT_EQ(server_.request_count(), 1);
}

TEST_F(HttpEmbedderTest, RetriesTransientErrorsWithExponentialBackoff) {
  Fault too_many;
  too_many.status = 429;
  server_.PushFault(too_many);
  Fault unavailable;
  unavailable.status = 503;
  server_.PushFault(unavailable);
  std::unique_ptr<Embedder> embedder = Make();
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(2));
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(server_.request_count(), 3);
  const std::vector<milliseconds> waits = sleeps();
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_GE(waits[0], milliseconds(250));  // 500 ms × [0.5, 1.5)
  EXPECT_LT(waits[0], milliseconds(750));
  EXPECT_GE(waits[1], milliseconds(500));  // 1000 ms × [0.5, 1.5)
  EXPECT_LT(waits[1], milliseconds(1500));
  EXPECT_EQ(embedder->stats().retries, 2u);
}

TEST_F(HttpEmbedderTest, RetryAfterReplacesTheBackoff) {
  Fault limited;
  limited.status = 429;
  limited.retry_after = "7";
  server_.PushFault(limited);
  std::unique_ptr<Embedder> embedder = Make();
  ASSERT_TRUE(embedder->Embed(Texts(1)).ok());
  ASSERT_EQ(sleeps().size(), 1u);
  EXPECT_EQ(sleeps()[0], milliseconds(7000));
}

TEST_F(HttpEmbedderTest, RetryAfterIsReallyWaitedFor) {
  env_.env = nullptr;  // real sleeping
  Fault limited;
  limited.status = 429;
  limited.retry_after = "1";
  server_.PushFault(limited);
  std::unique_ptr<Embedder> embedder = Make();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(embedder->Embed(Texts(1)).ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(1000));
  EXPECT_EQ(server_.request_count(), 2);
}

TEST_F(HttpEmbedderTest, TooLongRetryAfterFailsAtOnceNamingIt) {
  Fault limited;
  limited.status = 429;
  limited.retry_after = "3600";
  server_.SetDefaultFault(limited);
  std::unique_ptr<Embedder> embedder = Make();
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_NE(vectors.status().message().find("HTTP 429"), std::string::npos);
  EXPECT_NE(vectors.status().message().find("retry after 3600 s"), std::string::npos)
      << vectors.status().message();
  EXPECT_EQ(server_.request_count(), 1);
  EXPECT_TRUE(sleeps().empty());
}

TEST_F(HttpEmbedderTest, PersistentServerErrorNamesProviderModelAndStatus) {
  Fault broken;
  broken.status = 500;
  server_.SetDefaultFault(broken);
  std::unique_ptr<Embedder> embedder = Make();
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  const std::string& msg = vectors.status().message();
  EXPECT_NE(msg.find("embedding provider 'openai' model 'fake-embed'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("HTTP 500 Internal Server Error: injected failure"), std::string::npos) << msg;
  EXPECT_NE(msg.find("after 4 attempts"), std::string::npos) << msg;
  EXPECT_EQ(server_.request_count(), 4);  // 1 + max_retries
  EXPECT_EQ(embedder->stats().failures, 1u);
}

TEST_F(HttpEmbedderTest, ClientErrorsAreNotRetried) {
  Fault bad;
  bad.status = 400;
  server_.SetDefaultFault(bad);
  std::unique_ptr<Embedder> embedder = Make();
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_NE(vectors.status().message().find("HTTP 400"), std::string::npos);
  EXPECT_EQ(server_.request_count(), 1);
}

TEST_F(HttpEmbedderTest, CircuitBreakerFailsFastWhileTheProviderIsDown) {
  config_.max_retries = 0;
  Fault broken;
  broken.status = 503;
  server_.SetDefaultFault(broken);
  std::unique_ptr<Embedder> embedder = Make();
  for (int i = 0; i < 5; ++i) ASSERT_FALSE(embedder->Embed(Texts(1)).ok());
  EXPECT_EQ(server_.request_count(), 5);
  // Open: no request reaches the server.
  Result<std::vector<std::vector<float>>> fast = embedder->Embed(Texts(1));
  ASSERT_FALSE(fast.ok());
  EXPECT_NE(fast.status().message().find("circuit breaker is open"), std::string::npos)
      << fast.status().message();
  EXPECT_NE(fast.status().message().find("'openai' model 'fake-embed'"), std::string::npos);
  EXPECT_EQ(server_.request_count(), 5);
  EXPECT_EQ(embedder->stats().fast_fails, 1u);

  // After reset_timeout (60 s) one probe goes through; its success closes it.
  server_.SetDefaultFault(Fault{});
  Advance(milliseconds(59000));
  EXPECT_FALSE(embedder->Embed(Texts(1)).ok());
  Advance(milliseconds(1000));
  ASSERT_TRUE(embedder->Embed(Texts(1)).ok());
  EXPECT_EQ(server_.request_count(), 6);
  ASSERT_TRUE(embedder->Embed(Texts(1)).ok());
}

TEST_F(HttpEmbedderTest, SlowServerTimesOutAsDeadlineExceeded) {
  config_.timeout = 0.3;
  config_.max_retries = 1;
  Fault slow;
  slow.delay = milliseconds(5000);
  server_.SetDefaultFault(slow);
  std::unique_ptr<Embedder> embedder = Make();
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(vectors.status().message().find("timeout 300 ms"), std::string::npos)
      << vectors.status().message();
  EXPECT_EQ(server_.request_count(), 2);  // timeouts are retried
}

TEST_F(HttpEmbedderTest, MalformedJsonIsAnErrorAndNotRetried) {
  Fault malformed;
  malformed.malformed = true;
  server_.SetDefaultFault(malformed);
  std::unique_ptr<Embedder> embedder = Make();
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_NE(vectors.status().message().find("not valid JSON"), std::string::npos);
  EXPECT_EQ(server_.request_count(), 1);
}

TEST_F(HttpEmbedderTest, EveryResponseIsCheckedForTheConfiguredDimension) {
  std::unique_ptr<Embedder> embedder = Make();
  ASSERT_TRUE(embedder->Embed(Texts(3)).ok());
  Fault wrong;
  wrong.dimension = 9;
  server_.PushFault(wrong);
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(3));
  ASSERT_FALSE(vectors.ok());
  EXPECT_NE(vectors.status().message().find("dimension 9, expected 8"), std::string::npos)
      << vectors.status().message();
}

TEST_F(HttpEmbedderTest, ApiKeyNeverAppearsInErrorsOrLogs) {
  std::ostringstream captured;
  auto previous = spdlog::default_logger();
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  spdlog::set_level(spdlog::level::trace);

  config_.max_retries = 2;
  config_.extra_headers["X-Custom"] = "custom-secret-value";
  Fault echo;
  echo.status = 500;
  echo.echo_auth = true;
  server_.SetDefaultFault(echo);
  std::unique_ptr<Embedder> embedder = Make();
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(Texts(1));
  echo.status = 401;
  server_.SetDefaultFault(echo);
  Result<std::vector<std::vector<float>>> unauthorized = embedder->Embed(Texts(1));
  spdlog::set_default_logger(previous);

  ASSERT_FALSE(vectors.ok());
  ASSERT_FALSE(unauthorized.ok());
  // The server did receive the key and echoed it back in its error body...
  EXPECT_EQ(server_.requests()[0].authorization, std::string("Bearer ") + kApiKey);
  EXPECT_EQ(server_.requests()[0].custom_header, "custom-secret-value");
  // ...and it shows up nowhere.
  for (const std::string& text :
       {vectors.status().ToString(), unauthorized.status().ToString(), captured.str()}) {
    EXPECT_EQ(text.find(kApiKey), std::string::npos) << text;
    EXPECT_EQ(text.find("custom-secret-value"), std::string::npos) << text;
  }
  EXPECT_NE(unauthorized.status().message().find("HTTP 401"), std::string::npos);
  EXPECT_NE(unauthorized.status().message().find("[REDACTED]"), std::string::npos);
  EXPECT_NE(captured.str().find("retry 1/2"), std::string::npos) << captured.str();
}

TEST_F(HttpEmbedderTest, QueryAndDocumentParamsAndDimensionsAreSent) {
  config_.query_param = "query";
  config_.document_param = "input_type=passage, task=retrieval.passage";
  std::unique_ptr<Embedder> embedder = Make();
  ASSERT_TRUE(embedder->Embed(Texts(1), EmbedKind::kQuery).ok());
  ASSERT_TRUE(embedder->Embed(Texts(1), EmbedKind::kDocument).ok());
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].body["input_type"], "query");
  EXPECT_EQ(requests[1].body["input_type"], "passage");
  EXPECT_EQ(requests[1].body["task"], "retrieval.passage");

  config_.model = "text-embedding-3-small";  // native 1536: shortened on request
  ASSERT_TRUE(Make()->Embed(Texts(1)).ok());
  EXPECT_EQ(server_.requests().back().body["dimensions"], 8);
}

TEST_F(HttpEmbedderTest, OllamaNativeEmbedEndpoint) {
  config_.provider = "ollama";
  config_.model = "nomic-embed-text";
  config_.api_base = server_.base_url() + "/v1/";  // OpenViking-style base is accepted
  config_.api_key.clear();
  std::unique_ptr<Embedder> embedder = Make();
  const std::vector<std::string> texts = Texts(6);
  Result<std::vector<std::vector<float>>> vectors = embedder->Embed(texts);
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ((*vectors)[i], server_.VectorFor(texts[i]));
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/api/embed");
  EXPECT_EQ(requests[0].authorization, "");
  EXPECT_EQ(requests[0].body["model"], "nomic-embed-text");
}

TEST_F(HttpEmbedderTest, LongInputsAreCutToMaxInputTokens) {
  config_.max_input_tokens = 16;
  std::unique_ptr<Embedder> embedder = Make();
  ASSERT_TRUE(embedder->Embed(std::vector<std::string>{std::string(1000, 'a')}).ok());
  EXPECT_EQ(server_.requests()[0].body["input"][0].get<std::string>().size(), 64u);
}

TEST_F(HttpEmbedderTest, UnreachableProviderIsUnavailable) {
  config_.api_base = "http://127.0.0.1:1/v1";
  config_.max_retries = 0;
  Result<std::vector<std::vector<float>>> vectors = Make()->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(vectors.status().message().find("127.0.0.1:1"), std::string::npos);
}

TEST(EmbeddingFactoryTest, DefaultIsTheBuiltInHashingEmbedderAndBadConfigsAreRefused) {
  Result<std::unique_ptr<Embedder>> hashing = NewEmbedder(EmbeddingConfig{});
  ASSERT_TRUE(hashing.ok());
  EXPECT_EQ((*hashing)->provider(), "hashing");
  EXPECT_EQ((*hashing)->Dimension(), 512);
  EXPECT_EQ((*hashing)->stats().requests, 0u);

  EmbeddingConfig config;
  config.provider = "gemini";
  config.model = "x";
  Result<std::unique_ptr<Embedder>> unsupported = NewEmbedder(config);
  ASSERT_FALSE(unsupported.ok());
  EXPECT_NE(unsupported.status().message().find("embedding.dense.provider \"gemini\""),
            std::string::npos);
  config.provider = "vllm";
  config.model = "bge-small";
  config.api_base = "http://localhost:8000/v1";
  Result<std::unique_ptr<Embedder>> no_dim = NewEmbedder(config);
  ASSERT_FALSE(no_dim.ok());
  EXPECT_NE(no_dim.status().message().find("dimension is required"), std::string::npos);
  config.dimension = 384;
  EXPECT_TRUE(NewEmbedder(config).ok());
}

}  // namespace
}  // namespace skald
