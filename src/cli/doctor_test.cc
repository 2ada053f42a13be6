// `skald doctor` against the loopback FakeModelServer.

#include "cli/doctor.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "model/fake_model_server.h"
#include "tests/testutil/temp_dir.h"

namespace skald::cli {
namespace {

using skald::testing::FakeModelServer;
using skald::testing::Fault;

class DoctorTest : public ::testing::Test {
 protected:
  std::string WriteConfig(const std::string& text) {
    const std::string path = dir_.Sub("ov.conf");
    std::ofstream(path) << text;
    return path;
  }
  std::string FullConfig() {
    const std::string base = server_.base_url();
    return R"({"embedding": {"dense": {"provider": "openai", "model": "fake", "dimension": 8,
                                       "api_base": ")" +
           base + R"(/v1", "api_key": "sk-doctor-key-9876"}},
               "vlm": {"provider": "ollama", "model": "fake-chat", "api_base": ")" +
           base + R"("},
               "rerank": {"provider": "cohere", "api_key": "sk-doctor-key-9876",
                          "api_base": ")" +
           base + R"("}})";
  }
  skald::testing::TempDir dir_;
  FakeModelServer server_{8};
};

TEST_F(DoctorTest, DefaultsNeedNothingOutsideTheBinary) {
  std::ostringstream out;
  EXPECT_EQ(RunDoctor("", false, out), kExitOk) << out.str();
  EXPECT_NE(out.str().find("embedding              ok"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("lexical, not semantic"), std::string::npos);
  EXPECT_NE(out.str().find("not configured"), std::string::npos);
}

TEST_F(DoctorTest, ProbesEveryConfiguredProviderOnce) {
  std::ostringstream out;
  EXPECT_EQ(RunDoctor(WriteConfig(FullConfig()), false, out), kExitOk) << out.str();
  EXPECT_EQ(server_.request_count(), 3);  // embed + chat + rerank
  EXPECT_NE(out.str().find("openai model fake dimension 8"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("all configured models work"), std::string::npos);
}

TEST_F(DoctorTest, FailingProviderMakesItExitOneAndNamesTheProblem) {
  Fault unauthorized;
  unauthorized.status = 401;
  unauthorized.echo_auth = true;
  server_.PushFault(unauthorized);  // the first probe: embedding
  std::ostringstream out;
  EXPECT_EQ(RunDoctor(WriteConfig(FullConfig()), true, out), kExitError);
  EXPECT_NE(out.str().find("HTTP 401"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("sk-doctor-key-9876"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\"ok\": false"), std::string::npos);

  Fault wrong;
  wrong.dimension = 5;
  server_.PushFault(wrong);
  std::ostringstream again;
  EXPECT_EQ(RunDoctor(WriteConfig(FullConfig()), false, again), kExitError);
  EXPECT_NE(again.str().find("dimension 5, expected 8"), std::string::npos) << again.str();
}

TEST_F(DoctorTest, InvalidConfigExitsTwo) {
  std::ostringstream out;
  EXPECT_EQ(
      RunDoctor(WriteConfig(R"({"embedding": {"dense": {"provider": "gemini"}}})"), false, out),
      kExitUsage);
  EXPECT_NE(out.str().find("config                 FAIL"), std::string::npos) << out.str();
  std::ostringstream missing;
  EXPECT_EQ(RunDoctor(dir_.Sub("none.conf"), false, missing), kExitUsage);
}

}  // namespace
}  // namespace skald::cli
