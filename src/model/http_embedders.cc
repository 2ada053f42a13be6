// HTTP embedders: OpenAI-compatible POST <base>/embeddings and Ollama's
// native POST <base>/api/embed, sharing batching, bounded concurrency, the
// input token guard and the dimension check.

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "common/strings.h"
#include "model/http_models.h"
#include "model/http_provider.h"
#include "model/token_budget.h"

namespace skald {
namespace {

bool IsBlank(const std::string& text) { return Trim(text).empty(); }

// Reads one vector of exactly `dim` finite numbers.
Status ReadVector(const Json& v, int dim, std::vector<float>* out) {
  if (!v.is_array()) return Status::Internal("an embedding is not an array of numbers");
  if (v.size() != static_cast<size_t>(dim)) {
    return Status::Internal(fmt::format(
        "returned a vector of dimension {}, expected {} (embedding.dense.dimension); the "
        "configured dimension must match the model",
        v.size(), dim));
  }
  out->resize(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number()) return Status::Internal("an embedding holds a non-number");
    const double x = v[i].get<double>();
    if (!std::isfinite(x)) return Status::Internal("an embedding holds a non-finite number");
    (*out)[i] = static_cast<float>(x);
  }
  return Status::Ok();
}

class HttpEmbedder : public Embedder {
 public:
  HttpEmbedder(const EmbeddingConfig& config, ModelEnv env)
      : config_(config),
        dimension_(config.EffectiveDimension()),
        client_(MakeOptions(config), std::move(env)) {}

  std::string provider() const override { return config_.provider; }
  std::string model() const override { return config_.model; }
  int Dimension() const override { return dimension_; }
  ModelStats stats() const override { return client_.stats(); }

  Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts,
                                                EmbedKind kind) override {
    client_.CountCall();
    std::vector<std::vector<float>> out(texts.size());
    // Blank texts are not sent (providers reject them): zero vectors.
    std::vector<size_t> todo;
    todo.reserve(texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
      if (IsBlank(texts[i])) {
        out[i].assign(static_cast<size_t>(dimension_), 0.0f);
      } else {
        todo.push_back(i);
      }
    }
    const size_t batch = static_cast<size_t>(config_.batch_size);
    const size_t batches = (todo.size() + batch - 1) / batch;
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex error_mu;
    Status first_error;
    size_t first_error_batch = batches;
    auto worker = [&] {
      std::vector<std::string> inputs;
      for (size_t b; !stop.load() && (b = next.fetch_add(1)) < batches;) {
        const size_t begin = b * batch;
        const size_t end = std::min(todo.size(), begin + batch);
        inputs.clear();
        for (size_t k = begin; k < end; ++k) {
          inputs.emplace_back(TokenBudgetPrefix(texts[todo[k]], config_.max_input_tokens));
        }
        Result<std::vector<std::vector<float>>> vectors = EmbedBatch(inputs, kind);
        if (!vectors.ok()) {
          std::lock_guard<std::mutex> lock(error_mu);
          if (b < first_error_batch) {
            first_error_batch = b;
            first_error = vectors.status();
          }
          stop = true;
          return;
        }
        for (size_t k = begin; k < end; ++k) out[todo[k]] = std::move((*vectors)[k - begin]);
      }
    };
    const size_t threads = std::min<size_t>(batches, static_cast<size_t>(config_.max_concurrent));
    if (threads <= 1) {
      worker();
    } else {
      std::vector<std::jthread> pool;
      pool.reserve(threads - 1);
      for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
      worker();
    }
    if (!first_error.ok()) {
      client_.CountFailure();
      return first_error;
    }
    return out;
  }

 protected:
  // One request for `inputs` (non-blank, already cut to the token budget).
  virtual Result<std::vector<std::vector<float>>> EmbedBatch(const std::vector<std::string>& inputs,
                                                             EmbedKind kind) = 0;

  // Request fields for a query or document (query_param/document_param):
  // "v" → {"input_type": "v"}; "k=v,k2=v2" → {"k": "v", "k2": "v2"}.
  void AddKindParams(EmbedKind kind, Json* body) const {
    const std::string& param =
        kind == EmbedKind::kQuery ? config_.query_param : config_.document_param;
    if (param.empty()) return;
    if (param.find('=') == std::string::npos) {
      (*body)["input_type"] = param;
      return;
    }
    for (const std::string& part : Split(param, ',')) {
      const size_t eq = part.find('=');
      if (eq == std::string::npos) continue;
      const std::string key(Trim(std::string_view(part).substr(0, eq)));
      if (!key.empty()) (*body)[key] = std::string(Trim(std::string_view(part).substr(eq + 1)));
    }
  }

  const EmbeddingConfig config_;
  const int dimension_;
  ProviderClient client_;

 private:
  static ProviderClientOptions MakeOptions(const EmbeddingConfig& config) {
    ProviderClientOptions o;
    o.kind = "embedding";
    o.provider = config.provider;
    o.model = config.model;
    o.api_key = config.api_key;
    o.extra_headers = config.extra_headers;
    o.timeout = SecondsToMillis(config.timeout);
    o.retry.max_retries = config.max_retries;
    o.breaker = config.circuit_breaker;
    o.max_concurrent = config.max_concurrent;
    return o;
  }
};

class OpenAiEmbedder final : public HttpEmbedder {
 public:
  OpenAiEmbedder(const EmbeddingConfig& config, ModelEnv env)
      : HttpEmbedder(config, std::move(env)),
        url_(JoinUrl(config.EffectiveApiBase(), "embeddings")),
        send_dimensions_(SendDimensions(config)) {}

 protected:
  Result<std::vector<std::vector<float>>> EmbedBatch(const std::vector<std::string>& inputs,
                                                     EmbedKind kind) override {
    Json body = {{"model", config_.model}, {"input", inputs}, {"encoding_format", "float"}};
    if (send_dimensions_) body["dimensions"] = dimension_;
    AddKindParams(kind, &body);
    std::vector<std::vector<float>> vectors;
    auto parse = [&](const Json& reply) -> Status {
      auto data = reply.find("data");
      if (!reply.is_object() || data == reply.end() || !data->is_array()) {
        return Status::Internal("response has no \"data\" array");
      }
      if (data->size() != inputs.size()) {
        return Status::Internal(
            fmt::format("returned {} embeddings for {} inputs", data->size(), inputs.size()));
      }
      vectors.assign(inputs.size(), {});
      std::vector<bool> seen(inputs.size(), false);
      for (size_t i = 0; i < data->size(); ++i) {
        const Json& item = (*data)[i];
        if (!item.is_object() || !item.contains("embedding")) {
          return Status::Internal("a \"data\" item has no \"embedding\"");
        }
        size_t index = i;
        if (auto it = item.find("index"); it != item.end()) {
          if (!it->is_number_unsigned() || it->get<size_t>() >= inputs.size()) {
            return Status::Internal("a \"data\" item has an invalid \"index\"");
          }
          index = it->get<size_t>();
        }
        if (seen[index]) return Status::Internal("two embeddings share one \"index\"");
        seen[index] = true;
        SKALD_RETURN_IF_ERROR(ReadVector(item["embedding"], dimension_, &vectors[index]));
      }
      return Status::Ok();
    };
    Result<Json> reply = client_.PostJson(url_, body, parse);
    if (!reply.ok()) return reply.status();
    return vectors;
  }

 private:
  // OpenAI's text-embedding-3 models shorten natively; the hosted
  // providers below accept `dimensions` too. Generic servers (vLLM,
  // llama.cpp, ...) often reject it, so they never get it.
  static bool SendDimensions(const EmbeddingConfig& config) {
    if (config.dimension <= 0) return false;
    if (config.model.rfind("text-embedding-3-", 0) == 0) {
      EmbeddingConfig native = config;
      native.dimension = 0;
      return native.EffectiveDimension() != config.dimension;
    }
    const std::string& p = config.provider;
    return p == "jina" || p == "dashscope" || p == "volcengine" || p == "voyage";
  }

  const std::string url_;
  const bool send_dimensions_;
};

class OllamaEmbedder final : public HttpEmbedder {
 public:
  OllamaEmbedder(const EmbeddingConfig& config, ModelEnv env)
      : HttpEmbedder(config, std::move(env)),
        url_(JoinUrl(OllamaBase(config.EffectiveApiBase()), "api/embed")) {}

 protected:
  Result<std::vector<std::vector<float>>> EmbedBatch(const std::vector<std::string>& inputs,
                                                     EmbedKind) override {
    Json body = {{"model", config_.model}, {"input", inputs}, {"truncate", true}};
    std::vector<std::vector<float>> vectors;
    auto parse = [&](const Json& reply) -> Status {
      auto data = reply.find("embeddings");
      if (!reply.is_object() || data == reply.end() || !data->is_array()) {
        return Status::Internal("response has no \"embeddings\" array");
      }
      if (data->size() != inputs.size()) {
        return Status::Internal(
            fmt::format("returned {} embeddings for {} inputs", data->size(), inputs.size()));
      }
      vectors.assign(inputs.size(), {});
      for (size_t i = 0; i < data->size(); ++i) {
        SKALD_RETURN_IF_ERROR(ReadVector((*data)[i], dimension_, &vectors[i]));
      }
      return Status::Ok();
    };
    Result<Json> reply = client_.PostJson(url_, body, parse);
    if (!reply.ok()) return reply.status();
    return vectors;
  }

 private:
  const std::string url_;
};

}  // namespace

std::string OllamaBase(std::string_view api_base) {
  while (!api_base.empty() && api_base.back() == '/') api_base.remove_suffix(1);
  // OpenViking configs point Ollama at its OpenAI-compatible "/v1".
  if (api_base.size() >= 3 && api_base.substr(api_base.size() - 3) == "/v1") {
    api_base.remove_suffix(3);
  }
  return std::string(api_base);
}

std::unique_ptr<Embedder> NewHttpEmbedder(const EmbeddingConfig& config, ModelEnv env) {
  if (config.IsOllama()) return std::make_unique<OllamaEmbedder>(config, std::move(env));
  return std::make_unique<OpenAiEmbedder>(config, std::move(env));
}

}  // namespace skald
