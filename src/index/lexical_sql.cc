#include "index/lexical_sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "common/env.h"
#include "uri/uri_path.h"

namespace skald {

Status SqliteStatus(sqlite3* db, int rc, std::string_view what) {
  std::string message =
      fmt::format("lexical index: {}: {} ({})", what,
                  db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc), sqlite3_errstr(rc));
  switch (rc & 0xFF) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(std::move(message));
    case SQLITE_FULL:
      return DiskFullError(fmt::format("lexical index {}", what));
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return Status::IOError(std::move(message));
    default:
      return Status::Internal(std::move(message));
  }
}

Status LexicalConnection::Exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, &error);
  if (error != nullptr) sqlite3_free(error);
  if (rc != SQLITE_OK) return SqliteStatus(db_.get(), rc, sql);
  return Status::Ok();
}

Result<sqlite3_stmt*> LexicalConnection::Prepare(const std::string& sql,
                                                 const std::vector<SqlValue>& args) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    if (cache_.size() >= kMaxCachedStatements) cache_.clear();
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v3(db_.get(), sql.c_str(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(raw);
      return SqliteStatus(db_.get(), rc, "prepare");
    }
    it = cache_.emplace(sql, SqliteStmtPtr(raw)).first;
  }
  sqlite3_stmt* stmt = it->second.get();
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  for (size_t i = 0; i < args.size(); ++i) {
    int index = static_cast<int>(i) + 1;
    int rc = SQLITE_OK;
    if (const auto* v = std::get_if<int64_t>(&args[i])) {
      rc = sqlite3_bind_int64(stmt, index, *v);
    } else if (const auto* d = std::get_if<double>(&args[i])) {
      rc = sqlite3_bind_double(stmt, index, *d);
    } else if (const auto* blob = std::get_if<SqlBlob>(&args[i])) {
      rc = sqlite3_bind_blob(stmt, index, blob->bytes.data(), static_cast<int>(blob->bytes.size()),
                             SQLITE_TRANSIENT);
    } else {
      const std::string& s = std::get<std::string>(args[i]);
      rc = sqlite3_bind_text(stmt, index, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) return SqliteStatus(db_.get(), rc, "bind");
  }
  return stmt;
}

Status LexicalConnection::Run(const std::string& sql, const std::vector<SqlValue>& args) {
  SKALD_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql, args));
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
  }
  Status status = rc == SQLITE_DONE ? Status::Ok() : SqliteStatus(db_.get(), rc, "write");
  sqlite3_reset(stmt);
  return status;
}

namespace {

void AppendInList(std::string_view column, const std::vector<std::string>& values, std::string* sql,
                  std::vector<SqlValue>* args) {
  *sql += fmt::format(" AND {} IN (", column);
  for (size_t i = 0; i < values.size(); ++i) {
    *sql += i == 0 ? "?" : ",?";
    args->emplace_back(values[i]);
  }
  *sql += ")";
}

// Records at or below scope.uri, min..max segments deeper. Segment
// boundaries: the subtree of "x://a/b" is "x://a/b" itself plus the byte
// range ["x://a/b/", "x://a/b0"), since '0' follows '/'.
void AppendScopeSql(const UriScope& scope, std::string* sql, std::vector<SqlValue>* args) {
  const size_t start = UriSchemeEnd(scope.uri);
  std::string base(UriTrimTrailingSlashes(scope.uri));
  const bool root = base.size() == start;  // "scheme://": every URI of the scheme
  const int depth = UriDepth(base);
  if (base.empty()) {
    *sql += "(d.depth >= ?";  // only slashes, no scheme: every URI, as in the vector index
  } else {
    std::string prefix = root ? base : base + "/";
    std::string upper = prefix;
    upper.back() = '0';  // prefix ends with '/', and '0' is the byte after '/'
    *sql += "((d.uri = ? OR (d.uri >= ? AND d.uri < ?)) AND d.depth >= ?";
    args->emplace_back(base);
    args->emplace_back(std::move(prefix));
    args->emplace_back(std::move(upper));
  }
  args->emplace_back(static_cast<int64_t>(depth) + std::max(0, scope.min_depth));
  if (scope.max_depth >= 0) {
    *sql += " AND d.depth <= ?";
    args->emplace_back(static_cast<int64_t>(depth) + scope.max_depth);
  }
  *sql += ")";
}

}  // namespace

void AppendFilterSql(const RecordFilter& filter, std::string* sql, std::vector<SqlValue>* args) {
  if (filter.level_mask != 0) {
    std::string levels;
    for (int level = 0; level < 32; ++level) {
      if ((filter.level_mask >> level) & 1u) {
        levels += levels.empty() ? "" : ",";
        levels += std::to_string(level);
      }
    }
    *sql += " AND d.level IN (" + levels + ")";
  }
  if (!filter.context_types.empty()) {
    std::vector<std::string> names;
    for (ContextType type : filter.context_types) names.emplace_back(ContextTypeName(type));
    AppendInList("d.context_type", names, sql, args);
  }
  if (!filter.owners.empty()) AppendInList("d.owner", filter.owners, sql, args);
  if (!filter.uri_scopes.empty()) {
    *sql += " AND (";
    for (size_t i = 0; i < filter.uri_scopes.size(); ++i) {
      if (i > 0) *sql += " OR ";
      AppendScopeSql(filter.uri_scopes[i], sql, args);
    }
    *sql += ")";
  }
  // All-of: one primary-key probe per distinct tag.
  for (const std::string& tag : std::set<std::string>(filter.tags.begin(), filter.tags.end())) {
    *sql += " AND EXISTS (SELECT 1 FROM doc_tags AS t WHERE t.id = d.id AND t.tag = ?)";
    args->emplace_back(tag);
  }
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (filter.created_min != kMin) {
    *sql += " AND d.created_ns >= ?";
    args->emplace_back(filter.created_min);
  }
  if (filter.created_max != kMax) {
    *sql += " AND d.created_ns <= ?";
    args->emplace_back(filter.created_max);
  }
  if (filter.updated_min != kMin) {
    *sql += " AND d.updated_ns >= ?";
    args->emplace_back(filter.updated_min);
  }
  if (filter.updated_max != kMax) {
    *sql += " AND d.updated_ns <= ?";
    args->emplace_back(filter.updated_max);
  }
}

}  // namespace skald
