#pragma once

// Upkeep: the workspace's housekeeping and checks.
//
// - Maintenance, hourly from an idle job worker (MaybeRunMaintenance, the
//   JobRunner's idle task): uploads never imported expire after a day
//   (claimed ones after a week), finished jobs older than a week and
//   tombstones every index has applied are purged.
// - Fsck: checks (and with `repair` fixes) the catalog against the content
//   store, then queues index jobs for what it repaired.
// - IndexRepairedNodes: the index jobs for the nodes a reconcile repaired
//   (recovery at open, fsck --repair), so that search follows the repaired
//   catalog.
//
// Thread safety: safe for concurrent use. Fsck holds the maintenance lock
// exclusively (no job or write runs beside the check); maintenance holds it
// shared. Everything passed in is borrowed and must outlive the object.

#include <atomic>
#include <cstdint>
#include <shared_mutex>
#include <vector>

#include "index/lexical_index.h"
#include "index/vector_index_set.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/job_queue.h"
#include "storage/reconcile.h"

namespace skald {

class Upkeep {
 public:
  // `vectors` is null without an embedder; `indexing` false then (no index
  // jobs are queued).
  Upkeep(const DbOptions* options, ContentStore* content, Catalog* catalog, LexicalIndex* lexical,
         VectorIndexSet* vectors, JobQueue* jobs, std::shared_mutex* maintenance_mu, bool indexing)
      : options_(*options),
        content_(content),
        catalog_(catalog),
        lexical_(lexical),
        vectors_(vectors),
        jobs_(jobs),
        maintenance_mu_(*maintenance_mu),
        indexing_(indexing) {}

  // Runs RunMaintenance when the last run is an hour ago (one caller wins
  // when several workers ask at once); errors are logged.
  void MaybeRunMaintenance();
  Status RunMaintenance();

  // Db::Fsck.
  Result<FsckReport> Fsck(bool repair);

  // Queues an `index` job for every repaired node of a reconcile.
  Status IndexRepairedNodes(const std::vector<ReconcileIssue>& issues);

 private:
  const DbOptions& options_;
  ContentStore* const content_;
  Catalog* const catalog_;
  LexicalIndex* const lexical_;
  VectorIndexSet* const vectors_;
  JobQueue* const jobs_;
  std::shared_mutex& maintenance_mu_;
  const bool indexing_;
  std::atomic<int64_t> last_maintenance_ns_{0};
};

}  // namespace skald
