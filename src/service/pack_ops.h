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
// the caller may write, not reserved) and, for an overwrite, that the
// caller may delete what is there — so a refusal changes nothing. Then a
// conflict at the target is settled (on_conflict: fail -> 409, skip ->
// nothing written, overwrite -> the old tree removed) and the files are
// written as cp writes them: each through NodeWriter, with the tree's index
// jobs (one per namespace root written to) in the first file's transaction
// (the outbox) and once more at the end. Not atomic as a whole: a crash
// while the files are written keeps those written (indexed at the next
// start, as after cp), and after an overwrite the old tree is gone; run the
// import again with overwrite. The summaries and vectors are made again by
// the index job (the package's own are not restored, so vector_mode
// "require" is refused); tags carried in the package's records are given
// back to the records the job writes. Under the target's tree lock the
// target is checked once more to be empty: of two imports racing to one
// target, the second is a Conflict (or a lock timeout while the first
// writes).
//
// Thread safety: safe for concurrent use; everything passed in is borrowed.

#include <map>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/ovpack.h"
#include "service/fs_engine.h"
#include "service/uri_resolver.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/job_runner.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"

namespace skald {

// Bytes of content one package may hold (it is built and read in memory).
inline constexpr uint64_t kMaxPackBytes = uint64_t{1} << 30;

struct PackOpsServices {
  std::string workspace;  // for uploads (temp/upload)
  UriResolver* resolver = nullptr;
  Catalog* catalog = nullptr;
  ContentStore* content = nullptr;
  NodeWriter* nodes = nullptr;
  FsWriter* writer = nullptr;
  PathLockManager* locks = nullptr;
  JobRunner* runner = nullptr;
  std::shared_mutex* maintenance_mu = nullptr;
  bool indexing = false;    // false without an embedder: no index jobs
  PackEmbedding embedding;  // the workspace's embedder, for exported vectors
  int lock_timeout_ms = 5000;
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
    std::vector<VikingUri> dirs;
    std::vector<std::pair<VikingUri, const PackEntry*>> files;  // entries borrowed from the pack
    std::map<std::string, std::vector<std::string>> carried;
  };
  Result<TreePlan> PlanTree(const Identity& who, const VikingUri& target, const Pack& pack,
                            std::string_view strip);
  // Writes the plan's directories and files and queues their index jobs.
  Status WriteTree(const Identity& who, const TreePlan& plan);
  Status Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard);

  PackOpsServices s_;
};

}  // namespace skald
