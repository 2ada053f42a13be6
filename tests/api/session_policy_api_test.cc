// Session policies over HTTP (reference §2.7, internals §4.3): PATCH
// …/config replaces the auto-commit policy and memory-extraction config
// (shown by GET); a session with an auto-commit policy commits by itself
// when added messages cross a threshold (respecting min_commit_interval) or
// after its idle timeout; commit's turn-budget retention keeps whole user
// turns live, and turn fields without retention_mode are a 400.

#include <chrono>
#include <string>
#include <thread>

#include "api_fixture.h"

namespace skald::apitest {
namespace {

class SessionPolicyApiTest : public ApiTest {
 protected:
  Reply Patch(const std::string& path, const Json& body) {
    return ToReply(client_->Patch(path, body.dump(), "application/json"));
  }
  void Say(const std::string& id, const std::string& role, const std::string& text) {
    Reply r = PostJson("/api/v1/sessions/" + id + "/messages",
                       Json{{"role", role}, {"content", text}});
    ASSERT_EQ(r.status, 200) << r.raw;
  }
  Json Meta(const std::string& id) {
    Reply r = Get("/api/v1/sessions/" + id);
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"];
  }
  Json Archive(const std::string& id, const std::string& archive) {
    Reply r = Get("/api/v1/sessions/" + id + "/archives/" + archive);
    EXPECT_EQ(r.status, 200) << r.raw;
    return r.json["result"];
  }
  std::vector<std::string> LiveTexts(const std::string& id) {
    Reply r = Get("/api/v1/sessions/" + id + "/context");
    EXPECT_EQ(r.status, 200) << r.raw;
    std::vector<std::string> out;
    for (const Json& m : r.json["result"]["messages"]) out.push_back(m["parts"][0]["text"]);
    return out;
  }
};

TEST_F(SessionPolicyApiTest, PatchConfigReplacesPolicyAndExtractionConfig) {
  ASSERT_EQ(PostJson("/api/v1/sessions", Json{{"session_id", "p1"}}).status, 200);
  Reply set = Patch("/api/v1/sessions/p1/config",
                    Json{{"auto_commit_policy", {{"message_count_threshold", 40}}}});
  ASSERT_EQ(set.status, 200) << set.raw;
  const Json& r = set.json["result"];
  EXPECT_EQ(r["session_id"], "p1");
  EXPECT_EQ(r["auto_commit_policy"]["message_count_threshold"], 40);
  EXPECT_EQ(r["auto_commit_policy"]["pending_token_threshold"], 150000);  // defaults filled
  EXPECT_EQ(r["auto_commit_policy"]["idle_timeout_seconds"], 86400);
  EXPECT_EQ(r["memory_extraction_config"], (Json{{"events", {{"tags", Json::array()}}}}));
  EXPECT_EQ(Meta("p1")["auto_commit_policy"], r["auto_commit_policy"]);

  Reply tags = Patch("/api/v1/sessions/p1/config",
                     Json{{"memory_extraction_config", {{"events", {{"tags", {"work"}}}}}},
                          {"telemetry", false}});
  ASSERT_EQ(tags.status, 200) << tags.raw;
  EXPECT_EQ(tags.json["result"]["auto_commit_policy"]["message_count_threshold"], 40);  // kept
  EXPECT_EQ(Meta("p1")["memory_extraction_config"]["events"]["tags"], Json::array({"work"}));

  Reply off = Patch("/api/v1/sessions/p1/config", Json{{"auto_commit_policy", nullptr}});
  ASSERT_EQ(off.status, 200) << off.raw;
  EXPECT_TRUE(off.json["result"]["auto_commit_policy"].is_null());
  EXPECT_TRUE(Meta("p1")["auto_commit_policy"].is_null());

  for (const Json& bad : {Json{{"bogus", 1}}, Json{{"auto_commit_policy", "often"}},
                          Json{{"auto_commit_policy", {{"message_count_threshold", "3"}}}},
                          Json{{"auto_commit_policy", {{"every", 3}}}},
                          Json{{"auto_commit_policy", {{"message_count_threshold", 0}}}},
                          Json{{"memory_extraction_config", {{"events", {{"tags", "x"}}}}}},
                          Json{{"memory_extraction_config", 7}}}) {
    Reply r400 = Patch("/api/v1/sessions/p1/config", bad);
    EXPECT_EQ(r400.status, 400) << bad.dump() << ": " << r400.raw;
  }
  EXPECT_TRUE(Meta("p1")["auto_commit_policy"].is_null());  // nothing changed
  Reply missing = Patch("/api/v1/sessions/nope/config", Json{{"auto_commit_policy", nullptr}});
  EXPECT_EQ(missing.status, 404) << missing.raw;
  // create validates the policy too
  EXPECT_EQ(PostJson("/api/v1/sessions",
                     Json{{"session_id", "p2"}, {"auto_commit_policy", {{"every", 3}}}})
                .status,
            400);
}

TEST_F(SessionPolicyApiTest, CrossingAThresholdCommitsKeepingRecentMessages) {
  Reply created = PostJson(
      "/api/v1/sessions",
      Json{{"session_id", "a1"},
           {"auto_commit_policy", {{"message_count_threshold", 3}, {"keep_recent_count", 1}}}});
  ASSERT_EQ(created.status, 200) << created.raw;
  Say("a1", "user", "first");
  Say("a1", "assistant", "second");
  EXPECT_EQ(Meta("a1")["commit_count"], 0);
  EXPECT_TRUE(Meta("a1")["last_auto_commit_at"].is_null());
  Say("a1", "user", "third");  // the third message crosses the threshold
  const Json meta = Meta("a1");
  EXPECT_EQ(meta["commit_count"], 1);
  EXPECT_EQ(meta["message_count"], 1);
  EXPECT_TRUE(meta["last_auto_commit_at"].is_string()) << meta.dump();
  EXPECT_EQ(Archive("a1", "archive_001")["messages"].size(), 2u);
  EXPECT_EQ(LiveTexts("a1"), std::vector<std::string>{"third"});
  ASSERT_EQ(PostJson("/api/v1/system/wait", Json{{"timeout", 60}}).status, 200);
  EXPECT_EQ(Archive("a1", "archive_001")["status"], "completed");

  // Tokens cross too: 400 ASCII characters are 100 tokens.
  ASSERT_EQ(PostJson("/api/v1/sessions", Json{{"session_id", "t1"},
                                             {"auto_commit_policy",
                                              {{"pending_token_threshold", 50}}}})
                .status,
            200);
  Say("t1", "user", std::string(400, 'x'));
  EXPECT_EQ(Meta("t1")["commit_count"], 1);
  EXPECT_EQ(Meta("t1")["pending_tokens"], 0);
}

TEST_F(SessionPolicyApiTest, MinCommitIntervalHoldsBackTheNextAutoCommit) {
  ASSERT_EQ(PostJson("/api/v1/sessions",
                     Json{{"session_id", "m1"},
                          {"auto_commit_policy",
                           {{"message_count_threshold", 2}, {"min_commit_interval_seconds", 3600}}}})
                .status,
            200);
  Say("m1", "user", "one");
  Say("m1", "user", "two");
  EXPECT_EQ(Meta("m1")["commit_count"], 1);
  Say("m1", "user", "three");
  Say("m1", "user", "four");
  Say("m1", "user", "five");
  const Json meta = Meta("m1");
  EXPECT_EQ(meta["commit_count"], 1) << "within the interval";
  EXPECT_EQ(meta["message_count"], 3);
  // A manual commit is not held back.
  Reply commit = PostJson("/api/v1/sessions/m1/commit", Json::object());
  EXPECT_EQ(commit.json["result"]["status"], "accepted") << commit.raw;
}

TEST_F(SessionPolicyApiTest, AnIdleSessionCommitsAfterItsTimeout) {
  ASSERT_EQ(PostJson("/api/v1/sessions",
                     Json{{"session_id", "i1"}, {"auto_commit_policy", {{"idle_timeout_seconds", 1}}}})
                .status,
            200);
  Say("i1", "user", "I will be quiet now.");
  // The background worker's idle check commits it (polled; no timing asserted).
  Json meta;
  for (int i = 0; i < 600; ++i) {
    meta = Meta("i1");
    if (meta["commit_count"] == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(meta["commit_count"], 1) << meta.dump();
  EXPECT_EQ(meta["message_count"], 0);
  EXPECT_TRUE(meta["last_auto_commit_at"].is_string());
}

TEST_F(SessionPolicyApiTest, TurnBudgetRetentionKeepsWholeTurns) {
  for (const auto& [role, text] : std::vector<std::pair<std::string, std::string>>{
           {"user", "u1"}, {"assistant", "a1"}, {"user", "u2"}, {"assistant", "a2"},
           {"user", "u3"}, {"assistant", "a3"}}) {
    Say("r1", role, text);
  }
  EXPECT_EQ(PostJson("/api/v1/sessions/r1/commit", Json{{"keep_recent_turn_count", 1}}).status,
            400);
  EXPECT_EQ(PostJson("/api/v1/sessions/r1/commit",
                     Json{{"retention_mode", "all"}, {"keep_recent_turn_count", 1}})
                .status,
            400);
  EXPECT_EQ(PostJson("/api/v1/sessions/r1/commit",
                     Json{{"retention_mode", "turn_budget"}, {"min_raw_tail_steps", -1}})
                .status,
            400);
  EXPECT_EQ(Meta("r1")["commit_count"], 0);

  Reply commit = PostJson("/api/v1/sessions/r1/commit",
                          Json{{"retention_mode", "turn_budget"}, {"keep_recent_turn_count", 2}});
  ASSERT_EQ(commit.status, 200) << commit.raw;
  EXPECT_EQ(commit.json["result"]["status"], "accepted");
  EXPECT_EQ(commit.json["result"]["budget_exceeded"], false);
  EXPECT_EQ(Archive("r1", "archive_001")["messages"].size(), 2u);
  EXPECT_EQ(LiveTexts("r1"), (std::vector<std::string>{"u2", "a2", "u3", "a3"}));
  const Json meta = Meta("r1");
  EXPECT_EQ(meta["retention_mode"], "turn_budget");
  EXPECT_EQ(meta["keep_recent_turn_count"], 2);
  EXPECT_EQ(meta["retained_message_token_budget"], 12000);
  EXPECT_EQ(meta["min_raw_tail_steps"], 1);

  Reply again = PostJson("/api/v1/sessions/r1/commit",
                         Json{{"retention_mode", "turn_budget"}, {"keep_recent_turn_count", 2}});
  ASSERT_EQ(again.status, 200) << again.raw;
  EXPECT_EQ(again.json["result"]["status"], "skipped");
  EXPECT_EQ(again.json["result"]["reason"], "all_within_keep_window");

  // A newest turn over the budget keeps its user message and last step.
  Say("r1", "assistant", "a4 " + std::string(200, 'x'));
  Say("r1", "assistant", "a5");
  Reply tight = PostJson("/api/v1/sessions/r1/commit",
                         Json{{"retention_mode", "turn_budget"},
                              {"keep_recent_turn_count", 1},
                              {"retained_message_token_budget", 10},
                              {"min_raw_tail_steps", 1}});
  ASSERT_EQ(tight.status, 200) << tight.raw;
  EXPECT_EQ(tight.json["result"]["status"], "accepted");
  EXPECT_EQ(LiveTexts("r1"), (std::vector<std::string>{"u3", "a5"}));
  EXPECT_EQ(Archive("r1", "archive_002")["messages"].size(), 4u);  // u2 a2 a3 a4
  ASSERT_EQ(PostJson("/api/v1/system/wait", Json{{"timeout", 60}}).status, 200);
  EXPECT_EQ(Archive("r1", "archive_002")["status"], "completed");
  EXPECT_EQ(LiveTexts("r1"), (std::vector<std::string>{"u3", "a5"}));
}

}  // namespace
}  // namespace skald::apitest
