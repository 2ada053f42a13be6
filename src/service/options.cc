#include "skald/options.h"

#include <fmt/format.h>

#include <cmath>

#include "common/tags.h"

namespace skald {

Status DbOptions::Validate() const {
  if (workspace.empty()) return Status::InvalidArgument("workspace must not be empty");
  if (lock_timeout_ms < 0) return Status::InvalidArgument("lock_timeout_ms must be >= 0");
  if (embedding_max_input_tokens < 16) {
    return Status::InvalidArgument("embedding.max_input_tokens must be >= 16");
  }
  if (background_workers < 0 || background_workers > 64) {
    return Status::InvalidArgument("background_workers must be in [0, 64]");
  }
  return retrieval.Validate();
}

Status LsOptions::Validate() const {
  if (node_limit < 1) {
    return Status::InvalidArgument(fmt::format("node_limit must be >= 1, got {}", node_limit));
  }
  if (level_limit < 1) {
    return Status::InvalidArgument(fmt::format("level_limit must be >= 1, got {}", level_limit));
  }
  if (abs_limit < 0) {
    return Status::InvalidArgument(fmt::format("abs_limit must be >= 0, got {}", abs_limit));
  }
  return Status::Ok();
}

Status GrepRequest::Validate() const {
  if (pattern.empty()) return Status::InvalidArgument("pattern must not be empty");
  if (node_limit < 1) {
    return Status::InvalidArgument(fmt::format("node_limit must be >= 1, got {}", node_limit));
  }
  if (level_limit < 1) {
    return Status::InvalidArgument(fmt::format("level_limit must be >= 1, got {}", level_limit));
  }
  return NormalizeTags(tags).status();
}

Status GlobRequest::Validate() const {
  if (pattern.empty()) return Status::InvalidArgument("pattern must not be empty");
  if (node_limit < 1) {
    return Status::InvalidArgument(fmt::format("node_limit must be >= 1, got {}", node_limit));
  }
  return NormalizeTags(tags).status();
}

}  // namespace skald

namespace skald {

Status AddResourceRequest::Validate() const {
  if (path.empty() && temp_file_id.empty()) {
    return Status::InvalidArgument("either 'path' or 'temp_file_id' must be provided");
  }
  if (!to.empty() && !parent.empty()) {
    return Status::InvalidArgument("'to' and 'parent' cannot be used together");
  }
  if (timeout_s.has_value() && !(*timeout_s >= 0)) {
    return Status::InvalidArgument("timeout must be >= 0");
  }
  if (parse_mode != "default" && parse_mode != "no_split") {
    return Status::InvalidArgument("args.parse_mode must be 'default' or 'no_split'");
  }
  if (processing_mode != "semantic_and_vectors" && processing_mode != "vectors_only") {
    return Status::InvalidArgument(
        "processing_mode must be 'semantic_and_vectors' or 'vectors_only'");
  }
  return Status::Ok();
}

Status ReindexRequest::Validate() const {
  if (uri.empty()) return Status::InvalidArgument("'uri' must be provided");
  if (mode != "vectors_only" && mode != "semantic_and_vectors" && mode != "prune_orphans") {
    return Status::InvalidArgument(
        "mode must be 'vectors_only', 'semantic_and_vectors' or 'prune_orphans'");
  }
  if (timeout_s.has_value() && !(*timeout_s >= 0)) {
    return Status::InvalidArgument("timeout must be >= 0");
  }
  return Status::Ok();
}

Status SkillRequest::Validate() const {
  if (data_json.empty() && temp_file_id.empty()) {
    return Status::InvalidArgument("either 'data' or 'temp_file_id' must be provided");
  }
  if (timeout_s.has_value() && !(*timeout_s >= 0)) {
    return Status::InvalidArgument("timeout must be >= 0");
  }
  return Status::Ok();
}

Status FindRequest::Validate() const {
  if (query.empty() && !filter_only) return Status::InvalidArgument("query must not be empty");
  if (limit < 1) return Status::InvalidArgument("limit must be >= 1");
  if (limit > 1000) return Status::InvalidArgument("limit must be <= 1000");
  for (int level : levels) {
    if (level < 0 || level > 2) return Status::InvalidArgument("level must be 0, 1 or 2");
  }
  for (const std::string& type : context_types) {
    if (!ParseContextType(type)) {
      return Status::InvalidArgument("context_type must be resource, memory or skill, not '" +
                                     type + "'");
    }
  }
  if (time_field != "updated_at" && time_field != "created_at") {
    return Status::InvalidArgument("time_field must be updated_at or created_at");
  }
  if (score_threshold.has_value() && !std::isfinite(*score_threshold)) {
    return Status::InvalidArgument("score_threshold must be a finite number");
  }
  return Status::Ok();
}

Status ContextRequest::Validate() const {
  SKALD_RETURN_IF_ERROR(search.find.Validate());
  if (!search.find.target_uris.empty()) {
    return Status::InvalidArgument("target_uri is not allowed in context mode");
  }
  if (max_tokens < 64 || max_tokens > 32000) {
    return Status::InvalidArgument("max_tokens must be in 64..32000");
  }
  if (!purpose.empty() && purpose != "chat" && purpose != "coding") {
    return Status::InvalidArgument("purpose must be chat or coding");
  }
  if (!detail.empty() && detail != "abstract" && detail != "overview" && detail != "full") {
    return Status::InvalidArgument("detail must be abstract, overview or full");
  }
  if (query_expansion != "auto" && query_expansion != "off") {
    return Status::InvalidArgument("query_expansion must be auto or off");
  }
  if (dedup_turns < 0 || dedup_turns > 100) {
    return Status::InvalidArgument("dedup_turns must be in 0..100");
  }
  if (exclude_uris.size() > 200) {
    return Status::InvalidArgument("exclude_uris holds at most 200 URIs");
  }
  for (const auto& [category, quota] : quotas) {
    if (quota < 0) return Status::InvalidArgument("quotas must be >= 0 (" + category + ")");
  }
  return Status::Ok();
}

}  // namespace skald
