#pragma once

// Internals shared by the Catalog's translation units (catalog.cc for nodes
// and metadata, catalog_records.cc for retrieval records). Not a public API.

#include <fmt/format.h>
#include <sqlite3.h>

#include <condition_variable>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/env.h"
#include "storage/catalog.h"

namespace skald {
namespace catalog_internal {

inline Status SqlError(sqlite3* db, std::string_view what) {
  int code = sqlite3_errcode(db);
  std::string msg = fmt::format("catalog {}: {}", what, sqlite3_errmsg(db));
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return Status::Corruption(msg);
  if (code == SQLITE_FULL) return DiskFullError(fmt::format("catalog {}", what));
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) return Status::Unavailable(msg);
  return Status::IOError(msg);
}

// A prepared statement, finalized on destruction.
// Prepared statements of one connection kept for reuse, by SQL text (an
// entry is null while a Stmt uses it). Only the connection's user touches it.
using StmtCache = std::unordered_map<std::string, sqlite3_stmt*>;

class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  // Takes the statement from `cache` (or prepares it) and gives it back,
  // reset, when destroyed: for hot read paths, where preparing cost as much
  // as running.
  Stmt(sqlite3* db, std::string sql, StmtCache* cache)
      : db_(db), cache_(cache), sql_(std::move(sql)) {
    auto it = cache_->find(sql_);
    if (it != cache_->end() && it->second != nullptr) {
      stmt_ = std::exchange(it->second, nullptr);
      rc_ = SQLITE_OK;
      return;
    }
    rc_ = sqlite3_prepare_v3(db, sql_.data(), static_cast<int>(sql_.size()),
                             SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  }
  ~Stmt() {
    if (cache_ != nullptr && rc_ == SQLITE_OK) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
      sqlite3_stmt*& slot = (*cache_)[sql_];
      if (slot == nullptr) {
        slot = stmt_;
        return;
      }
    }
    sqlite3_finalize(stmt_);
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  bool prepared() const { return rc_ == SQLITE_OK; }
  Stmt& Bind(int i, std::string_view v) {
    // A default string_view has a null data(), which SQLite would bind as NULL.
    sqlite3_bind_text(stmt_, i, v.data() ? v.data() : "", static_cast<int>(v.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& Bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Stmt& BindBlob(int i, const void* data, size_t bytes) {
    sqlite3_bind_blob(stmt_, i, bytes ? data : "", static_cast<int>(bytes), SQLITE_TRANSIENT);
    return *this;
  }
  sqlite3_stmt* raw() const { return stmt_; }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  Status Run(std::string_view what) {
    if (!prepared()) return SqlError(db_, what);
    int rc = Step();
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return SqlError(db_, what);
    return Status::Ok();
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string Text(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  sqlite3* db_;
  StmtCache* cache_ = nullptr;
  std::string sql_;  // the cache key
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

inline Status Exec(sqlite3* db, const char* sql, std::string_view what) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    Status base = SqlError(db, what);
    if (IsDiskFull(base)) return base;
    return Status(base.code(), fmt::format("catalog {}: {}", what, msg));
  }
  return Status::Ok();
}

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT, rolling back on error.
template <typename F>
Status InTransaction(sqlite3* db, F&& body) {
  SKALD_RETURN_IF_ERROR(Exec(db, "BEGIN IMMEDIATE", "begin"));
  Status st = body();
  if (!st.ok()) {
    Exec(db, "ROLLBACK", "rollback").ok();
    return st;
  }
  return Exec(db, "COMMIT", "commit");
}

// Inserts one pending job (uuid4 task id when the spec has none) and returns
// the stored row. Validates the spec (InvalidArgument) and reports a taken
// task id as AlreadyExists. REQUIRES: write_mu held, inside a transaction.
// Defined in catalog_jobs.cc.
Result<Job> InsertJobLocked(sqlite3* db, const JobSpec& spec);

// `values` as a JSON array text, for `json_each(?)` lists that let one
// statement take any number of keys (SQLite's JSON1 is built in; carray is not).
std::string JsonArrayOf(std::span<const int64_t> values);
std::string JsonArrayOf(std::span<const std::string> values);

// A vector BLOB as float32 values (little-endian on every platform we build for).
// Corruption when the blob is not a whole number of floats.
Result<std::vector<float>> DecodeVectorBlob(const void* blob, int bytes, std::string_view what);

}  // namespace catalog_internal

struct Catalog::Impl {
  CatalogOptions options;
  std::mutex write_mu;
  sqlite3* writer = nullptr;  // guarded by write_mu

  std::mutex read_mu;
  std::condition_variable read_cv;
  std::vector<sqlite3*> idle_readers;  // guarded by read_mu
  std::vector<sqlite3*> all_readers;
  // One per reader, made at open (the map itself never changes after).
  std::unordered_map<sqlite3*, catalog_internal::StmtCache> reader_stmts;

  ~Impl() {
    for (auto& [db, cache] : reader_stmts) {
      for (auto& [sql, stmt] : cache) sqlite3_finalize(stmt);
    }
    for (sqlite3* db : all_readers) sqlite3_close(db);
    if (writer) {
      // Fold the WAL back into the main file so the next open starts small.
      sqlite3_exec(writer, "PRAGMA wal_checkpoint(TRUNCATE);", nullptr, nullptr, nullptr);
      sqlite3_close(writer);
    }
  }

  // Borrows a read connection for the lifetime of the lease.
  class Lease {
   public:
    explicit Lease(Impl* impl) : impl_(impl) {
      std::unique_lock<std::mutex> lock(impl_->read_mu);
      impl_->read_cv.wait(lock, [&] { return !impl_->idle_readers.empty(); });
      db_ = impl_->idle_readers.back();
      impl_->idle_readers.pop_back();
    }
    ~Lease() {
      {
        std::lock_guard<std::mutex> lock(impl_->read_mu);
        impl_->idle_readers.push_back(db_);
      }
      impl_->read_cv.notify_one();
    }
    sqlite3* db() const { return db_; }
    // The connection's prepared statements (see Stmt).
    catalog_internal::StmtCache* stmts() const { return &impl_->reader_stmts.at(db_); }

   private:
    Impl* impl_;
    sqlite3* db_;
  };
};

// Marks the live records of `uri` and its subtree as deleted (tombstones
// with new sequence numbers). REQUIRES: write_mu held, inside a transaction.
Result<uint64_t> TombstoneRecordsUnderLocked(sqlite3* db, std::string_view account,
                                             std::string_view uri);

// Catalog::UpsertRecords' body. REQUIRES: write_mu held, inside a transaction.
Status UpsertRecordsLocked(sqlite3* db, std::string_view account, std::vector<Record>* records,
                           const std::vector<bool>& keep_stored_tags = {});

}  // namespace skald
