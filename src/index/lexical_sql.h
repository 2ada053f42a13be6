#pragma once

// SQLite helpers for the lexical index: RAII handles, a per-connection
// prepared-statement cache, error mapping, and the translation of a
// RecordFilter into SQL conditions with bound parameters.
//
// Thread safety: a LexicalConnection is used by one thread at a time (the
// index hands connections out from a pool); the free functions are pure.

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "index/vector_index.h"
#include "skald/result.h"

namespace skald {

struct SqliteStmtDeleter {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
struct SqliteDbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using SqliteStmtPtr = std::unique_ptr<sqlite3_stmt, SqliteStmtDeleter>;
using SqliteDbPtr = std::unique_ptr<sqlite3, SqliteDbCloser>;

// Bytes bound as a BLOB.
struct SqlBlob {
  std::string bytes;
};
// A value bound to a `?` parameter.
using SqlValue = std::variant<int64_t, double, std::string, SqlBlob>;

// Maps an SQLite result code to a Status: CORRUPT/NOTADB -> Corruption,
// BUSY/LOCKED -> Unavailable, FULL/IOERR/CANTOPEN -> IOError, else Internal.
Status SqliteStatus(sqlite3* db, int rc, std::string_view what);

// One SQLite connection and its cached prepared statements.
class LexicalConnection {
 public:
  explicit LexicalConnection(SqliteDbPtr db) : db_(std::move(db)) {}

  sqlite3* db() const { return db_.get(); }

  // Runs one or more statements without results.
  Status Exec(const char* sql);

  // A cached statement for `sql`, reset, with `args` bound to ?1..?n.
  // The pointer stays owned by the cache; valid until the next Prepare.
  Result<sqlite3_stmt*> Prepare(const std::string& sql, const std::vector<SqlValue>& args = {});

  // Steps a prepared statement to completion (for writes).
  Status Run(const std::string& sql, const std::vector<SqlValue>& args = {});

  // Drops every cached statement (after a schema change that removed tables).
  void ClearCache() { cache_.clear(); }

 private:
  // Statement texts embed partition table names and filter shapes; past this
  // many the cache starts over rather than growing without bound.
  static constexpr size_t kMaxCachedStatements = 256;

  SqliteDbPtr db_;
  // Declared after db_ so that statements are finalized before the close.
  std::unordered_map<std::string, SqliteStmtPtr> cache_;
};

// SQL conditions (each starting with " AND ") over the `docs` table aliased
// `d`, for everything in `filter` except the account, appended to `*sql`,
// with their parameters appended to `*args`. URI scopes follow the vector
// index exactly (RecordStore::ScopeMatches): trailing slashes of the scope are
// ignored, matching is on segment boundaries, depth is UriDepth().
// REQUIRES: filter.Validate() is ok.
void AppendFilterSql(const RecordFilter& filter, std::string* sql, std::vector<SqlValue>* args);

}  // namespace skald
