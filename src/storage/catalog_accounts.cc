// Catalog: the account registry (tables `accounts` and `users`). Layout:
// docs/format/catalog.md. Who may change what is decided by the service
// (service/account_registry.h); this file only stores rows.

#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/catalog_internal.h"

namespace skald {

using namespace catalog_internal;  // NOLINT: part of the catalog itself

namespace {

constexpr const char* kUserColumns =
    "account_id, user_id, role, key_hash, key_prefix, created_ns, deleting";

UserRow ReadUser(const Stmt& s) {
  UserRow u;
  u.account_id = s.Text(0);
  u.user_id = s.Text(1);
  u.role = s.Text(2);
  u.key_hash = s.Text(3);
  u.key_prefix = s.Text(4);
  u.created_ns = s.Int(5);
  u.deleting = s.Int(6) != 0;
  return u;
}

Result<bool> AccountExistsLocked(sqlite3* db, std::string_view account_id) {
  Stmt s(db, "SELECT 1 FROM accounts WHERE account_id=?");
  if (!s.prepared()) return SqlError(db, "get account");
  s.Bind(1, account_id);
  int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) return SqlError(db, "get account");
  return false;
}

Status InsertUserLocked(sqlite3* db, const UserRow& u) {
  Stmt s(db, fmt::format("INSERT OR IGNORE INTO users({}) VALUES(?, ?, ?, ?, ?, ?, ?)",
                         kUserColumns));
  if (!s.prepared()) return SqlError(db, "insert user");
  s.Bind(1, u.account_id).Bind(2, u.user_id).Bind(3, u.role).Bind(4, u.key_hash);
  s.Bind(5, u.key_prefix).Bind(6, u.created_ns).Bind(7, int64_t{u.deleting});
  SKALD_RETURN_IF_ERROR(s.Run("insert user"));
  if (sqlite3_changes(db) == 0) {
    return Status::AlreadyExists(fmt::format("User already exists: {}", u.user_id));
  }
  return Status::Ok();
}

// Runs a one-row UPDATE on a live (not deleting) user; NotFound when no row changed.
Status UpdateLiveUser(sqlite3* db, Stmt& s, std::string_view user_id, std::string_view what) {
  SKALD_RETURN_IF_ERROR(s.Run(what));
  if (sqlite3_changes(db) == 0) {
    return Status::NotFound(fmt::format("User not found: {}", user_id));
  }
  return Status::Ok();
}

}  // namespace

Status Catalog::InsertAccount(std::string_view account_id, int64_t created_ns,
                              const UserRow* first_user) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    Stmt s(db, "INSERT OR IGNORE INTO accounts(account_id, created_ns) VALUES(?, ?)");
    if (!s.prepared()) return SqlError(db, "insert account");
    s.Bind(1, account_id).Bind(2, created_ns);
    SKALD_RETURN_IF_ERROR(s.Run("insert account"));
    if (sqlite3_changes(db) == 0) {
      return Status::AlreadyExists(fmt::format("Account already exists: {}", account_id));
    }
    if (first_user != nullptr) SKALD_RETURN_IF_ERROR(InsertUserLocked(db, *first_user));
    return Status::Ok();
  });
}

Status Catalog::EnsureAccountRow(std::string_view account_id, int64_t created_ns) {
  {
    Impl::Lease lease(impl_.get());
    SKALD_ASSIGN_OR_RETURN(bool exists, AccountExistsLocked(lease.db(), account_id));
    if (exists) return Status::Ok();  // the common case writes nothing
  }
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  Stmt s(impl_->writer, "INSERT OR IGNORE INTO accounts(account_id, created_ns) VALUES(?, ?)");
  if (!s.prepared()) return SqlError(impl_->writer, "register account");
  s.Bind(1, account_id).Bind(2, created_ns);
  return s.Run("register account");
}

Result<std::optional<AccountRow>> Catalog::GetAccount(std::string_view account_id) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         "SELECT a.account_id, a.created_ns, (SELECT count(*) FROM users u WHERE "
         "u.account_id=a.account_id) FROM accounts a WHERE a.account_id=?");
  if (!s.prepared()) return SqlError(lease.db(), "get account");
  s.Bind(1, account_id);
  int rc = s.Step();
  if (rc == SQLITE_DONE) return std::optional<AccountRow>();
  if (rc != SQLITE_ROW) return SqlError(lease.db(), "get account");
  AccountRow row{s.Text(0), s.Int(1), static_cast<uint64_t>(s.Int(2))};
  return std::optional<AccountRow>(std::move(row));
}

Result<std::vector<AccountRow>> Catalog::ListAccountRows() {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         "SELECT a.account_id, a.created_ns, (SELECT count(*) FROM users u WHERE "
         "u.account_id=a.account_id) FROM accounts a ORDER BY a.account_id");
  if (!s.prepared()) return SqlError(lease.db(), "list accounts");
  std::vector<AccountRow> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back(AccountRow{s.Text(0), s.Int(1), static_cast<uint64_t>(s.Int(2))});
  }
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "list accounts");
  return out;
}

Status Catalog::InsertUser(const UserRow& user) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    SKALD_ASSIGN_OR_RETURN(bool exists, AccountExistsLocked(db, user.account_id));
    if (!exists) return Status::NotFound(fmt::format("Account not found: {}", user.account_id));
    return InsertUserLocked(db, user);
  });
}

Result<std::optional<UserRow>> Catalog::GetUser(std::string_view account_id,
                                                std::string_view user_id) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         fmt::format("SELECT {} FROM users WHERE account_id=? AND user_id=?", kUserColumns));
  if (!s.prepared()) return SqlError(lease.db(), "get user");
  s.Bind(1, account_id).Bind(2, user_id);
  int rc = s.Step();
  if (rc == SQLITE_DONE) return std::optional<UserRow>();
  if (rc != SQLITE_ROW) return SqlError(lease.db(), "get user");
  return std::optional<UserRow>(ReadUser(s));
}

Result<std::vector<UserRow>> Catalog::ListUsers(std::string_view account_id) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), fmt::format("SELECT {} FROM users WHERE account_id=? ORDER BY user_id",
                                 kUserColumns));
  if (!s.prepared()) return SqlError(lease.db(), "list users");
  s.Bind(1, account_id);
  std::vector<UserRow> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(ReadUser(s));
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "list users");
  return out;
}

Status Catalog::SetUserKey(std::string_view account_id, std::string_view user_id,
                           std::string_view key_hash, std::string_view key_prefix) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  Stmt s(db,
         "UPDATE users SET key_hash=?, key_prefix=? WHERE account_id=? AND user_id=? AND "
         "deleting=0");
  if (!s.prepared()) return SqlError(db, "set user key");
  s.Bind(1, key_hash).Bind(2, key_prefix).Bind(3, account_id).Bind(4, user_id);
  return UpdateLiveUser(db, s, user_id, "set user key");
}

Status Catalog::SetUserRole(std::string_view account_id, std::string_view user_id,
                            std::string_view role) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  Stmt s(db, "UPDATE users SET role=? WHERE account_id=? AND user_id=? AND deleting=0");
  if (!s.prepared()) return SqlError(db, "set user role");
  s.Bind(1, role).Bind(2, account_id).Bind(3, user_id);
  return UpdateLiveUser(db, s, user_id, "set user role");
}

Result<Job> Catalog::BeginUserDeletion(std::string_view account_id, std::string_view user_id,
                                       const JobSpec& cleanup) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  Job job;
  Status st = InTransaction(db, [&]() -> Status {
    Stmt probe(db, "SELECT deleting FROM users WHERE account_id=? AND user_id=?");
    if (!probe.prepared()) return SqlError(db, "delete user");
    probe.Bind(1, account_id).Bind(2, user_id);
    int rc = probe.Step();
    if (rc == SQLITE_DONE) return Status::NotFound(fmt::format("User not found: {}", user_id));
    if (rc != SQLITE_ROW) return SqlError(db, "delete user");
    if (probe.Int(0) != 0) {
      return Status::FailedPrecondition(fmt::format("User is being deleted: {}", user_id));
    }
    Stmt s(db,
           "UPDATE users SET deleting=1, key_hash='', key_prefix='' WHERE account_id=? AND "
           "user_id=?");
    if (!s.prepared()) return SqlError(db, "delete user");
    s.Bind(1, account_id).Bind(2, user_id);
    SKALD_RETURN_IF_ERROR(s.Run("delete user"));
    SKALD_ASSIGN_OR_RETURN(job, InsertJobLocked(db, cleanup));
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return job;
}

Status Catalog::DeleteUserRow(std::string_view account_id, std::string_view user_id) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  Stmt s(db, "DELETE FROM users WHERE account_id=? AND user_id=?");
  if (!s.prepared()) return SqlError(db, "drop user");
  s.Bind(1, account_id).Bind(2, user_id);
  return s.Run("drop user");
}

Result<uint64_t> Catalog::DeleteUserJobs(std::string_view account_id, std::string_view user_id,
                                         std::string_view keep_task_id) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  Stmt s(db,
         "DELETE FROM jobs WHERE account=? AND user=? AND task_id<>? AND state<>'running'");
  if (!s.prepared()) return SqlError(db, "delete user jobs");
  s.Bind(1, account_id).Bind(2, user_id).Bind(3, keep_task_id);
  SKALD_RETURN_IF_ERROR(s.Run("delete user jobs"));
  return static_cast<uint64_t>(sqlite3_changes(db));
}

Status Catalog::PurgeAccount(std::string_view account_id) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    SKALD_ASSIGN_OR_RETURN(bool exists, AccountExistsLocked(db, account_id));
    if (!exists) return Status::NotFound(fmt::format("Account not found: {}", account_id));
    SKALD_ASSIGN_OR_RETURN(uint64_t tombstones,
                           TombstoneRecordsUnderLocked(db, account_id, "viking://"));
    (void)tombstones;
    for (const char* sql : {"DELETE FROM users WHERE account_id=?",
                            "DELETE FROM accounts WHERE account_id=?",
                            "DELETE FROM nodes WHERE account=?",
                            "DELETE FROM jobs WHERE account=? AND state<>'running'",
                            "DELETE FROM embed_cache WHERE account=?",
                            "DELETE FROM snapshot_objects WHERE account=?",
                            "DELETE FROM snapshot_refs WHERE account=?",
                            "DELETE FROM snapshot_ignore WHERE account=?"}) {
      Stmt s(db, sql);
      if (!s.prepared()) return SqlError(db, "delete account");
      s.Bind(1, account_id);
      SKALD_RETURN_IF_ERROR(s.Run("delete account"));
    }
    // The account's relations (service/relation_ops.h keys them
    // "relations/<account>/<uri>") and its unfinished snapshot restores: a
    // new account of the same id starts with none.
    for (std::string_view kind : {std::string_view("relations/"), kSnapshotPendingMetaPrefix}) {
      Stmt meta(db, "DELETE FROM meta WHERE substr(key, 1, ?) = ?");
      if (!meta.prepared()) return SqlError(db, "delete account");
      const std::string prefix = fmt::format("{}{}/", kind, account_id);
      meta.Bind(1, static_cast<int64_t>(prefix.size()));
      meta.Bind(2, prefix);
      SKALD_RETURN_IF_ERROR(meta.Run("delete account"));
    }
    return Status::Ok();
  });
}

}  // namespace skald
