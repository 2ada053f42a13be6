// Black-box tests of `skald session ...` and `skald add-memory`: the same
// steps embedded (--data) and remote (--url against `skald serve`) give the
// same --json results (ids and times aside), errors exit non-zero with the
// server's message, and add-memory commits a one-message session.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/testutil/subprocess.h"
#include "tests/testutil/temp_dir.h"

namespace skald::testing {
namespace {

using Json = nlohmann::json;
using Args = std::vector<std::string>;

const std::string kSkald = SKALD_BIN;

std::string Describe(const ProcessResult& r) {
  return "exit=" + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

// Drops what differs between two runs: times, generated ids, message ids.
Json Stable(Json j) {
  if (j.is_object()) {
    for (const char* key : {"mod_time", "created_at", "updated_at", "last_message_at",
                            "last_commit_at", "id", "task_id", "trace_id"}) {
      j.erase(key);
    }
    for (auto& [key, value] : j.items()) value = Stable(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = Stable(value);
  }
  return j;
}

class SessionCliTest : public ::testing::Test {
 protected:
  // Holds the empty client config every child process reads.
  inline static std::unique_ptr<TempDir> config_dir_;

  static void SetUpTestSuite() {
    for (const char* name :
         {"SKALD_URL", "SKALD_API_KEY", "SKALD_ACCOUNT", "SKALD_USER", "SKALD_TIMEOUT"}) {
      unsetenv(name);
    }
    config_dir_ = std::make_unique<TempDir>();
    const std::string empty_config = config_dir_->path() + "/cli.conf";
    std::ofstream(empty_config) << "{}";
    setenv("SKALD_CLI_CONFIG", empty_config.c_str(), 1);
  }
  static void TearDownTestSuite() { config_dir_.reset(); }
  void SetUp() override {
    const std::string log = dir_.path() + "/server.log";
    ASSERT_TRUE(server_.Start(
        kSkald, {"serve", "--host", "127.0.0.1", "--port", "0", "--data", dir_.path() + "/srv"},
        log));
    std::string line = server_.WaitForLine("skald: listening on http://", 30);
    ASSERT_FALSE(line.empty()) << "server did not start";
    size_t start = line.find("http://");
    url_ = line.substr(start, line.find(' ', start) - start);
  }
  void TearDown() override { EXPECT_EQ(server_.Stop(), 0); }

  ProcessResult Embedded(const Args& args) {
    Args full{"--data", dir_.path() + "/ws"};
    full.insert(full.end(), args.begin(), args.end());
    return RunProcess(kSkald, full);
  }
  ProcessResult Remote(const Args& args) {
    Args full{"--url", url_};
    full.insert(full.end(), args.begin(), args.end());
    return RunProcess(kSkald, full);
  }

  TempDir dir_;
  BackgroundProcess server_;
  std::string url_;
};

TEST_F(SessionCliTest, SameJsonEmbeddedAndRemote) {
  const std::vector<Args> steps = {
      {"session", "new", "--session-id", "trip", "--event-tags", "travel,family"},
      {"session", "add-message", "trip", "--role", "user", "--content",
       "We fly to Lisbon on the 3rd of May."},
      {"session", "add-messages", "trip",
       R"([{"role":"assistant","content":"Have a good trip!"},{"role":"user","content":"你好世界"}])"},
      {"session", "get", "trip"},
      {"session", "list"},
      {"session", "context", "trip", "--token-budget", "1000"},
      {"session", "extract", "trip"},
      {"session", "config", "set", "trip", "--event-tags", "work",
       "--auto-commit-policy-json", R"({"message_count_threshold":50})"},
      {"session", "config", "set", "trip", "--no-event-tags", "--no-auto-commit"},
      {"session", "commit", "trip", "--keep-recent-count", "1"},
      {"session", "commit", "trip", "--keep-recent-count", "1"},
      {"session", "archive", "trip", "archive_001"},
      {"session", "delete", "trip"},
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    const Args& step = steps[i];
    Args json_step{"--json"};
    json_step.insert(json_step.end(), step.begin(), step.end());
    ProcessResult local = Embedded(json_step);
    ProcessResult remote = Remote(json_step);
    const std::string what = step[1];
    ASSERT_EQ(local.exit_code, 0) << what << "\n" << Describe(local);
    ASSERT_EQ(remote.exit_code, 0) << what << "\n" << Describe(remote);
    Json l = Json::parse(local.out, nullptr, false);
    Json r = Json::parse(remote.out, nullptr, false);
    ASSERT_FALSE(l.is_discarded()) << what << ": " << local.out;
    ASSERT_FALSE(r.is_discarded()) << what << ": " << remote.out;
    if (what == "archive") {
      // Phase 2 may or may not have run yet on either side: compare the messages.
      EXPECT_EQ(Stable(l["messages"]), Stable(r["messages"]));
      EXPECT_EQ(l["messages"].size(), 2u) << local.out;
      continue;
    }
    EXPECT_EQ(Stable(l), Stable(r)) << what << "\nembedded: " << local.out
                                    << "\nremote: " << remote.out;
    if (what == "new") {
      EXPECT_EQ(l["memory_extraction_config"]["events"]["tags"], Json::array({"travel", "family"}));
    }
    if (what == "extract") {
      ASSERT_TRUE(l.is_array()) << local.out;
      ASSERT_FALSE(l.empty()) << local.out;
      EXPECT_EQ(l[0]["decision"], "create") << local.out;
      // Plain output: one line per memory, decision first; the memory is known now.
      ProcessResult again = Remote({"session", "extract", "trip"});
      ASSERT_EQ(again.exit_code, 0) << Describe(again);
      EXPECT_EQ(again.out.rfind("skip\t", 0), 0u) << again.out;
    }
    if (what == "add-messages") {
      // search reads the session: a follow-up is completed from its messages.
      for (bool remote_mode : {false, true}) {
        Args search{"--json", "search", "and what about the other one?", "--session-id", "trip"};
        ProcessResult s = remote_mode ? Remote(search) : Embedded(search);
        ASSERT_EQ(s.exit_code, 0) << Describe(s);
        Json plan = Json::parse(s.out, nullptr, false);
        ASSERT_TRUE(plan.is_object()) << s.out;
        const std::string query = plan["query_plan"]["queries"][0].value("query", "");
        EXPECT_NE(query.find("trip"), std::string::npos) << (remote_mode ? "remote " : "embedded ")
                                                         << s.out;
      }
    }
    if (i == 7) {  // config set: only what is given changes
      EXPECT_EQ(l["memory_extraction_config"]["events"]["tags"], Json::array({"work"})) << local.out;
      EXPECT_EQ(l["auto_commit_policy"]["message_count_threshold"], 50) << local.out;
    }
    if (i == 8) {
      EXPECT_EQ(l["memory_extraction_config"]["events"]["tags"], Json::array()) << local.out;
      EXPECT_TRUE(l["auto_commit_policy"].is_null()) << local.out;
    }
    if (i == 9) {
      EXPECT_EQ(l["status"], "accepted") << local.out;
    }
    if (i == 10) {
      EXPECT_EQ(l["reason"], "all_within_keep_window") << local.out;
    }
  }
  ProcessResult missing = Remote({"--json", "session", "commit", "nope"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("Session nope not found"), std::string::npos) << Describe(missing);
  ProcessResult no_extract = Remote({"--json", "session", "extract", "nope"});
  EXPECT_NE(no_extract.exit_code, 0);
  EXPECT_NE(no_extract.err.find("Session nope not found"), std::string::npos)
      << Describe(no_extract);
}

TEST_F(SessionCliTest, AddMemoryCommitsOneMessageSession) {
  ProcessResult added = Remote({"--json", "add-memory", "I am allergic to peanuts"});
  ASSERT_EQ(added.exit_code, 0) << Describe(added);
  Json r = Json::parse(added.out, nullptr, false);
  ASSERT_TRUE(r.is_object()) << added.out;
  EXPECT_EQ(r["status"], "accepted");
  const std::string session = r["session_id"];
  ProcessResult archive = Remote({"--json", "session", "archive", session, "archive_001"});
  ASSERT_EQ(archive.exit_code, 0) << Describe(archive);
  Json a = Json::parse(archive.out, nullptr, false);
  ASSERT_EQ(a["messages"].size(), 1u) << archive.out;
  EXPECT_EQ(a["messages"][0]["parts"][0]["text"], "I am allergic to peanuts");
  EXPECT_EQ(a["messages"][0]["role"], "user");

  ProcessResult readable = Embedded({"add-memory", "Remember the milk"});
  ASSERT_EQ(readable.exit_code, 0) << Describe(readable);
  EXPECT_NE(readable.out.find("status: accepted"), std::string::npos) << readable.out;
}

// A policy that is not JSON is refused in both modes before anything is
// sent; it used to reach the server as null, which turns auto-commit off.
TEST_F(SessionCliTest, AutoCommitPolicyMustBeAJsonObject) {
  for (bool remote : {false, true}) {
    for (const Args& args :
         {Args{"session", "new", "--session-id", "typo", "--auto-commit-policy-json", "{bad"},
          Args{"session", "config", "set", "typo", "--auto-commit-policy-json", "50"}}) {
      ProcessResult r = remote ? Remote(args) : Embedded(args);
      EXPECT_EQ(r.exit_code, 2) << Describe(r);
      EXPECT_EQ(r.err.rfind("error: --auto-commit-policy-json must be a JSON object", 0), 0u)
          << Describe(r);
    }
    const Args get_args{"session", "get", "typo"};
    ProcessResult get = remote ? Remote(get_args) : Embedded(get_args);
    EXPECT_EQ(get.exit_code, 1) << Describe(get);  // nothing was created
  }
}

TEST_F(SessionCliTest, AddMessagesNeedsAJsonArray) {
  for (bool remote : {false, true}) {
    for (const Args& args : {Args{"session", "add-messages", "batch", "not json"},
                             Args{"session", "add-messages", "batch", R"({"role":"user"})"}}) {
      ProcessResult r = remote ? Remote(args) : Embedded(args);
      EXPECT_EQ(r.exit_code, 2) << Describe(r);
      EXPECT_EQ(r.err.rfind("error: messages must be a JSON array", 0), 0u) << Describe(r);
    }
  }
}

}  // namespace
}  // namespace skald::testing
