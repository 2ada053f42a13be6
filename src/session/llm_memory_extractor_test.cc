// The LLM memory extractor against the loopback FakeModelServer speaking the
// OpenAI chat wire format (real HTTP): a good answer becomes candidates with
// provenance from the conversation; bad answers and failed calls fall back
// to the model-free extractor.

#include "session/llm_memory_extractor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/factory.h"
#include "model/fake_model_server.h"
#include "session/memory_merge.h"

namespace skald {
namespace {

using testing::FakeModelServer;
using testing::Fault;
using nlohmann::json;

ConversationMessage Msg(std::string id, std::string speaker, std::string text,
                        std::string role = "user") {
  ConversationMessage m;
  m.id = std::move(id);
  m.role = std::move(role);
  m.speaker = std::move(speaker);
  m.text = std::move(text);
  return m;
}

// The owner (no speaker: "User"), a peer and the assistant.
std::vector<ConversationMessage> Conversation() {
  return {Msg("msg_a1", "", "Hi! I live in Boston and I work as a nurse."),
          Msg("msg_a2", "Caroline", "I went to a support group yesterday, it was powerful."),
          Msg("msg_a3", "", "Sounds great, which tea do you like?", "assistant"),
          Msg("msg_a4", "", "I love green tea.")};
}

SessionContext Context() {
  SessionContext c;
  c.session_id = "s-llm";
  c.user = "alice";
  c.session_time = "2023-05-08T13:56:00.000Z";
  return c;
}

std::vector<std::string> Ids(const std::vector<MemoryCandidate>& candidates) {
  std::vector<std::string> out;
  for (const MemoryCandidate& c : candidates) out.push_back(c.id);
  return out;
}

const MemoryCandidate* WithText(const std::vector<MemoryCandidate>& all, std::string_view needle) {
  for (const MemoryCandidate& c : all) {
    if (c.text.find(needle) != std::string::npos) return &c;
  }
  return nullptr;
}

class LlmExtractorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.provider = "openai";
    config_.model = "fake-chat";
    config_.api_base = server_.base_url() + "/v1";
    config_.max_retries = 0;
    config_.timeout = 5.0;
  }

  std::unique_ptr<Llm> Make() {
    Result<std::unique_ptr<Llm>> made = NewLlm(config_);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }

  LlmExtraction Extract(const LlmExtractorOptions& options = {}) {
    std::unique_ptr<Llm> llm = Make();
    return ExtractMemoriesWithLlm(llm.get(), Conversation(), Context(), options);
  }

  // Asserts that `out` is the model-free extractor's result, used as a fallback.
  void ExpectFallback(const LlmExtraction& out, std::string_view reason_part) {
    EXPECT_EQ(out.extractor, kExtractorFallback);
    EXPECT_NE(out.fallback_reason.find(reason_part), std::string::npos) << out.fallback_reason;
    const std::vector<MemoryCandidate> model_free = ExtractMemories(Conversation(), Context());
    ASSERT_FALSE(model_free.empty());
    EXPECT_EQ(Ids(out.candidates), Ids(model_free));
    ASSERT_NE(WithText(out.candidates, "Boston"), nullptr);
  }

  FakeModelServer server_;
  LlmConfig config_;
};

const char* kGoodAnswer = R"({
  "profile": [
    {"text": "User lives in Boston.", "attribute": "lives_in", "value": "Boston",
     "negated": false, "message_ids": ["msg_a1"], "event_date": ""},
    {"text": "User works as a nurse.", "attribute": "occupation", "value": "nurse",
     "message_ids": ["msg_a1"]}
  ],
  "preferences": [
    {"text": "User likes green tea.", "attribute": "likes", "value": "green tea",
     "message_ids": ["msg_a4", "msg_a3"]}
  ],
  "events": [
    {"text": "Caroline went to a support group on 2023-05-07.", "attribute": "event",
     "value": "support group", "message_ids": ["msg_a2"], "event_date": "2023-05-07"}
  ],
  "cases": []
})";

TEST_F(LlmExtractorTest, GoodAnswerBecomesCandidatesWithProvenance) {
  server_.SetChatReply(kGoodAnswer);
  LlmExtraction out = Extract();
  EXPECT_EQ(out.extractor, kExtractorLlm);
  EXPECT_TRUE(out.fallback_reason.empty());
  EXPECT_EQ(out.dropped, 0u);
  EXPECT_EQ(out.prompt_tokens, 11);
  EXPECT_EQ(out.completion_tokens, 5);
  ASSERT_EQ(out.candidates.size(), 4u);

  const MemoryCandidate& home = out.candidates[0];
  EXPECT_EQ(home.type, MemoryType::kProfile);
  EXPECT_EQ(home.text, "User lives in Boston.");
  EXPECT_EQ(home.speaker, "User");
  EXPECT_EQ(home.subject, "user/lives_in");  // single-valued: a later city replaces it
  EXPECT_EQ(home.value, "Boston");
  EXPECT_EQ(home.session_id, "s-llm");
  EXPECT_EQ(home.message_ids, std::vector<std::string>{"msg_a1"});
  EXPECT_EQ(home.time, "2023-05-08T13:56");
  EXPECT_EQ(home.id, MemoryStableId(MemoryType::kProfile, home.subject, home.text));

  const MemoryCandidate& tea = out.candidates[2];
  EXPECT_EQ(tea.type, MemoryType::kPreferences);
  // Citations in conversation order; the speaker is the first cited message's.
  EXPECT_EQ(tea.message_ids, (std::vector<std::string>{"msg_a3", "msg_a4"}));
  EXPECT_EQ(tea.speaker, "Assistant");

  const MemoryCandidate& event = out.candidates[3];
  EXPECT_EQ(event.type, MemoryType::kEvents);
  EXPECT_EQ(event.speaker, "Caroline");
  EXPECT_EQ(event.event_date, "2023-05-07");
  EXPECT_EQ(MemoryRelativePath(event).rfind("events/2023/05/07/", 0), 0u)
      << MemoryRelativePath(event);

  // The merge step and the file format take them unchanged.
  std::vector<MemoryRecord> existing;
  std::vector<MemoryWrite> writes = PlanMemoryWrites(out.candidates, &existing);
  ASSERT_EQ(writes.size(), 4u);
  for (const MemoryWrite& w : writes) EXPECT_EQ(w.action, MergeAction::kCreate);
  Result<MemoryRecord> parsed = ParseMemoryFile(writes[3].content);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->memory.speaker, "Caroline");
  EXPECT_EQ(parsed->memory.session_id, "s-llm");
  EXPECT_EQ(parsed->memory.message_ids, std::vector<std::string>{"msg_a2"});
}

TEST_F(LlmExtractorTest, OneJsonCallCarryingIdsSpeakersAndTheSessionDate) {
  server_.SetChatReply(kGoodAnswer);
  (void)Extract();
  ASSERT_EQ(server_.request_count(), 1);
  const json body = server_.requests()[0].body;
  EXPECT_EQ(body["response_format"]["type"], "json_object");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  const std::string system = body["messages"][0]["content"];
  for (MemoryType type : AllMemoryTypes()) {
    EXPECT_NE(system.find("\"" + std::string(MemoryTypeName(type)) + "\""), std::string::npos)
        << MemoryTypeName(type);
  }
  const std::string user = body["messages"][1]["content"];
  EXPECT_NE(user.find("2023-05-08 (Monday)"), std::string::npos) << user;
  EXPECT_NE(user.find("[msg_a1] (2023-05-08T13:56) User: Hi! I live in Boston"), std::string::npos)
      << user;
  EXPECT_NE(user.find("[msg_a2] (2023-05-08T13:56) Caroline: I went"), std::string::npos) << user;
  EXPECT_NE(user.find("[msg_a3] (2023-05-08T13:56) Assistant (assistant): Sounds great"),
            std::string::npos)
      << user;
}

TEST_F(LlmExtractorTest, ValidationDropsBadItemsAndKeepsTheRest) {
  server_.SetChatReply(R"({
    "profile": [
      {"text": "User lives in Boston.", "attribute": "lives_in", "value": "Boston",
       "message_ids": ["msg_zz", "msg_a1"]},
      {"text": "User has a secret.", "message_ids": ["msg_zz"]},
      {"text": "", "message_ids": ["msg_a1"]},
      {"text": ")" + std::string(700, 'x') + R"(", "message_ids": ["msg_a1"]},
      "User is a nurse."
    ],
    "hobbies": [{"text": "User knits.", "message_ids": ["msg_a1"]}],
    "events": [
      {"text": "Caroline went to a support group.", "value": "support group",
       "message_ids": ["msg_a2"], "event_date": "2023-13-45"}
    ]
  })");
  LlmExtraction out = Extract();
  EXPECT_EQ(out.extractor, kExtractorLlm);
  ASSERT_EQ(out.candidates.size(), 2u);
  EXPECT_EQ(out.candidates[0].message_ids, std::vector<std::string>{"msg_a1"});
  EXPECT_EQ(out.candidates[1].event_date, "");  // not a date: cleared
  EXPECT_EQ(out.dropped, 5u);
  EXPECT_EQ(WithText(out.candidates, "secret"), nullptr);
  EXPECT_EQ(WithText(out.candidates, "knits"), nullptr);
}

TEST_F(LlmExtractorTest, AnswerIsCappedAtMaxCandidates) {
  server_.SetChatReply(kGoodAnswer);
  LlmExtractorOptions options;
  options.max_candidates = 2;
  LlmExtraction out = Extract(options);
  EXPECT_EQ(out.extractor, kExtractorLlm);
  EXPECT_EQ(out.candidates.size(), 2u);
  EXPECT_EQ(out.dropped, 2u);
}

TEST_F(LlmExtractorTest, NoMemoriesIsAValidAnswer) {
  server_.SetChatReply(R"({"profile": [], "events": []})");
  LlmExtraction out = Extract();
  EXPECT_EQ(out.extractor, kExtractorLlm);
  EXPECT_TRUE(out.candidates.empty());
}

TEST_F(LlmExtractorTest, MalformedJsonFallsBack) {
  server_.SetChatReply("Here are the memories: User lives in Boston.");
  ExpectFallback(Extract(), "not valid JSON");
  Fault malformed;
  malformed.malformed = true;  // the HTTP body itself is not JSON
  server_.PushFault(malformed);
  LlmExtraction out = Extract();
  EXPECT_EQ(out.extractor, kExtractorFallback);
  EXPECT_FALSE(out.fallback_reason.empty());
}

TEST_F(LlmExtractorTest, WrongShapesAndTypesFallBack) {
  server_.SetChatReply(R"(["User lives in Boston."])");
  ExpectFallback(Extract(), "not a JSON object");
  server_.SetChatReply(R"({"answer": "User lives in Boston."})");
  ExpectFallback(Extract(), "no list of memories");
  server_.SetChatReply(R"({"profile": "User lives in Boston."})");
  ExpectFallback(Extract(), "not a list");
  server_.SetChatReply(R"({"hobbies": [{"text": "User knits.", "message_ids": ["msg_a1"]}]})");
  ExpectFallback(Extract(), "unknown memory type");
  server_.SetChatReply(R"({"profile": [{"text": 42, "message_ids": ["msg_a1"]}]})");
  ExpectFallback(Extract(), "no text");
}

TEST_F(LlmExtractorTest, UnknownMessageIdsFallBack) {
  server_.SetChatReply(R"({"profile": [
      {"text": "User lives in Boston.", "message_ids": ["msg_nope", 7]},
      {"text": "User is a nurse.", "message_ids": []}]})");
  ExpectFallback(Extract(), "cites no message");
}

TEST_F(LlmExtractorTest, HttpErrorFallsBack) {
  Fault error;
  error.status = 500;
  server_.PushFault(error);
  LlmExtraction out = Extract();
  ExpectFallback(out, "HTTP 500");
  EXPECT_EQ(server_.request_count(), 1);
}

TEST_F(LlmExtractorTest, TimeoutFallsBack) {
  config_.timeout = 0.3;
  Fault slow;
  slow.delay = std::chrono::milliseconds(3000);
  server_.PushFault(slow);
  server_.SetChatReply(kGoodAnswer);
  LlmExtraction out = Extract();
  EXPECT_EQ(out.extractor, kExtractorFallback);
  EXPECT_FALSE(out.fallback_reason.empty());
  EXPECT_EQ(Ids(out.candidates), Ids(ExtractMemories(Conversation(), Context())));
}

TEST_F(LlmExtractorTest, NoModelIsModelFree) {
  LlmExtraction out = ExtractMemoriesWithLlm(nullptr, Conversation(), Context());
  EXPECT_EQ(out.extractor, kExtractorModelFree);
  EXPECT_EQ(Ids(out.candidates), Ids(ExtractMemories(Conversation(), Context())));
  EXPECT_EQ(server_.request_count(), 0);
}

TEST_F(LlmExtractorTest, MessagesBeyondThePromptBudgetAreExtractedModelFree) {
  server_.SetChatReply(R"({"profile": [{"text": "User lives in Boston.",
      "attribute": "lives_in", "value": "Boston", "message_ids": ["msg_a1", "msg_a4"]}]})");
  LlmExtractorOptions options;
  options.max_prompt_bytes = 100;  // room for the first message only
  LlmExtraction out = Extract(options);
  EXPECT_EQ(out.extractor, kExtractorLlm);
  EXPECT_EQ(out.overflow_messages, 3u);
  const std::string user = server_.requests()[0].body["messages"][1]["content"];
  EXPECT_EQ(user.find("msg_a4"), std::string::npos) << user;
  ASSERT_NE(WithText(out.candidates, "Boston"), nullptr);
  // msg_a4 was not shown: the model cannot cite it.
  EXPECT_EQ(WithText(out.candidates, "Boston")->message_ids, std::vector<std::string>{"msg_a1"});
  // Its fact comes from the model-free extractor.
  EXPECT_NE(WithText(out.candidates, "green tea"), nullptr);
}

}  // namespace
}  // namespace skald
