#pragma once

// The admin_reindex job (POST /api/v1/content/reindex): brings the records
// of one tree back in line with its content. The request side (who may
// reindex what, waiting) is the service's; it queues a job of kind
// JobKind::kAdminReindex whose JSON payload carries:
//   path       URI path of the node ("resources/docs")
//   mode       "vectors_only" | "semantic_and_vectors" | "prune_orphans"
//   dry_run    count what would be done, change nothing
//   recursive  the node and everything below it (false: the node alone)
//
// Modes:
// - vectors_only: embed every record again from its file or sidecar text
//   (no embedding cache); summaries are kept.
// - semantic_and_vectors: summarize the tree again (L0/L1 sidecars, file
//   summaries), then embed (SemanticIndexer::IndexTree).
// - prune_orphans: delete the records whose node is gone (or is hidden or
//   a live session: never indexed).
// The job completes with {scanned_records, rebuilt_records,
// deleted_records, would_delete_records, unsupported_records,
// failed_records, warnings} and brings the indexes up to the catalog.
//
// Thread safety: runs on a JobRunner worker.

#include <string_view>

#include "ingest/ingest_jobs.h"
#include "storage/job_runner.h"

namespace skald {

// The modes' names, as the API spells them.
inline constexpr std::string_view kReindexVectorsOnly = "vectors_only";
inline constexpr std::string_view kReindexSemanticAndVectors = "semantic_and_vectors";
inline constexpr std::string_view kReindexPruneOrphans = "prune_orphans";

// Runs one admin_reindex job (see above). REQUIRES: the services set as for
// RegisterIngestJobs.
Status RunAdminReindexJob(const IngestServices& services, JobContext& context);

}  // namespace skald
