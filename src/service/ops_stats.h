#pragma once

// OpsStats: Db::Stats and Db::CheckReady — gathers counters and sizes from
// the job runner, the catalog, the indexes, the path locks, the finder and
// the model clients for /metrics, the observers, /api/v1/system/wait and
// /ready. Nothing here changes the workspace.
//
// Thread safety: safe for concurrent use. Everything in OpsSources is
// borrowed and must outlive the OpsStats.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "common/env.h"
#include "index/lexical_index.h"
#include "index/vector_index_set.h"
#include "service/finder.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/disk_reserve.h"
#include "storage/job_runner.h"
#include "storage/path_lock.h"

namespace skald {

struct OpsSources {
  const DbOptions* options = nullptr;  // workspace, embedder, reranker
  Env* env = nullptr;                  // monotonic clock of the probe cache
  Catalog* catalog = nullptr;
  JobRunner* runner = nullptr;
  LexicalIndex* lexical = nullptr;
  VectorIndexSet* vectors = nullptr;  // null without an embedder
  const PathLockManager* locks = nullptr;
  const Finder* finder = nullptr;
  DiskReserve* reserve = nullptr;  // null without a reserve
};

class OpsStats {
 public:
  // How long a probe of the embedding provider is trusted.
  static constexpr std::chrono::seconds kProbeTtl{30};

  explicit OpsStats(OpsSources sources) : s_(sources) {}

  Result<DbStats> Stats(const Identity& who);
  ReadyReport CheckReady();

 private:
  // "ok" / "error: ..." for the embedding provider, probed at most every
  // kProbeTtl; while another thread probes, the last answer.
  std::string ProbeEmbedding();

  OpsSources s_;
  std::mutex probe_mu_;  // held while probing
  std::mutex cache_mu_;
  std::string probe_result_ = "not_probed";  // GUARDED_BY(cache_mu_)
  int64_t probed_at_ns_ = 0;                 // GUARDED_BY(cache_mu_); 0 = never
};

}  // namespace skald
