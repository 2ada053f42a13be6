#pragma once

// The background jobs of ingestion, run by the JobRunner
// (storage/job_runner.h):
//
// - add_resource: import a source into a resource tree, then summarize and
//   embed it (ingest/import_job.h);
// - index: summarize and embed a subtree, then refresh the summaries above;
// - refresh: refresh only the summaries above a changed path (after rm/mv,
//   or a written sidecar);
// - reindex: re-embed every indexable tree of every account after an
//   embedder change, then drop the old embedder's cached vectors;
// - admin_reindex: re-embed, re-summarize or prune one tree on request
//   (ingest/reindex_job.h).
//
// Each job ends by bringing the indexes up to the catalog (IndexCatchUp), so
// that a completed task is searchable.
//
// Thread safety: the handlers run on the runner's workers, several at once;
// everything in IngestServices is safe for concurrent use.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/tags.h"
#include "skald/types.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/job_kind.h"
#include "storage/job_runner.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"

namespace skald {

class Embedder;
class HelperPool;
class IndexCatchUp;
class SemanticIndexer;
class Summarizer;
class VectorIndexSet;

// Attempts of a job that needs the models: with backoff doubling from 2 s
// to at most 5 min, 20 attempts ride out a provider outage of about an hour
// before the task fails (errors no retry can fix fail at once).
inline constexpr int kModelJobAttempts = 20;

// What the ingest jobs work with. Every pointer is borrowed and must outlive
// the runner's workers.
struct IngestServices {
  ContentStore* content = nullptr;
  Catalog* catalog = nullptr;
  PathLockManager* locks = nullptr;
  NodeWriter* nodes = nullptr;
  Embedder* embedder = nullptr;  // the workspace's embedder
  Summarizer* summarizer = nullptr;
  // SemanticIndexerOptions::model_summarizer of import jobs (may be null).
  Summarizer* model_summarizer = nullptr;
  SemanticIndexer* indexer = nullptr;  // shared by index/refresh/reindex jobs
  IndexCatchUp* indexes = nullptr;
  VectorIndexSet* vectors = nullptr;
  // `embedding.max_input_tokens` (SemanticIndexerOptions::max_input_tokens).
  int embedding_max_input_tokens = 4096;
  // How long a job waits for its path locks.
  int lock_timeout_ms = 5000;
  // Where add_resource jobs fetch URLs and expand archives: one
  // sub-directory per job, removed when the job ends ("" = no staging:
  // URLs and archives fail).
  std::string staging_root;
  // DbOptions::allow_private_networks, for URL sources.
  bool allow_private_networks = false;
  // DbOptions::link_after_imports.
  bool link_after_imports = true;
  // The Db's helper threads for two-thread fan-outs (may be null).
  HelperPool* helpers = nullptr;
};

// Registers the handlers of add_resource, index, refresh, reindex and
// admin_reindex.
// REQUIRES: every pointer of `services` is set (model_summarizer may be
// null); before runner->Start.
void RegisterIngestJobs(const IngestServices& services, JobRunner* runner);

// OpenViking's queue_status for a request's follow-up: the queues
// (Semantic, Embedding), each {processed, requeue_count, error_count,
// errors}. Skald runs a request's follow-up as one task (summaries and
// vectors together), reported in both queues: processed 1 once it
// completed. A failed task is an error answer instead.
nlohmann::json QueueStatusJson(bool completed);

// The follow-up job that (re)indexes `path` of `who.account` after a change;
// nullopt for paths that are never indexed (sessions, hidden files,
// namespace roots). `kind` kIndex (or kAddSkill, kContentWrite: the same
// under a task type of their own) indexes the subtree; kRefresh only its
// ancestors.
std::optional<JobSpec> IndexJobFor(const Identity& who, std::string_view path, JobKind kind,
                                   int priority);

// The strings of a JSON list (other items skipped; not a list: none).
std::vector<std::string> StringsOf(const nlohmann::json& list);

// Sets (kReplace) or merges in (kAppend) normalised `tags` on `records`,
// applied to the tags they have when written (Catalog::ApplyRecordTags, in
// transactions of 2,048 records);
// only those whose tags change are written. Returns how many were.
Result<uint64_t> RetagRecords(Catalog& catalog, std::string_view account,
                              const std::vector<Record>& records, std::span<const std::string> tags,
                              TagMode mode);

// The "tag_mode" of a job payload: kAppend for "append", else kReplace
// (a missing or malformed value included: payloads are never trusted).
TagMode TagModeOfPayload(const nlohmann::json& payload);

// `spec` (an index job) giving `tags` (normalised) to the records it writes,
// as `mode` says.
JobSpec WithTags(JobSpec spec, const std::vector<std::string>& tags, TagMode mode);

// `spec` (an index job of a tree just moved or copied) giving each record
// that has no tags stored the tags of `tags[its URI]` (the tags its source
// record had). No change when `tags` is empty.
JobSpec WithCarriedTags(JobSpec spec, const std::map<std::string, std::vector<std::string>>& tags);

// The embedding-cache key of the vectors a pack import left for one index
// job (`batch`, an id of its own): entries no other job reads, dropped by
// the job once it has written its records.
std::string PackVectorsKey(std::string_view embedder_name, std::string_view batch);

// `spec` (an index job) taking the vectors left under PackVectorsKey(the
// embedder's name, `batch`) before it embeds anything.
JobSpec WithPackagedVectors(JobSpec spec, std::string_view batch);

// Drops the packaged vectors no pending or running index job will take:
// those of an import stopped before its swap, or of a job that ended
// failed. Returns how many cache entries went. Call at open (while no
// import is being staged).
Result<uint64_t> DropUnclaimedPackagedVectors(Catalog& catalog);

}  // namespace skald
