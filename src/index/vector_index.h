#pragma once

// VectorIndex: the interface every vector index implements (exact FlatIndex,
// ANN HnswIndex), plus the filter language (RecordFilter) that it shares with
// the lexical index.
//
// Records are the catalog's RecordFields (storage/record.h): keyed by the
// catalog's 64-bit record key, with the fields that filters need. Filters are evaluated *inside* the search — while
// the exact scan runs or while the graph is traversed — never by cutting a
// finished top-k, so a filtered search returns the k best matching records.
//
// Thread safety: every implementation is safe for concurrent use. Searches
// and counts run concurrently with each other and with writes; each search
// sees one consistent snapshot (every write batch that committed before it
// started, none that committed after). Writes are serialized internally.

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "skald/types.h"
#include "storage/record.h"

namespace skald {
class Env;  // common/env.h
}  // namespace skald

namespace skald {

// How two vectors are compared. Both are "larger is better" similarities.
enum class Metric : uint32_t {
  // Vectors (and queries) are L2-normalized on the way in; score = cosine in [-1, 1].
  kCosine = 1,
  // Raw inner product.
  kInnerProduct = 2,
};

// How an index stores vectors.
enum class VectorEncoding : uint32_t {
  kFloat32 = 1,
  // Symmetric per-vector scalar quantization: code = round(x / s), s = max|x| / 127.
  // 4x smaller; scores are exact over the quantized vectors.
  kInt8 = 2,
};

std::string_view MetricName(Metric metric);
std::string_view EncodingName(VectorEncoding encoding);

// A URI scope: records at or below `uri`, between `min_depth` and `max_depth`
// segments below it (0 = the node itself, 1 = its direct children; a negative
// max_depth means unlimited). Matching is on segment boundaries:
// "viking://a/b" contains "viking://a/b/c", not "viking://a/bc".
struct UriScope {
  std::string uri;
  int min_depth = 0;
  int max_depth = -1;

  // The records of the direct children of directory `dir` (OpenViking's
  // "PathScope(dir, depth=1)": sub-directory L0/L1 records and file L2 records).
  static UriScope Children(std::string dir) { return {std::move(dir), 1, 1}; }
  // `dir` and everything below it.
  static UriScope Subtree(std::string dir) { return {std::move(dir), 0, -1}; }
};

// Which records a search (vector or lexical) may return: a conjunction of
// conditions on RecordFields; an empty field places no condition. Lists
// marked any-of match when one element matches.
struct RecordFilter {
  std::string account;                     // "" = any account
  uint32_t level_mask = 0;                 // bit i set = level i allowed; 0 = any level
  std::vector<ContextType> context_types;  // any-of
  std::vector<UriScope> uri_scopes;        // any-of
  std::vector<std::string> owners;         // any-of ("" = shared content)
  std::vector<std::string> tags;           // all-of
  int64_t created_min = std::numeric_limits<int64_t>::min();  // inclusive bounds
  int64_t created_max = std::numeric_limits<int64_t>::max();
  int64_t updated_min = std::numeric_limits<int64_t>::min();
  int64_t updated_max = std::numeric_limits<int64_t>::max();

  // True when the filter places no condition at all.
  bool empty() const;
  // Convenience: allow exactly these levels.
  RecordFilter& WithLevels(std::initializer_list<int> levels);
  Status Validate() const;
};

// Per-query knobs.
struct SearchOptions {
  // Number of results wanted.
  int k = 10;
  // HNSW candidate list size; 0 = the index default. Larger = better recall, slower.
  // Ignored by FlatIndex.
  int ef = 0;
  // Force an exact scan (over the records the filter admits) even on an ANN index.
  bool exact = false;

  Status Validate() const;
};

struct SearchHit {
  uint64_t id = 0;
  float score = 0;  // similarity, larger is better
};

// How a search was executed (for provenance and tests).
enum class SearchPath { kEmpty, kExactScan, kExactCandidates, kGraph };

struct SearchStats {
  SearchPath path = SearchPath::kEmpty;
  uint64_t estimated_matches = 0;  // the planner's estimate of records passing the filter
  uint64_t distance_computations = 0;
};

class VectorIndex {
 public:
  virtual ~VectorIndex() = default;

  // "flat" or "hnsw": the implementation, stored in index files.
  virtual std::string_view Kind() const = 0;
  // Identity of the embedder whose vectors this index holds (stored on disk;
  // an index is never reopened with a different embedder).
  virtual const std::string& embedder() const = 0;
  virtual int dim() const = 0;
  virtual Metric metric() const = 0;

  // Inserts or replaces records by key (RecordFields::key is the index id).
  // `vectors` holds records.size() * dim() floats, row-major. The batch
  // becomes visible to searches atomically.
  // REQUIRES: keys unique within the batch; vectors finite.
  virtual Status Upsert(std::span<const RecordFields> records, std::span<const float> vectors) = 0;
  Status Upsert(const RecordFields& record, std::span<const float> vector) {
    return Upsert(std::span<const RecordFields>(&record, 1), vector);
  }

  // Removes records by id (tombstoned now, space reclaimed by Compact()).
  // Unknown ids are ignored. Returns how many records were removed.
  virtual Result<uint64_t> Delete(std::span<const uint64_t> ids) = 0;

  // The k most similar records that pass `filter`, best first, into `*hits`
  // (cleared first; fewer than k when fewer records match). `stats` may be null.
  // REQUIRES: query.size() == dim().
  virtual Status Search(std::span<const float> query, const RecordFilter& filter,
                        const SearchOptions& options, std::vector<SearchHit>* hits,
                        SearchStats* stats = nullptr) const = 0;

  // Exact number of live records that pass `filter`.
  virtual Result<uint64_t> Count(const RecordFilter& filter) const = 0;

  // Live records.
  virtual uint64_t size() const = 0;
  // Tombstoned records still occupying space (reclaimed by Compact()).
  virtual uint64_t deleted() const = 0;

  // Rebuilds the internal storage without tombstones. Searches and writes
  // continue meanwhile (writes made during the rebuild are replayed on the
  // new storage before it is swapped in).
  virtual Status Compact() = 0;

  // Bytes of memory held by the index's data structures.
  virtual uint64_t MemoryBytes() const = 0;

  // The catalog change sequence number this index reflects (persisted with
  // it; catch-up resumes after it). Set by whoever feeds the index.
  virtual int64_t applied_seq() const = 0;
  virtual void set_applied_seq(int64_t seq) = 0;

  // Writes the index to `path` atomically (temp file, fsync, rename, fsync of
  // the directory). Blocks writers (and linking) for the duration, never
  // searches. Slots still waiting for links (pending_links) are saved as
  // waiting: a loaded index has the same pending_links() and searches score
  // them exactly until they are linked.
  virtual Status Save(const std::string& path) const = 0;

  // Records written but not yet linked into the index structure (HNSW:
  // HnswParams::max_unlinked). Searches score them exactly meanwhile, so
  // they are found all the same; LinkPending() links them.
  virtual uint64_t pending_links() const { return 0; }
  // Links up to `max_records` of the pending records, oldest first, beside
  // searches and writes. Returns how many were linked.
  virtual uint64_t LinkPending(uint64_t /*max_records*/) { return 0; }
};

// Build parameters of the HNSW graph.
struct HnswParams {
  // Links per node on the upper layers; layer 0 keeps 2*m. More = better
  // recall per visited node, more memory and slower inserts.
  int m = 32;
  // Candidate list size while inserting. More = better graph, slower build.
  int ef_construction = 100;
  // Default candidate list size of a search (SearchOptions::ef overrides).
  int ef_search = 64;
  // Threads that link a large batch into the graph (1 = the caller's thread only).
  int build_threads = 1;
  // Seed of the level generator (builds are deterministic for one thread).
  uint64_t seed = 0x5eed;
  // Records an upsert may leave unlinked for LinkPending() to link later
  // (a writer that would leave more links the oldest itself until this
  // many are left). 0 = every
  // upsert links its records before it returns. Until linked, a record is
  // scored exactly by every search, so the more are left, the slower a
  // search gets meanwhile (~16k 512-d records: a few ms).
  int max_unlinked = 0;
};

struct VectorIndexOptions {
  // "hnsw" (approximate, with the exact path for selective filters) or "flat" (exact).
  std::string kind = "hnsw";
  // Identity of the embedder; stored in index files and checked on load.
  std::string embedder;
  // Vector dimension (1..65536).
  int dim = 0;
  Metric metric = Metric::kCosine;
  // Storage of vectors. HNSW requires kFloat32; flat accepts both.
  VectorEncoding encoding = VectorEncoding::kFloat32;
  HnswParams hnsw;
  // Search planner (HNSW): a filtered search whose matching records number
  // at most max(`exact_max_candidates`, `exact_max_fraction` x live records)
  // scores them exactly instead of walking the graph (which visits ~ef /
  // selectivity nodes). When the matches are listed by the URI tree or the
  // field postings that limit applies as is; when they are only estimated by
  // sampling, finding them takes a pass over every record, so the fraction is
  // divided by 4. Measured at 1M x 128-d: exact over listed candidates beats
  // the graph below ~3-5% selectivity (docs/architecture.md).
  uint64_t exact_max_candidates = 4096;
  double exact_max_fraction = 0.03;
  // Slots sampled to estimate a filter's selectivity.
  uint32_t estimate_sample = 512;
  // Index files are saved and loaded through it; borrowed, null = Env::Default().
  Env* env = nullptr;

  Status Validate() const;
};

// A new, empty index of options.kind.
Result<std::unique_ptr<VectorIndex>> NewVectorIndex(const VectorIndexOptions& options);

// Loads an index file written by VectorIndex::Save. NotFound when missing;
// Corruption when any check fails (magic, checksums, structure);
// FailedPrecondition when it was built for another kind, embedder, dimension,
// metric, encoding or graph degree than `options` asks for.
Result<std::unique_ptr<VectorIndex>> LoadVectorIndex(const std::string& path,
                                                     const VectorIndexOptions& options);

}  // namespace skald
