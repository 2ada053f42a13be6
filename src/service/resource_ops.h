#pragma once

// ResourceOps: the request side of add-resource — uploads (TempUpload), and
// AddResource: where the resource goes, the reservation of its root and
// the durable add_resource job that imports it (ingest/import_job.h).
//
// Thread safety: safe for concurrent use. Everything passed in is borrowed
// and must outlive the object.

#include <shared_mutex>
#include <string>
#include <string_view>

#include "common/env.h"
#include "service/uri_resolver.h"
#include "skald/db.h"
#include "storage/catalog.h"
#include "storage/job_runner.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"

namespace skald {

// An upload of Db::TempUpload, found for `who`.
struct UploadRef {
  std::string path;               // the uploaded bytes, under <workspace>/temp/upload
  std::string original_filename;  // as uploaded ("" when it had none)
};

// The upload `id` in `workspace` when it exists and `who` made it;
// PermissionDenied "unknown or expired temp_file_id" otherwise (a malformed
// id, a missing file or metadata, or another user's upload answer alike:
// ids must not be probeable).
Result<UploadRef> FindUpload(const std::string& workspace, const Identity& who,
                             std::string_view id);

class ResourceOps {
 public:
  // `indexing` is false without an embedder (AddResource then fails with
  // FailedPrecondition). `maintenance_mu` is held shared while a request
  // changes the tree (fsck takes it exclusively). `reserve` (null = none)
  // is checked before an upload is written and released when it finds the
  // disk full.
  ResourceOps(const DbOptions* options, UriResolver* resolver, Catalog* catalog,
              PathLockManager* locks, NodeWriter* nodes, JobRunner* runner,
              std::shared_mutex* maintenance_mu, bool indexing, DiskReserve* reserve)
      : options_(*options),
        env_(EnvOrDefault(options->env)),
        resolver_(resolver),
        catalog_(catalog),
        locks_(locks),
        nodes_(nodes),
        runner_(runner),
        maintenance_mu_(*maintenance_mu),
        indexing_(indexing),
        reserve_(reserve) {}

  // Db::TempUpload: stores the bytes under temp/upload and returns their id.
  Result<std::string> TempUpload(const Identity& who, std::string_view filename,
                                 std::string_view bytes);
  // Db::AddResource: validates and places the request, reserves the root,
  // queues the import and (request.wait) waits for it.
  Result<AddResourceResult> AddResource(const Identity& who, const AddResourceRequest& request);
  // Db::Reindex: checks who may reindex the node, queues the admin_reindex
  // job (ingest/reindex_job.h) and (request.wait) waits for it.
  Result<ReindexResult> Reindex(const Identity& who, const ReindexRequest& request);

 private:
  Result<VikingUri> Resolve(const Identity& who, std::string_view text) {
    return resolver_->Resolve(who, text);
  }
  Status Lock(const std::vector<PathLockRequest>& requests, PathLockGuard* guard);

  const DbOptions& options_;
  Env* const env_;
  UriResolver* const resolver_;
  Catalog* const catalog_;
  PathLockManager* const locks_;
  NodeWriter* const nodes_;
  JobRunner* const runner_;
  std::shared_mutex& maintenance_mu_;
  const bool indexing_;
  DiskReserve* const reserve_;
};

}  // namespace skald
