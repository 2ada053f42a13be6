#pragma once

// Upkeep: the workspace's housekeeping and checks.
//
// - Maintenance, from an idle job worker (MaybeRunMaintenance, the
//   JobRunner's idle task) at the first idle moment after open and then
//   hourly, on a schedule (MaintenanceSchedule) that lets it wait while
//   another worker runs a job: uploads never imported expire after a day
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
#include <limits>
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

// When maintenance runs: due at the first ask, then an hour after each run.
// A due run waits while a job runs (its index saves would take the disk and
// the cores from an import), but for an hour at most, so that a workspace
// that is never idle still gets it.
//
// Thread safety: safe for concurrent use; of callers that ask at once, one
// claims the run.
class MaintenanceSchedule {
 public:
  static constexpr int64_t kEveryNs = int64_t{3600} * 1'000'000'000;

  // Whether the caller is to run maintenance now (`now_ns` on the wall
  // clock; `jobs_running` whether a job runs meanwhile). True claims the
  // run: the next is due kEveryNs later.
  bool Claim(int64_t now_ns, bool jobs_running);

 private:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
  std::atomic<int64_t> last_run_ns_{kNever};
  // When a due run was first put off for a running job; kNever: not put off.
  std::atomic<int64_t> put_off_since_ns_{kNever};
};

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

  // Runs RunMaintenance when the schedule says so (`jobs_running`: whether
  // a job runs meanwhile); errors are logged.
  void MaybeRunMaintenance(bool jobs_running);
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
  MaintenanceSchedule schedule_;
};

}  // namespace skald
