// A chat model configured, end to end: the real `skald serve` with its
// `vlm` (and `query_planner`) sections pointed at a loopback fake chat server
// (OpenAI wire format) in this test process.
//   - search asks the planner for its typed queries, with the session's
//     messages, and reports its plan; a planner that answers garbage, fails
//     or is too slow leaves search to the rule-based plan (still 200);
//   - resources get the model's file abstracts and directory L0/L1, within
//     their length caps; a failing model leaves them the extractive ones.

#include <algorithm>
#include <chrono>
#include <string>

#include "api_fixture.h"
#include "model/fake_model_server.h"

namespace skald::apitest {
namespace {

using ::skald::testing::FakeModelServer;
using ::skald::testing::Fault;

// Words that tell the fake model's three kinds of call apart (from the
// instructions Skald sends as the system message).
bool IsPlannerCall(const Json& body) {
  return body["messages"][0].value("content", "").find("decide what an AI agent should look up") !=
         std::string::npos;
}
bool IsDirectoryCall(const Json& body) {
  return body["messages"][0].value("content", "").find("describe one directory") !=
         std::string::npos;
}

// The text after `label` up to the end of its line in the user message.
std::string Field(const Json& body, const std::string& label) {
  const std::string user = body["messages"][1].value("content", "");
  const size_t at = user.find(label);
  if (at == std::string::npos) return "";
  const size_t start = at + label.size();
  return user.substr(start, user.find('\n', start) - start);
}

class LlmApiTest : public ApiTest {
 protected:
  void SetUp() override {}  // each test starts the server with its config

  void StartWith(const Json& config) { StartServer(config); }

  Json ModelSection(const std::string& model) const {
    return {{"provider", "openai"}, {"model", model},   {"api_base", chat_.base_url() + "/v1"},
            {"api_key", "sk-fake"}, {"max_retries", 0}, {"timeout", 20}};
  }

  // The fake model: the planner answers `plan`; summaries are marked
  // "LLM-written" so that tests can tell them from extractive ones.
  void AnswerWith(const Json& plan) {
    chat_.SetChatResponder([plan](const Json& body) -> std::string {
      if (IsPlannerCall(body)) return plan.dump();
      if (IsDirectoryCall(body)) {
        const std::string name = Field(body, "Directory: ");
        return Json{{"abstract", "LLM-written abstract of the " + name + " directory. " +
                                     std::string(400, 'z')},
                    {"overview", "## Topics\n\nLLM-written topics of " + name + ".\n\n" +
                                     std::string(6000, 'y')}}
            .dump();
      }
      return Json{{"abstract", "LLM-written abstract of " + Field(body, "File name: ") + "."}}
          .dump();
    });
  }

  void Wait() {
    Reply waited = PostJson("/api/v1/system/wait", {{"timeout", 60}});
    ASSERT_EQ(waited.status, 200) << waited.raw;
  }

  // Two documents on unrelated topics under Root().
  void AddDocuments() {
    Create(Root() + "/garden/tomatoes.md",
           "# Tomato seedlings\n\nWater tomato seedlings every morning and keep them in full sun "
           "until they flower.\n");
    Create(Root() + "/garden/compost.md",
           "# Compost\n\nTurn the compost heap weekly so that the kitchen scraps rot evenly.\n");
    Create(Root() + "/code/borrow.md",
           "# The borrow checker\n\nRust's borrow checker rejects two mutable references to one "
           "value at the same time.\n");
    Wait();
  }

  std::vector<std::string> ResourceUris(const Reply& r) {
    std::vector<std::string> uris;
    for (const Json& hit : r.json["result"]["resources"]) uris.push_back(hit.value("uri", ""));
    return uris;
  }

  int PlannerCalls() {
    int n = 0;
    for (const auto& request : chat_.requests()) n += IsPlannerCall(request.body) ? 1 : 0;
    return n;
  }

  FakeModelServer chat_;
};

TEST_F(LlmApiTest, SearchRunsThePlannersTypedQueriesWithTheSession) {
  AnswerWith({{"reasoning", "The user now asks about the tomato seedlings."},
              {"queries",
               {{{"query", "watering tomato seedlings"},
                 {"context_type", "resource"},
                 {"intent", "how to water the seedlings"},
                 {"priority", 1}}}}});
  StartWith(
      {{"vlm", ModelSection("fake-writer")}, {"query_planner", ModelSection("fake-planner")}});
  AddDocuments();
  Say("garden-chat", "My compost heap smells bad, what should I do?");
  Say("garden-chat", "Also, my tomato seedlings look weak.");

  Reply r = PostJson("/api/v1/search/search",
                     {{"query", "and the other one?"}, {"session_id", "garden-chat"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& plan = r.json["result"]["query_plan"];
  EXPECT_EQ(plan.value("reasoning", ""), "The user now asks about the tomato seedlings.");
  ASSERT_EQ(plan["queries"].size(), 1u) << r.raw;
  EXPECT_EQ(plan["queries"][0].value("query", ""), "watering tomato seedlings");
  EXPECT_EQ(plan["queries"][0].value("context_type", ""), "resource");
  EXPECT_EQ(plan["queries"][0].value("intent", ""), "how to water the seedlings");
  EXPECT_EQ(plan["queries"][0].value("priority", 0), 1);
  const std::vector<std::string> uris = ResourceUris(r);
  ASSERT_FALSE(uris.empty()) << r.raw;
  EXPECT_EQ(uris[0], Root() + "/garden/tomatoes.md") << r.raw;
  EXPECT_TRUE(r.json["result"]["memories"].empty()) << "only the planned type ran: " << r.raw;

  // The planner model got the session's recent messages and the query.
  ASSERT_EQ(PlannerCalls(), 1);
  for (const auto& request : chat_.requests()) {
    if (!IsPlannerCall(request.body)) continue;
    EXPECT_EQ(request.body.value("model", ""), "fake-planner");
    const std::string prompt = request.body["messages"][1].value("content", "");
    EXPECT_NE(prompt.find("Also, my tomato seedlings look weak."), std::string::npos) << prompt;
    EXPECT_NE(prompt.find("and the other one?"), std::string::npos) << prompt;
  }

  // Small talk: the planner's empty plan runs no query.
  AnswerWith({{"reasoning", "A greeting."}, {"queries", Json::array()}});
  r = PostJson("/api/v1/search/search", {{"query", "hello there, lovely weather today"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_TRUE(r.json["result"]["query_plan"]["queries"].empty()) << r.raw;
  EXPECT_TRUE(r.json["result"]["resources"].empty()) << r.raw;
}

TEST_F(LlmApiTest, PlannerFailuresFallBackToTheRuleBasedPlan) {
  AnswerWith(Json("this is not a plan"));
  Json config{{"vlm", ModelSection("fake-writer")},
              {"retrieval", {{"recall_intent_timeout_s", 1}}}};
  StartWith(config);
  AddDocuments();
  const Json search{{"query", "borrow checker mutable references"}};

  auto expect_rule_plan = [&](const std::string& why) {
    Reply r = PostJson("/api/v1/search/search", search);
    ASSERT_EQ(r.status, 200) << why << ": " << r.raw;
    const Json& plan = r.json["result"]["query_plan"];
    const std::string reasoning = plan.value("reasoning", "");
    EXPECT_NE(reasoning.find("Rule-based plan"), std::string::npos) << why << ": " << r.raw;
    EXPECT_NE(reasoning.find(why), std::string::npos) << r.raw;
    ASSERT_FALSE(plan["queries"].empty()) << why << ": " << r.raw;
    EXPECT_EQ(plan["queries"][0].value("query", ""), "borrow checker mutable references");
    const std::vector<std::string> uris = ResourceUris(r);
    EXPECT_NE(std::find(uris.begin(), uris.end(), Root() + "/code/borrow.md"), uris.end())
        << why << ": " << r.raw;
  };
  expect_rule_plan("not a valid plan");  // garbage

  Fault error;
  error.status = 500;
  chat_.PushFault(error);
  expect_rule_plan("HTTP 500");

  Fault slow;
  slow.delay = std::chrono::milliseconds(4000);
  chat_.PushFault(slow);
  const auto start = std::chrono::steady_clock::now();
  expect_rule_plan("in time");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(3500))
      << "search waited out recall_intent_timeout_s (1 s), not the slow reply";
}

TEST_F(LlmApiTest, ResourceSummariesAreWrittenByTheModelWithinTheCaps) {
  AnswerWith({{"queries", Json::array()}});
  StartWith({{"vlm", ModelSection("fake-writer")}});
  AddDocuments();

  Reply l0 = Get("/api/v1/content/abstract?uri=" + Q(Root() + "/garden"));
  ASSERT_EQ(l0.status, 200) << l0.raw;
  const std::string abstract = l0.json["result"];
  EXPECT_EQ(abstract.rfind("LLM-written abstract of the garden directory.", 0), 0u) << abstract;
  EXPECT_LE(abstract.size(), 256u);
  Reply l1 = Get("/api/v1/content/overview?uri=" + Q(Root() + "/garden"));
  ASSERT_EQ(l1.status, 200) << l1.raw;
  const std::string overview = l1.json["result"];
  EXPECT_EQ(overview.rfind("# garden\n\nLLM-written abstract of the garden directory.", 0), 0u)
      << overview;
  EXPECT_NE(overview.find("## Topics\n\nLLM-written topics of garden."), std::string::npos);
  EXPECT_LE(overview.size(), 4000u);

  // File abstracts (level 2 hits) are the model's too.
  Reply found =
      PostJson("/api/v1/search/find",
               {{"query", "tomato seedlings"}, {"target_uri", Root() + "/garden"}, {"level", 2}});
  ASSERT_EQ(found.status, 200) << found.raw;
  ASSERT_FALSE(found.json["result"]["resources"].empty()) << found.raw;
  EXPECT_EQ(found.json["result"]["resources"][0].value("abstract", ""),
            "LLM-written abstract of tomatoes.md.")
      << found.raw;

  // Memories keep the model-free summaries: no summary call names them.
  Say("s1", "I live in Boston.");
  CommitAndWait("s1");
  const std::vector<std::string> profile = MemoryFiles("profile");
  ASSERT_FALSE(profile.empty());
  const std::string memory_file = profile[0].substr(profile[0].rfind('/') + 1);
  for (const auto& request : chat_.requests()) {
    const std::string dir = Field(request.body, "Directory: ");
    EXPECT_TRUE(dir != "memories" && dir != "profile" && dir != "s1") << dir;
    EXPECT_NE(Field(request.body, "File name: "), memory_file);
  }
}

TEST_F(LlmApiTest, AFailingModelLeavesTheExtractiveSummaries) {
  Fault error;
  error.status = 500;
  chat_.SetDefaultFault(error);
  StartWith({{"vlm", ModelSection("fake-writer")}});
  AddDocuments();
  EXPECT_GT(chat_.request_count(), 0) << "the model was asked";

  Reply l0 = Get("/api/v1/content/abstract?uri=" + Q(Root() + "/garden"));
  ASSERT_EQ(l0.status, 200) << l0.raw;
  const std::string abstract = l0.json["result"];
  EXPECT_FALSE(abstract.empty());
  EXPECT_EQ(abstract.find("LLM-written"), std::string::npos) << abstract;
  Reply found = PostJson("/api/v1/search/find", {{"query", "borrow checker"}, {"level", 2}});
  ASSERT_EQ(found.status, 200) << found.raw;
  ASSERT_FALSE(found.json["result"]["resources"].empty()) << found.raw;
  const std::string file_abstract = found.json["result"]["resources"][0].value("abstract", "");
  EXPECT_NE(file_abstract.find("borrow checker"), std::string::npos) << found.raw;

  // search still answers, with the rule-based plan.
  Reply r = PostJson("/api/v1/search/search", {{"query", "borrow checker"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_FALSE(r.json["result"]["resources"].empty()) << r.raw;
}

}  // namespace
}  // namespace skald::apitest
