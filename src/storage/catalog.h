#pragma once

// Catalog: the SQLite database (WAL mode) that records every node of every
// account — kind, size, mtime, content hash — plus workspace metadata. The
// on-disk schema is specified in docs/format/catalog.md.
//
// Thread safety: safe for concurrent use. Writes are serialized on one
// connection; reads use a small pool of connections and see the last
// committed state. Each method is one transaction.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

// One file or directory as the catalog records it.
struct CatalogNode {
  std::string path;  // URI path without scheme: "resources/a/b.md"
  bool is_dir = false;
  uint64_t size = 0;         // bytes; 0 for directories
  int64_t mtime_ns = 0;      // files: mtime of the bytes on disk; dirs: last change
  int64_t ctime_ns = 0;      // creation
  std::string hash;          // hex SHA-256 of the bytes; "" for directories
};

// One retrieval record (reference internals §2.9): per directory an L0 and
// an L1 record, per file an L2 record. Vectors live here so that every
// index can be rebuilt without re-embedding.
struct VectorRecord {
  std::string account;       // tenant (filled in by the catalog)
  int64_t key = 0;           // catalog-assigned 64-bit key, stable while the record exists
  std::string id;            // md5("account:uri[/.abstract.md|/.overview.md]"), as OpenViking
  std::string uri;           // the node the record describes ("viking://resources/a")
  std::string parent_uri;    // its parent directory
  int level = 2;             // 0 abstract, 1 overview, 2 file
  std::string context_type;  // "resource" | "memory" | "skill"
  std::string owner;         // owner user id ("" for account-shared content)
  std::string abstract;      // the text the record stands for (shown in results)
  std::string embedder;      // identity of the embedder that made `vector`
  std::vector<float> vector;
  std::vector<std::string> tags;  // "k=v"
  int64_t created_ns = 0;
  int64_t updated_ns = 0;
  int64_t active_count = 0;
  int64_t seq = 0;       // change sequence number of the last change (catalog-assigned)
  bool deleted = false;  // a tombstone: kept so that indexes can catch up on deletes
};

struct CatalogOptions {
  // Path of the database file.
  std::string path;
  // Read connections kept open (concurrent readers).
  int read_connections = 4;
  // synchronous=FULL: a commit survives power loss. Off = NORMAL, which
  // survives process crashes but may lose the last commits on power loss.
  bool sync = true;
};

class Catalog {
 public:
  // The schema version this binary writes; older databases are migrated
  // forward on open, newer ones are refused (FailedPrecondition).
  static constexpr int kSchemaVersion = 2;

  // Opens or creates the database and migrates it.
  static Result<std::unique_ptr<Catalog>> Open(const CatalogOptions& options);

  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // The node at `path`, or nullopt.
  Result<std::optional<CatalogNode>> Get(std::string_view account, std::string_view path);

  // Direct children of `parent` ("" = the account root), ordered by name.
  Result<std::vector<CatalogNode>> ListChildren(std::string_view account,
                                                std::string_view parent);

  // Descendants of `path` ("" = everything) at most `max_depth` levels
  // below it (0 = unlimited), ordered by path. `path` itself is excluded.
  Result<std::vector<CatalogNode>> ListSubtree(std::string_view account, std::string_view path,
                                               int max_depth);

  // Number of nodes at or below `path`.
  Result<uint64_t> CountSubtree(std::string_view account, std::string_view path);

  // Inserts or replaces nodes and deletes subtrees, all in one transaction.
  // Deletes run first.
  Status Apply(std::string_view account, const std::vector<CatalogNode>& upserts,
               const std::vector<std::string>& delete_subtrees);

  Status Put(std::string_view account, const CatalogNode& node) {
    return Apply(account, {node}, {});
  }

  // Deletes `path` and everything below it; returns the number of rows removed.
  Result<uint64_t> DeleteSubtree(std::string_view account, std::string_view path);

  // Re-keys `from` and its subtree to `to` in one transaction; `mtime_ns`
  // becomes the moved root's mtime. REQUIRES: `to` is free.
  Status MoveSubtree(std::string_view account, std::string_view from, std::string_view to,
                     int64_t mtime_ns);

  // Accounts with at least one node.
  Result<std::vector<std::string>> ListAccounts();

  // Inserts or replaces records (matched by account + id) in one
  // transaction, assigning each a new change sequence number; `key` and
  // `seq` are filled in on the given records.
  Status UpsertRecords(std::string_view account, std::vector<VectorRecord>* records);

  // Marks the records of `uri` and everything below it as deleted (a
  // tombstone per record, with a new sequence number and no vector).
  // Returns how many records were deleted.
  Result<uint64_t> DeleteRecordsUnder(std::string_view account, std::string_view uri);

  // Calls `fn` for each live (or, with include_deleted, every) record of an
  // account in key order; stops early with fn's error.
  Status ScanRecords(std::string_view account, bool include_deleted,
                     const std::function<Status(const VectorRecord&)>& fn);

  // Records of every account changed after `after_seq`, tombstones included,
  // in sequence order, at most `limit` of them (catch-up of indexes).
  Result<std::vector<VectorRecord>> RecordsChangedSince(int64_t after_seq, int limit);

  // Highest change sequence number assigned so far (0 when none).
  Result<int64_t> MaxRecordSeq();

  // Removes tombstones with seq <= `up_to_seq` (once every index has seen them).
  Result<uint64_t> PurgeTombstones(int64_t up_to_seq);

  // Workspace metadata (key/value).
  Result<std::optional<std::string>> GetMeta(std::string_view key);
  Status SetMeta(std::string_view key, std::string_view value);

 private:
  Catalog();

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Parent path of a URI path ("resources/a/b" -> "resources/a"; "resources" -> "").
std::string_view ParentPath(std::string_view path);

// Last segment of a URI path.
std::string_view BaseName(std::string_view path);

}  // namespace skald
