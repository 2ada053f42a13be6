#pragma once

// Reranker: scores documents against a query with a cross-encoder served
// over HTTP (Cohere/Jina-style /v1/rerank or the OpenAI-compatible rerank
// shape), configured by the `rerank` config section (factory.h).
//
// Retrieval does not call Rerank directly but RerankOrFallback, which
// implements OpenViking's rules: `max_input_tokens` truncation, blank
// documents keep their fallback score, any failure falls back to the given
// scores with a warning, and `threshold` is applied to the final scores.
//
// Thread safety: Rerank and RerankOrFallback may be called concurrently.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/embedder.h"
#include "skald/result.h"

namespace skald {

class Reranker {
 public:
  virtual ~Reranker() = default;
  virtual std::string provider() const = 0;
  virtual std::string model() const = 0;

  // One relevance score per document, in input order (one request).
  // REQUIRES: documents is not empty and no document is blank.
  virtual Result<std::vector<double>> Rerank(std::string_view query,
                                             std::span<const std::string> documents) = 0;

  virtual ModelStats stats() const { return {}; }
};

struct RerankOptions {
  // Scores must be strictly greater to pass (OpenViking's `rerank.threshold`).
  double threshold = 0.1;
  // Token budget per (query, document) pair; 0 = no truncation. When set
  // (≥ 128), the query is cut to ¾ of it and each document to what is left,
  // keeping the head (75%) and the tail (25%) around a "\n…\n" marker.
  int max_input_tokens = 0;
};

struct RerankOutcome {
  std::vector<double> scores;  // final score per document, input order
  std::vector<bool> passed;    // scores[i] > threshold
  bool reranked = false;       // false when the fallback scores were kept
  std::string warning;         // why the fallback was used ("" otherwise)
};

// Reranks `documents` with `reranker` (null = no reranker configured: the
// fallback scores are returned, without a warning). Blank documents are not
// sent and keep their fallback score; when every document is blank no
// request is made. Any error, a wrong number of scores or a non-finite
// score keeps all fallback scores and logs the warning.
// REQUIRES: fallback_scores.size() == documents.size().
RerankOutcome RerankOrFallback(Reranker* reranker, std::string_view query,
                               std::span<const std::string> documents,
                               std::span<const double> fallback_scores,
                               const RerankOptions& options);

}  // namespace skald
