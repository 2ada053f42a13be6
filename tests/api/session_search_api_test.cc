// What conversations leave for retrieval, over HTTP: a committed archive's
// excerpts are found by their exact words (the live transcript never is),
// and search with a session_id completes follow-up questions from the
// session's recent messages (an unknown session is no error).

#include <string>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class SessionSearchApiTest : public ApiTest {
 protected:
  // URIs of find's memory hits for `query`.
  std::vector<std::string> MemoryHits(const std::string& query) {
    Reply r = PostJson("/api/v1/search/find",
                       {{"query", query}, {"context_type", "memory"}, {"limit", 20}});
    EXPECT_EQ(r.status, 200) << r.raw;
    std::vector<std::string> out;
    for (const Json& hit : r.json["result"]["memories"]) out.push_back(hit.value("uri", ""));
    return out;
  }
};

TEST_F(SessionSearchApiTest, CommittedConversationIsFoundWordForWord) {
  Say("trip", "Hey, how was your weekend?", "Melanie");
  Say("trip", "We visited the zeppelin museum in Friedrichshafen.", "Caroline");
  Say("trip", "Sounds like fun!", "Melanie");
  // Live messages are not searchable.
  Reply waited = PostJson("/api/v1/system/wait", {{"timeout", 60}});
  ASSERT_EQ(waited.status, 200) << waited.raw;
  for (const std::string& uri : MemoryHits("Friedrichshafen zeppelin")) {
    EXPECT_EQ(uri.find("/sessions/"), std::string::npos) << uri;
  }

  CommitAndWait("trip");
  std::string excerpt;
  for (const std::string& uri : MemoryHits("Friedrichshafen zeppelin")) {
    EXPECT_EQ(uri.find("messages.jsonl"), std::string::npos) << "transcripts are never hits";
    if (excerpt.empty() && uri.find("/sessions/trip/history/archive_001/excerpt_") !=
                               std::string::npos) {
      excerpt = uri;
    }
  }
  ASSERT_FALSE(excerpt.empty()) << "no excerpt of the committed conversation was found";
  Reply body = Get("/api/v1/content/read?uri=" + Q(excerpt));
  ASSERT_EQ(body.status, 200) << body.raw;
  const std::string text = body.json["result"];
  EXPECT_NE(text.find("[session trip"), std::string::npos) << text;
  EXPECT_NE(text.find("Caroline: We visited the zeppelin museum in Friedrichshafen."),
            std::string::npos)
      << text;

  // Deleting the session takes its excerpts out of search.
  ASSERT_EQ(Delete("/api/v1/sessions/trip").status, 200);
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  for (const std::string& uri : MemoryHits("Friedrichshafen zeppelin")) {
    EXPECT_EQ(uri.find("/sessions/trip/"), std::string::npos) << uri;
  }
}

TEST_F(SessionSearchApiTest, SearchCompletesFollowUpsFromTheSession) {
  Say("chat", "Tell me about the zeppelin museum in Friedrichshafen.");
  Reply r = PostJson("/api/v1/search/search",
                     {{"query", "and what about its opening hours?"}, {"session_id", "chat"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const Json& plan = r.json["result"]["query_plan"];
  // A topic: documents first, then what past conversations said.
  ASSERT_EQ(plan["queries"].size(), 2u) << r.raw;
  EXPECT_EQ(plan["queries"][0].value("context_type", ""), "resource") << r.raw;
  EXPECT_EQ(plan["queries"][1].value("context_type", ""), "memory") << r.raw;
  for (const Json& typed : plan["queries"]) {
    const std::string query = typed.value("query", "");
    EXPECT_NE(query.find("friedrichshafen"), std::string::npos) << r.raw;
    EXPECT_NE(query.find("opening hours"), std::string::npos) << r.raw;
  }
  EXPECT_FALSE(plan.value("reasoning", "").empty()) << r.raw;

  // Without a session, or with an unknown one, the query is searched as asked.
  for (const Json& body :
       {Json{{"query", "and what about its opening hours?"}},
        Json{{"query", "and what about its opening hours?"}, {"session_id", "no-such-session"}}}) {
    Reply plain = PostJson("/api/v1/search/search", body);
    ASSERT_EQ(plain.status, 200) << plain.raw;
    EXPECT_EQ(plain.json["result"]["query_plan"]["queries"][0].value("query", ""),
              "and what about its opening hours?")
        << plain.raw;
  }
}

}  // namespace
}  // namespace skald::apitest
