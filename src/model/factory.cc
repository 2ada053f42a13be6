#include "model/factory.h"

#include "model/hashing_embedder.h"
#include "model/http_models.h"

namespace skald {
namespace {

Status EnsureTransport(ModelEnv* env) {
  if (env->transport) return Status::Ok();
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<HttpTransport> transport, NewCurlTransport());
  env->transport = std::move(transport);
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Embedder>> NewEmbedder(const EmbeddingConfig& config, ModelEnv env) {
  SKALD_RETURN_IF_ERROR(config.Validate());
  if (config.IsBuiltIn()) {
    HashingEmbedderOptions options;
    options.dimension = config.EffectiveDimension();
    return NewDefaultHashingEmbedder(options);
  }
  SKALD_RETURN_IF_ERROR(EnsureTransport(&env));
  return NewHttpEmbedder(config, std::move(env));
}

Result<std::unique_ptr<Llm>> NewLlm(const LlmConfig& config, ModelEnv env) {
  SKALD_RETURN_IF_ERROR(config.Validate());
  if (!config.configured()) return std::unique_ptr<Llm>();
  SKALD_RETURN_IF_ERROR(EnsureTransport(&env));
  return NewHttpLlm(config, std::move(env));
}

Result<std::unique_ptr<Reranker>> NewReranker(const RerankConfig& config, ModelEnv env) {
  SKALD_RETURN_IF_ERROR(config.Validate());
  if (!config.configured()) return std::unique_ptr<Reranker>();
  SKALD_RETURN_IF_ERROR(EnsureTransport(&env));
  return NewHttpReranker(config, std::move(env));
}

}  // namespace skald
