#pragma once

// Options structs for opening a database and for each file-system operation.
// Every field has an in-class default that matches OpenViking's HTTP default.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "skald/status.h"

namespace skald {

class Embedder;  // src/model/embedder.h

struct DbOptions {
  // Directory holding skald.db, content/, index/, temp/ and LOCK. Created when missing.
  std::string workspace = "./skald-data";
  // How long an operation waits for a conflicting path lock before failing
  // with Conflict. Longer waits queue writers; 0 fails at once.
  int lock_timeout_ms = 5000;
  // fsync file data and directories on every write. Turning it off trades
  // durability on power loss for speed (a process crash still loses nothing).
  bool sync_writes = true;
  // The embedder that makes this workspace's vectors (model/factory.h builds
  // it from the `embedding` config). Its identity (provider, model,
  // dimension) is recorded in the workspace; once vectors exist, an open with
  // a different one fails with FailedPrecondition saying to reindex, because
  // vectors of two embedders cannot be compared. Null = the workspace's own:
  // the built-in hashing embedder (lexical; its recorded dimension, 512 when
  // new), or none when it records a remote embedder (file operations work,
  // embedding needs the configuration).
  std::shared_ptr<Embedder> embedder;
  // Accept an embedder whose identity differs from the recorded one: the new
  // identity is recorded and every existing vector is marked for rebuilding.
  bool reindex_on_embedder_change = false;

  Status Validate() const;
};

enum class SortBy { kNone, kName, kMtime };

struct LsOptions {
  // List the whole subtree (down to level_limit) instead of direct children.
  bool recursive = false;
  // Include dot-files (directories are always listed).
  bool show_all_hidden = false;
  // Maximum number of entries returned.
  int node_limit = 1000;
  // Depth limit for recursive listings and `tree` (1 = direct children).
  int level_limit = 3;
  // Directory abstracts are cut to abs_limit-3 characters + "..." when longer.
  int abs_limit = 256;
  SortBy sort_by = SortBy::kNone;
  bool descending = false;

  Status Validate() const;
};

enum class WriteMode { kReplace, kAppend, kCreate };

struct WriteRequest {
  std::string uri;
  std::string content;
  WriteMode mode = WriteMode::kReplace;
};

struct GrepRequest {
  std::string uri;
  // Subtree to skip (empty = none).
  std::string exclude_uri;
  // RE2 regular expression matched against each line.
  std::string pattern;
  bool case_insensitive = false;
  // Maximum number of matches returned.
  int node_limit = 256;
  // Maximum directory depth below `uri` that is searched.
  int level_limit = 10;

  Status Validate() const;
};

struct GlobRequest {
  std::string pattern;
  std::string uri = "viking://";
  // Maximum number of matches returned.
  int node_limit = 256;

  Status Validate() const;
};

}  // namespace skald
