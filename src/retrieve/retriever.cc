#include "retrieve/retriever.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/strings.h"
#include "common/time_util.h"
#include "text/stop_words.h"

namespace skald {
namespace {

constexpr uint32_t kDirectoryLevels = (1u << 0) | (1u << 1);

// One record found by a search stage. `record` points into the run's lookup
// cache (RetrievalRun::records_), which outlives every Scored of the run.
struct Scored {
  const Record* record = nullptr;
  bool by_vector = false;
  bool by_lexical = false;
  bool reranked = false;
  double score = 0;  // fused, or the reranker's; in [0, 1]

  std::string_view reason() const {
    if (reranked) return "reranked";
    if (by_vector && by_lexical) return "vector+lexical";
    return by_vector ? "vector" : "lexical";
  }
};

bool BetterThan(const Scored& a, const Scored& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.record->uri < b.record->uri;
}

bool LevelAllowed(uint32_t mask, int level) {
  return mask == 0 || (level >= 0 && level < 32 && ((mask >> level) & 1u) != 0);
}

// Keeps the best-scoring record per URI (a directory's L0 and L1 records are
// one candidate), best first.
// The best record of each URI, best first. The others go to `*shadowed`:
// until the catalog confirms the best, it may be a stale index entry (deleted,
// still in a lagging index), and then the next record of its URI answers.
std::vector<Scored> CollapseByUri(std::vector<Scored> stage, std::vector<Scored>* shadowed) {
  std::sort(stage.begin(), stage.end(), BetterThan);
  std::unordered_set<std::string> seen;
  std::vector<Scored> out;
  for (Scored& s : stage) {
    if (seen.insert(s.record->uri).second) {
      out.push_back(std::move(s));
    } else {
      shadowed->push_back(std::move(s));
    }
  }
  return out;
}

// The state of one Retrieve call.
class RetrievalRun {
 public:
  RetrievalRun(const RetrievalOptions& options, const RetrievalQuery& query,
               const RetrievalSources& sources, RetrievalTrace* trace)
      : options_(options),
        query_(query),
        sources_(sources),
        trace_(trace),
        lexical_text_(options.strip_query_function_words && IsQuestion(query.text)
                          ? StripQueryFunctionWords(query.text)
                          : query.text) {
    const bool have_vectors = sources.vectors != nullptr;
    const bool have_lexical = sources.lexical != nullptr;
    if (have_vectors && have_lexical) {
      lexical_weight_ = options.hybrid_weight.value_or(
          sources.embedder != nullptr && sources.embedder->lexical() ? 1.0 : kSemanticHybridWeight);
      use_vectors_ = lexical_weight_ < 1.0;
      use_lexical_ = lexical_weight_ > 0.0;
      // BM25 alone still falls back on the vectors when it finds nothing
      // (words the tokenizer splits differently, a lexical index that could
      // not catch up, e.g. on a full disk).
      vector_fallback_ = !use_vectors_;
    } else {
      // One index alone carries the whole score.
      lexical_weight_ = have_lexical ? 1.0 : 0.0;
      use_vectors_ = have_vectors;
      use_lexical_ = have_lexical;
    }
    // Candidates are ranked by the fields the lexical index keeps; only the
    // returned hits are read from the catalog. A reranker (it reads
    // abstracts) and hotness (active counts) need whole records throughout.
    describe_ = have_lexical && sources.reranker == nullptr && options.hotness_alpha <= 0;
    threshold_ = query.score_threshold.value_or(options.score_threshold);
    rerank_.threshold = options.score_threshold;
    rerank_.max_input_tokens = options.rerank_max_input_tokens;
  }

  double threshold() const { return threshold_; }

  // From now on BM25 scores are normalized against at least the best one of
  // the last stage (THINKING's global stage): every later stage searches a
  // subset, so their scores stay comparable across directories instead of
  // each directory's best child scoring 1.
  void FixLexicalReference() { lexical_reference_ = last_bm25_max_; }

  // Embeds the query once, when a vector search will run.
  Status EmbedQuery() {
    if (!use_vectors_ && !vector_fallback_) return Status::Ok();
    std::vector<std::string> texts = {query_.text};
    SKALD_ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors,
                           sources_.embedder->Embed(texts, EmbedKind::kQuery));
    if (vectors.size() != 1) {
      return Status::Internal(
          fmt::format("embedder returned {} vectors for one query", vectors.size()));
    }
    if (static_cast<int>(vectors[0].size()) != sources_.vectors->dim()) {
      return Status::FailedPrecondition(
          fmt::format("query vector has dimension {} but the vector index holds {}",
                      vectors[0].size(), sources_.vectors->dim()));
    }
    query_vector_ = std::move(vectors[0]);
    // A text without terms embeds to the zero vector: nothing is similar to it.
    bool any = false;
    for (float x : query_vector_) any = any || (x != 0.0f && std::isfinite(x));
    if (!any) query_vector_.clear();
    return Status::Ok();
  }

  // The raw hits of one hybrid search, before their records are fetched.
  struct StageHits {
    struct Parts {
      double vector = 0, bm25 = 0;
      bool by_vector = false, by_lexical = false;
    };
    std::unordered_map<uint64_t, Parts> parts;
    std::vector<uint64_t> order;  // first-seen order, for determinism
    double bm25_max = 0;
    double lexical_weight = 0;
  };

  // One hybrid search: the k best of each index under `filter`, fused, with
  // their records. Keys the lookup no longer knows are dropped.
  Result<std::vector<Scored>> SearchStage(const RecordFilter& filter, int k) {
    StageHits stage;
    SKALD_RETURN_IF_ERROR(SearchIndexes(filter, k, &stage));
    SKALD_RETURN_IF_ERROR(FetchRecords(stage.order));
    return Fuse(stage);
  }

  // The index searches of a stage (no record lookup: several stages can
  // share one, see Prefetch).
  Status SearchIndexes(const RecordFilter& filter, int k, StageHits* stage) {
    std::vector<SearchHit> hits;
    if (use_lexical_) {
      SKALD_RETURN_IF_ERROR(sources_.lexical->Search(lexical_text_, filter, k, &hits));
      for (const SearchHit& hit : hits) {
        auto [it, fresh] = stage->parts.try_emplace(hit.id);
        if (fresh) stage->order.push_back(hit.id);
        it->second.bm25 = hit.score;
        it->second.by_lexical = true;
        if (std::isfinite(hit.score)) stage->bm25_max = std::max(stage->bm25_max, double{hit.score});
      }
    }
    const bool fallback = vector_fallback_ && stage->order.empty();
    stage->lexical_weight = fallback ? 0.0 : lexical_weight_;
    if ((use_vectors_ || fallback) && !query_vector_.empty()) {
      SearchOptions search;
      search.k = k;
      SKALD_RETURN_IF_ERROR(sources_.vectors->Search(query_vector_, filter, search, &hits));
      for (const SearchHit& hit : hits) {
        auto [it, fresh] = stage->parts.try_emplace(hit.id);
        if (fresh) stage->order.push_back(hit.id);
        it->second.vector = hit.score;
        it->second.by_vector = true;
      }
    }
    return Status::Ok();
  }

  // Fetches the records of every key of `stages` in one lookup.
  Status Prefetch(const std::vector<StageHits>& stages) {
    std::vector<uint64_t> keys;
    for (const StageHits& stage : stages) keys.insert(keys.end(), stage.order.begin(), stage.order.end());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return FetchRecords(keys);
  }

  // Fused scores of a stage whose records were fetched.
  std::vector<Scored> Fuse(const StageHits& stage) {
    last_bm25_max_ = stage.bm25_max;
    std::vector<Scored> out;
    out.reserve(stage.order.size());
    for (uint64_t key : stage.order) {
      auto record = records_.find(key);
      if (record == records_.end()) continue;
      const StageHits::Parts& p = stage.parts.at(key);
      Scored s;
      s.record = &record->second;
      s.by_vector = p.by_vector;
      s.by_lexical = p.by_lexical;
      const double lexical =
          NormalizeBm25(p.bm25, std::max(stage.bm25_max, lexical_reference_),
                        options_.lexical_normalization, options_.lexical_saturation);
      s.score = FuseScores(p.vector, lexical, stage.lexical_weight);
      out.push_back(std::move(s));
    }
    return out;
  }

  // Replaces the stage's scores by the reranker's (documents = abstracts);
  // any failure keeps them and records the warning.
  void Rerank(std::vector<Scored>* stage) {
    if (sources_.reranker == nullptr || rerank_failed_ || stage->empty()) return;
    std::vector<std::string> documents;
    std::vector<double> fallback;
    documents.reserve(stage->size());
    fallback.reserve(stage->size());
    for (const Scored& s : *stage) {
      documents.push_back(s.record->abstract);
      fallback.push_back(s.score);
    }
    RerankOutcome outcome =
        RerankOrFallback(sources_.reranker, query_.text, documents, fallback, rerank_);
    if (!outcome.warning.empty()) {
      // One failure is enough: a reranker that is down or timing out would
      // otherwise cost every remaining stage of this query its full timeout.
      rerank_failed_ = true;
      if (trace_->rerank_warning.empty()) trace_->rerank_warning = outcome.warning;
    }
    if (!outcome.reranked) return;
    trace_->reranked = true;
    for (size_t i = 0; i < stage->size(); ++i) {
      Scored& s = (*stage)[i];
      s.score = ClampScore(outcome.scores[i]);
      // Blank abstracts were not sent and kept their fused score.
      s.reranked = !Trim(s.record->abstract).empty();
    }
  }

  // Applies hotness (when on), sorts and returns the best `limit` whose
  // records the catalog still has (read now for candidates the index
  // described), one per URI.
  Result<std::vector<MatchedContext>> Finish(std::vector<Scored> pool) {
    if (options_.hotness_alpha > 0) {
      const int64_t now = EnvOrDefault(sources_.env)->NowNanos();
      for (Scored& s : pool) {
        s.score = BlendHotness(s.score, Hotness(s.record->active_count, s.record->updated_ns, now),
                               options_.hotness_alpha);
      }
    }
    std::sort(pool.begin(), pool.end(), BetterThan);
    const auto limit = static_cast<size_t>(query_.limit);
    std::vector<const Scored*> kept;
    std::unordered_set<std::string_view> uris;
    // Pass by pass: the next candidates in rank order, at most as many as
    // hits are missing and one per URI (a second record of a URI waits for
    // the verdict on the first), are read from the catalog together.
    for (size_t next = 0; kept.size() < limit && next < pool.size();) {
      std::vector<uint64_t> unread;
      std::unordered_set<std::string_view> chosen;
      size_t end = next;
      for (; end < pool.size() && chosen.size() < limit - kept.size(); ++end) {
        const Record& r = *pool[end].record;
        if (uris.contains(r.uri) || unknown_.contains(r.key)) continue;
        if (!chosen.insert(r.uri).second) break;
        if (!complete_.contains(r.key)) unread.push_back(r.key);
      }
      SKALD_RETURN_IF_ERROR(ReadCatalog(unread));
      for (; next < end; ++next) {
        const Scored& s = pool[next];
        if (unknown_.contains(s.record->key) || !uris.insert(s.record->uri).second) continue;
        kept.push_back(&s);
      }
    }
    std::vector<MatchedContext> hits;
    hits.reserve(kept.size());
    for (const Scored* kept_hit : kept) {
      const Scored& s = *kept_hit;
      MatchedContext m;
      m.uri = s.record->uri;
      m.context_type = s.record->context_type;
      m.level = s.record->level;
      m.score = ClampScore(s.score);
      m.abstract = s.record->abstract;
      m.tags = s.record->tags;
      m.match_reason = std::string(s.reason());
      hits.push_back(std::move(m));
    }
    return hits;
  }

 private:
  // The records of `keys` not seen yet: described by the lexical index when
  // it can (describe_), the rest read from the catalog.
  Status FetchRecords(const std::vector<uint64_t>& keys) {
    std::vector<uint64_t> missing;
    for (uint64_t key : keys) {
      if (!records_.contains(key) && !unknown_.contains(key)) missing.push_back(key);
    }
    if (missing.empty()) return Status::Ok();
    std::vector<RecordFields> described;
    if (describe_ && sources_.lexical->Describe(query_.account, missing, &described)) {
      for (RecordFields& fields : described) {
        Record r;
        static_cast<RecordFields&>(r) = std::move(fields);
        const uint64_t key = r.key;
        records_.insert_or_assign(key, std::move(r));
      }
      std::erase_if(missing, [this](uint64_t key) { return records_.contains(key); });
    }
    return ReadCatalog(missing);
  }

  // Reads the records of `keys` from the catalog (replacing what the index
  // described, in place: Scored::record pointers stay valid); keys it does
  // not have are unknown_ from now on.
  Status ReadCatalog(const std::vector<uint64_t>& keys) {
    if (keys.empty()) return Status::Ok();
    SKALD_ASSIGN_OR_RETURN(std::vector<Record> found, sources_.lookup(query_.account, keys));
    for (Record& r : found) {
      const uint64_t key = r.key;
      complete_.insert(key);
      records_.insert_or_assign(key, std::move(r));
    }
    for (uint64_t key : keys) {
      if (!complete_.contains(key)) unknown_.insert(key);
    }
    return Status::Ok();
  }

  const RetrievalOptions& options_;
  const RetrievalQuery& query_;
  const RetrievalSources& sources_;
  RetrievalTrace* trace_;
  const std::string lexical_text_;  // what BM25 searches for
  double lexical_weight_ = 0;
  bool use_vectors_ = false;
  bool use_lexical_ = false;
  bool vector_fallback_ = false;  // vectors only for stages BM25 finds nothing in
  double last_bm25_max_ = 0;      // best BM25 score of the last stage
  double lexical_reference_ = 0;  // see FixLexicalReference
  double threshold_ = 0;
  bool rerank_failed_ = false;  // the reranker failed once: later stages skip it
  bool describe_ = false;       // candidates described by the lexical index
  RerankOptions rerank_;  // options_.score_threshold and rerank_max_input_tokens
  std::vector<float> query_vector_;
  // Lookups of this query. Node-based: Scored::record pointers stay valid.
  std::unordered_map<uint64_t, Record> records_;
  std::unordered_set<uint64_t> complete_;  // keys whose records_ came from the lookup
  std::unordered_set<uint64_t> unknown_;   // keys the lookup (or the index) did not know
};

Status ValidateQuery(const RetrievalQuery& query, const RetrievalSources& sources) {
  if (Trim(query.text).empty()) return Status::InvalidArgument("retrieval: empty query text");
  if (query.account.empty()) return Status::InvalidArgument("retrieval: no account");
  if (query.limit < 1 || query.limit > 10000) {
    return Status::InvalidArgument(
        fmt::format("retrieval: limit must be in 1..10000, got {}", query.limit));
  }
  if (query.score_threshold && !std::isfinite(*query.score_threshold)) {
    return Status::InvalidArgument("retrieval: score_threshold must be finite");
  }
  for (const std::string& root : query.root_dirs) {
    if (root.empty()) return Status::InvalidArgument("retrieval: empty root directory");
  }
  SKALD_RETURN_IF_ERROR(query.filter.Validate());
  if (sources.embedder == nullptr) return Status::InvalidArgument("retrieval: no embedder");
  if (!sources.lookup) return Status::InvalidArgument("retrieval: no record lookup");
  return Status::Ok();
}

// The directory part of a node URI ("viking://a/b/c.md" -> "viking://a/b").
std::string_view ParentUri(std::string_view uri) {
  const size_t slash = uri.rfind('/');
  return slash == std::string_view::npos ? uri : uri.substr(0, slash);
}

// True when some hit lies in a directory below the searched roots (its own
// URI for a directory hit, its parent for a file) — a hierarchy to descend.
bool BelowRoots(const std::vector<Scored>& hits, const std::vector<std::string>& roots) {
  for (const Scored& s : hits) {
    std::string_view dir = s.record->level < 2 ? std::string_view(s.record->uri)
                                               : ParentUri(s.record->uri);
    if (std::find(roots.begin(), roots.end(), dir) == roots.end()) return true;
  }
  return false;
}

// QUICK's end: the stage's hits the caller's levels allow, thresholded.
Result<std::vector<MatchedContext>> FinishQuick(std::vector<Scored> stage,
                                                const RetrievalQuery& query,
                                                const RecordFilter& filter, RetrievalRun* run,
                                                RetrievalTrace* trace) {
  (void)query;
  trace->stop_reason = "single_search";
  std::vector<Scored> kept;
  for (Scored& s : stage) {
    if (!LevelAllowed(filter.level_mask, s.record->level)) continue;
    if (s.score > run->threshold()) {
      ++trace->candidates_kept;
      kept.push_back(std::move(s));
    } else {
      ++trace->candidates_dropped;
    }
  }
  // Finish keeps one hit per URI once the catalog confirmed it: a stale
  // candidate (deleted, still in a lagging index) must not hide a live
  // record of the same URI.
  return run->Finish(std::move(kept));
}

Result<std::vector<MatchedContext>> RunQuick(const RetrievalQuery& query,
                                             const RecordFilter& filter, RetrievalRun* run,
                                             RetrievalTrace* trace) {
  SKALD_ASSIGN_OR_RETURN(std::vector<Scored> stage,
                         run->SearchStage(filter, std::max(query.limit, 10)));
  return FinishQuick(std::move(stage), query, filter, run, trace);
}

// The top-`limit` URIs of the pool, in rank order.
std::vector<std::string> TopUris(const std::unordered_map<std::string, Scored>& pool, int limit) {
  std::vector<const Scored*> all;
  all.reserve(pool.size());
  for (const auto& [uri, s] : pool) all.push_back(&s);
  const size_t n = std::min(all.size(), static_cast<size_t>(limit));
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const Scored* a, const Scored* b) { return BetterThan(*a, *b); });
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(all[i]->record->uri);
  return out;
}

// `global` is the first stage over every level (reranked, collapsed by URI;
// the other records of its URIs in `shadowed`).
Result<std::vector<MatchedContext>> RunThinking(const RetrievalOptions& options,
                                                const RetrievalQuery& query,
                                                const RecordFilter& filter,
                                                const std::vector<Scored>& global,
                                                const std::vector<Scored>& shadowed,
                                                RetrievalRun* run, RetrievalTrace* trace) {
  const uint32_t result_levels = filter.level_mask;
  const bool explicit_levels = result_levels != 0;
  std::unordered_map<std::string, Scored> pool;  // result candidates by URI
  // The lower records of the pool's URIs: Finish falls back on them when the
  // catalog no longer has the best (a stale entry of a lagging index).
  std::vector<Scored> alternates;
  auto offer = [&](Scored s) {
    if (!LevelAllowed(result_levels, s.record->level)) return;
    auto it = pool.find(s.record->uri);
    if (it == pool.end()) {
      std::string uri = s.record->uri;
      pool.emplace(std::move(uri), std::move(s));
    } else if (it->second.record->key == s.record->key) {  // the same record again
      if (s.score > it->second.score) it->second = std::move(s);
    } else if (s.score > it->second.score) {
      alternates.push_back(std::move(it->second));
      it->second = std::move(s);
    } else {
      alternates.push_back(std::move(s));
    }
  };

  // 1. The global stage (every level, run by the caller) gives the results
  // QUICK would (so THINKING never loses them) and the starting directories:
  // directory hits by their own score, and the directory of every file hit
  // by that file's score — evidence from its children, so a weak summary
  // cannot hide a strong document.
  std::map<std::string, double> start_scores;
  auto start = [&](const std::string& dir, double score) {
    auto [it, fresh] = start_scores.try_emplace(dir, score);
    if (!fresh) it->second = std::max(it->second, score);
  };
  for (const Scored& s : global) {
    if (s.record->level < 2) {
      start(s.record->uri, s.score);
      // OpenViking: global directory hits are results only when the caller named levels.
      if (explicit_levels && s.score > run->threshold()) offer(s);
      continue;
    }
    start(std::string(ParentUri(s.record->uri)), s.score);
    if (s.score > run->threshold()) {
      ++trace->candidates_kept;
      offer(s);
    } else {
      ++trace->candidates_dropped;
    }
  }
  for (const Scored& s : shadowed) {
    if ((s.record->level == 2 || explicit_levels) && s.score > run->threshold()) offer(s);
  }

  using Entry = std::pair<double, std::string>;  // (score, directory URI), max-heap
  std::priority_queue<Entry> heap;
  for (const auto& [dir, score] : start_scores) heap.emplace(score, dir);
  for (const std::string& root : query.root_dirs) {
    if (!start_scores.contains(root)) heap.emplace(0.0, root);
  }

  // 2. Expand directories, best first.
  RecordFilter children = filter;
  children.level_mask = explicit_levels ? (result_levels | kDirectoryLevels) : 0;
  const int child_k = std::max(2 * query.limit, 20);
  const double alpha = options.score_propagation_alpha;
  std::unordered_set<std::string> visited;
  std::vector<std::string> previous_top = TopUris(pool, query.limit);
  size_t previous_size = pool.size();
  int converged_rounds = 0, stagnant_rounds = 0;
  trace->stop_reason = "exhausted";
  while (true) {
    std::vector<Entry> batch;
    while (!heap.empty() && static_cast<int>(batch.size()) < options.directories_per_round) {
      Entry top = heap.top();
      heap.pop();
      if (visited.insert(top.second).second) batch.push_back(std::move(top));
    }
    if (batch.empty()) break;  // stop_reason stays "exhausted"
    ++trace->rounds;
    // The round's searches first, then one record lookup for all of them.
    std::vector<RetrievalRun::StageHits> stages(batch.size());
    std::vector<bool> searched(batch.size(), false);
    for (size_t i = 0; i < batch.size(); ++i) {
      const auto& [parent_score, dir] = batch[i];
      if (query.trace) {
        trace->directories_visited.push_back(dir);
        trace->directory_scores.push_back(parent_score);
      }
      std::optional<std::vector<UriScope>> scopes = ChildScopesWithin(dir, filter.uri_scopes);
      if (!scopes) continue;  // no child of dir is visible to the caller
      children.uri_scopes = std::move(*scopes);
      SKALD_RETURN_IF_ERROR(run->SearchIndexes(children, child_k, &stages[i]));
      searched[i] = true;
    }
    SKALD_RETURN_IF_ERROR(run->Prefetch(stages));
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!searched[i]) continue;
      const double parent_score = batch[i].first;
      std::vector<Scored> found = run->Fuse(stages[i]);
      run->Rerank(&found);
      // A record must pass the threshold on its own score; propagation then
      // only lifts it (a good directory does not make an unrelated file
      // relevant, and a weak one does not sink a strong file).
      auto lift = [&](Scored* s) {
        if (!(s->score > run->threshold())) return false;
        if (parent_score != 0) {
          s->score = std::max(s->score, ClampScore(alpha * s->score + (1 - alpha) * parent_score));
        }
        return true;
      };
      std::vector<Scored> lower;
      for (Scored& s : CollapseByUri(std::move(found), &lower)) {
        if (!lift(&s)) {
          ++trace->candidates_dropped;
          continue;
        }
        ++trace->candidates_kept;
        if (s.record->level < 2 && !visited.contains(s.record->uri)) {
          heap.emplace(s.score, s.record->uri);
        }
        offer(std::move(s));
      }
      for (Scored& s : lower) {
        if (lift(&s)) offer(std::move(s));
      }
    }
    // 3. Convergence. Each counter counts *consecutive* rounds of its
    // condition: a round that breaks one resets it.
    std::vector<std::string> top = TopUris(pool, query.limit);
    if (top == previous_top && pool.size() >= static_cast<size_t>(query.limit)) {
      stagnant_rounds = 0;
      if (++converged_rounds >= options.max_convergence_rounds) {
        trace->stop_reason = "converged";
        break;
      }
    } else if (pool.size() == previous_size) {
      converged_rounds = 0;  // the top changed
      if (++stagnant_rounds >= options.max_convergence_rounds) {
        trace->stop_reason = "stagnant";
        break;
      }
    } else {
      converged_rounds = 0;
      stagnant_rounds = 0;
    }
    previous_top = std::move(top);
    previous_size = pool.size();
  }

  std::vector<Scored> results;
  results.reserve(pool.size());
  // Each record once (its best score): a record met again in a later round
  // must not cost Finish another catalog pass.
  std::unordered_set<uint64_t> keys;
  for (auto& [uri, s] : pool) {
    keys.insert(s.record->key);
    results.push_back(std::move(s));
  }
  std::sort(alternates.begin(), alternates.end(), BetterThan);
  for (Scored& s : alternates) {
    if (keys.insert(s.record->key).second) results.push_back(std::move(s));
  }
  return run->Finish(std::move(results));
}

}  // namespace

Retriever::Retriever(RetrievalOptions options) : options_(std::move(options)) {}

Result<RetrievalResult> Retriever::Retrieve(const RetrievalQuery& query,
                                            const RetrievalSources& sources) const {
  const auto start = std::chrono::steady_clock::now();
  SKALD_RETURN_IF_ERROR(options_.Validate());
  SKALD_RETURN_IF_ERROR(ValidateQuery(query, sources));
  RetrievalMode mode = query.mode == RetrievalMode::kAuto ? options_.mode : query.mode;
  if (mode == RetrievalMode::kAuto && sources.reranker != nullptr) mode = RetrievalMode::kThinking;
  RetrievalResult result;
  RecordFilter filter = query.filter;
  filter.account = query.account;

  RetrievalRun run(options_, query, sources, &result.trace);
  SKALD_RETURN_IF_ERROR(run.EmbedQuery());
  if (mode == RetrievalMode::kQuick) {
    result.trace.mode = "quick";
    SKALD_ASSIGN_OR_RETURN(result.hits, RunQuick(query, filter, &run, &result.trace));
  } else {
    RecordFilter everything = filter;
    everything.level_mask = 0;
    SKALD_ASSIGN_OR_RETURN(std::vector<Scored> global,
                           run.SearchStage(everything, std::max(3 * query.limit, 30)));
    run.Rerank(&global);
    run.FixLexicalReference();
    std::vector<Scored> shadowed;
    global = CollapseByUri(std::move(global), &shadowed);
    // kAuto descends only when the best hits lie in directories below the
    // searched roots; a flat corpus is answered from the global stage.
    if (mode == RetrievalMode::kAuto && !BelowRoots(global, query.root_dirs)) {
      result.trace.mode = "quick";
      // As an explicit QUICK search: every record, one hit per URI after the catalog check.
      for (Scored& s : shadowed) global.push_back(std::move(s));
      SKALD_ASSIGN_OR_RETURN(result.hits, FinishQuick(std::move(global), query, filter, &run,
                                                      &result.trace));
    } else {
      result.trace.mode = "thinking";
      SKALD_ASSIGN_OR_RETURN(result.hits, RunThinking(options_, query, filter, global, shadowed,
                                                      &run, &result.trace));
    }
  }
  result.trace.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace skald
