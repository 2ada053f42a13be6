#include "skald/retrieval.h"

#include <fmt/format.h>

#include <cmath>

namespace skald {

std::string_view RetrievalModeName(RetrievalMode mode) {
  switch (mode) {
    case RetrievalMode::kAuto:
      return "auto";
    case RetrievalMode::kQuick:
      return "quick";
    case RetrievalMode::kThinking:
      return "thinking";
  }
  return "unknown";
}

std::optional<RetrievalMode> ParseRetrievalMode(std::string_view name) {
  for (RetrievalMode mode : {RetrievalMode::kAuto, RetrievalMode::kQuick, RetrievalMode::kThinking}) {
    if (name == RetrievalModeName(mode)) return mode;
  }
  return std::nullopt;
}

Status RetrievalOptions::Validate() const {
  auto unit = [](double x) { return std::isfinite(x) && x >= 0 && x <= 1; };
  if (hybrid_weight.has_value() && !unit(*hybrid_weight)) {
    return Status::InvalidArgument(
        fmt::format("retrieval.hybrid_weight must be in [0, 1], got {}", *hybrid_weight));
  }
  if (!unit(score_propagation_alpha)) {
    return Status::InvalidArgument(fmt::format(
        "retrieval.score_propagation_alpha must be in [0, 1], got {}", score_propagation_alpha));
  }
  if (!unit(hotness_alpha)) {
    return Status::InvalidArgument(
        fmt::format("retrieval.hotness_alpha must be in [0, 1], got {}", hotness_alpha));
  }
  if (lexical_normalization != LexicalNormalization::kMax &&
      lexical_normalization != LexicalNormalization::kSaturate) {
    return Status::InvalidArgument("retrieval.lexical_normalization is invalid");
  }
  if (!std::isfinite(lexical_saturation) || lexical_saturation <= 0) {
    return Status::InvalidArgument(
        fmt::format("retrieval.lexical_saturation must be > 0, got {}", lexical_saturation));
  }
  if (!std::isfinite(score_threshold)) {
    return Status::InvalidArgument("rerank.threshold must be a finite number");
  }
  if (rerank_max_input_tokens != 0 && rerank_max_input_tokens < 128) {
    return Status::InvalidArgument(fmt::format(
        "rerank.max_input_tokens must be 0 or >= 128, got {}", rerank_max_input_tokens));
  }
  if (lexical_index != "memory" && lexical_index != "fts5") {
    return Status::InvalidArgument(fmt::format(
        "retrieval.lexical_index must be \"memory\" or \"fts5\", not \"{}\"", lexical_index));
  }
  if (max_convergence_rounds < 1 || max_convergence_rounds > 100) {
    return Status::InvalidArgument(fmt::format(
        "retrieval.max_convergence_rounds must be in 1..100, got {}", max_convergence_rounds));
  }
  if (directories_per_round < 1 || directories_per_round > 256) {
    return Status::InvalidArgument(fmt::format(
        "retrieval.directories_per_round must be in 1..256, got {}", directories_per_round));
  }
  return Status::Ok();
}

}  // namespace skald
