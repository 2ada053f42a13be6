#pragma once

// Test helpers for the vector index tests: seeded data, records with varied
// filter fields, and a reference (deliberately naive) filter + brute force.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "index/vector_index.h"

namespace skald::testing {

// n points of a Gaussian mixture in `dim` dimensions (row-major).
inline std::vector<float> MixtureData(size_t n, int dim, int clusters, uint64_t seed,
                                      float sigma = 0.6f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> centres(size_t(clusters) * dim);
  for (auto& c : centres) c = normal(rng);
  std::uniform_int_distribution<int> pick(0, clusters - 1);
  std::vector<float> out(n * dim);
  for (size_t i = 0; i < n; ++i) {
    const float* c = centres.data() + size_t(pick(rng)) * dim;
    for (int j = 0; j < dim; ++j) out[i * dim + j] = c[j] + sigma * normal(rng);
  }
  return out;
}

// A record with fields spread so that filters have a range of selectivities:
// level i%3, context_type resource/memory/skill (70/20/10%), owner one of 7
// users or shared, URI in a 3-level tree, tags "t=i%5", "even"/"odd" and a
// rare "r=i%40",
// created i, updated 1000 - i%1000.
inline RecordFields TestRecord(uint64_t i) {
  RecordFields r;
  r.key = i;
  r.account = i % 11 == 0 ? "other" : "acme";
  r.level = int(i % 3);
  uint64_t b = (i * 7919) % 10;
  r.context_type = b < 7   ? ContextType::kResource
                   : b < 9 ? ContextType::kMemory
                           : ContextType::kSkill;
  r.owner = i % 8 == 0 ? "" : "u" + std::to_string(i % 7);
  r.uri = "viking://resources/a" + std::to_string(i % 4) + "/b" + std::to_string(i % 13) + "/f" +
          std::to_string(i);
  if (i % 50 == 0) r.uri = "viking://resources/a" + std::to_string(i % 4);  // directory records
  r.tags = {"t=" + std::to_string(i % 5), i % 2 ? "odd" : "even", "r=" + std::to_string(i % 40)};
  r.created_ns = int64_t(i);
  r.updated_ns = int64_t(1000 - i % 1000);
  return r;
}

// URI depth for the reference filter, computed differently from UriDepth
// (record_store.cc scans characters; this splits the path into its segments):
// the number of non-empty '/'-separated segments after "scheme://".
// kHandCountedDepths pins it to depths counted by hand, and record_store_test
// checks UriDepth against the same table.
inline int RefDepth(const std::string& uri) {
  const size_t scheme = uri.find("://");
  const std::string path = scheme == std::string::npos ? uri : uri.substr(scheme + 3);
  std::vector<std::string> segments;
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    if (end > begin) segments.push_back(path.substr(begin, end - begin));
    begin = end + 1;
  }
  return int(segments.size());
}

// URIs of the shapes the index tests use, with their depth counted by hand.
struct HandCountedDepth {
  const char* uri;
  int depth;
};
inline constexpr HandCountedDepth kHandCountedDepths[] = {
    {"viking://", 0},
    {"viking://resources", 1},
    {"viking://resources/", 1},
    {"viking://resources/a2", 2},            // a directory record of TestRecord
    {"viking://resources/a1/b5", 3},         // a Children() scope of the tests
    {"viking://resources/a3/b7/f1000", 4},   // a file record of TestRecord
    {"viking://resources/a//b/", 3},         // empty segments do not count
    {"viking://user/u1/memories/x.md", 4},
};

// Reference filter semantics, written independently of RecordStore.
inline bool RefMatches(const RecordFilter& f, const RecordFields& r) {
  auto in = [](const auto& set, const auto& v) {
    return set.empty() || std::find(set.begin(), set.end(), v) != set.end();
  };
  if (!f.account.empty() && f.account != r.account) return false;
  if (f.level_mask != 0 && !((f.level_mask >> r.level) & 1)) return false;
  if (!in(f.context_types, r.context_type) || !in(f.owners, r.owner)) return false;
  for (const auto& t : f.tags) {
    if (std::find(r.tags.begin(), r.tags.end(), t) == r.tags.end()) return false;
  }
  if (r.created_ns < f.created_min || r.created_ns > f.created_max) return false;
  if (r.updated_ns < f.updated_min || r.updated_ns > f.updated_max) return false;
  if (f.uri_scopes.empty()) return true;
  for (const auto& s : f.uri_scopes) {
    std::string base = s.uri;
    bool root = base.size() >= 3 && base.compare(base.size() - 3, 3, "://") == 0;
    bool under = r.uri == base || (r.uri.size() > base.size() && r.uri.rfind(base, 0) == 0 &&
                                   (root || r.uri[base.size()] == '/'));
    if (!under) continue;
    int rel = RefDepth(r.uri) - RefDepth(base);
    if (rel >= s.min_depth && (s.max_depth < 0 || rel <= s.max_depth)) return true;
  }
  return false;
}

// Exact top-k over live records passing `f` (scores as the index computes
// them: cosine normalizes both sides). Ties broken by id, like the index.
inline std::vector<SearchHit> BruteForce(const std::map<uint64_t, RecordFields>& records,
                                         const std::map<uint64_t, std::vector<float>>& vectors,
                                         const std::vector<float>& query, Metric metric,
                                         const RecordFilter& f, size_t k) {
  auto norm = [&](std::vector<float> v) {
    if (metric != Metric::kCosine) return v;
    double s = 0;
    for (float x : v) s += double(x) * x;
    if (s > 0) {
      float inv = float(1 / std::sqrt(s));
      for (auto& x : v) x *= inv;
    }
    return v;
  };
  std::vector<float> q = norm(query);
  std::vector<SearchHit> all;
  for (const auto& [id, r] : records) {
    if (!RefMatches(f, r)) continue;
    std::vector<float> v = norm(vectors.at(id));
    double dot = 0;
    for (size_t i = 0; i < v.size(); ++i) dot += double(q[i]) * v[i];
    all.push_back({id, float(dot)});
  }
  std::sort(all.begin(), all.end(), [](const SearchHit& a, const SearchHit& b) {
    return a.score > b.score || (a.score == b.score && a.id < b.id);
  });
  if (all.size() > k) all.resize(k);
  return all;
}

// Fraction of `truth` ids found in `got`.
inline double RecallOf(const std::vector<SearchHit>& truth, const std::vector<SearchHit>& got) {
  if (truth.empty()) return 1.0;
  size_t hits = 0;
  for (const auto& t : truth) {
    for (const auto& g : got) hits += g.id == t.id;
  }
  return double(hits) / double(truth.size());
}

// The index's answer equals the brute-force answer up to ties: same length,
// same scores rank by rank, and every returned id is live and passes the filter.
inline ::testing::AssertionResult SameTopK(const std::vector<SearchHit>& truth,
                                           const std::vector<SearchHit>& got,
                                           const std::map<uint64_t, RecordFields>& records,
                                           const RecordFilter& f, float tolerance = 1e-4f) {
  if (truth.size() != got.size()) {
    return ::testing::AssertionFailure()
           << "expected " << truth.size() << " hits, got " << got.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(truth[i].score - got[i].score) > tolerance) {
      return ::testing::AssertionFailure() << "rank " << i << ": expected score " << truth[i].score
                                           << " (id " << truth[i].id << "), got " << got[i].score
                                           << " (id " << got[i].id << ")";
    }
    auto it = records.find(got[i].id);
    if (it == records.end()) {
      return ::testing::AssertionFailure() << "id " << got[i].id << " is not live";
    }
    if (!RefMatches(f, it->second)) {
      return ::testing::AssertionFailure() << "id " << got[i].id << " fails the filter";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace skald::testing
