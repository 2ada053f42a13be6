#pragma once

// Score arithmetic of retrieval (DESIGN §5): hybrid fusion of vector
// similarity with BM25, hotness, and the URI-scope algebra the hierarchical
// retriever needs to search a directory's children inside the caller's
// scopes.
//
// Thread safety: pure functions.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "index/vector_index.h"
#include "skald/retrieval.h"  // LexicalNormalization

namespace skald {

// "max" / "saturate".
std::string_view LexicalNormalizationName(LexicalNormalization rule);

// `score` clamped to [0, 1]; NaN and infinities give 0.
double ClampScore(double score);

// The BM25 `score` of one hit in [0, 1] under `rule`. `stage_max` is the
// largest BM25 score of the stage (used by kMax); `saturation` > 0 is the
// half-way point of kSaturate. Non-positive or non-finite input gives 0.
double NormalizeBm25(double score, double stage_max, LexicalNormalization rule, double saturation);

// The fused score (1 - w) * vector + w * lexical, each component clamped to
// [0, 1] first (a cosine below 0 counts as 0). REQUIRES: w in [0, 1].
double FuseScores(double vector_similarity, double lexical_normalized, double lexical_weight);

// OpenViking's hotness: sigmoid(log1p(active_count)) * exp(-ln2 * age_days / 7),
// age measured from `updated_ns` to `now_ns` (a future update counts as age 0;
// updated_ns == 0, i.e. unknown, counts as age 0 too). In (0, 1].
double Hotness(int64_t active_count, int64_t updated_ns, int64_t now_ns);

// (1 - alpha) * semantic + alpha * hotness, clamped to [0, 1].
double BlendHotness(double semantic, double hotness, double alpha);

// The scopes (any-of) that admit exactly the records that are direct
// children of `dir` AND pass any of `caller_scopes` (any-of). An empty
// `caller_scopes` admits everything, giving {UriScope::Children(dir)}.
// nullopt when no child of `dir` can pass the caller's scopes (the search
// can be skipped). RecordFilter::uri_scopes is any-of, so adding the child
// scope to the caller's list would widen the search instead of narrowing it.
std::optional<std::vector<UriScope>> ChildScopesWithin(std::string_view dir,
                                                       const std::vector<UriScope>& caller_scopes);

}  // namespace skald
