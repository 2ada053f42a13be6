#pragma once

// SessionFilesAdapter: the service's implementation of the session module's
// file port (session/session_files.h) over the durable write path — the
// NodeWriter (content store, then catalog, with the outbox for jobs), the
// catalog for reads and listings, and FsWriter::Rm for deletes. Only
// WriteIndexed and QueueIndex queue an index job (when `indexing`).
//
// Thread safety: safe for concurrent use; each call takes path locks.
// Everything passed in is borrowed and must outlive the adapter.

#include "service/fs_engine.h"
#include "session/session_files.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/node_writer.h"
#include "storage/path_lock.h"

namespace skald {

class SessionFilesAdapter final : public SessionFiles {
 public:
  SessionFilesAdapter(ContentStore* content, Catalog* catalog, PathLockManager* locks,
                      NodeWriter* nodes, FsWriter* writer, JobRunner* runner, bool indexing,
                      int lock_timeout_ms)
      : content_(content),
        catalog_(catalog),
        locks_(locks),
        nodes_(nodes),
        writer_(writer),
        runner_(runner),
        indexing_(indexing),
        lock_timeout_ms_(lock_timeout_ms) {}

  Result<std::optional<std::string>> Read(const Identity& who, const VikingUri& uri) override;
  Result<std::vector<Job>> Write(const Identity& who, const VikingUri& uri, std::string_view bytes,
                                 const std::vector<JobSpec>& jobs) override;
  Result<std::vector<Job>> WriteIndexed(const Identity& who, const VikingUri& uri,
                                        std::string_view bytes) override;
  Status QueueIndex(const Identity& who, const VikingUri& uri) override;
  Status Append(const Identity& who, const VikingUri& uri, std::string_view bytes) override;
  Status Mkdir(const Identity& who, const VikingUri& uri) override;
  Result<std::optional<CatalogNode>> Stat(const Identity& who, const VikingUri& uri) override;
  Result<std::vector<SessionFileEntry>> List(const Identity& who, const VikingUri& uri) override;
  Status RemoveTree(const Identity& who, const VikingUri& uri) override;
  // Catalog::BumpActiveCountOnce / ForgetActiveCountBump.
  Status BumpActiveCount(const Identity& who, const std::vector<std::string>& uris,
                         std::string_view once_key) override;
  Status ForgetActiveCountBump(std::string_view once_key) override;
  Result<std::vector<std::string>> ListAccounts() override { return catalog_->ListAccounts(); }

 private:
  Status LockExact(const Identity& who, const VikingUri& uri, PathLockGuard* guard);
  // Writes under a lock the caller holds.
  Result<std::vector<Job>> WriteLocked(const Identity& who, const VikingUri& uri,
                                       std::string_view bytes, const std::vector<JobSpec>& jobs);

  ContentStore* const content_;
  Catalog* const catalog_;
  PathLockManager* const locks_;
  NodeWriter* const nodes_;
  FsWriter* const writer_;
  JobRunner* const runner_;
  const bool indexing_;
  const int lock_timeout_ms_;
};

}  // namespace skald
