#include "retrieve/scoring.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "uri/uri_path.h"

namespace skald {
namespace {

constexpr int64_t kNanosPerDay = 86'400'000'000'000;
constexpr double kHalfLifeDays = 7.0;

}  // namespace

std::string_view LexicalNormalizationName(LexicalNormalization rule) {
  switch (rule) {
    case LexicalNormalization::kMax:
      return "max";
    case LexicalNormalization::kSaturate:
      return "saturate";
  }
  return "unknown";
}

double ClampScore(double score) {
  if (!std::isfinite(score)) return 0.0;
  return std::clamp(score, 0.0, 1.0);
}

double NormalizeBm25(double score, double stage_max, LexicalNormalization rule, double saturation) {
  if (!std::isfinite(score) || score <= 0) return 0.0;
  switch (rule) {
    case LexicalNormalization::kMax:
      if (!std::isfinite(stage_max) || stage_max <= 0) return 0.0;
      return ClampScore(score / stage_max);
    case LexicalNormalization::kSaturate:
      if (!std::isfinite(saturation) || saturation <= 0) return 0.0;
      return ClampScore(score / (score + saturation));
  }
  return 0.0;
}

double FuseScores(double vector_similarity, double lexical_normalized, double lexical_weight) {
  const double w = ClampScore(lexical_weight);
  return ClampScore((1.0 - w) * ClampScore(vector_similarity) + w * ClampScore(lexical_normalized));
}

double Hotness(int64_t active_count, int64_t updated_ns, int64_t now_ns) {
  const double count = static_cast<double>(std::max<int64_t>(active_count, 0));
  const double frequency = 1.0 / (1.0 + std::exp(-std::log1p(count)));
  double age_days = 0.0;
  if (updated_ns > 0 && now_ns > updated_ns) {
    age_days = static_cast<double>(now_ns - updated_ns) / static_cast<double>(kNanosPerDay);
  }
  const double recency = std::exp(-std::log(2.0) * age_days / kHalfLifeDays);
  return ClampScore(frequency * recency);
}

double BlendHotness(double semantic, double hotness, double alpha) {
  const double a = ClampScore(alpha);
  return ClampScore((1.0 - a) * ClampScore(semantic) + a * ClampScore(hotness));
}

std::optional<std::vector<UriScope>> ChildScopesWithin(std::string_view dir,
                                                       const std::vector<UriScope>& caller_scopes) {
  const std::string dir_str(UriTrimTrailingSlashes(dir));
  if (caller_scopes.empty()) return std::vector<UriScope>{UriScope::Children(dir_str)};
  const int dir_depth = UriDepth(dir_str);
  std::vector<UriScope> out;
  for (const UriScope& scope : caller_scopes) {
    const int scope_depth = UriDepth(scope.uri);
    if (UriWithin(dir_str, scope.uri)) {
      // Every child of dir sits (dir_depth - scope_depth + 1) segments below
      // the scope: either all of them pass its depth bounds or none does.
      const int rel = dir_depth - scope_depth + 1;
      if (rel >= scope.min_depth && (scope.max_depth < 0 || rel <= scope.max_depth)) {
        return std::vector<UriScope>{UriScope::Children(dir_str)};
      }
    } else if (UriWithin(scope.uri, dir_str) && scope_depth == dir_depth + 1 &&
               scope.min_depth <= 0) {
      // The scope's own node is a direct child of dir: only its records pass.
      out.push_back(UriScope{std::string(UriTrimTrailingSlashes(scope.uri)), 0, 0});
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace skald
