#pragma once

// NodeWriter: the durable write primitives of the namespace — directories
// and files written to the content store and then recorded in the catalog,
// in that order. A crash in between leaves content ahead of the catalog,
// which recovery at the next open reconciles; when the catalog commit fails
// while the process lives on, the writer remembers it (needs_recovery) so
// that the close is recorded as unclean and the next open reconciles.
//
// Used by the file-system operations of the facade and by the import job.
//
// Thread safety: safe for concurrent use; callers hold path locks covering
// what they write (PathLockManager). The content store and catalog are
// borrowed and must outlive the writer.

#include <atomic>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "skald/types.h"
#include "storage/catalog.h"
#include "storage/content_store.h"
#include "storage/disk_reserve.h"
#include "uri/viking_uri.h"

namespace skald {

class NodeWriter {
 public:
  // REQUIRES: `content` and `catalog` non-null; all three outlive the writer.
  // `reserve` (null = none) is spent on recording bytes already written when
  // the catalog commit finds the disk full.
  NodeWriter(ContentStore* content, Catalog* catalog, DiskReserve* reserve = nullptr)
      : content_(content), catalog_(catalog), reserve_(reserve) {}

  // Creates the missing directories on the way to (and including, when
  // `include_self`) `dir` of `who.account`, in content and catalog.
  // FailedPrecondition when a file is in the way. REQUIRES: the caller holds
  // a lock covering `dir`.
  Status EnsureDirectories(const Identity& who, const VikingUri& dir, bool include_self);
  // The same for every directory of `dirs` (and the directories on the way
  // to each), with one content barrier and one catalog transaction for all
  // of them. REQUIRES: the caller holds locks covering `dirs`.
  Status EnsureDirectories(const Identity& who, std::span<const VikingUri> dirs);

  // Writes bytes and records them in the catalog (the durable write path).
  // `jobs` are enqueued in the same catalog transaction (the outbox), the
  // enqueued rows appended to `*enqueued` when given. `existing` is the node
  // being replaced (its ctime is kept). REQUIRES: the caller holds a lock
  // covering `uri`.
  Result<CatalogNode> StoreFile(const Identity& who, const VikingUri& uri, std::string_view bytes,
                                const std::optional<CatalogNode>& existing,
                                const std::vector<JobSpec>& jobs = {},
                                std::vector<Job>* enqueued = nullptr);

  // A failed content-store call's status, for the caller to return: when its
  // change may already be visible (ContentChangedDespiteError) the workspace
  // is marked for recovery, and the marker — for the write path, not for API
  // clients — is dropped from the status. Ok passes through.
  Status NoteContentFailure(Status status);

  // Records that content changed but its catalog commit failed (callers
  // that change content and catalog themselves, e.g. rm and mv, call it).
  void MarkNeedsRecovery() { needs_recovery_ = true; }
  // True once some write left content ahead of the catalog in this session.
  bool needs_recovery() const { return needs_recovery_.load(); }

 private:
  ContentStore* const content_;
  Catalog* const catalog_;
  DiskReserve* const reserve_;
  std::atomic<bool> needs_recovery_{false};
};

}  // namespace skald
