#pragma once

// Builds model clients from their config sections (model_config.h). The
// embedder always exists (the built-in hashing embedder by default); an
// Llm or a Reranker exists only when its section configures one.
//
// To share one HTTP transport (one connection pool) between the clients,
// create it once and pass it in ModelEnv; otherwise each call creates its
// own libcurl transport.
//
// Thread safety: the functions may be called concurrently.

#include <memory>

#include "model/embedder.h"
#include "model/http_provider.h"
#include "model/llm.h"
#include "model/model_config.h"
#include "model/reranker.h"

namespace skald {

// Validates `config` and builds its embedder.
Result<std::unique_ptr<Embedder>> NewEmbedder(const EmbeddingConfig& config, ModelEnv env = {});

// Validates `config`; null when no model is configured.
Result<std::unique_ptr<Llm>> NewLlm(const LlmConfig& config, ModelEnv env = {});

// Validates `config`; null when no reranker is configured.
Result<std::unique_ptr<Reranker>> NewReranker(const RerankConfig& config, ModelEnv env = {});

}  // namespace skald
