#include "model/model_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace skald {
namespace {

struct ProviderInfo {
  const char* name;
  const char* default_base;  // "" = api_base required
};

// OpenAI-compatible embedding providers and their public endpoints.
constexpr ProviderInfo kEmbeddingProviders[] = {
    {"openai", "https://api.openai.com/v1"},
    {"jina", "https://api.jina.ai/v1"},
    {"voyage", "https://api.voyageai.com/v1"},
    {"dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1"},
    {"volcengine", "https://ark.cn-beijing.volces.com/api/v3"},
    {"ollama", "http://localhost:11434"},
    {"vllm", ""},
    {"llamacpp", ""},
    {"lmstudio", ""},
    {"tei", ""},
    {"compatible", ""},
};

constexpr ProviderInfo kChatProviders[] = {
    {"openai", "https://api.openai.com/v1"},
    {"volcengine", "https://ark.cn-beijing.volces.com/api/v3"},
    {"kimi", "https://api.moonshot.cn/v1"},
    {"glm", "https://open.bigmodel.cn/api/paas/v4"},
    {"deepseek", "https://api.deepseek.com/v1"},
    {"dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1"},
    {"openrouter", "https://openrouter.ai/api/v1"},
    {"ollama", "http://localhost:11434"},
    {"vllm", ""},
    {"llamacpp", ""},
    {"lmstudio", ""},
    {"compatible", ""},
};

constexpr ProviderInfo kRerankProviders[] = {
    {"cohere", "https://api.cohere.com"},
    {"jina", "https://api.jina.ai"},
    {"openai", ""},
};

template <size_t N>
const ProviderInfo* FindProvider(const ProviderInfo (&table)[N], const std::string& name) {
  for (const ProviderInfo& info : table) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

template <size_t N>
std::string ProviderList(const ProviderInfo (&table)[N]) {
  std::string out;
  for (const ProviderInfo& info : table) {
    if (!out.empty()) out += ", ";
    out += info.name;
  }
  return out;
}

// Native dimensions of well-known models (OpenViking's tables, trimmed).
int KnownDimension(std::string model) {
  if (size_t colon = model.find(':'); colon != std::string::npos) model.resize(colon);
  static const std::pair<const char*, int> kKnown[] = {
      {"text-embedding-3-small", 1536},
      {"text-embedding-3-large", 3072},
      {"text-embedding-ada-002", 1536},
      {"nomic-embed-text", 768},
      {"mxbai-embed-large", 1024},
      {"all-minilm", 384},
      {"bge-m3", 1024},
      {"snowflake-arctic-embed", 1024},
      {"jina-embeddings-v3", 1024},
      {"jina-embeddings-v2-base-en", 768},
      {"voyage-3", 1024},
      {"voyage-3-lite", 512},
      {"voyage-3-large", 1024},
      {"text-embedding-v3", 1024},
      {"text-embedding-v4", 1024},
  };
  for (const auto& [name, dim] : kKnown) {
    if (model == name) return dim;
  }
  return 0;
}

Status CheckUrl(const std::string& url, const std::string& key) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return Status::InvalidArgument(
        fmt::format("{} must be an http:// or https:// URL, got \"{}\"", key, url));
  }
  return Status::Ok();
}

Status CheckRange(const std::string& key, double value, double lo, double hi) {
  if (!std::isfinite(value) || value < lo || value > hi) {
    return Status::InvalidArgument(
        fmt::format("{} must be between {} and {}, got {}", key, lo, hi, value));
  }
  return Status::Ok();
}

Status CheckHeaders(const std::map<std::string, std::string>& headers, const std::string& key) {
  for (const auto& [name, value] : headers) {
    if (name.empty() || name.find_first_of(":\r\n ") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument(fmt::format("{} has an invalid header \"{}\"", key, name));
    }
  }
  return Status::Ok();
}

}  // namespace

std::chrono::milliseconds SecondsToMillis(double seconds) {
  return std::chrono::milliseconds(std::max<int64_t>(1, std::llround(seconds * 1000.0)));
}

int EmbeddingConfig::EffectiveDimension() const {
  if (dimension > 0) return dimension;
  if (IsBuiltIn()) return 512;
  return KnownDimension(model);
}

std::string EmbeddingConfig::EffectiveApiBase() const {
  if (!api_base.empty()) return api_base;
  const ProviderInfo* info = FindProvider(kEmbeddingProviders, provider);
  return info != nullptr ? info->default_base : "";
}

Status EmbeddingConfig::Validate() const {
  const std::string p = "embedding.dense.";
  if (!IsBuiltIn() && FindProvider(kEmbeddingProviders, provider) == nullptr) {
    return Status::InvalidArgument(fmt::format(
        "{}provider \"{}\" is not supported by Skald; use \"hashing\" (built-in), \"ollama\" or "
        "an OpenAI-compatible provider ({}) with api_base pointing at the server",
        p, provider, ProviderList(kEmbeddingProviders)));
  }
  if (IsBuiltIn()) {
    // OpenViking's default provider is "volcengine": an ov.conf that names a
    // model without a provider means a remote model, never the hashing one.
    if (!model.empty() || !api_base.empty()) {
      return Status::InvalidArgument(fmt::format(
          "{}model/api_base are set but the provider is \"hashing\" (the built-in embedder, "
          "which takes neither); name the provider, e.g. \"openai\", \"ollama\" or "
          "\"volcengine\" (OpenViking's default, which Skald does not assume)",
          p));
    }
    if (dimension != 0 && (dimension < 16 || dimension > 8192)) {
      return Status::InvalidArgument(
          fmt::format("{}dimension must be between 16 and 8192 for the hashing embedder, got {}", p,
                      dimension));
    }
  } else {
    if (model.empty()) {
      return Status::InvalidArgument(
          fmt::format("{}model is required for provider \"{}\"", p, provider));
    }
    if (EffectiveApiBase().empty()) {
      return Status::InvalidArgument(fmt::format(
          "{}api_base is required for provider \"{}\" (e.g. \"http://localhost:8000/v1\")", p,
          provider));
    }
    SKALD_RETURN_IF_ERROR(CheckUrl(EffectiveApiBase(), p + "api_base"));
    if (dimension < 0 || dimension > 65536) {
      return Status::InvalidArgument(
          fmt::format("{}dimension must be between 1 and 65536, got {}", p, dimension));
    }
    if (EffectiveDimension() == 0) {
      return Status::InvalidArgument(fmt::format(
          "{}dimension is required: model \"{}\" is not in Skald's table of known models "
          "(`skald doctor` prints the dimension the server returns)",
          p, model));
    }
  }
  if (batch_size < 1 || batch_size > 2048) {
    return Status::InvalidArgument(
        fmt::format("{}batch_size must be between 1 and 2048, got {}", p, batch_size));
  }
  if (max_concurrent < 1 || max_concurrent > 256) {
    return Status::InvalidArgument(
        fmt::format("embedding.max_concurrent must be between 1 and 256, got {}", max_concurrent));
  }
  if (max_retries < 0 || max_retries > 20) {
    return Status::InvalidArgument(
        fmt::format("embedding.max_retries must be between 0 and 20, got {}", max_retries));
  }
  if (max_input_tokens < 16) {
    return Status::InvalidArgument(
        fmt::format("embedding.max_input_tokens must be at least 16, got {}", max_input_tokens));
  }
  SKALD_RETURN_IF_ERROR(CheckRange(p + "timeout", timeout, 0.001, 86400));
  SKALD_RETURN_IF_ERROR(CheckHeaders(extra_headers, p + "extra_headers"));
  if (Status breaker = circuit_breaker.Validate(); !breaker.ok()) {
    return Status::InvalidArgument("embedding." + breaker.message());
  }
  return Status::Ok();
}

std::string LlmConfig::EffectiveApiBase() const {
  if (!api_base.empty()) return api_base;
  const ProviderInfo* info = FindProvider(kChatProviders, EffectiveProvider());
  return info != nullptr ? info->default_base : "";
}

Status LlmConfig::Validate() const {
  if (!configured()) {
    if (!provider.empty() || !api_base.empty() || !api_key.empty()) {
      return Status::InvalidArgument(fmt::format("{}.model is required", section));
    }
    return Status::Ok();
  }
  const std::string p = section + ".";
  if (FindProvider(kChatProviders, EffectiveProvider()) == nullptr) {
    return Status::InvalidArgument(fmt::format(
        "{}provider \"{}\" is not supported by Skald; supported: {} (any OpenAI-compatible "
        "server works as \"openai\" with api_base)",
        p, provider, ProviderList(kChatProviders)));
  }
  if (EffectiveApiBase().empty()) {
    return Status::InvalidArgument(
        fmt::format("{}api_base is required for provider \"{}\"", p, EffectiveProvider()));
  }
  SKALD_RETURN_IF_ERROR(CheckUrl(EffectiveApiBase(), p + "api_base"));
  SKALD_RETURN_IF_ERROR(CheckRange(p + "temperature", temperature, 0, 2));
  SKALD_RETURN_IF_ERROR(CheckRange(p + "timeout", timeout, 0.001, 86400));
  if (max_tokens < 0) {
    return Status::InvalidArgument(fmt::format("{}max_tokens must be >= 0", p));
  }
  if (max_retries < 0 || max_retries > 20) {
    return Status::InvalidArgument(fmt::format("{}max_retries must be between 0 and 20", p));
  }
  if (max_concurrent < 1 || max_concurrent > 256) {
    return Status::InvalidArgument(fmt::format("{}max_concurrent must be between 1 and 256", p));
  }
  return CheckHeaders(extra_headers, p + "extra_headers");
}

std::string RerankConfig::EffectiveProvider() const {
  if (!provider.empty()) return provider;
  if (!api_key.empty() && !api_base.empty()) return "openai";
  if (!api_key.empty()) return "cohere";
  if (!ak.empty() && !sk.empty()) return "vikingdb";
  return "";
}

std::string RerankConfig::EffectiveModel() const {
  if (!model.empty()) return model;
  const std::string p = EffectiveProvider();
  if (p == "cohere") return "rerank-v3.5";
  if (p == "jina") return "jina-reranker-v2-base-multilingual";
  return "";
}

std::string RerankConfig::EffectiveApiBase() const {
  if (!api_base.empty()) return api_base;
  const ProviderInfo* info = FindProvider(kRerankProviders, EffectiveProvider());
  return info != nullptr ? info->default_base : "";
}

Status RerankConfig::Validate() const {
  if (!std::isfinite(threshold)) return Status::InvalidArgument("rerank.threshold must be finite");
  if (max_input_tokens != 0 && max_input_tokens < 128) {
    return Status::InvalidArgument(fmt::format(
        "rerank.max_input_tokens must be 0 (off) or at least 128, got {}", max_input_tokens));
  }
  if (!configured()) return Status::Ok();
  const std::string p = EffectiveProvider();
  if (FindProvider(kRerankProviders, p) == nullptr) {
    return Status::InvalidArgument(
        fmt::format("rerank.provider \"{}\" is not supported by Skald; supported: {}", p,
                    ProviderList(kRerankProviders)));
  }
  if (EffectiveModel().empty()) {
    return Status::InvalidArgument(fmt::format("rerank.model is required for provider \"{}\"", p));
  }
  if (EffectiveApiBase().empty()) {
    return Status::InvalidArgument(
        fmt::format("rerank.api_base is required for provider \"{}\"", p));
  }
  SKALD_RETURN_IF_ERROR(CheckUrl(EffectiveApiBase(), "rerank.api_base"));
  SKALD_RETURN_IF_ERROR(CheckRange("rerank.timeout", timeout, 0.001, 86400));
  if (max_retries < 0 || max_retries > 20) {
    return Status::InvalidArgument("rerank.max_retries must be between 0 and 20");
  }
  return CheckHeaders(extra_headers, "rerank.extra_headers");
}

}  // namespace skald
