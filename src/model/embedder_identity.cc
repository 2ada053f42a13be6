#include "model/embedder_identity.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/json_util.h"
#include "model/hashing_embedder.h"

namespace skald {

Result<std::vector<float>> Embedder::EmbedTerms(const TermList&) {
  return Status::FailedPrecondition(
      fmt::format("embedder {} does not embed from terms", provider()));
}

std::string Embedder::Name() const {
  return fmt::format("{}:{}:{}", provider(), model(), Dimension());
}

EmbedderIdentity EmbedderIdentity::Of(const Embedder& embedder) {
  return EmbedderIdentity{embedder.provider(), embedder.model(), embedder.Dimension()};
}

std::string EmbedderIdentity::ToJson() const {
  return DumpJson(Json{{"provider", provider}, {"model", model}, {"dimension", dimension}});
}

Result<EmbedderIdentity> EmbedderIdentity::FromJson(std::string_view json) {
  Result<Json> parsed = ParseJson(json);
  auto corrupt = [&] {
    return Status::Corruption(fmt::format(
        "workspace metadata \"{}\" is not a valid embedder identity: {}", kEmbedderMetaKey, json));
  };
  if (!parsed.ok() || !parsed->is_object()) return corrupt();
  const Json& j = *parsed;
  if (!j.contains("provider") || !j["provider"].is_string() || !j.contains("model") ||
      !j["model"].is_string() || !j.contains("dimension") || !j["dimension"].is_number_integer()) {
    return corrupt();
  }
  return EmbedderIdentity{j["provider"].get<std::string>(), j["model"].get<std::string>(),
                          j["dimension"].get<int>()};
}

std::string EmbedderIdentity::Describe() const {
  return fmt::format("provider={} model={} dimension={}", provider, model, dimension);
}

Result<EmbedderCheck> CheckEmbedderIdentity(Catalog& catalog, const Embedder& embedder,
                                            bool allow_reindex, std::string_view workspace) {
  const EmbedderIdentity current = EmbedderIdentity::Of(embedder);
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> stored_json, catalog.GetMeta(kEmbedderMetaKey));
  if (!stored_json) {
    SKALD_RETURN_IF_ERROR(catalog.SetMeta(kEmbedderMetaKey, current.ToJson()));
    return EmbedderCheck::kRecorded;
  }
  SKALD_ASSIGN_OR_RETURN(EmbedderIdentity stored, EmbedderIdentity::FromJson(*stored_json));
  if (stored == current) return EmbedderCheck::kUnchanged;
  // No vector was ever written: nothing to mix up, just record the new one.
  SKALD_ASSIGN_OR_RETURN(int64_t max_seq, catalog.MaxRecordSeq());
  if (max_seq == 0) {
    SKALD_RETURN_IF_ERROR(catalog.SetMeta(kEmbedderMetaKey, current.ToJson()));
    return EmbedderCheck::kRecorded;
  }
  if (!allow_reindex) {
    // The message names no host path (it can reach a client); the log does.
    spdlog::error("workspace {}: vectors were made by embedder {}, the configured one is {}",
                  workspace, stored.Describe(), current.Describe());
    return Status::FailedPrecondition(fmt::format(
        "the workspace holds vectors made by embedder {}, but the configured embedder is {}; "
        "vectors of different embedders cannot be mixed. Either restore the previous "
        "`embedding.dense` configuration, or reindex: reopen with reindexing allowed "
        "(`skald serve --reindex-embeddings`; DbOptions::reindex_on_embedder_change) to "
        "re-embed every record with the new embedder",
        stored.Describe(), current.Describe()));
  }
  // Keep the oldest pending source: an interrupted reindex must still redo everything.
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> pending,
                         catalog.GetMeta(kEmbedderReindexMetaKey));
  if (!pending) SKALD_RETURN_IF_ERROR(catalog.SetMeta(kEmbedderReindexMetaKey, *stored_json));
  SKALD_RETURN_IF_ERROR(catalog.SetMeta(kEmbedderMetaKey, current.ToJson()));
  spdlog::warn("workspace {}: embedder changed from {} to {}; every vector will be rebuilt",
               workspace, stored.Describe(), current.Describe());
  return EmbedderCheck::kReindexRequired;
}

Result<std::unique_ptr<Embedder>> EmbedderForUnconfiguredOpen(Catalog& catalog) {
  SKALD_ASSIGN_OR_RETURN(std::optional<std::string> stored_json, catalog.GetMeta(kEmbedderMetaKey));
  HashingEmbedderOptions options;
  if (stored_json) {
    SKALD_ASSIGN_OR_RETURN(EmbedderIdentity stored, EmbedderIdentity::FromJson(*stored_json));
    if (stored.provider != "hashing") {
      spdlog::info(
          "workspace embedder is {}; no embedding configuration was given, so nothing "
          "can be embedded in this session",
          stored.Describe());
      return std::unique_ptr<Embedder>();
    }
    options.dimension = stored.dimension;
  }
  return NewDefaultHashingEmbedder(options);
}

}  // namespace skald
