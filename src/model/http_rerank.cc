// Rerankers: Cohere/Jina-style POST <base>/v1/rerank and the
// OpenAI-compatible rerank shape ({model, query, documents}). Both answer
// results[].{index, relevance_score}; DashScope nests them under "output",
// TEI answers a bare array of {index, score}: all are read.

#include <fmt/format.h>

#include <cmath>

#include "model/http_models.h"

namespace skald {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// <base> when it already names the endpoint, <base>/rerank after a version
// segment ("/v1"), else <base>/v1/rerank.
std::string RerankUrl(std::string_view base) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  if (EndsWith(base, "/rerank") || EndsWith(base, "/reranks")) return std::string(base);
  const size_t slash = base.rfind('/');
  std::string_view last = slash == std::string_view::npos ? "" : base.substr(slash + 1);
  const bool version = last.size() >= 2 && last[0] == 'v' &&
                       last.find_first_not_of("0123456789", 1) == std::string_view::npos;
  return JoinUrl(base, version ? "rerank" : "v1/rerank");
}

Status ParseScores(const Json& reply, size_t count, std::vector<double>* scores) {
  const Json* results = nullptr;
  if (reply.is_array()) {
    results = &reply;
  } else if (reply.is_object()) {
    if (auto it = reply.find("results"); it != reply.end()) {
      results = &*it;
    } else if (auto out = reply.find("output"); out != reply.end() && out->is_object()) {
      if (auto nested = out->find("results"); nested != out->end()) results = &*nested;
    }
  }
  if (results == nullptr || !results->is_array()) {
    return Status::Internal("response has no \"results\" array");
  }
  if (results->size() != count) {
    return Status::Internal(
        fmt::format("returned {} scores for {} documents", results->size(), count));
  }
  scores->assign(count, 0.0);
  std::vector<bool> seen(count, false);
  for (const Json& item : *results) {
    if (!item.is_object()) return Status::Internal("a result is not an object");
    auto index = item.find("index");
    if (index == item.end() || !index->is_number_unsigned() || index->get<size_t>() >= count) {
      return Status::Internal("a result has a missing or invalid \"index\"");
    }
    auto score = item.find("relevance_score");
    if (score == item.end()) score = item.find("score");
    if (score == item.end() || !score->is_number() || !std::isfinite(score->get<double>())) {
      return Status::Internal("a result has no finite \"relevance_score\"");
    }
    const size_t i = index->get<size_t>();
    if (seen[i]) return Status::Internal("two results share one \"index\"");
    seen[i] = true;
    (*scores)[i] = score->get<double>();
  }
  return Status::Ok();
}

class HttpReranker final : public Reranker {
 public:
  HttpReranker(const RerankConfig& config, ModelEnv env)
      : provider_(config.EffectiveProvider()),
        model_(config.EffectiveModel()),
        url_(RerankUrl(config.EffectiveApiBase())),
        client_(MakeOptions(config), std::move(env)) {}

  std::string provider() const override { return provider_; }
  std::string model() const override { return model_; }
  ModelStats stats() const override { return client_.stats(); }

  Result<std::vector<double>> Rerank(std::string_view query,
                                     std::span<const std::string> documents) override {
    client_.CountCall();
    if (documents.empty()) return std::vector<double>{};
    Json body = {{"model", model_},
                 {"query", std::string(query)},
                 {"documents", std::vector<std::string>(documents.begin(), documents.end())}};
    if (provider_ != "openai") {
      body["top_n"] = documents.size();
      body["return_documents"] = false;
    }
    std::vector<double> scores;
    auto parse = [&](const Json& reply) { return ParseScores(reply, documents.size(), &scores); };
    Result<Json> reply = client_.PostJson(url_, body, parse);
    if (!reply.ok()) {
      client_.CountFailure();
      return reply.status();
    }
    return scores;
  }

 private:
  static ProviderClientOptions MakeOptions(const RerankConfig& config) {
    ProviderClientOptions o;
    o.kind = "rerank";
    o.provider = config.EffectiveProvider();
    o.model = config.EffectiveModel();
    o.api_key = config.api_key;
    o.extra_headers = config.extra_headers;
    o.timeout = SecondsToMillis(config.timeout);
    o.retry.max_retries = config.max_retries;
    o.max_concurrent = 16;
    return o;
  }

  const std::string provider_;
  const std::string model_;
  const std::string url_;
  ProviderClient client_;
};

}  // namespace

std::unique_ptr<Reranker> NewHttpReranker(const RerankConfig& config, ModelEnv env) {
  return std::make_unique<HttpReranker>(config, std::move(env));
}

}  // namespace skald
