// Client settings: cli.conf < SKALD_* environment < flags, and the errors a
// bad file or variable gives.

#include "cli/client_config.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "cli/backend.h"
#include "tests/testutil/temp_dir.h"

namespace skald::cli {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class ClientConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = dir_.path() + "/home";
    std::filesystem::create_directories(home_ + "/.skald");
  }
  void WriteHomeConfig(const std::string& text) { Write(home_ + "/.skald/cli.conf", text); }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
  }

  testing::TempDir dir_;
  std::string home_;
};

TEST_F(ClientConfigTest, NoFileNoEnvironmentGivesTheDefaults) {
  auto settings = ResolveClientSettings({}, FakeEnv({{"HOME", home_}}));
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->url, "");
  EXPECT_EQ(settings->api_key, "");
  EXPECT_EQ(settings->timeout, 60);
  EXPECT_EQ(settings->output, "table");
  EXPECT_EQ(settings->config_path, "");
}

TEST_F(ClientConfigTest, TheHomeFileSetsEveryKey) {
  WriteHomeConfig(R"({"url": "http://127.0.0.1:9", "api_key": "k1", "account": "acme",
                      "user": "alice", "timeout": 12.5, "output": "json"})");
  auto settings = ResolveClientSettings({}, FakeEnv({{"HOME", home_}}));
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->url, "http://127.0.0.1:9");
  EXPECT_EQ(settings->api_key, "k1");
  EXPECT_EQ(settings->account, "acme");
  EXPECT_EQ(settings->user, "alice");
  EXPECT_EQ(settings->timeout, 12.5);
  EXPECT_EQ(settings->output, "json");
  EXPECT_EQ(settings->config_path, home_ + "/.skald/cli.conf");
}

TEST_F(ClientConfigTest, EnvironmentOverridesTheFileAndFlagsOverrideBoth) {
  WriteHomeConfig(R"({"url": "http://file", "api_key": "file-key", "account": "file-acct",
                      "user": "file-user", "timeout": 5})");
  EnvLookup env = FakeEnv({{"HOME", home_},
                           {"SKALD_URL", "http://env"},
                           {"SKALD_API_KEY", "env-key"},
                           {"SKALD_ACCOUNT", "env-acct"},
                           {"SKALD_TIMEOUT", "7"}});
  auto from_env = ResolveClientSettings({}, env);
  ASSERT_TRUE(from_env.ok()) << from_env.status().ToString();
  EXPECT_EQ(from_env->url, "http://env");
  EXPECT_EQ(from_env->api_key, "env-key");
  EXPECT_EQ(from_env->account, "env-acct");
  EXPECT_EQ(from_env->user, "file-user");  // SKALD_USER not set: the file's
  EXPECT_EQ(from_env->timeout, 7);

  ClientSettingsLayer flags;
  flags.url = "http://flag";
  flags.user = "flag-user";
  flags.timeout = 3;
  flags.output = "json";
  auto from_flags = ResolveClientSettings(flags, env);
  ASSERT_TRUE(from_flags.ok()) << from_flags.status().ToString();
  EXPECT_EQ(from_flags->url, "http://flag");
  EXPECT_EQ(from_flags->api_key, "env-key");
  EXPECT_EQ(from_flags->user, "flag-user");
  EXPECT_EQ(from_flags->timeout, 3);
  EXPECT_EQ(from_flags->output, "json");
}

TEST_F(ClientConfigTest, SkaldCliConfigNamesAnotherFileAndMustExist) {
  WriteHomeConfig(R"({"url": "http://home"})");
  const std::string other = dir_.path() + "/other.conf";
  Write(other, R"({"url": "http://other"})");
  auto settings =
      ResolveClientSettings({}, FakeEnv({{"HOME", home_}, {"SKALD_CLI_CONFIG", other}}));
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->url, "http://other");
  EXPECT_EQ(settings->config_path, other);

  auto missing = ResolveClientSettings(
      {}, FakeEnv({{"HOME", home_}, {"SKALD_CLI_CONFIG", dir_.path() + "/nope.conf"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().reason(), kUsageErrorReason);
  EXPECT_NE(missing.status().message().find("SKALD_CLI_CONFIG"), std::string::npos);
}

TEST_F(ClientConfigTest, AnUnknownKeyIsAnErrorNamingIt) {
  WriteHomeConfig(R"({"url": "http://x", "api-key": "k"})");
  auto settings = ResolveClientSettings({}, FakeEnv({{"HOME", home_}}));
  ASSERT_FALSE(settings.ok());
  EXPECT_EQ(settings.status().reason(), kUsageErrorReason);
  EXPECT_NE(settings.status().message().find("unknown key \"api-key\""), std::string::npos)
      << settings.status().message();
  EXPECT_NE(settings.status().message().find("cli.conf"), std::string::npos);
}

TEST_F(ClientConfigTest, BadValuesAreErrors) {
  for (const char* text : {R"({"timeout": 0})", R"({"timeout": "soon"})", R"({"url": 5})",
                           R"({"output": "yaml"})", R"([1, 2])", R"({"url": )"}) {
    auto parsed = ParseClientConfig(text, "test.conf");
    EXPECT_FALSE(parsed.ok()) << text;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().reason(), kUsageErrorReason) << text;
    }
  }
  auto bad_env = ResolveClientSettings({}, FakeEnv({{"HOME", home_}, {"SKALD_TIMEOUT", "-1"}}));
  ASSERT_FALSE(bad_env.ok());
  EXPECT_NE(bad_env.status().message().find("SKALD_TIMEOUT"), std::string::npos);
}

}  // namespace
}  // namespace skald::cli
