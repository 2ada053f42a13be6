#pragma once

// SessionFiles: the file port the session module works through. Sessions
// live in the content tree (viking://user/{uid}/sessions/{id}/…) and must be
// durable and recovered like any other content, but the file-system engine
// (FsReader/FsWriter) lives in `service`, to the right of `session`; the
// service implements this interface over it (service/session_files_adapter.h)
// and hands it to SessionStore.
//
// Every call acts in `who.account`; URIs are canonical and already checked
// by the caller (uri/access.h). Files written with Write/Append are never
// queued for indexing (session transcripts are not searchable); WriteIndexed
// is for what must be found by search (memories).
//
// Thread safety: implementations are safe for concurrent use; each call
// takes the path locks it needs.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "skald/types.h"
#include "storage/catalog.h"
#include "uri/viking_uri.h"

namespace skald {

// One child of a directory.
struct SessionFileEntry {
  std::string name;
  bool is_dir = false;
  int64_t mtime_ns = 0;
};

class SessionFiles {
 public:
  virtual ~SessionFiles() = default;

  // Bytes of the file at `uri`; nullopt when it does not exist.
  virtual Result<std::optional<std::string>> Read(const Identity& who, const VikingUri& uri) = 0;

  // Creates or replaces the file at `uri` (creating missing parent
  // directories), durably. `jobs` are enqueued in the same catalog
  // transaction as the file (the outbox): either both are recorded or
  // neither. Returns the enqueued jobs.
  virtual Result<std::vector<Job>> Write(const Identity& who, const VikingUri& uri,
                                         std::string_view bytes,
                                         const std::vector<JobSpec>& jobs = {}) = 0;

  // Like Write (no extra jobs), and queues the index job that summarizes and
  // embeds the file and refreshes the summaries above it (when the workspace
  // indexes at all), in the same transaction — for memories extracted from
  // a session, which search must find. Returns the enqueued jobs.
  virtual Result<std::vector<Job>> WriteIndexed(const Identity& who, const VikingUri& uri,
                                                std::string_view bytes) = 0;

  // Queues the index job for the tree at `uri` (summaries and embeddings of
  // what in it is indexable — uri_path.h NamespaceRootDepth — then the
  // summaries above it), when the workspace indexes at all. For a commit's
  // archive once its excerpts are written.
  virtual Status QueueIndex(const Identity& who, const VikingUri& uri) = 0;

  // Appends `bytes` to the file at `uri` (created when missing).
  virtual Status Append(const Identity& who, const VikingUri& uri, std::string_view bytes) = 0;

  // Creates the directory `uri` and its missing parents (no error when it exists).
  virtual Status Mkdir(const Identity& who, const VikingUri& uri) = 0;

  // The node at `uri`, or nullopt.
  virtual Result<std::optional<CatalogNode>> Stat(const Identity& who, const VikingUri& uri) = 0;

  // Direct children of the directory `uri` ordered by name (hidden files
  // included); empty when it does not exist.
  virtual Result<std::vector<SessionFileEntry>> List(const Identity& who, const VikingUri& uri) = 0;

  // Deletes `uri` and everything below it; Ok when it does not exist.
  virtual Status RemoveTree(const Identity& who, const VikingUri& uri) = 0;

  // Counts one use of each context in `uris` (canonical URIs the caller
  // already checked `who` may see): adds 1 to active_count of the retrieval
  // records of each URI (every level) in `who.account`, which hotness
  // ranking reads. At most once per `once_key`, exactly once across crashes
  // (the key is recorded with the bump); a rerun with the same key does
  // nothing. Unknown URIs are ignored. The default (no records to count) does nothing.
  virtual Status BumpActiveCount(const Identity& who, const std::vector<std::string>& uris,
                                 std::string_view once_key) {
    (void)who, (void)uris, (void)once_key;
    return Status::Ok();
  }
  // Accounts that hold any file (to find every session at open). The
  // default (none) leaves sessions to be found when they are touched.
  virtual Result<std::vector<std::string>> ListAccounts() { return std::vector<std::string>(); }

  // Forgets `once_key` of BumpActiveCount, once the caller can no longer
  // run again with it. Ok when unknown.
  virtual Status ForgetActiveCountBump(std::string_view once_key) {
    (void)once_key;
    return Status::Ok();
  }
};

}  // namespace skald
