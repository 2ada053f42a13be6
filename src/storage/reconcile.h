#pragma once

// Reconcile: compares the content store with the catalog and, on request,
// makes the catalog agree with the content (the bytes on disk are the
// truth; the catalog is their index). Used by startup recovery after an
// unclean shutdown and by `skald fsck`. On-disk names are mapped back to
// catalog paths by comparing stored names (StoredSegmentName()), so a node
// whose name was shortened on disk is matched, never renamed.
//
// Thread safety: the caller must keep writers away (startup, or fsck with
// the workspace lock held and no concurrent operations on the account).

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "skald/result.h"
#include "storage/catalog.h"
#include "storage/content_store.h"

namespace skald {

struct ReconcileIssue {
  // missing_content: catalog row without bytes; untracked_content: bytes
  // without a row; kind_mismatch: file vs directory; size_mismatch,
  // hash_mismatch: the bytes differ from what the catalog recorded;
  // mtime_mismatch: same bytes, stale timestamp; unnamed_content: bytes under
  // a shortened on-disk name (see StoredSegmentName()) that no catalog node
  // has, so their full name is unknown: never adopted (not even with
  // `repair`), left on disk for the operator; `path` is the parent's path
  // plus the shortened name.
  std::string kind;
  std::string account;
  std::string path;
  std::string detail;
  bool repaired = false;
};

struct ReconcileReport {
  uint64_t nodes_checked = 0;
  uint64_t leftovers_removed = 0;
  std::vector<ReconcileIssue> issues;
};

struct ReconcileOptions {
  // Apply fixes to the catalog.
  bool repair = false;
  // Hash every file (slow, thorough). Off: only files whose size or mtime
  // differ are re-hashed.
  bool verify_hashes = false;
  // Also re-hash files whose on-disk mtime is at or after this time. File
  // timestamps are coarse (kernel ticks), so a rewrite of the same size
  // within one tick keeps size and mtime: recovery passes the start time of
  // the crashed session so that everything it touched is verified.
  int64_t rehash_modified_since_ns = INT64_MAX;
};

Result<ReconcileReport> Reconcile(ContentStore& content, Catalog& catalog,
                                  const ReconcileOptions& options);

}  // namespace skald
