#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "common/strings.h"
#include "model/reranker.h"
#include "model/token_budget.h"

namespace skald {

RerankOutcome RerankOrFallback(Reranker* reranker, std::string_view query,
                               std::span<const std::string> documents,
                               std::span<const double> fallback_scores,
                               const RerankOptions& options) {
  RerankOutcome outcome;
  outcome.scores.assign(fallback_scores.begin(), fallback_scores.end());
  auto finish = [&]() {
    outcome.passed.resize(outcome.scores.size());
    for (size_t i = 0; i < outcome.scores.size(); ++i) {
      outcome.passed[i] = outcome.scores[i] > options.threshold;
    }
    return outcome;
  };
  auto fall_back = [&](const std::string& why) {
    outcome.warning = fmt::format("rerank {}: keeping the vector scores", why);
    spdlog::warn("{}", outcome.warning);
    return finish();
  };
  if (reranker == nullptr) return finish();
  if (documents.size() != fallback_scores.size()) {
    return fall_back(fmt::format("got {} documents but {} fallback scores", documents.size(),
                                 fallback_scores.size()));
  }
  // Blank documents are not sent (providers reject them) and keep their score.
  std::vector<size_t> sent;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (!Trim(documents[i]).empty()) sent.push_back(i);
  }
  if (sent.empty()) return finish();

  std::string q(query);
  std::vector<std::string> docs;
  docs.reserve(sent.size());
  if (options.max_input_tokens > 0) {
    // OpenViking's budget split: the query gets at most three quarters, each
    // document what the (cut) query leaves.
    q = TruncateToTokenBudget(query, options.max_input_tokens * 3 / 4);
    const int64_t doc_budget = options.max_input_tokens - EstimateTokens(q);
    for (size_t i : sent) docs.push_back(TruncateToTokenBudget(documents[i], doc_budget));
  } else {
    for (size_t i : sent) docs.push_back(documents[i]);
  }
  Result<std::vector<double>> scores = reranker->Rerank(q, docs);
  if (!scores.ok()) return fall_back("failed (" + scores.status().message() + ")");
  if (scores->size() != sent.size()) {
    return fall_back(
        fmt::format("returned {} scores for {} documents", scores->size(), sent.size()));
  }
  for (double s : *scores) {
    if (!std::isfinite(s)) return fall_back("returned a non-finite score");
  }
  for (size_t k = 0; k < sent.size(); ++k) outcome.scores[sent[k]] = (*scores)[k];
  outcome.reranked = true;
  return finish();
}

}  // namespace skald
