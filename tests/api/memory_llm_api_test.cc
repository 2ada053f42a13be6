// Memories extracted by a chat model, end to end: the real `skald serve`
// with its `vlm` section pointed at a loopback fake chat server (OpenAI wire
// format) in this test process. A commit writes the model's memories (with
// the provenance of the cited messages) and find returns them; when the
// model fails, the model-free extractor still writes memories.

#include <string>

#include "api_fixture.h"
#include "model/fake_model_server.h"

namespace skald::apitest {
namespace {

using ::skald::testing::FakeModelServer;
using ::skald::testing::Fault;

class MemoryLlmApiTest : public ApiTest {
 protected:
  void SetUp() override {
    StartServer(Json{{"vlm",
                      {{"provider", "openai"},
                       {"model", "fake-chat"},
                       {"api_base", chat_.base_url() + "/v1"},
                       {"api_key", "sk-fake"},
                       {"max_retries", 0},
                       {"timeout", 20}}}});
  }

  // The ids of the session's live messages, oldest first.
  std::vector<std::string> MessageIds(const std::string& session) {
    Reply r = Get("/api/v1/sessions/" + session + "/context");
    EXPECT_EQ(r.status, 200) << r.raw;
    std::vector<std::string> ids;
    for (const Json& m : r.json["result"]["messages"]) ids.push_back(m.value("id", ""));
    return ids;
  }

  std::string Read(const std::string& uri) {
    Reply r = Get("/api/v1/content/read?raw=true&uri=" + Q(uri));
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"].is_string() ? r.json["result"].get<std::string>() : "";
  }

  FakeModelServer chat_;
};

TEST_F(MemoryLlmApiTest, CommitWritesTheModelsMemoriesAndFindReturnsThem) {
  Say("s1", "My flatmate's parrot is called Kiwi and it sings opera.");
  Say("s1", "Yesterday I finally finished the marathon in Lisbon!");
  const std::vector<std::string> ids = MessageIds("s1");
  ASSERT_EQ(ids.size(), 2u);
  // What the model answers: facts the model-free rules would word differently.
  chat_.SetChatReply(
      Json{{"entities",
            {{{"text", "Kiwi is the opera-singing parrot of User's flatmate."},
              {"attribute", "pet"},
              {"value", "Kiwi"},
              {"message_ids", {ids[0]}}}}},
           {"events",
            {{{"text", "User completed the Lisbon marathon."},
              {"attribute", "event"},
              {"value", "Lisbon marathon"},
              {"message_ids", {ids[1], "msg_invented"}},
              {"event_date", "2024-03-16"}}}}}
          .dump());
  const Json result = CommitAndWait("s1");
  EXPECT_EQ(result.value("extractor", ""), "llm") << result.dump();
  EXPECT_EQ(result["memories_extracted"].value("entities", 0), 1) << result.dump();
  EXPECT_EQ(result["memories_extracted"].value("events", 0), 1) << result.dump();
  EXPECT_EQ(result["llm_token_usage"].value("prompt_tokens", 0), 11) << result.dump();

  // One structured call carrying the conversation.
  ASSERT_EQ(chat_.request_count(), 1);
  const Json sent = chat_.requests()[0].body;
  EXPECT_EQ(sent["response_format"]["type"], "json_object");
  const std::string prompt = sent["messages"][1]["content"];
  EXPECT_NE(prompt.find("[" + ids[0] + "]"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("User: My flatmate's parrot"), std::string::npos) << prompt;

  const std::vector<std::string> entities = MemoryFiles("entities");
  ASSERT_EQ(entities.size(), 1u);
  const std::string entity = Read(entities[0]);
  EXPECT_NE(entity.find("Kiwi is the opera-singing parrot of User's flatmate."), std::string::npos)
      << entity;
  EXPECT_NE(entity.find(ids[0]), std::string::npos) << "provenance: " << entity;
  EXPECT_NE(entity.find("s1"), std::string::npos) << entity;
  const std::vector<std::string> events = MemoryFiles("events");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find("/events/2024/03/16/"), std::string::npos) << events[0];
  const std::string event = Read(events[0]);
  EXPECT_EQ(event.find("msg_invented"), std::string::npos) << event;

  Reply found = PostJson("/api/v1/search/find",
                         {{"query", "parrot that sings opera"}, {"context_type", "memory"}});
  ASSERT_EQ(found.status, 200) << found.raw;
  const Json hits = found.json["result"]["memories"];
  bool file_found = false;
  for (const Json& hit : hits) file_found = file_found || hit.value("uri", "") == entities[0];
  EXPECT_TRUE(file_found) << "the memory file is among the hits: " << found.raw;
  ASSERT_FALSE(hits.empty());
  EXPECT_NE(hits[0].value("abstract", "").find("opera-singing parrot"), std::string::npos)
      << found.raw;

  Reply meta = Get("/api/v1/sessions/s1");
  EXPECT_EQ(meta.json["result"]["llm_token_usage"].value("prompt_tokens", 0), 11) << meta.raw;
  EXPECT_EQ(meta.json["result"]["llm_token_usage"].value("completion_tokens", 0), 5) << meta.raw;
}

TEST_F(MemoryLlmApiTest, AFailingModelFallsBackToTheModelFreeExtractor) {
  Fault error;
  error.status = 500;
  chat_.SetDefaultFault(error);
  Say("s2", "I live in Boston.");
  const Json result = CommitAndWait("s2");
  EXPECT_EQ(result.value("extractor", ""), "model_free_fallback") << result.dump();
  EXPECT_NE(result.value("extractor_fallback_reason", "").find("HTTP 500"), std::string::npos)
      << result.dump();
  const std::vector<std::string> profile = MemoryFiles("profile");
  ASSERT_EQ(profile.size(), 1u);
  EXPECT_NE(Read(profile[0]).find("User lives in Boston."), std::string::npos);

  // The extract route falls back the same way: a list, never an error.
  Say("s3", "I work as a nurse.");
  Reply extracted = PostJson("/api/v1/sessions/s3/extract", Json::object());
  ASSERT_EQ(extracted.status, 200) << extracted.raw;
  ASSERT_EQ(extracted.json["result"].size(), 1u) << extracted.raw;
  EXPECT_EQ(extracted.json["result"][0].value("decision", ""), "create");
  EXPECT_EQ(extracted.json["result"][0].value("text", ""), "User works as a nurse.");
}

TEST_F(MemoryLlmApiTest, ExtractRouteUsesTheModel) {
  Say("s4", "Honestly, pineapple on pizza is the best thing ever.");
  const std::vector<std::string> ids = MessageIds("s4");
  ASSERT_EQ(ids.size(), 1u);
  chat_.SetChatReply(Json{{"preferences",
                           {{{"text", "User loves pineapple on pizza."},
                             {"attribute", "likes"},
                             {"value", "pineapple pizza"},
                             {"message_ids", {ids[0]}}}}}}
                         .dump());
  Reply r = PostJson("/api/v1/sessions/s4/extract", Json::object());
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.json["result"].size(), 1u) << r.raw;
  const Json& item = r.json["result"][0];
  EXPECT_EQ(item.value("memory_type", ""), "preferences");
  EXPECT_EQ(item.value("text", ""), "User loves pineapple on pizza.");
  EXPECT_EQ(item.value("decision", ""), "create");
  EXPECT_EQ(item.value("uri", "").rfind("viking://user/default/memories/preferences/", 0), 0u);
  EXPECT_NE(Read(item.value("uri", "")).find("User loves pineapple on pizza."), std::string::npos);
  // The same answer again: the memory is known.
  Reply again = PostJson("/api/v1/sessions/s4/extract", Json::object());
  ASSERT_EQ(again.status, 200) << again.raw;
  ASSERT_EQ(again.json["result"].size(), 1u) << again.raw;
  EXPECT_EQ(again.json["result"][0].value("decision", ""), "skip");
  EXPECT_EQ(again.json["result"][0].value("uri", ""), item.value("uri", ""));
  EXPECT_EQ(chat_.request_count(), 2);
}

}  // namespace
}  // namespace skald::apitest
