// Config file lookup (--config, $SKALD_CONFIG, ~/.skald/skald.conf), `$VAR`
// expansion errors and the ops keys (server.access_log,
// server.observability.metrics.enabled).

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "service/config.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

EnvLookup FakeEnvOf(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

void WriteFile(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path);
  out << text;
}

class ConfigLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = dir_.path() + "/home";
    flag_ = dir_.path() + "/flag.conf";
    env_file_ = dir_.path() + "/env.conf";
    WriteFile(flag_, R"({"server": {"port": 1001}})");
    WriteFile(env_file_, R"({"server": {"port": 1002}})");
    WriteFile(home_ + "/.skald/skald.conf", R"({"server": {"port": 1003}})");
  }

  testing::TempDir dir_;
  std::string home_, flag_, env_file_;
};

TEST_F(ConfigLookupTest, FlagWinsOverEnvironmentAndHome) {
  ConfigSource source;
  auto config =
      LoadServerConfig(flag_, FakeEnvOf({{"SKALD_CONFIG", env_file_}, {"HOME", home_}}), &source);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 1001);
  EXPECT_EQ(source.origin, "--config");
  EXPECT_EQ(source.path, flag_);
}

TEST_F(ConfigLookupTest, EnvironmentWinsOverHome) {
  ConfigSource source;
  auto config =
      LoadServerConfig("", FakeEnvOf({{"SKALD_CONFIG", env_file_}, {"HOME", home_}}), &source);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 1002);
  EXPECT_EQ(source.origin, "$SKALD_CONFIG");
}

TEST_F(ConfigLookupTest, HomeFileIsUsedWhenNothingElseIsGiven) {
  ConfigSource source;
  auto config = LoadServerConfig("", FakeEnvOf({{"SKALD_CONFIG", ""}, {"HOME", home_}}), &source);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 1003);
  EXPECT_EQ(source.origin, "~/.skald/skald.conf");
}

TEST_F(ConfigLookupTest, NoFileAnywhereMeansBuiltInDefaults) {
  ConfigSource source;
  auto config = LoadServerConfig("", FakeEnvOf({{"HOME", dir_.path() + "/nobody"}}), &source);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 1933);
  EXPECT_EQ(source.path, "");
  EXPECT_EQ(source.origin, "defaults");
}

TEST_F(ConfigLookupTest, AMissingExplicitFileIsAnErrorNotTheNextCandidate) {
  auto flag = LoadServerConfig(dir_.path() + "/missing.conf", FakeEnvOf({{"HOME", home_}}));
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.status().code(), StatusCode::kNotFound);
  EXPECT_NE(flag.status().message().find("--config"), std::string::npos);

  auto env = LoadServerConfig(
      "", FakeEnvOf({{"SKALD_CONFIG", dir_.path() + "/missing.conf"}, {"HOME", home_}}));
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.status().message().find("$SKALD_CONFIG"), std::string::npos);
}

TEST_F(ConfigLookupTest, VariablesInTheFoundFileAreExpandedFromTheSameEnvironment) {
  WriteFile(env_file_, R"({"server": {"port": "${PORT}"}, "storage": {"workspace": "$WS/x"}})");
  auto config = LoadServerConfig(
      "", FakeEnvOf({{"SKALD_CONFIG", env_file_}, {"PORT", "4321"}, {"WS", "/srv"}}));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 4321);
  EXPECT_EQ(config->storage.workspace, "/srv/x");
}

TEST(ConfigExpansionTest, AnUnsetVariableIsAnErrorNamingIt) {
  for (const char* text : {R"({"server": {"root_api_key": "${ROOT_KEY}"}})",
                           R"({"server": {"root_api_key": "$ROOT_KEY"}})"}) {
    auto config = ParseConfig(text, FakeEnvOf({}));
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(config.status().message().find("\"ROOT_KEY\" is not set"), std::string::npos)
        << config.status().message();
  }
}

TEST(ConfigExpansionTest, DoubleDollarIsALiteralDollar) {
  auto config = ParseConfig(R"({"storage": {"workspace": "/data/$$HOME"}})", FakeEnvOf({}));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->storage.workspace, "/data/$HOME");
}

TEST(ConfigOpsKeysTest, AccessLogAndMetricsAreOnByDefaultAndCanBeTurnedOff) {
  Config defaults;
  EXPECT_TRUE(defaults.server.access_log);
  EXPECT_TRUE(defaults.server.metrics_enabled);

  auto config = ParseConfig(
      R"({"server": {"access_log": false, "observability": {"metrics": {"enabled": false}}}})",
      FakeEnvOf({}));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_FALSE(config->server.access_log);
  EXPECT_FALSE(config->server.metrics_enabled);
}

TEST(ConfigOpsKeysTest, ObservabilityRejectsUnknownSubsections) {
  auto config =
      ParseConfig(R"({"server": {"observability": {"metrix": {"enabled": true}}}})", FakeEnvOf({}));
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("server.observability.metrix"), std::string::npos);
  auto typed = ParseConfig(R"({"server": {"access_log": "loud"}})", FakeEnvOf({}));
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("server.access_log"), std::string::npos);
}

}  // namespace
}  // namespace skald
