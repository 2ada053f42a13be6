#pragma once

// The add_resource job: imports a source (a local file or directory, or an
// upload) into a resource tree, then summarizes and embeds it.
//
// The request side (placement, reservation of the root, the claim of an
// upload) is the service's AddResource; it queues a job of kind
// JobKind::kAddResource whose JSON payload carries:
//   source_path   file or directory to import (a claimed upload: see below)
//   display_name  the name the source goes by (the upload's original name)
//   path          URI path of the reserved root ("resources/docs")
//   temp_file_id  the upload's id, "" for a local path
//   include, exclude, ignore_dirs  import filters (ImportOptions)
//   tags          "k=v" tags given to every record
//
// The job writes the tree (files whose bytes are unchanged are not
// rewritten), indexes it, brings the indexes up to the catalog, completes
// with a summary (files written/unchanged, records, warnings) and only then
// deletes the upload it imported.
//
// Thread safety: runs on a JobRunner worker; jobs on different roots run
// side by side (each holds a tree lock on its root while writing).

#include <string_view>

#include "ingest/ingest_jobs.h"
#include "storage/job_runner.h"

namespace skald {

// Suffix of an upload's metadata file (next to the upload in temp/upload).
inline constexpr std::string_view kUploadMetaSuffix = ".ov_upload.meta";
// Suffix of an upload taken by an add-resource task (kept until it completes).
inline constexpr std::string_view kClaimedUploadSuffix = ".claimed";

// Runs one add_resource job (see above). REQUIRES: the services set as for
// RegisterIngestJobs.
Status RunImportJob(const IngestServices& services, JobContext& context);

}  // namespace skald
