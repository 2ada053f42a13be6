#pragma once

// PackOps: OpenViking's OVPack routes (ingest/ovpack.h) — export a tree as a
// package, back up every resource and user space the caller can see, import
// a package under a parent, restore a backup. ROOT and ADMIN only, as in
// OpenViking.
//
// Export and backup read the tree (files, sidecars included; relation files
// left out) and its records into one package in memory, at most
// kMaxPackBytes of content. Import and restore check everything first —
// the whole package (ReadOvpack), then where each entry goes (a plain path
// the caller may write, not reserved) — and then, under the targets' tree
// locks, settle a conflict (on_conflict: fail -> 409, skip -> nothing
// written, overwrite -> the old tree replaced, after checking that the
// caller may delete it). The new trees are staged out of sight and swapped
// in as one unit (storage/tree_swap.h): a crash at any point leaves every
// old tree or every new one, never a mix and never neither. The catalog
// follows in one transaction with the trees' index jobs (one per namespace
// root written to), which make the summaries again. Vectors: with
// vector_mode "auto" or "require" and a package made with this workspace's
// embedder (provider, model, dimensions), the packaged vectors go into the
// embedding cache under the texts the new records are embedded from, so the
// index job reuses them ("require" refuses a package whose vectors cannot
// be reused); with "recompute", or under "auto" otherwise, it embeds again.
// Tags carried in the package's records are given back to the records the
// job writes.
//
// Thread safety: safe for concurrent use; everything passed in is borrowed.

#include <map>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/index_catch_up.h"
#include "ingest/ovpack.h"
#include "model/embedder.h"
#include "service/fs_engine.h"
#include "service/uri_resolver.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/job_runner.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"

namespace skald {

class HelperPool;

// Bytes of content one package may hold (it is built and read in memory).
inline constexpr uint64_t kMaxPackBytes = uint64_t{1} << 30;

struct PackOpsServices {
  std::string workspace;  // for uploads (temp/upload)
  UriResolver* resolver = nullptr;
  Catalog* catalog = nullptr;
  ContentStore* content = nullptr;
  NodeWriter* nodes = nullptr;
  IndexCatchUp* indexes = nullptr;
  PathLockManager* locks = nullptr;
  JobRunner* runner = nullptr;
  std::shared_mutex* maintenance_mu = nullptr;
  bool indexing = false;            // false without an embedder: no index jobs
  PackEmbedding embedding;          // the workspace's embedder, for exported vectors
  Embedder* embedder = nullptr;     // null without one; its cache takes packaged vectors
  int64_t max_input_tokens = 4096;  // of the texts the embedder is given
  int lock_timeout_ms = 5000;
  HelperPool* helpers = nullptr;  // the Db's, for two-thread writes (may be null)
};

class PackOps {
 public:
  explicit PackOps(PackOpsServices services) : s_(std::move(services)) {}

  Result<Download> Export(const Identity& who, std::string_view uri, bool include_vectors);
  Result<Download> Backup(const Identity& who, bool include_vectors);
  // The URI the package's tree now has.
  Result<std::string> Import(const Identity& who, const PackImportRequest& request);
  // "viking://".
  Result<std::string> Restore(const Identity& who, const PackImportRequest& request);

 private:
  // The visible tree under `root` (entries prefixed by `prefix`) and its
  // records, the root's own included, appended to `pack`; `bytes` counts the
  // content taken.
  Status Collect(const Identity& who, const VikingUri& root, const std::string& prefix,
                 bool include_vectors, Pack* pack, uint64_t* bytes);
  Result<Pack> ReadUpload(const Identity& who, const PackImportRequest& request);
  // Where the entries of `pack` whose paths start with `strip` go below
  // `target`, every one checked (a plain path, writable, not reserved), and
  // the tags its records carry, by URI; made before anything is changed.
  struct TreePlan {
    VikingUri target;
    std::string strip;  // the prefix of the package paths planned
    std::vector<VikingUri> dirs;
    std::vector<std::pair<VikingUri, const PackEntry*>> files;  // entries borrowed from the pack
    std::map<std::string, std::vector<std::string>> carried;
  };
  Result<TreePlan> PlanTree(const Identity& who, const VikingUri& target, const Pack& pack,
                            std::string_view strip);
  // Whether the package's vectors are reused (vector_mode): false for
  // "recompute" or, under "auto", when they cannot be; under "require" the
  // reason they cannot be is an InvalidArgument.
  Result<bool> ReuseVectors(const Pack& pack, std::string_view vector_mode) const;
  // Leaves the package's vectors for the index jobs of this import: under
  // PackVectorsKey(embedder, batch) of the job (batches: each job's root and
  // batch) whose root holds the record, by the text the record will be
  // embedded from (its new URI for a directory).
  Status SeedVectors(const Identity& who, const Pack& pack, const std::vector<TreePlan>& plans,
                     const std::vector<std::pair<VikingUri, std::string>>& batches);
  // The index jobs of a planned tree, with the tags its records carried.
  std::vector<JobSpec> IndexJobs(const Identity& who, const TreePlan& plan) const;
  // Settles the conflict at each plan's target (request.on_conflict), then
  // decides the vectors (request.vector_mode) and swaps the planned trees in
  // as one unit with their index jobs; false when "skip" left everything as
  // it was.
  Result<bool> SwapIn(const Identity& who, const Pack& pack, const std::vector<TreePlan>& plans,
                      const PackImportRequest& request);
  Status Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard);

  PackOpsServices s_;
};

}  // namespace skald
