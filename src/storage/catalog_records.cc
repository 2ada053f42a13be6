// Catalog: retrieval records (vectors and the fields filters need) with a
// change sequence that indexes use to catch up. Layout: docs/format/catalog.md.

#include <cstring>

#include "common/json_util.h"
#include "storage/catalog.h"
#include "storage/catalog_internal.h"

namespace skald {

using namespace catalog_internal;  // NOLINT: part of the catalog itself

namespace catalog_internal {

std::string JsonArrayOf(std::span<const int64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += std::to_string(values[i]);
  }
  out.push_back(']');
  return out;
}

std::string JsonArrayOf(std::span<const std::string> values) {
  Json array = Json::array();
  for (const std::string& v : values) array.push_back(v);
  return DumpJson(array);
}

Result<std::vector<float>> DecodeVectorBlob(const void* blob, int bytes, std::string_view what) {
  if (bytes < 0 || bytes % static_cast<int>(sizeof(float)) != 0) {
    return Status::Corruption(
        fmt::format("catalog {}: vector blob of {} bytes is not a float32 array", what, bytes));
  }
  std::vector<float> out(static_cast<size_t>(bytes) / sizeof(float));
  if (bytes > 0) std::memcpy(out.data(), blob, static_cast<size_t>(bytes));
  return out;
}

}  // namespace catalog_internal

namespace {

// kRecordColumns qualified with the table alias `r`, with NULL in place of
// the vector unless `with_vectors` (skipping the blob saves most of the read).
std::string QualifiedRecordColumns(bool with_vectors) {
  return fmt::format(
      "r.account, r.key, r.id, r.uri, r.parent_uri, r.level, r.context_type, r.owner, "
      "r.abstract, r.embedder, {}, r.tags, r.created_ns, r.updated_ns, r.active_count, r.seq, "
      "r.deleted",
      with_vectors ? "r.vector" : "NULL");
}

constexpr const char* kRecordColumns =
    "account, key, id, uri, parent_uri, level, context_type, owner, abstract, embedder, vector, "
    "tags, "
    "created_ns, updated_ns, active_count, seq, deleted";

std::string EncodeTags(const std::vector<std::string>& tags) { return DumpJson(Json(tags)); }

std::vector<std::string> DecodeTags(const std::string& text) {
  std::vector<std::string> out;
  auto parsed = ParseJson(text);
  if (!parsed.ok() || !parsed->is_array()) return out;
  for (const Json& t : *parsed) {
    if (t.is_string()) out.push_back(t.get<std::string>());
  }
  return out;
}

// Reads a record row selected with kRecordColumns.
Result<Record> ReadRecord(sqlite3_stmt* s) {
  constexpr int c = 1;
  auto text = [&](int col) {
    const unsigned char* p = sqlite3_column_text(s, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(s, col)))
             : std::string();
  };
  Record r;
  r.account = text(0);
  r.key = static_cast<uint64_t>(sqlite3_column_int64(s, c + 0));
  r.id = text(c + 1);
  r.uri = text(c + 2);
  r.parent_uri = text(c + 3);
  r.level = sqlite3_column_int(s, c + 4);
  const std::string context_type = text(c + 5);
  std::optional<ContextType> parsed_type = ParseContextType(context_type);
  if (!parsed_type) {
    return Status::Corruption(
        fmt::format("catalog record {}: unknown context type '{}'", r.id, context_type));
  }
  r.context_type = *parsed_type;
  r.owner = text(c + 6);
  r.abstract = text(c + 7);
  r.embedder = text(c + 8);
  const void* blob = sqlite3_column_blob(s, c + 9);
  int bytes = sqlite3_column_bytes(s, c + 9);
  SKALD_ASSIGN_OR_RETURN(r.vector, DecodeVectorBlob(blob, bytes, "record " + r.id));
  r.tags = DecodeTags(text(c + 10));
  r.created_ns = sqlite3_column_int64(s, c + 11);
  r.updated_ns = sqlite3_column_int64(s, c + 12);
  r.active_count = sqlite3_column_int64(s, c + 13);
  r.seq = sqlite3_column_int64(s, c + 14);
  r.deleted = sqlite3_column_int(s, c + 15) != 0;
  return r;
}

// Steps a statement that selects record columns to the end.
Result<std::vector<Record>> ReadRecords(sqlite3* db, Stmt& s, std::string_view what) {
  std::vector<Record> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    SKALD_ASSIGN_OR_RETURN(Record r, ReadRecord(s.raw()));
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return SqlError(db, what);
  return out;
}

Result<int64_t> MaxSeqLocked(sqlite3* db) {
  Stmt s(db, "SELECT COALESCE(MAX(seq), 0) FROM records");
  if (!s.prepared() || s.Step() != SQLITE_ROW) return SqlError(db, "max seq");
  return s.Int(0);
}

}  // namespace

Status UpsertRecordsLocked(sqlite3* db, std::string_view account, std::vector<Record>* records,
                           const std::vector<bool>& keep_stored_tags) {
  SKALD_ASSIGN_OR_RETURN(int64_t seq, MaxSeqLocked(db));
  // ?16: keep the live stored row's tags (read here, in the write's transaction;
  // a deleted row's tags are not brought back).
  Stmt s(db,
         "INSERT INTO records(account, id, uri, parent_uri, level, context_type, owner, "
         "abstract, embedder, vector, tags, created_ns, updated_ns, active_count, seq, deleted) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 0) "
         "ON CONFLICT(account, id) DO UPDATE SET uri=?3, parent_uri=?4, level=?5, "
         "context_type=?6, owner=?7, abstract=?8, embedder=?9, vector=?10, "
         "tags=CASE WHEN ?16 AND records.deleted = 0 THEN records.tags ELSE ?11 END, "
         "created_ns=?12, updated_ns=?13, active_count=?14, seq=?15, deleted=0 "
         "RETURNING key, tags");
  if (!s.prepared()) return SqlError(db, "upsert record");
  for (size_t i = 0; i < records->size(); ++i) {
    Record& r = (*records)[i];
    const bool keep = i < keep_stored_tags.size() && keep_stored_tags[i];
    r.account = std::string(account);
    r.seq = ++seq;
    r.deleted = false;
    s.Bind(1, account).Bind(2, r.id).Bind(3, r.uri).Bind(4, r.parent_uri);
    s.Bind(5, int64_t{r.level}).Bind(6, ContextTypeName(r.context_type)).Bind(7, r.owner);
    s.Bind(8, r.abstract).Bind(9, r.embedder);
    s.BindBlob(10, r.vector.data(), r.vector.size() * sizeof(float));
    s.Bind(11, EncodeTags(r.tags)).Bind(12, r.created_ns).Bind(13, r.updated_ns);
    s.Bind(14, r.active_count).Bind(15, r.seq).Bind(16, int64_t{keep ? 1 : 0});
    if (s.Step() != SQLITE_ROW) return SqlError(db, "upsert record");
    r.key = static_cast<uint64_t>(s.Int(0));
    if (keep) r.tags = DecodeTags(s.Text(1));
    s.Reset();
  }
  return Status::Ok();
}

Status Catalog::UpsertRecords(std::string_view account, std::vector<Record>* records,
                              const std::vector<bool>& keep_stored_tags) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(
      db, [&]() -> Status { return UpsertRecordsLocked(db, account, records, keep_stored_tags); });
}

Result<uint64_t> TombstoneRecordsUnderLocked(sqlite3* db, std::string_view account,
                                             std::string_view uri) {
  SKALD_ASSIGN_OR_RETURN(int64_t seq, MaxSeqLocked(db));
  std::vector<int64_t> keys;
  {
    // "viking://" (the account root) covers every record of the account.
    bool everything = uri == "viking://" || uri == "viking:/";
    Stmt q(db, everything ? "SELECT key FROM records WHERE account=?1 AND deleted=0 ORDER BY key"
                          : "SELECT key FROM records WHERE account=?1 AND deleted=0 AND "
                            "(uri=?2 OR (uri >= ?2 || '/' AND uri < ?2 || '0')) ORDER BY key");
    if (!q.prepared()) return SqlError(db, "delete records");
    q.Bind(1, account);
    if (!everything) q.Bind(2, uri);
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) keys.push_back(q.Int(0));
    if (rc != SQLITE_DONE) return SqlError(db, "delete records");
  }
  Stmt u(db, "UPDATE records SET deleted=1, vector=NULL, seq=?1 WHERE key=?2");
  if (!u.prepared()) return SqlError(db, "delete records");
  for (int64_t key : keys) {
    u.Bind(1, ++seq).Bind(2, key);
    SKALD_RETURN_IF_ERROR(u.Run("delete records"));
    u.Reset();
  }
  return static_cast<uint64_t>(keys.size());
}

Result<uint64_t> Catalog::DeleteRecordsUnder(std::string_view account, std::string_view uri) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  uint64_t count = 0;
  Status st = InTransaction(db, [&]() -> Status {
    SKALD_ASSIGN_OR_RETURN(count, TombstoneRecordsUnderLocked(db, account, uri));
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return count;
}

Status Catalog::ScanRecords(std::string_view account, bool include_deleted,
                            const std::function<Status(const Record&)>& fn) {
  Impl::Lease lease(impl_.get());
  std::string sql = fmt::format("SELECT {} FROM records WHERE account=?{} ORDER BY key",
                                kRecordColumns, include_deleted ? "" : " AND deleted=0");
  Stmt s(lease.db(), sql);
  if (!s.prepared()) return SqlError(lease.db(), "scan records");
  s.Bind(1, account);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    SKALD_ASSIGN_OR_RETURN(Record r, ReadRecord(s.raw()));
    SKALD_RETURN_IF_ERROR(fn(r));
  }
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "scan records");
  return Status::Ok();
}

Result<std::vector<Record>> Catalog::RecordsChangedSince(int64_t after_seq, int limit,
                                                         bool with_vectors) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         fmt::format("SELECT {} FROM records AS r WHERE r.seq > ? ORDER BY r.seq LIMIT ?",
                     QualifiedRecordColumns(with_vectors)),
         lease.stmts());
  if (!s.prepared()) return SqlError(lease.db(), "records since");
  s.Bind(1, after_seq).Bind(2, int64_t{limit});
  return ReadRecords(lease.db(), s, "records since");
}

Result<std::vector<Record>> Catalog::GetRecordsByKeys(std::string_view account,
                                                      std::span<const uint64_t> keys,
                                                      bool with_vectors) {
  if (keys.empty()) return std::vector<Record>();
  Impl::Lease lease(impl_.get());
  // json_each drives the loop (CROSS JOIN pins that order: one primary-key
  // probe per key) and its `key` column is the position in the list, which
  // gives the caller's order.
  // The retriever's hot path: the statement is prepared once per connection.
  Stmt s(lease.db(),
         fmt::format("SELECT {} FROM json_each(?2) AS k CROSS JOIN records AS r "
                     "ON r.key = k.value WHERE r.account = ?1 AND r.deleted = 0 ORDER BY k.key",
                     QualifiedRecordColumns(with_vectors)),
         lease.stmts());
  if (!s.prepared()) return SqlError(lease.db(), "records by key");
  // Keys are SQLite integers: stored as int64 and handed out as uint64 (index ids).
  std::vector<int64_t> sql_keys(keys.begin(), keys.end());
  s.Bind(1, account).Bind(2, JsonArrayOf(sql_keys));
  return ReadRecords(lease.db(), s, "records by key");
}

Result<std::vector<Record>> Catalog::GetRecordsByUri(std::string_view account, std::string_view uri,
                                                     bool with_vectors) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         fmt::format("SELECT {} FROM records AS r WHERE r.account = ? AND r.uri = ? "
                     "AND r.deleted = 0 ORDER BY r.level, r.key",
                     QualifiedRecordColumns(with_vectors)),
         lease.stmts());
  if (!s.prepared()) return SqlError(lease.db(), "records by uri");
  s.Bind(1, account).Bind(2, uri);
  return ReadRecords(lease.db(), s, "records by uri");
}

Result<std::vector<Record>> Catalog::GetRecordsUnder(std::string_view account, std::string_view uri,
                                                     bool with_vectors) {
  std::vector<Record> out;
  SKALD_RETURN_IF_ERROR(ScanRecordsUnder(
      account, uri,
      [&](Record& r) {
        out.push_back(std::move(r));
        return true;
      },
      with_vectors));
  return out;
}

Status Catalog::ScanRecordsUnder(std::string_view account, std::string_view uri,
                                 const std::function<bool(Record&)>& visit, bool with_vectors) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         fmt::format("SELECT {} FROM records AS r WHERE r.account = ?1 AND r.deleted = 0 AND "
                     "(r.uri = ?2 OR (r.uri >= ?2 || '/' AND r.uri < ?2 || '0')) "
                     "ORDER BY r.uri, r.level, r.key",
                     QualifiedRecordColumns(with_vectors)),
         lease.stmts());
  if (!s.prepared()) return SqlError(lease.db(), "scan records");
  s.Bind(1, account).Bind(2, uri);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    SKALD_ASSIGN_OR_RETURN(Record r, ReadRecord(s.raw()));
    if (!visit(r)) return Status::Ok();
  }
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "scan records");
  return Status::Ok();
}

Result<uint64_t> Catalog::ApplyRecordTags(std::string_view account, std::span<const uint64_t> keys,
                                          std::span<const std::string> tags, TagMode mode) {
  if (keys.empty()) return uint64_t{0};
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  uint64_t updated = 0;
  Status done = InTransaction(db, [&]() -> Status {
    SKALD_ASSIGN_OR_RETURN(int64_t seq, MaxSeqLocked(db));
    Stmt read(db, "SELECT tags FROM records WHERE account = ?1 AND key = ?2 AND deleted = 0");
    Stmt write(db, "UPDATE records SET tags = ?1, seq = ?2 WHERE key = ?3");
    if (!read.prepared() || !write.prepared()) return SqlError(db, "set record tags");
    for (uint64_t key : keys) {
      read.Bind(1, account).Bind(2, static_cast<int64_t>(key));
      const int rc = read.Step();
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqlError(db, "set record tags");
      if (rc == SQLITE_DONE) {  // deleted meanwhile
        read.Reset();
        continue;
      }
      const std::vector<std::string> current = DecodeTags(read.Text(0));
      read.Reset();
      std::vector<std::string> next = ApplyTags(current, tags, mode);
      if (next == current) continue;
      write.Bind(1, EncodeTags(next)).Bind(2, ++seq).Bind(3, static_cast<int64_t>(key));
      SKALD_RETURN_IF_ERROR(write.Run("set record tags"));
      write.Reset();
      ++updated;
    }
    return Status::Ok();
  });
  if (!done.ok()) return done;
  return updated;
}

namespace {

// Adds 1 to active_count of the live records of `uris` (inside the caller's
// transaction on the writer `db`).
Status AddActiveCount(sqlite3* db, std::string_view account, std::span<const std::string> uris) {
  Stmt s(db,
         "UPDATE records SET active_count = active_count + 1 WHERE account = ?1 AND "
         "deleted = 0 AND uri IN (SELECT value FROM json_each(?2))");
  if (!s.prepared()) return SqlError(db, "bump active count");
  s.Bind(1, account).Bind(2, JsonArrayOf(uris));
  return s.Run("bump active count");
}

std::string BumpMarkerKey(std::string_view once_key) {
  return "active_count_bumped/" + std::string(once_key);
}

}  // namespace

Status Catalog::BumpActiveCount(std::string_view account, std::span<const std::string> uris) {
  if (uris.empty()) return Status::Ok();
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status { return AddActiveCount(db, account, uris); });
}

Result<bool> Catalog::BumpActiveCountOnce(std::string_view account, std::string_view once_key,
                                          std::span<const std::string> uris) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  bool bumped = false;
  Status done = InTransaction(db, [&]() -> Status {
    Stmt mark(db, "INSERT OR IGNORE INTO meta(key, value) VALUES(?, '1')");
    if (!mark.prepared()) return SqlError(db, "bump active count once");
    mark.Bind(1, BumpMarkerKey(once_key));
    SKALD_RETURN_IF_ERROR(mark.Run("bump active count once"));
    if (sqlite3_changes(db) == 0) return Status::Ok();  // counted before
    bumped = true;
    if (uris.empty()) return Status::Ok();
    return AddActiveCount(db, account, uris);
  });
  if (!done.ok()) return done;
  return bumped;
}

Status Catalog::ForgetActiveCountBump(std::string_view once_key) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  Stmt s(impl_->writer, "DELETE FROM meta WHERE key = ?");
  if (!s.prepared()) return SqlError(impl_->writer, "forget active count bump");
  s.Bind(1, BumpMarkerKey(once_key));
  return s.Run("forget active count bump");
}

Result<int64_t> Catalog::MaxRecordSeq() {
  Impl::Lease lease(impl_.get());
  return MaxSeqLocked(lease.db());
}

Result<uint64_t> Catalog::PurgeTombstones(int64_t up_to_seq) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  Stmt s(impl_->writer, "DELETE FROM records WHERE deleted=1 AND seq <= ?");
  if (!s.prepared()) return SqlError(impl_->writer, "purge tombstones");
  s.Bind(1, up_to_seq);
  SKALD_RETURN_IF_ERROR(s.Run("purge tombstones"));
  return static_cast<uint64_t>(sqlite3_changes(impl_->writer));
}

}  // namespace skald
