#include "service/config.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "model/llm.h"

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
  EXPECT_EQ(config.server.threads, 8);
  EXPECT_EQ(config.server.max_connections, 512);
  EXPECT_EQ(config.server.read_timeout, 30);
  EXPECT_EQ(config.server.header_timeout, 10);
  EXPECT_TRUE(config.server.cors_origins.empty());
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
               "keep_alive_max_count": 50, "max_body_bytes": 4096, "max_connections": 64,
               "read_timeout": 7, "header_timeout": 3,
               "cors_origins": ["https://app.example.com"]},
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
  EXPECT_EQ(config->server.max_connections, 64);
  EXPECT_EQ(config->server.read_timeout, 7);
  EXPECT_EQ(config->server.header_timeout, 3);
  EXPECT_EQ(config->server.cors_origins, std::vector<std::string>{"https://app.example.com"});
  EXPECT_TRUE(config->warnings.empty());
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
    "grep": {"engine": "fs"},
    "default_search_limit": 5,
    "server": {"observability": {"usage_audit": {"enabled": true}}, "workers": 4}
  })");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(HasWarningContaining(
      *config, "section 'grep' is not implemented by Skald yet and is ignored"));
  EXPECT_TRUE(HasWarningContaining(*config, "'default_search_limit'"));
  EXPECT_TRUE(HasWarningContaining(*config, "'server.observability.usage_audit'"));
  EXPECT_TRUE(HasWarningContaining(*config, "server.workers=4"));
  EXPECT_TRUE(config->Validate().ok());
}

TEST(ConfigTest, AllowPrivateNetworksReachesTheDbOptions) {
  auto config = Parse(R"({"allow_private_networks": true})");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(config->allow_private_networks);
  EXPECT_TRUE(config->warnings.empty());
  auto options = DbOptionsFromConfig(*config, false);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->allow_private_networks);
  EXPECT_FALSE(Parse("{}")->allow_private_networks);
  auto wrong = Parse(R"({"allow_private_networks": "sometimes"})");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("allow_private_networks"), std::string::npos);
}

TEST(ConfigTest, RetrievalSectionSetsScoringAndRejectsTypos) {
  auto parsed = Parse(R"({"retrieval": {"hotness_alpha": 0.2, "hybrid_weight": 0.5,
                                        "score_propagation_alpha": 0.7, "enable_intent": true}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_DOUBLE_EQ(parsed->retrieval.hotness_alpha, 0.2);
  EXPECT_EQ(parsed->retrieval.hybrid_weight, 0.5);
  EXPECT_DOUBLE_EQ(parsed->retrieval.score_propagation_alpha, 0.7);
  EXPECT_TRUE(HasWarningContaining(*parsed, "retrieval.enable_intent"));
  EXPECT_TRUE(parsed->Validate().ok());

  auto out_of_range = Parse(R"({"retrieval": {"hybrid_weight": 1.5}})");
  ASSERT_TRUE(out_of_range.ok());
  EXPECT_NE(out_of_range->Validate().message().find("retrieval.hybrid_weight"), std::string::npos);

  auto config = Parse(R"({"retrieval": {"hotnes_alpha": 0.1}})");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "unknown config key \"retrieval.hotnes_alpha\"");
}

TEST(ConfigTest, QueryPlannerModelFollowsTheIntentTimeout) {
  auto none = Parse("{}");
  ASSERT_TRUE(none.ok());
  EXPECT_DOUBLE_EQ(none->intent_timeout_s, 5.0);
  auto no_model = DbOptionsFromConfig(*none, false);
  ASSERT_TRUE(no_model.ok()) << no_model.status().ToString();
  EXPECT_EQ(no_model->query_planner, nullptr);  // rule-based planning only

  // vlm alone also plans; a query_planner section wins over it.
  auto vlm_only = Parse(R"({"vlm": {"model": "m", "api_base": "http://127.0.0.1:1/v1"},
                            "retrieval": {"recall_intent_timeout_s": 2.5}})");
  ASSERT_TRUE(vlm_only.ok()) << vlm_only.status().ToString();
  EXPECT_DOUBLE_EQ(vlm_only->intent_timeout_s, 2.5);
  EXPECT_FALSE(HasWarningContaining(*vlm_only, "recall_intent_timeout_s"));
  auto options = DbOptionsFromConfig(*vlm_only, false);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  ASSERT_NE(options->query_planner, nullptr);
  EXPECT_EQ(options->query_planner->model(), "m");
  auto both = Parse(R"({"vlm": {"model": "m", "api_base": "http://127.0.0.1:1/v1"},
                        "query_planner": {"model": "p", "api_base": "http://127.0.0.1:1/v1"}})");
  ASSERT_TRUE(both.ok());
  auto planned = DbOptionsFromConfig(*both, false);
  ASSERT_TRUE(planned.ok());
  EXPECT_EQ(planned->query_planner->model(), "p");

  auto zero = Parse(R"({"retrieval": {"recall_intent_timeout_s": 0}})");
  ASSERT_TRUE(zero.ok());
  EXPECT_NE(zero->Validate().message().find("retrieval.recall_intent_timeout_s"),
            std::string::npos);
}

TEST(ConfigTest, RetrievalLexicalIndexChoosesTheBm25Index) {
  EXPECT_EQ(Parse("{}")->retrieval.lexical_index, "memory");
  auto fts5 = Parse(R"({"retrieval": {"lexical_index": "fts5"}})");
  ASSERT_TRUE(fts5.ok()) << fts5.status().ToString();
  EXPECT_EQ(fts5->retrieval.lexical_index, "fts5");
  EXPECT_TRUE(fts5->Validate().ok());
  auto other = Parse(R"({"retrieval": {"lexical_index": "lucene"}})");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->Validate().message().find("retrieval.lexical_index"), std::string::npos);
}

TEST(ConfigTest, UnimplementedSectionStillRejectsKeysOpenVikingRejects) {
  auto config = Parse(R"({"grep": {"engin": "fs"}})");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "unknown config key \"grep.engin\"");

  auto scalar = Parse(R"({"vlm": "gpt-4"})");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.status().message().find("\"vlm\" must be an object"), std::string::npos);
}

TEST(ConfigTest, ExpandsEnvironmentVariables) {
  EnvLookup env = FakeEnv({{"HOME_DIR", "/home/a"}, {"X", "1"}});
  EXPECT_EQ(ExpandEnvVars("$HOME_DIR/ws", env).value(), "/home/a/ws");
  EXPECT_EQ(ExpandEnvVars("${HOME_DIR}/ws", env).value(), "/home/a/ws");
  EXPECT_EQ(ExpandEnvVars("a$X$X", env).value(), "a11");
  // Lone dollars and unterminated braces stay as written; `$$` is one `$`.
  EXPECT_EQ(ExpandEnvVars("cost: $ 5 $", env).value(), "cost: $ 5 $");
  EXPECT_EQ(ExpandEnvVars("${X", env).value(), "${X");
  EXPECT_EQ(ExpandEnvVars("$$X and $${X}", env).value(), "$X and ${X}");
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
  auto old_style = Parse(R"({"server": {"threads": 1000}})");  // the former fixed pool size
  ASSERT_TRUE(old_style.ok()) << old_style.status().ToString();
  EXPECT_EQ(old_style->server.max_connections, 1000);
  EXPECT_TRUE(old_style->Validate().ok());
  config = Config();
  config.server.max_connections = 4;  // below threads (8)
  EXPECT_NE(config.Validate().message().find("server.max_connections"), std::string::npos);
  config = Config();
  config.server.read_timeout = 0;
  EXPECT_NE(config.Validate().message().find("server.read_timeout"), std::string::npos);
  config = Config();
  config.server.header_timeout = 0;
  EXPECT_NE(config.Validate().message().find("server.header_timeout"), std::string::npos);
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

TEST(ConfigTest, AuthModes) {
  auto config = Parse(R"({"server": {"root_api_key": "secret"}})");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->EffectiveAuthMode(), "api_key");
  EXPECT_TRUE(config->Validate().ok());
  // With a root key the server may listen beyond loopback.
  config->server.host = "0.0.0.0";
  EXPECT_TRUE(config->Validate().ok());

  auto empty_key = Parse(R"({"server": {"root_api_key": ""}})");
  ASSERT_TRUE(empty_key.ok());
  EXPECT_FALSE(empty_key->Validate().ok());

  auto explicit_dev = Parse(R"({"server": {"auth_mode": "dev", "root_api_key": null}})");
  ASSERT_TRUE(explicit_dev.ok());
  EXPECT_TRUE(explicit_dev->Validate().ok());

  auto keyless_api_key = Parse(R"({"server": {"auth_mode": "api_key"}})");
  ASSERT_TRUE(keyless_api_key.ok());
  EXPECT_NE(keyless_api_key->Validate().message().find("root_api_key"), std::string::npos);

  auto trusted = Parse(R"({"server": {"auth_mode": "trusted", "host": "0.0.0.0"}})");
  ASSERT_TRUE(trusted.ok());
  EXPECT_NE(trusted->Validate().message().find("loopback"), std::string::npos);
  trusted->server.root_api_key = "gateway-secret";
  EXPECT_TRUE(trusted->Validate().ok());

  auto oidc = Parse(R"({"server": {"auth_mode": "oidc"}})");
  ASSERT_TRUE(oidc.ok());
  EXPECT_NE(oidc->Validate().message().find("not supported"), std::string::npos);
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

TEST(ConfigModelsTest, DefaultsAreOfflineAndOpenVikingsNumbers) {
  Config config;
  EXPECT_EQ(config.embedding.provider, "hashing");
  EXPECT_TRUE(config.embedding.IsBuiltIn());
  EXPECT_EQ(config.embedding.EffectiveDimension(), 512);
  EXPECT_EQ(config.embedding.batch_size, 32);
  EXPECT_EQ(config.embedding.max_concurrent, 10);
  EXPECT_EQ(config.embedding.max_retries, 3);
  EXPECT_EQ(config.embedding.max_input_tokens, 4096);
  EXPECT_EQ(config.embedding.circuit_breaker.failure_threshold, 5);
  EXPECT_EQ(config.embedding.circuit_breaker.reset_timeout, std::chrono::seconds(60));
  EXPECT_EQ(config.embedding.circuit_breaker.max_reset_timeout, std::chrono::seconds(600));
  EXPECT_FALSE(config.vlm.configured());
  EXPECT_EQ(config.vlm.temperature, 0.0);
  EXPECT_EQ(config.vlm.timeout, 600.0);
  EXPECT_EQ(config.vlm.max_concurrent, 32);
  EXPECT_FALSE(config.rerank.configured());
  EXPECT_DOUBLE_EQ(config.rerank.threshold, 0.1);
  EXPECT_EQ(config.rerank.max_input_tokens, 0);
  EXPECT_EQ(config.rerank.timeout, 30.0);
  EXPECT_EQ(config.query_planner.section, "query_planner");
  EXPECT_TRUE(config.Validate().ok());
}

TEST(ConfigModelsTest, ParsesOvConfModelSections) {
  auto config = ParseConfig(R"({
    "embedding": {
      "max_concurrent": 4, "max_retries": 2,
      "circuit_breaker": {"failure_threshold": 3, "reset_timeout": 1.5, "max_reset_timeout": 30},
      "dense": {"provider": "OpenAI", "model": "text-embedding-3-small", "api_key": "${KEY}",
                "api_base": "http://127.0.0.1:8000/v1", "dimension": 256, "batch_size": "64",
                "query_param": "query", "document_param": "passage", "max_concurrent": 6,
                "timeout": 12.5, "extra_headers": {"X-Org": "o1"}, "encoding_format": "float"}
    },
    "vlm": {"provider": "ollama", "model": "qwen3", "api_base": "http://127.0.0.1:11434",
            "temperature": 0.3, "max_tokens": 512, "timeout": 30, "max_retries": 1},
    "query_planner": {"model": "gpt-4o-mini", "api_key": "k"},
    "rerank": {"provider": "cohere", "api_key": "${KEY}", "threshold": 0.25,
               "max_input_tokens": 256, "model_name": "rerank-english-v3.0"}
  })", FakeEnv({{"KEY", "sk-123"}}));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const EmbeddingConfig& e = config->embedding;
  EXPECT_EQ(e.provider, "openai");
  EXPECT_EQ(e.model, "text-embedding-3-small");
  EXPECT_EQ(e.api_key, "sk-123");
  EXPECT_EQ(e.dimension, 256);
  EXPECT_EQ(e.batch_size, 64);
  EXPECT_EQ(e.max_concurrent, 6);  // dense overrides the section-wide value
  EXPECT_EQ(e.max_retries, 2);
  EXPECT_EQ(e.query_param, "query");
  EXPECT_EQ(e.document_param, "passage");
  EXPECT_EQ(e.timeout, 12.5);
  EXPECT_EQ(e.extra_headers.at("X-Org"), "o1");
  EXPECT_EQ(e.circuit_breaker.failure_threshold, 3);
  EXPECT_EQ(e.circuit_breaker.reset_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(config->vlm.EffectiveProvider(), "ollama");
  EXPECT_EQ(config->vlm.max_tokens, 512);
  EXPECT_EQ(config->vlm.temperature, 0.3);
  EXPECT_EQ(config->QueryPlanner().model, "gpt-4o-mini");
  EXPECT_EQ(config->QueryPlanner().section, "query_planner");
  EXPECT_EQ(config->rerank.EffectiveProvider(), "cohere");
  EXPECT_EQ(config->rerank.EffectiveModel(), "rerank-english-v3.0");
  EXPECT_DOUBLE_EQ(config->rerank.threshold, 0.25);
  EXPECT_EQ(config->rerank.max_input_tokens, 256);
  EXPECT_TRUE(config->Validate().ok()) << config->Validate().ToString();
  EXPECT_TRUE(config->warnings.empty());
}

TEST(ConfigModelsTest, UnknownModelKeysAreErrorsNamingThePath) {
  for (const auto& [text, key] : std::vector<std::pair<std::string, std::string>>{
           {R"({"embedding": {"dense": {"dimensoin": 3}}})", "embedding.dense.dimensoin"},
           {R"({"embedding": {"densse": {}}})", "embedding.densse"},
           {R"({"embedding": {"circuit_breaker": {"treshold": 1}}})",
            "embedding.circuit_breaker.treshold"},
           {R"({"vlm": {"temprature": 0}})", "vlm.temprature"},
           {R"({"query_planner": {"modle": "x"}})", "query_planner.modle"},
           {R"({"rerank": {"treshold": 0.2}})", "rerank.treshold"}}) {
    auto config = Parse(text);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().message(), "unknown config key \"" + key + "\"");
  }
  auto wrong_type = Parse(R"({"rerank": {"threshold": "high"}})");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.status().message().find("\"rerank.threshold\" must be a number"),
            std::string::npos);
}

TEST(ConfigModelsTest, ValidationNamesTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"embedding": {"dense": {"provider": "gemini", "model": "m"}}})",
       "embedding.dense.provider \"gemini\" is not supported"},
      {R"({"embedding": {"dense": {"provider": "vllm", "model": "m"}}})",
       "embedding.dense.api_base is required"},
      {R"({"embedding": {"dense": {"provider": "openai", "model": "my-model"}}})",
       "embedding.dense.dimension is required"},
      {R"({"embedding": {"dense": {"batch_size": 0}}})", "embedding.dense.batch_size"},
      {R"({"embedding": {"dense": {"model": "doubao-embedding", "api_key": "k"}}})",
       "provider is \"hashing\""},
      {R"({"embedding": {"max_concurrent": 0}})", "embedding.max_concurrent"},
      {R"({"embedding": {"circuit_breaker": {"failure_threshold": 0}}})",
       "embedding.circuit_breaker.failure_threshold"},
      {R"({"vlm": {"model": "m", "temperature": 3}})", "vlm.temperature"},
      {R"({"vlm": {"model": "m", "provider": "vllm"}})", "vlm.api_base is required"},
      {R"({"vlm": {"api_key": "k"}})", "vlm.model is required"},
      {R"({"rerank": {"max_input_tokens": 64}})", "rerank.max_input_tokens"},
      {R"({"rerank": {"ak": "a", "sk": "s"}})", "rerank.provider \"vikingdb\" is not supported"},
      {R"({"rerank": {"provider": "openai", "api_key": "k"}})", "rerank.model is required"},
  };
  for (const auto& [text, needle] : cases) {
    auto config = Parse(text);
    ASSERT_TRUE(config.ok()) << text << ": " << config.status().ToString();
    Status valid = config->Validate();
    ASSERT_FALSE(valid.ok()) << text;
    EXPECT_NE(valid.message().find(needle), std::string::npos) << text << ": " << valid.message();
  }
}

TEST(ConfigModelsTest, OpenVikingKeysSkaldIgnoresWarn) {
  auto config = Parse(R"({
    "embedding": {"sparse": {"provider": "volcengine"}, "text_source": "summary_first",
                  "dense": {"backend": "ollama", "model": "nomic-embed-text", "ak": "x",
                            "encoding_format": "base64", "dimension": null}},
    "vlm": {"model": "gpt-4o", "stream": true, "thinking": false, "providers": {}},
    "rerank": {"provider": "jina", "api_key": "k", "host": "h", "model_version": "v"}
  })");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->embedding.provider, "ollama");  // `backend` is the deprecated alias
  EXPECT_EQ(config->embedding.EffectiveDimension(), 768);
  EXPECT_TRUE(HasWarningContaining(*config, "embedding.sparse is ignored"));
  EXPECT_TRUE(HasWarningContaining(*config, "'embedding.text_source'"));
  EXPECT_TRUE(HasWarningContaining(*config, "'embedding.dense.ak'"));
  EXPECT_TRUE(HasWarningContaining(*config, "encoding_format=\"base64\" is ignored"));
  EXPECT_TRUE(HasWarningContaining(*config, "'vlm.stream'"));
  EXPECT_FALSE(HasWarningContaining(*config, "vlm.thinking"));
  EXPECT_TRUE(HasWarningContaining(*config, "'vlm.providers'"));
  EXPECT_TRUE(config->Validate().ok()) << config->Validate().ToString();
}

}  // namespace
}  // namespace skald
