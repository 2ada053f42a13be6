// search, mode "context", over HTTP: answer-ready context under max_tokens —
// never over it at any budget, each entry at the detail that fits, the
// request's quotas and exclusions honoured, bad fields refused with 400.

#include <algorithm>
#include <set>
#include <string>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

// OpenViking's estimate for ASCII text: a quarter token per character, rounded up.
int64_t AsciiTokens(const std::string& text) { return (static_cast<int64_t>(text.size()) + 3) / 4; }

class ContextApiTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    Mkdir("viking://resources/boats");
    for (int i = 0; i < 8; ++i) {
      std::string body = "# Sailing note " + std::to_string(i) + "\n\n";
      for (int k = 0; k < 30; ++k) {
        body += "The sailing boat number " + std::to_string(i) + " tacks upwind past buoy " +
                std::to_string(k) + " while the crew trims the jib.\n";
      }
      Create("viking://resources/boats/note" + std::to_string(i) + ".md", body);
    }
    Say("trip", "Where did you go sailing last weekend?", "Melanie");
    Say("trip", "We went sailing on lake Constance with a rented boat.", "Caroline");
    Say("trip", "The jib tore in the wind, so we came back early.", "Caroline");
    CommitAndWait("trip");
    ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);
  }

  Reply Context(Json body) {
    body["mode"] = "context";
    if (!body.contains("query")) body["query"] = "sailing boat jib";
    return PostJson("/api/v1/search/search", body);
  }
};

TEST_F(ContextApiTest, NeverOverBudgetFrom64To8000Tokens) {
  int64_t previous_tokens = 0;
  for (int64_t budget : {64, 100, 200, 500, 1000, 1600, 4000, 8000}) {
    Reply r = Context({{"max_tokens", budget}});
    ASSERT_EQ(r.status, 200) << r.raw;
    const Json& result = r.json["result"];
    const std::string rendered = result.value("rendered", "");
    EXPECT_LE(AsciiTokens(rendered), budget) << budget;
    EXPECT_LE(result["stats"].value("tokens", int64_t{0}), budget) << budget;
    EXPECT_EQ(result["stats"].value("max_tokens", int64_t{0}), budget);
    ASSERT_FALSE(result["entries"].empty()) << budget << " " << r.raw;
    // More budget never gives less context.
    EXPECT_GE(result["stats"].value("tokens", int64_t{0}), previous_tokens) << budget;
    previous_tokens = result["stats"].value("tokens", int64_t{0});
    for (const Json& e : result["entries"]) {
      const std::string detail = e.value("detail", "");
      EXPECT_TRUE(detail == "abstract" || detail == "overview" || detail == "full") << e.dump();
      // Entries are named in the context by their URI; conversation excerpts
      // of one archive share one "[session … · date]" heading instead.
      const std::string text = e.value("text", "");
      const std::string anchor = e["origin"].value("type", "") == "session"
                                     ? text.substr(0, text.find('\n'))
                                     : e.value("uri", "");
      EXPECT_NE(rendered.find(anchor), std::string::npos) << e.dump();
      EXPECT_FALSE(e.value("text", "").empty()) << e.dump();
      EXPECT_TRUE(e.contains("origin")) << e.dump();
    }
  }
  // With room, the notes are there in full and the conversation is too.
  Reply roomy = Context({{"max_tokens", 8000}});
  bool full_note = false, excerpt = false;
  for (const Json& e : roomy.json["result"]["entries"]) {
    const std::string uri = e.value("uri", "");
    if (uri.find("/boats/note") != std::string::npos && e.value("detail", "") == "full") {
      full_note = true;
      EXPECT_EQ(e.value("category", ""), "resources");
      EXPECT_EQ(e["origin"].value("type", ""), "resource");
    }
    if (uri.find("/sessions/trip/history/") != std::string::npos) {
      excerpt = true;
      EXPECT_EQ(e["origin"].value("type", ""), "session");
      EXPECT_EQ(e["origin"].value("session_id", ""), "trip");
    }
  }
  EXPECT_TRUE(full_note) << roomy.raw;
  EXPECT_TRUE(excerpt) << roomy.raw;
}

TEST_F(ContextApiTest, ConversationLinesAreNotRepeated) {
  Reply r = Context({{"max_tokens", 4000}, {"context_type", "memory"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const std::string rendered = r.json["result"].value("rendered", "");
  const std::string line = "Caroline: We went sailing on lake Constance with a rented boat.";
  const size_t first = rendered.find(line);
  ASSERT_NE(first, std::string::npos) << rendered;
  EXPECT_EQ(rendered.find(line, first + 1), std::string::npos) << rendered;
  EXPECT_GT(r.json["result"]["stats"].value("repeated_lines", 0), 0) << r.raw;
}

TEST_F(ContextApiTest, MemoriesWhoseWordsAnExcerptShowsAreFoldedIntoIt) {
  // The commit extracted memories that quote the conversation.
  Reply list = PostJson("/api/v1/search/search",
                        {{"query", "sailing lake Constance boat jib"}, {"context_type", "memory"},
                         {"limit", 50}});
  ASSERT_EQ(list.status, 200) << list.raw;
  int memories = 0;
  for (const Json& hit : list.json["result"]["memories"]) {
    if (hit.value("uri", "").find("/memories/") != std::string::npos) ++memories;
  }
  ASSERT_GT(memories, 0) << list.raw;

  Reply r = Context({{"max_tokens", 4000}, {"context_type", "memory"},
                     {"query", "sailing lake Constance boat jib"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  const std::string rendered = r.json["result"].value("rendered", "");
  bool excerpt = false;
  for (const Json& e : r.json["result"]["entries"]) {
    excerpt = excerpt || e["origin"].value("type", "") == "session";
  }
  ASSERT_TRUE(excerpt) << r.raw;
  // A memory entry left in the context says something the excerpts there do
  // not: not every line it quotes (its file's `quotes`) is in the context.
  for (const Json& e : r.json["result"]["entries"]) {
    const std::string uri = e.value("uri", "");
    if (uri.find("/memories/") == std::string::npos) continue;
    Reply file = Get("/api/v1/content/read?raw=true&uri=" + Q(uri));
    ASSERT_EQ(file.status, 200) << file.raw;
    const std::string body = file.json.value("result", "");
    const size_t at = body.find("\nquotes: ");
    if (at == std::string::npos) continue;
    const std::string quotes_line = body.substr(at + 9, body.find('\n', at + 1) - at - 9);
    const Json quotes = Json::parse(quotes_line, nullptr, false);
    ASSERT_TRUE(quotes.is_array()) << quotes_line;
    bool all_shown = !quotes.empty();
    for (const Json& q : quotes) {
      all_shown = all_shown && rendered.find(q.get<std::string>()) != std::string::npos;
    }
    EXPECT_FALSE(all_shown) << uri << "\n" << rendered;
  }
}

TEST_F(ContextApiTest, ExcerptsSaidOnADayTheQueryNamesComeFirst) {
  // Two conversations about the garden, on different days; July's matches
  // more of the question's words.
  auto say_on = [&](const std::string& session, const std::string& day, const std::string& text) {
    Reply r = PostJson("/api/v1/sessions/" + session + "/messages",
                       {{"role", "user"}, {"peer_id", "Maria"}, {"content", text},
                        {"created_at", day + "T10:00:00Z"}});
    ASSERT_EQ(r.status, 200) << r.raw;
  };
  say_on("june", "2023-06-03", "We planted beans in the garden.");
  say_on("july", "2023-07-07", "The tomatoes we planted in the garden are ripe, tomatoes everywhere.");
  CommitAndWait("june");
  CommitAndWait("july");
  ASSERT_EQ(PostJson("/api/v1/system/wait", {{"timeout", 60}}).status, 200);

  auto first_session = [&](const std::string& query) {
    Reply r = Context({{"max_tokens", 2000}, {"context_type", "memory"}, {"query", query}});
    EXPECT_EQ(r.status, 200) << r.raw;
    for (const Json& e : r.json["result"]["entries"]) {
      const std::string session = e["origin"].value("session_id", "");
      if (session == "june" || session == "july") return session;
    }
    return std::string("none: ") + r.raw;
  };
  EXPECT_EQ(first_session("What tomatoes did Maria plant in the garden?"), "july");
  EXPECT_EQ(first_session("What tomatoes did Maria plant in the garden on 3 June, 2023?"), "june");
  EXPECT_EQ(first_session("What tomatoes did Maria plant in the garden in June?"), "june");
}

TEST_F(ContextApiTest, QuotasExclusionsAndDetailAreHonoured) {
  Reply one = Context({{"max_tokens", 8000}, {"quotas", {{"resources", 1}}}});
  ASSERT_EQ(one.status, 200) << one.raw;
  int resources = 0;
  std::string first_resource;
  for (const Json& e : one.json["result"]["entries"]) {
    if (e.value("category", "") == "resources") {
      ++resources;
      first_resource = e.value("uri", "");
    }
  }
  EXPECT_EQ(resources, 1) << one.raw;
  EXPECT_GT(one.json["result"]["stats"].value("over_quota", 0), 0) << one.raw;

  Reply without = Context({{"max_tokens", 8000}, {"exclude_uris", {first_resource}}});
  ASSERT_EQ(without.status, 200) << without.raw;
  for (const Json& e : without.json["result"]["entries"]) {
    EXPECT_NE(e.value("uri", ""), first_resource);
  }
  EXPECT_GE(without.json["result"]["stats"].value("excluded", 0), 1) << without.raw;

  Reply abstracts = Context({{"max_tokens", 8000}, {"detail", "abstract"}});
  ASSERT_EQ(abstracts.status, 200) << abstracts.raw;
  for (const Json& e : abstracts.json["result"]["entries"]) {
    EXPECT_EQ(e.value("detail", ""), "abstract") << e.dump();
  }
}

TEST_F(ContextApiTest, DedupTurnsSkipsWhatTheSessionWasGiven) {
  Reply first = Context({{"max_tokens", 300}, {"session_id", "trip"}, {"dedup_turns", 2}});
  ASSERT_EQ(first.status, 200) << first.raw;
  std::set<std::string> given;
  for (const Json& e : first.json["result"]["entries"]) given.insert(e.value("uri", ""));
  ASSERT_FALSE(given.empty());
  Reply second = Context({{"max_tokens", 300}, {"session_id", "trip"}, {"dedup_turns", 2}});
  ASSERT_EQ(second.status, 200) << second.raw;
  for (const Json& e : second.json["result"]["entries"]) {
    EXPECT_EQ(given.count(e.value("uri", "")), 0u) << e.dump();
  }
  EXPECT_GE(second.json["result"]["stats"].value("excluded", 0), 1) << second.raw;
  // Without dedup_turns the same call gives the same context again.
  Reply again = Context({{"max_tokens", 300}, {"session_id", "trip"}});
  ASSERT_EQ(again.status, 200);
  ASSERT_FALSE(again.json["result"]["entries"].empty()) << again.raw;
  EXPECT_EQ(again.json["result"]["entries"][0].value("uri", ""),
            first.json["result"]["entries"][0].value("uri", ""));
}

TEST_F(ContextApiTest, BadContextFieldsAre400AndTheServerKeepsServing) {
  const Json bad[] = {
      {{"max_tokens", 10}},
      {{"max_tokens", 40000}},
      {{"max_tokens", "many"}},
      {{"target_uri", "viking://resources/boats"}},
      {{"quotas", {{"resources", -1}}}},
      {{"quotas", "resources"}},
      {{"purpose", "poetry"}},
      {{"detail", "everything"}},
      {{"dedup_turns", 101}},
      {{"query_expansion", "sometimes"}},
      {{"rewrite", "yes"}},
      {{"rewrite_max_bullets", 0}},
      {{"no_such_field", 1}},
  };
  for (const Json& body : bad) {
    Reply r = Context(body);
    EXPECT_EQ(r.status, 400) << body.dump() << " " << r.raw;
    EXPECT_EQ(r.Code(), "INVALID_ARGUMENT") << r.raw;
  }
  // Context-only fields in list mode are refused too.
  Reply list = PostJson("/api/v1/search/search", {{"query", "sailing"}, {"max_tokens", 500}});
  EXPECT_EQ(list.status, 400) << list.raw;
  // Accepted for compatibility: peer_scope, other_peer_penalty, rewrite.
  Reply ok = Context({{"peer_scope", "actor"}, {"other_peer_penalty", 0.1}, {"rewrite", "auto"},
                      {"query_expansion", "off"}, {"purpose", "chat"}});
  EXPECT_EQ(ok.status, 200) << ok.raw;
  EXPECT_EQ(ok.json["result"]["query_plan"]["queries"].size(), 1u) << ok.raw;
  ExpectHealthy();
}

TEST_F(ContextApiTest, RecallIsContextModeUnderTheDeprecatedV1Names) {
  // OpenViking's older plugins: {query, quotas, max_chars, min_score, render}.
  Reply r = PostJson("/api/v1/search/recall", {{"query", "sailing boat jib"},
                                               {"max_chars", 1600},
                                               {"min_score", 0.0},
                                               {"render", true}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("Deprecation"), "true");
  EXPECT_EQ(r.Header("Link"), "</api/v1/search/search>; rel=\"successor-version\"");
  const Json& result = r.json["result"];
  EXPECT_EQ(result["stats"]["max_tokens"], 400) << "a quarter of max_chars";
  EXPECT_LE(AsciiTokens(result.value("rendered", "")), 400);
  ASSERT_FALSE(result["entries"].empty()) << r.raw;
  EXPECT_FALSE(result.value("rendered", "").empty());
  EXPECT_EQ(result["stats"]["returned"], result["entries"].size());
  EXPECT_EQ(result["stats"]["deprecated"]["aliases_used"],
            Json::array({"max_chars", "min_score", "render"}));
  // An explicit max_tokens wins; render false gives the entries only;
  // "compact" keeps them at their abstract.
  Reply entries_only = PostJson("/api/v1/search/recall", {{"query", "sailing boat jib"},
                                                          {"max_chars", 1600},
                                                          {"max_tokens", 900},
                                                          {"min_score", 0.0},
                                                          {"render", false}});
  ASSERT_EQ(entries_only.status, 200) << entries_only.raw;
  EXPECT_EQ(entries_only.json["result"]["stats"]["max_tokens"], 900);
  EXPECT_EQ(entries_only.json["result"]["rendered"], "");
  EXPECT_FALSE(entries_only.json["result"]["entries"].empty());
  Reply compact = PostJson("/api/v1/search/recall", {{"query", "sailing boat jib"},
                                                     {"max_chars", 32000},
                                                     {"min_score", 0.0},
                                                     {"render", "compact"}});
  ASSERT_EQ(compact.status, 200) << compact.raw;
  for (const Json& e : compact.json["result"]["entries"]) {
    EXPECT_EQ(e.value("detail", ""), "abstract") << e.dump();
  }
  // Defaults: max_chars 6,500 (1,625 tokens); unknown fields and bad values are 400.
  Reply plain = PostJson("/api/v1/search/recall", {{"query", "sailing"}});
  ASSERT_EQ(plain.status, 200) << plain.raw;
  EXPECT_EQ(plain.json["result"]["stats"]["max_tokens"], 1625);
  EXPECT_EQ(plain.json["result"]["stats"]["deprecated"]["aliases_used"], Json::array());
  for (const Json& bad : {Json{{"query", "q"}, {"unexpected", "value"}},
                          Json{{"query", "q"}, {"render", "loud"}},
                          Json{{"query", "q"}, {"max_chars", 0}},
                          Json{{"query", "q"}, {"min_score", "high"}},
                          Json{{"query", "q"}, {"read_content", true}}}) {
    Reply refused = PostJson("/api/v1/search/recall", bad);
    EXPECT_EQ(refused.status, 400) << bad.dump() << " " << refused.raw;
  }
  ExpectHealthy();
}

}  // namespace
}  // namespace skald::apitest
