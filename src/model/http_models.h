#pragma once

// Constructors of the HTTP model clients, used by factory.cc (and tests).
// REQUIRES for each: the config passed Validate() and env.transport is set.
//
// Thread safety: the returned objects are safe for concurrent use.

#include <memory>
#include <string>
#include <string_view>

#include "model/embedder.h"
#include "model/http_provider.h"
#include "model/llm.h"
#include "model/model_config.h"
#include "model/reranker.h"

namespace skald {

// OpenAI-compatible /embeddings, or Ollama /api/embed for provider "ollama".
std::unique_ptr<Embedder> NewHttpEmbedder(const EmbeddingConfig& config, ModelEnv env);

// OpenAI-compatible /chat/completions, or Ollama /api/chat for "ollama".
std::unique_ptr<Llm> NewHttpLlm(const LlmConfig& config, ModelEnv env);

// Cohere/Jina /v1/rerank, or the OpenAI-compatible rerank shape for "openai".
std::unique_ptr<Reranker> NewHttpReranker(const RerankConfig& config, ModelEnv env);

// Ollama's native API root: api_base without a trailing "/v1".
std::string OllamaBase(std::string_view api_base);

}  // namespace skald
