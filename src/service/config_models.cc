// Parsers for the model sections of the config file: `embedding` (with
// `dense` and `circuit_breaker`), `vlm` / `query_planner` and `rerank`. The
// fields they fill are documented in model/model_config.h; the keys in
// docs/config.md.

#include <limits>
#include <set>
#include <string>

#include <fmt/format.h>

#include "common/json_util.h"
#include "common/strings.h"
#include "service/config_internal.h"

namespace skald::config_internal {
namespace {

const int kIntMin = std::numeric_limits<int>::min();
const int kIntMax = std::numeric_limits<int>::max();

Status ParseCircuitBreaker(const Json& obj, const std::string& prefix,
                           CircuitBreakerOptions* out) {
  SKALD_RETURN_IF_ERROR(RequireObject(obj, prefix));
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath(prefix, key);
    if (key == "failure_threshold") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &out->failure_threshold));
    } else if (key == "reset_timeout") {
      SKALD_RETURN_IF_ERROR(ReadSeconds(v, path, &out->reset_timeout));
    } else if (key == "max_reset_timeout") {
      SKALD_RETURN_IF_ERROR(ReadSeconds(v, path, &out->max_reset_timeout));
    } else {
      return UnknownKey(path);
    }
  }
  return Status::Ok();
}

Status ParseDense(const Json& obj, Config* config) {
  SKALD_RETURN_IF_ERROR(RequireObject(obj, "embedding.dense"));
  static const std::set<std::string> ignored = {
      "input", "version", "ak", "sk", "region", "host", "extra_body", "api_version",
      "model_path", "cache_dir", "enable_fusion", "res_level", "max_video_frames",
      "credentials", "failback_timeout_seconds", "failback_request_count"};
  EmbeddingConfig& e = config->embedding;
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath("embedding.dense", key);
    if (key == "provider" || key == "backend") {  // `backend`: OpenViking's deprecated alias
      std::string provider;
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &provider));
      if (!provider.empty() && (key == "provider" || !obj.contains("provider"))) {
        e.provider = AsciiLower(provider);
      }
    } else if (key == "model") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &e.model));
    } else if (key == "api_key") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &e.api_key));
    } else if (key == "api_base") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &e.api_base));
    } else if (key == "dimension") {
      if (!v.is_null()) {
        SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.dimension));
      }
    } else if (key == "batch_size") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.batch_size));
    } else if (key == "max_concurrent") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.max_concurrent));
    } else if (key == "max_retries") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.max_retries));
    } else if (key == "max_input_tokens") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.max_input_tokens));
    } else if (key == "query_param") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &e.query_param));
    } else if (key == "document_param") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &e.document_param));
    } else if (key == "timeout") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &e.timeout));
    } else if (key == "extra_headers") {
      SKALD_RETURN_IF_ERROR(ReadStringMap(v, path, &e.extra_headers));
    } else if (key == "encoding_format") {
      std::string format;
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &format));
      if (!format.empty() && format != "float") {
        config->warnings.push_back(fmt::format(
            "{}=\"{}\" is ignored: Skald always asks for float vectors", path, format));
      }
    } else if (ignored.count(key) != 0) {
      if (!v.is_null()) config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  return Status::Ok();
}

}  // namespace

Status ParseEmbedding(const Json& obj, Config* config) {
  if (obj.is_null()) return Status::Ok();
  SKALD_RETURN_IF_ERROR(RequireObject(obj, "embedding"));
  EmbeddingConfig& e = config->embedding;
  // Section-wide keys first: `embedding.dense.max_concurrent` (and
  // max_retries / max_input_tokens) override the section-wide ones.
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath("embedding", key);
    if (key == "dense") {
      continue;
    } else if (key == "max_concurrent") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.max_concurrent));
    } else if (key == "max_retries") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.max_retries));
    } else if (key == "max_input_tokens") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &e.max_input_tokens));
    } else if (key == "circuit_breaker") {
      SKALD_RETURN_IF_ERROR(ParseCircuitBreaker(v, path, &e.circuit_breaker));
    } else if (key == "sparse" || key == "hybrid") {
      if (!v.is_null()) {
        config->warnings.push_back(fmt::format(
            "{} is ignored: Skald uses one dense embedder plus its own BM25 index", path));
      }
    } else if (key == "text_source" || key == "allow_metadata_override") {
      config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  if (auto dense = obj.find("dense"); dense != obj.end() && !dense->is_null()) {
    SKALD_RETURN_IF_ERROR(ParseDense(*dense, config));
  }
  return Status::Ok();
}

Status ParseLlm(const Json& obj, const std::string& section, LlmConfig* out, Config* config) {
  out->section = section;
  if (obj.is_null()) return Status::Ok();
  SKALD_RETURN_IF_ERROR(RequireObject(obj, section));
  static const std::set<std::string> ignored = {
      "forward_api_key", "providers", "default_provider", "media", "api_version",
      "extra_request_body", "credentials", "backup", "failback_timeout_seconds",
      "failback_request_count"};
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath(section, key);
    if (key == "provider" || key == "backend") {
      std::string provider;
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &provider));
      if (!provider.empty() && (key == "provider" || !obj.contains("provider"))) {
        out->provider = AsciiLower(provider);
      }
    } else if (key == "model") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &out->model));
    } else if (key == "api_key") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &out->api_key));
    } else if (key == "api_base") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &out->api_base));
    } else if (key == "temperature") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &out->temperature));
    } else if (key == "max_tokens") {
      out->max_tokens = 0;
      if (!v.is_null()) {
        SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &out->max_tokens));
      }
    } else if (key == "max_retries") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &out->max_retries));
    } else if (key == "max_concurrent") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &out->max_concurrent));
    } else if (key == "timeout") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &out->timeout));
    } else if (key == "extra_headers") {
      SKALD_RETURN_IF_ERROR(ReadStringMap(v, path, &out->extra_headers));
    } else if (key == "thinking" || key == "stream") {
      bool on = false;
      SKALD_RETURN_IF_ERROR(ReadBool(v, path, &on));
      if (on) config->warnings.push_back(IgnoredKeyWarning(path));
    } else if (ignored.count(key) != 0) {
      if (!v.is_null()) config->warnings.push_back(IgnoredKeyWarning(path));
    } else {
      return UnknownKey(path);
    }
  }
  return Status::Ok();
}

Status ParseRerank(const Json& obj, Config* config) {
  if (obj.is_null()) return Status::Ok();
  SKALD_RETURN_IF_ERROR(RequireObject(obj, "rerank"));
  RerankConfig& r = config->rerank;
  std::string model_name;
  for (const auto& [key, v] : obj.items()) {
    const std::string path = KeyPath("rerank", key);
    if (key == "provider") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &r.provider));
      r.provider = AsciiLower(r.provider);
    } else if (key == "model") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &r.model));
    } else if (key == "model_name") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &model_name));
    } else if (key == "api_key") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &r.api_key));
    } else if (key == "api_base") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &r.api_base));
    } else if (key == "ak") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &r.ak));
    } else if (key == "sk") {
      SKALD_RETURN_IF_ERROR(ReadOptString(v, path, &r.sk));
    } else if (key == "extra_headers") {
      SKALD_RETURN_IF_ERROR(ReadStringMap(v, path, &r.extra_headers));
    } else if (key == "timeout") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &r.timeout));
    } else if (key == "threshold") {
      SKALD_RETURN_IF_ERROR(ReadDouble(v, path, &r.threshold));
    } else if (key == "max_input_tokens") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &r.max_input_tokens));
    } else if (key == "max_retries") {
      SKALD_RETURN_IF_ERROR(ReadInt32(v, path, kIntMin, kIntMax, &r.max_retries));
    } else if (key == "host" || key == "model_version") {
      // VikingDB-only settings; provider "vikingdb" is refused by Validate().
    } else {
      return UnknownKey(path);
    }
  }
  // OpenViking's Cohere client reads model_name unless it is the VikingDB default.
  if (r.model.empty() && !model_name.empty() && model_name != "doubao-seed-rerank") {
    r.model = model_name;
  }
  return Status::Ok();
}

}  // namespace skald::config_internal
