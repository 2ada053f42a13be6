// skald doctor: validates the config and probes every configured model
// provider with one small request each.

#include "service/doctor.h"

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <vector>

#include "common/strings.h"
#include "model/factory.h"

namespace skald {
namespace {

using Check = DoctorCheck;

// Runs `probe` and times it. Probes make one attempt (no retries) within
// a bounded time: doctor reports, it does not wait out an outage.
Check Probe(std::string name, const std::function<Result<std::string>()>& probe) {
  Check check;
  check.name = std::move(name);
  const auto start = std::chrono::steady_clock::now();
  Result<std::string> result = probe();
  check.millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  check.status = result.ok() ? "ok" : "FAIL";
  check.detail = result.ok() ? *result : result.status().message();
  return check;
}

Check EmbeddingCheck(EmbeddingConfig config, const ModelEnv& env) {
  config.max_retries = 0;
  config.timeout = std::min(config.timeout, 30.0);
  return Probe("embedding", [&]() -> Result<std::string> {
    SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> embedder, NewEmbedder(config, env));
    std::vector<std::string> texts = {"skald doctor probe: how do I rotate keys?"};
    SKALD_ASSIGN_OR_RETURN(auto vectors, embedder->Embed(texts, EmbedKind::kQuery));
    std::string what = fmt::format("{} model {} dimension {}", embedder->provider(),
                                   embedder->model(), vectors.at(0).size());
    if (config.IsBuiltIn()) what += " (built-in; lexical, not semantic)";
    return what;
  });
}

Check ChatCheck(const std::string& name, LlmConfig config, const ModelEnv& env) {
  if (!config.configured()) {
    return Check{name, "not configured",
                 "built-in defaults: extractive summaries, rule-based intent analysis", -1};
  }
  config.max_retries = 0;
  config.timeout = std::min(config.timeout, 60.0);
  return Probe(name, [&]() -> Result<std::string> {
    SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Llm> llm, NewLlm(config, env));
    ChatRequest request;
    request.messages = {{"system", "You are a health check. Reply with the single word: ok"},
                        {"user", "ping"}};
    request.max_tokens = 16;
    SKALD_ASSIGN_OR_RETURN(ChatResponse reply, llm->Chat(request));
    return fmt::format("{} model {} replied \"{}\"", llm->provider(), llm->model(),
                       std::string(TruncateUtf8(reply.content, 40)));
  });
}

Check RerankCheck(RerankConfig config, const ModelEnv& env) {
  if (!config.configured()) {
    return Check{"rerank", "not configured",
                 fmt::format("vector and BM25 scores are used; threshold {}", config.threshold),
                 -1};
  }
  config.max_retries = 0;
  return Probe("rerank", [&]() -> Result<std::string> {
    SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Reranker> reranker, NewReranker(config, env));
    std::vector<std::string> docs = {"To rotate keys, run the rotate command.",
                                     "Bananas grow in clusters."};
    SKALD_ASSIGN_OR_RETURN(std::vector<double> scores,
                           reranker->Rerank("how do I rotate keys", docs));
    return fmt::format("{} model {} scored {:.3f} / {:.3f}", reranker->provider(),
                       reranker->model(), scores.at(0), scores.at(1));
  });
}

}  // namespace

DoctorReport RunDoctorChecks(const std::string& config_path) {
  DoctorReport report;
  Config config;
  std::string source = "built-in defaults (no config file found)";
  ConfigSource found;
  Result<Config> parsed = LoadServerConfig(config_path, nullptr, &found);
  if (parsed.ok()) {
    config = std::move(parsed).value();
    if (!found.path.empty()) source = found.path + " (" + found.origin + ")";
  } else {
    report.config_status = parsed.status();
  }
  if (report.config_status.ok()) report.config_status = config.Validate();
  report.warnings = config.warnings;
  std::vector<Check>& checks = report.checks;
  if (!report.config_status.ok()) {
    checks.push_back({"config", "FAIL", report.config_status.message(), -1});
    report.ok = false;
    return report;
  }
  checks.push_back({"config", "ok", source, -1});
  ModelEnv env;  // one transport (connection pool) for every probe
  if (Result<std::unique_ptr<HttpTransport>> transport = NewCurlTransport(); transport.ok()) {
    env.transport = std::move(transport).value();
  }
  checks.push_back(EmbeddingCheck(config.embedding, env));
  checks.push_back(ChatCheck("chat (vlm)", config.vlm, env));
  if (config.query_planner.configured()) {
    checks.push_back(ChatCheck("chat (query_planner)", config.query_planner, env));
  }
  checks.push_back(RerankCheck(config.rerank, env));
  report.ok = true;
  for (const Check& c : checks) report.ok = report.ok && c.status != "FAIL";
  return report;
}

}  // namespace skald
