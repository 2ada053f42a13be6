#include "service/config.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

namespace skald {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

Result<Config> Parse(std::string_view text) { return ParseConfig(text, FakeEnv({})); }

bool HasWarningContaining(const Config& config, std::string_view needle) {
  for (const std::string& w : config.warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(ConfigTest, DefaultsMatchDocumentation) {
  Config config;
  EXPECT_EQ(config.server.host, "127.0.0.1");
  EXPECT_EQ(config.server.port, 1933);
  EXPECT_EQ(config.server.workers, 1);
  EXPECT_EQ(config.server.timeout_keep_alive, 5);
  EXPECT_EQ(config.server.threads, 128);
  EXPECT_EQ(config.server.max_body_bytes, 32 << 20);
  EXPECT_EQ(config.storage.workspace, "./skald-data");
  EXPECT_EQ(config.log.level, "WARNING");
  EXPECT_EQ(config.EffectiveAuthMode(), "dev");
  EXPECT_TRUE(config.Validate().ok());
}

TEST(ConfigTest, EmptyObjectGivesDefaults) {
  auto config = Parse("{}");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 1933);
  EXPECT_TRUE(config->warnings.empty());
}

TEST(ConfigTest, ReadsImplementedKeys) {
  auto config = Parse(R"({
    "server": {"host": "localhost", "port": 8080, "timeout_keep_alive": 10, "threads": 16,
               "keep_alive_max_count": 50, "max_body_bytes": 4096},
    "storage": {"workspace": "/tmp/ws"},
    "log": {"level": "debug", "output": "stdout"}
  })");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.host, "localhost");
  EXPECT_EQ(config->server.port, 8080);
  EXPECT_EQ(config->server.timeout_keep_alive, 10);
  EXPECT_EQ(config->server.threads, 16);
  EXPECT_EQ(config->server.keep_alive_max_count, 50);
  EXPECT_EQ(config->server.max_body_bytes, 4096);
  EXPECT_EQ(config->storage.workspace, "/tmp/ws");
  EXPECT_EQ(config->log.level, "debug");
  EXPECT_EQ(config->log.output, "stdout");
  EXPECT_TRUE(config->Validate().ok());
}

TEST(ConfigTest, UnknownKeyIsRejectedWithFullPath) {
  auto config = Parse(R"({"server": {"prot": 1933}})");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(config.status().message(), "unknown config key \"server.prot\"");

  auto top = Parse(R"({"sever": {}})");
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().message(), "unknown config key \"sever\"");

  auto storage = Parse(R"({"storage": {"workspce": "x"}})");
  ASSERT_FALSE(storage.ok());
  EXPECT_NE(storage.status().message().find("\"storage.workspce\""), std::string::npos);
}

TEST(ConfigTest, WrongTypesNameTheKey) {
  auto port = Parse(R"({"server": {"port": "abc"}})");
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(port.status().message().find("\"server.port\""), std::string::npos);
  EXPECT_NE(port.status().message().find("integer"), std::string::npos);

  auto host = Parse(R"({"server": {"host": 127}})");
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.status().message().find("\"server.host\" must be a string"), std::string::npos);

  auto section = Parse(R"({"server": []})");
  ASSERT_FALSE(section.ok());
  EXPECT_NE(section.status().message().find("\"server\" must be an object"), std::string::npos);

  auto fractional = Parse(R"({"server": {"port": 1933.5}})");
  EXPECT_FALSE(fractional.ok());

  auto origins = Parse(R"({"server": {"cors_origins": ["*", 3]}})");
  ASSERT_FALSE(origins.ok());
  EXPECT_NE(origins.status().message().find("server.cors_origins[1]"), std::string::npos);
}

TEST(ConfigTest, NumericStringsAreAcceptedForIntegers) {
  // `"port": "${PORT}"` is the usual way to template a port.
  auto config = ParseConfig(R"({"server": {"port": "${PORT}"}})", FakeEnv({{"PORT", "4242"}}));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 4242);
}

TEST(ConfigTest, MalformedJsonIsInvalidArgument) {
  auto config = Parse(R"({"server": )");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(config.status().message().find("Invalid JSON"), std::string::npos);

  auto array = Parse("[1, 2]");
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.status().message().find("must be a JSON object"), std::string::npos);
}

TEST(ConfigTest, UnimplementedSectionsAreWarnings) {
  auto config = Parse(R"({
    "embedding": {"dense": {"provider": "openai", "model": "x"}},
    "vlm": {"model": "gpt"},
    "retrieval": {"hotness_alpha": 0.1},
    "default_search_limit": 5,
    "server": {"observability": {"metrics": {"enabled": true}}, "workers": 4}
  })");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(HasWarningContaining(
      *config, "section 'vlm' is not implemented by Skald yet and is ignored"));
  EXPECT_TRUE(HasWarningContaining(*config, "section 'embedding'"));
  EXPECT_TRUE(HasWarningContaining(*config, "section 'retrieval'"));
  EXPECT_TRUE(HasWarningContaining(*config, "'default_search_limit'"));
  EXPECT_TRUE(HasWarningContaining(*config, "'server.observability'"));
  EXPECT_TRUE(HasWarningContaining(*config, "server.workers=4"));
  EXPECT_TRUE(config->Validate().ok());
}

TEST(ConfigTest, UnimplementedSectionStillRejectsKeysOpenVikingRejects) {
  auto config = Parse(R"({"retrieval": {"hotnes_alpha": 0.1}})");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "unknown config key \"retrieval.hotnes_alpha\"");

  auto scalar = Parse(R"({"vlm": "gpt-4"})");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.status().message().find("\"vlm\" must be an object"), std::string::npos);
}

TEST(ConfigTest, ExpandsEnvironmentVariablesLikePython) {
  EnvLookup env = FakeEnv({{"HOME_DIR", "/home/a"}, {"X", "1"}});
  EXPECT_EQ(ExpandEnvVars("$HOME_DIR/ws", env), "/home/a/ws");
  EXPECT_EQ(ExpandEnvVars("${HOME_DIR}/ws", env), "/home/a/ws");
  EXPECT_EQ(ExpandEnvVars("a$X$X", env), "a11");
  // Unset variables, lone dollars and unterminated braces stay as written.
  EXPECT_EQ(ExpandEnvVars("$NOPE and ${NOPE}", env), "$NOPE and ${NOPE}");
  EXPECT_EQ(ExpandEnvVars("cost: $ 5 $", env), "cost: $ 5 $");
  EXPECT_EQ(ExpandEnvVars("${X", env), "${X");
}

TEST(ConfigTest, ExpansionAppliesBeforeParsing) {
  auto config = ParseConfig(R"({"storage": {"workspace": "${DATA}/skald"}})",
                            FakeEnv({{"DATA", "/srv"}}));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->storage.workspace, "/srv/skald");
}

TEST(ConfigTest, ValidateChecksRanges) {
  Config config;
  config.server.port = 70000;
  EXPECT_NE(config.Validate().message().find("server.port"), std::string::npos);
  config = Config();
  config.server.port = 0;  // ephemeral port is allowed
  EXPECT_TRUE(config.Validate().ok());
  config.server.threads = 0;
  EXPECT_NE(config.Validate().message().find("server.threads"), std::string::npos);
  config = Config();
  config.log.level = "verbose";
  EXPECT_NE(config.Validate().message().find("log.level"), std::string::npos);
  config = Config();
  config.server.max_body_bytes = 10;
  EXPECT_FALSE(config.Validate().ok());
}

TEST(ConfigTest, DevModeRefusesNonLoopbackHost) {
  Config config;
  config.server.host = "0.0.0.0";
  Status status = config.Validate();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("loopback"), std::string::npos);
  for (const char* host : {"127.0.0.1", "localhost", "::1"}) {
    config.server.host = host;
    EXPECT_TRUE(config.Validate().ok()) << host;
  }
}

TEST(ConfigTest, UnimplementedAuthModesAreRefused) {
  auto config = Parse(R"({"server": {"root_api_key": "secret"}})");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->EffectiveAuthMode(), "api_key");
  Status status = config->Validate();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not implemented"), std::string::npos);

  auto empty_key = Parse(R"({"server": {"root_api_key": ""}})");
  ASSERT_TRUE(empty_key.ok());
  EXPECT_FALSE(empty_key->Validate().ok());

  auto explicit_dev = Parse(R"({"server": {"auth_mode": "dev", "root_api_key": null}})");
  ASSERT_TRUE(explicit_dev.ok());
  EXPECT_TRUE(explicit_dev->Validate().ok());
}

TEST(ConfigTest, LoadConfigReadsFileAndNamesItInErrors) {
  char dir_template[] = "/tmp/skald-config-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/ov.conf";
  {
    std::ofstream out(path);
    out << R"({"server": {"port": 2000}})";
  }
  auto config = LoadConfig(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.port, 2000);
  {
    std::ofstream out(path);
    out << R"({"server": {"prot": 2000}})";
  }
  auto bad = LoadConfig(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(path), std::string::npos);
  EXPECT_NE(bad.status().message().find("server.prot"), std::string::npos);

  auto missing = LoadConfig(std::string(dir_template) + "/missing.conf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::remove(path.c_str());
  rmdir(dir_template);
}

}  // namespace
}  // namespace skald
