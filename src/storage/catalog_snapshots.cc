// Catalog: snapshot objects, refs and ignore rules (tables snapshot_objects,
// snapshot_refs, snapshot_ignore; storage/snapshot_objects.h). Layout:
// docs/format/catalog.md.

#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/catalog_internal.h"

namespace skald {

using namespace catalog_internal;  // NOLINT: part of the catalog itself

namespace {

Status PutObjectsLocked(sqlite3* db, std::string_view account,
                        std::span<const SnapshotObject> objects) {
  Stmt put(db,
           "INSERT OR IGNORE INTO snapshot_objects(account, oid, kind, sha256, data) "
           "VALUES(?, ?, ?, ?, ?)");
  if (!put.prepared()) return SqlError(db, "store snapshot object");
  for (const SnapshotObject& o : objects) {
    put.Reset();
    put.Bind(1, account).Bind(2, o.oid).Bind(3, static_cast<int64_t>(o.kind));
    put.Bind(4, o.sha256).BindBlob(5, o.data.data(), o.data.size());
    SKALD_RETURN_IF_ERROR(put.Run("store snapshot object"));
  }
  return Status::Ok();
}

std::string BlobColumn(const Stmt& s, int col) {
  const void* p = sqlite3_column_blob(s.raw(), col);
  const int n = sqlite3_column_bytes(s.raw(), col);
  return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

}  // namespace

Result<std::optional<SnapshotObject>> Catalog::GetSnapshotObject(std::string_view account,
                                                                 std::string_view oid) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), "SELECT kind, sha256, data FROM snapshot_objects WHERE account=? AND oid=?");
  if (!s.prepared()) return SqlError(lease.db(), "get snapshot object");
  s.Bind(1, account).Bind(2, oid);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return std::optional<SnapshotObject>();
  if (rc != SQLITE_ROW) return SqlError(lease.db(), "get snapshot object");
  SnapshotObject o;
  o.oid = std::string(oid);
  o.kind = static_cast<SnapshotObjectKind>(s.Int(0));
  o.sha256 = s.Text(1);
  o.data = BlobColumn(s, 2);
  return std::optional<SnapshotObject>(std::move(o));
}

Result<std::optional<std::string>> Catalog::FindSnapshotBlob(std::string_view account,
                                                             std::string_view sha256) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         "SELECT oid FROM snapshot_objects WHERE account=? AND sha256=? AND kind=1 LIMIT 1");
  if (!s.prepared()) return SqlError(lease.db(), "find snapshot blob");
  s.Bind(1, account).Bind(2, sha256);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return SqlError(lease.db(), "find snapshot blob");
  return std::optional<std::string>(s.Text(0));
}

Result<std::vector<std::string>> Catalog::SnapshotCommitsWithPrefix(std::string_view account,
                                                                    std::string_view prefix,
                                                                    size_t limit) {
  Impl::Lease lease(impl_.get());
  // Ids are lower-case hex: the range [prefix, prefix + 'g') holds exactly
  // the ids that start with it.
  Stmt s(lease.db(),
         "SELECT oid FROM snapshot_objects WHERE account=? AND oid>=? AND oid<? AND kind=3 "
         "ORDER BY oid LIMIT ?");
  if (!s.prepared()) return SqlError(lease.db(), "find snapshot commits");
  s.Bind(1, account).Bind(2, prefix).Bind(3, std::string(prefix) + "g");
  s.Bind(4, static_cast<int64_t>(limit));
  std::vector<std::string> oids;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) oids.push_back(s.Text(0));
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "find snapshot commits");
  return oids;
}

Result<std::optional<std::string>> Catalog::GetSnapshotRef(std::string_view account,
                                                           std::string_view name) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), "SELECT oid FROM snapshot_refs WHERE account=? AND name=?");
  if (!s.prepared()) return SqlError(lease.db(), "get snapshot ref");
  s.Bind(1, account).Bind(2, name);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return SqlError(lease.db(), "get snapshot ref");
  return std::optional<std::string>(s.Text(0));
}

Status Catalog::StoreSnapshotCommit(std::string_view account,
                                    std::span<const SnapshotObject> objects, std::string_view name,
                                    const std::optional<std::string>& expected,
                                    std::string_view oid) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    Stmt get(db, "SELECT oid FROM snapshot_refs WHERE account=? AND name=?");
    if (!get.prepared()) return SqlError(db, "get snapshot ref");
    get.Bind(1, account).Bind(2, name);
    const int rc = get.Step();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqlError(db, "get snapshot ref");
    std::optional<std::string> current;
    if (rc == SQLITE_ROW) current = get.Text(0);
    if (current != expected) {
      return Status::Conflict(fmt::format("{} moved while this commit was made; try again", name));
    }
    SKALD_RETURN_IF_ERROR(PutObjectsLocked(db, account, objects));
    Stmt set(db, "INSERT OR REPLACE INTO snapshot_refs(account, name, oid) VALUES(?, ?, ?)");
    if (!set.prepared()) return SqlError(db, "set snapshot ref");
    set.Bind(1, account).Bind(2, name).Bind(3, oid);
    return set.Run("set snapshot ref");
  });
}

Status Catalog::StoreSnapshotObjects(std::string_view account,
                                     std::span<const SnapshotObject> objects) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&] { return PutObjectsLocked(db, account, objects); });
}

Result<bool> Catalog::HasSnapshotObject(std::string_view account, std::string_view oid) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), "SELECT 1 FROM snapshot_objects WHERE account=? AND oid=?");
  if (!s.prepared()) return SqlError(lease.db(), "find snapshot object");
  s.Bind(1, account).Bind(2, oid);
  const int rc = s.Step();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqlError(lease.db(), "find snapshot object");
  return rc == SQLITE_ROW;
}

Status Catalog::DeleteSnapshotBlobs(std::string_view account, std::span<const std::string> oids) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    Stmt del(db, "DELETE FROM snapshot_objects WHERE account=? AND oid=? AND kind=1");
    if (!del.prepared()) return SqlError(db, "delete snapshot blob");
    for (const std::string& oid : oids) {
      del.Reset();
      del.Bind(1, account).Bind(2, oid);
      SKALD_RETURN_IF_ERROR(del.Run("delete snapshot blob"));
    }
    return Status::Ok();
  });
}

Result<std::string> Catalog::GetSnapshotIgnore(std::string_view account) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), "SELECT content FROM snapshot_ignore WHERE account=?");
  if (!s.prepared()) return SqlError(lease.db(), "get snapshot ignore");
  s.Bind(1, account);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return std::string();
  if (rc != SQLITE_ROW) return SqlError(lease.db(), "get snapshot ignore");
  return s.Text(0);
}

Status Catalog::SetSnapshotIgnore(std::string_view account, std::string_view content) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  Stmt s(db, content.empty()
                 ? "DELETE FROM snapshot_ignore WHERE account=?"
                 : "INSERT OR REPLACE INTO snapshot_ignore(account, content) VALUES(?, ?)");
  if (!s.prepared()) return SqlError(db, "set snapshot ignore");
  s.Bind(1, account);
  if (!content.empty()) s.Bind(2, content);
  return s.Run("set snapshot ignore");
}

}  // namespace skald
