#pragma once

// Configuration of the model providers: the `embedding`, `vlm`,
// `query_planner` and `rerank` sections of the config file, with
// OpenViking's `ov.conf` key names and defaults (reference api §4.2). The
// service config loader (service/config.h) parses JSON into these structs;
// factory.h builds clients from them. docs/config.md documents every key.
//
// Thread safety: value types.

#include <chrono>
#include <map>
#include <string>

#include "model/circuit_breaker.h"
#include "model/retry.h"
#include "skald/status.h"

namespace skald {

// `embedding.dense` plus the section-wide `embedding.*` settings.
struct EmbeddingConfig {
  // "hashing" (built-in, default), "ollama" (native /api/embed), or an
  // OpenAI-compatible provider: "openai", "jina", "voyage", "dashscope",
  // "volcengine", "vllm", "llamacpp", "lmstudio", "tei", "compatible".
  // (OpenViking's default is "volcengine"; Skald's runs offline.)
  std::string provider = "hashing";
  // Model name sent to the provider; ignored by "hashing".
  std::string model;
  // Base URL including the version path ("https://api.openai.com/v1");
  // "" = the provider's public endpoint (required for local servers).
  std::string api_base;
  // Sent as `Authorization: Bearer`; never logged. "" = no header.
  std::string api_key;
  // Vector length. 0 = the model's known dimension (hashing: 512); required
  // for models Skald does not know. Checked on every response.
  int dimension = 0;
  // Texts per request.
  int batch_size = 32;
  // Requests in flight at once, per embedder.
  int max_concurrent = 10;
  // Retries of a failed request (429/5xx/timeouts).
  int max_retries = 3;
  // Asymmetric models: `input_type` value ("query"), or "k=v,k2=v2" fields
  // added to query / document requests. "" = symmetric.
  std::string query_param;
  std::string document_param;
  // Inputs are cut to this many (estimated) tokens before sending.
  int max_input_tokens = 4096;
  // Skald extension: seconds one request may take.
  double timeout = 60.0;
  // Extra HTTP headers for every request.
  std::map<std::string, std::string> extra_headers;
  CircuitBreakerOptions circuit_breaker;

  bool IsBuiltIn() const { return provider == "hashing"; }
  bool IsOllama() const { return provider == "ollama"; }
  // The configured dimension, else the known one for the model, else 0.
  int EffectiveDimension() const;
  // api_base, else the provider's public endpoint ("" when it has none).
  std::string EffectiveApiBase() const;
  // InvalidArgument naming the key ("embedding.dense.batch_size ...").
  Status Validate() const;
};

// `vlm` (and `query_planner`, the same shape): a chat model.
struct LlmConfig {
  explicit LlmConfig(std::string section_name = "vlm") : section(std::move(section_name)) {}

  // Config section the values came from, for messages ("vlm").
  std::string section;
  // "openai" (and OpenAI-compatible: "volcengine", "kimi", "glm",
  // "deepseek", "dashscope", "vllm", "llamacpp", "lmstudio", "openrouter",
  // "compatible") or "ollama" (native /api/chat). "" with a model = "openai".
  std::string provider;
  std::string model;
  std::string api_base;
  std::string api_key;
  double temperature = 0.0;
  // Completion limit sent with every request; 0 = the provider's default.
  int max_tokens = 0;
  int max_retries = 3;
  // Seconds one request may take.
  double timeout = 600.0;
  int max_concurrent = 32;
  std::map<std::string, std::string> extra_headers;

  // A model is configured (the section is present with a model).
  bool configured() const { return !model.empty(); }
  std::string EffectiveProvider() const { return provider.empty() ? "openai" : provider; }
  std::string EffectiveApiBase() const;
  Status Validate() const;
};

// `rerank`.
struct RerankConfig {
  // "cohere" or "jina" (POST <base>/v1/rerank, Cohere body), "openai"
  // (OpenAI-compatible rerank: {model, query, documents}). "" = automatic
  // as in OpenViking: api_key + api_base → openai, api_key alone → cohere.
  std::string provider;
  std::string model;
  std::string api_base;
  std::string api_key;
  std::map<std::string, std::string> extra_headers;
  // Seconds one request may take.
  double timeout = 30.0;
  // Results must score strictly above this (applies to vector scores too
  // when no reranker is configured, as in OpenViking).
  double threshold = 0.1;
  // 0 = off; else ≥ 128: per-pair token budget (see reranker.h).
  int max_input_tokens = 0;
  // Skald extension: retries of a failed rerank request. Retrieval falls
  // back to vector scores anyway, so the default stays low.
  int max_retries = 1;
  // OpenViking VikingDB keys; provider "vikingdb" is not supported.
  std::string ak;
  std::string sk;

  std::string EffectiveProvider() const;
  // A provider is configured (explicitly or by the automatic rule).
  bool configured() const { return !EffectiveProvider().empty(); }
  std::string EffectiveModel() const;
  std::string EffectiveApiBase() const;
  Status Validate() const;
};

// Seconds as a duration for HttpRequest::timeout (at least 1 ms).
std::chrono::milliseconds SecondsToMillis(double seconds);

}  // namespace skald
