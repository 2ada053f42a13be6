#pragma once

// Catalog: the SQLite database (WAL mode) that records every node of every
// account — kind, size, mtime, content hash — plus workspace metadata. The
// on-disk schema is specified in docs/format/catalog.md.
//
// Thread safety: safe for concurrent use. Writes are serialized on one
// connection; reads use a small pool of connections and see the last
// committed state. Each method is one transaction.

#include <cstdint>
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
  static constexpr int kSchemaVersion = 1;

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
