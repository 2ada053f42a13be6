#include "service/session_files_adapter.h"

#include <chrono>
#include <fmt/format.h>

#include "ingest/ingest_jobs.h"
#include "uri/uri_path.h"

namespace skald {

Status SessionFilesAdapter::LockExact(const Identity& who, const VikingUri& uri,
                                      PathLockGuard* guard) {
  return locks_->Acquire({{who.account, std::string(uri.path()), PathLockKind::kExact}},
                         std::chrono::milliseconds(lock_timeout_ms_), guard);
}

Result<std::optional<std::string>> SessionFilesAdapter::Read(const Identity& who,
                                                             const VikingUri& uri) {
  SKALD_ASSIGN_OR_RETURN(auto node, catalog_->Get(who.account, uri.path()));
  if (!node || node->is_dir) return std::optional<std::string>();
  SKALD_ASSIGN_OR_RETURN(std::string bytes, content_->ReadFile(who.account, uri.path()));
  return std::optional<std::string>(std::move(bytes));
}

Result<std::vector<Job>> SessionFilesAdapter::WriteLocked(const Identity& who,
                                                          const VikingUri& uri,
                                                          std::string_view bytes,
                                                          const std::vector<JobSpec>& jobs) {
  SKALD_ASSIGN_OR_RETURN(auto existing, catalog_->Get(who.account, uri.path()));
  if (existing && existing->is_dir) {
    return Status::FailedPrecondition(fmt::format("a directory is in the way: {}", uri.str()));
  }
  SKALD_RETURN_IF_ERROR(nodes_->EnsureDirectories(who, uri, /*include_self=*/false));
  std::vector<Job> enqueued;
  SKALD_ASSIGN_OR_RETURN(CatalogNode stored,
                         nodes_->StoreFile(who, uri, bytes, existing, jobs, &enqueued));
  (void)stored;
  return enqueued;
}

Result<std::vector<Job>> SessionFilesAdapter::Write(const Identity& who, const VikingUri& uri,
                                                    std::string_view bytes,
                                                    const std::vector<JobSpec>& jobs) {
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(LockExact(who, uri, &guard));
  return WriteLocked(who, uri, bytes, jobs);
}

Result<std::vector<Job>> SessionFilesAdapter::WriteIndexed(const Identity& who,
                                                           const VikingUri& uri,
                                                           std::string_view bytes) {
  std::vector<JobSpec> jobs;
  if (std::optional<JobSpec> job =
          IndexJobFor(who, uri.path(), JobKind::kIndex, kJobPriorityInteractive);
      job && indexing_) {
    jobs.push_back(*job);
  }
  SKALD_ASSIGN_OR_RETURN(std::vector<Job> enqueued, Write(who, uri, bytes, jobs));
  if (!enqueued.empty()) runner_->queue()->Notify();
  return enqueued;
}

Status SessionFilesAdapter::QueueIndex(const Identity& who, const VikingUri& uri) {
  if (!indexing_) return Status::Ok();
  std::optional<JobSpec> job = IndexJobFor(who, uri.path(), JobKind::kIndex, kJobPriorityInteractive);
  if (!job) return Status::Ok();  // nothing there is ever indexed
  return runner_->queue()->Enqueue(*job).status();
}

Status SessionFilesAdapter::Append(const Identity& who, const VikingUri& uri,
                                   std::string_view bytes) {
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(LockExact(who, uri, &guard));
  SKALD_ASSIGN_OR_RETURN(auto existing, Read(who, uri));
  std::string all = existing ? std::move(*existing) : std::string();
  all.append(bytes);
  return WriteLocked(who, uri, all, {}).status();
}

Status SessionFilesAdapter::Mkdir(const Identity& who, const VikingUri& uri) {
  PathLockGuard guard;
  SKALD_RETURN_IF_ERROR(LockExact(who, uri, &guard));
  return nodes_->EnsureDirectories(who, uri, /*include_self=*/true);
}

Result<std::optional<CatalogNode>> SessionFilesAdapter::Stat(const Identity& who,
                                                             const VikingUri& uri) {
  return catalog_->Get(who.account, uri.path());
}

Result<std::vector<SessionFileEntry>> SessionFilesAdapter::List(const Identity& who,
                                                                const VikingUri& uri) {
  SKALD_ASSIGN_OR_RETURN(auto children, catalog_->ListChildren(who.account, uri.path()));
  std::vector<SessionFileEntry> out;
  out.reserve(children.size());
  for (const CatalogNode& node : children) {
    SessionFileEntry entry;
    entry.name = std::string(BaseName(node.path));
    entry.is_dir = node.is_dir;
    entry.mtime_ns = node.mtime_ns;
    out.push_back(std::move(entry));
  }
  return out;
}

Status SessionFilesAdapter::RemoveTree(const Identity& who, const VikingUri& uri) {
  return writer_->Rm(who, uri, /*recursive=*/true).status();
}

Status SessionFilesAdapter::BumpActiveCount(const Identity& who,
                                            const std::vector<std::string>& uris,
                                            std::string_view once_key) {
  return catalog_->BumpActiveCountOnce(who.account, once_key, uris).status();
}

Status SessionFilesAdapter::ForgetActiveCountBump(std::string_view once_key) {
  return catalog_->ForgetActiveCountBump(once_key);
}

}  // namespace skald
