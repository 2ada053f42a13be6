#include "storage/catalog.h"

#include <sqlite3.h>

#include <condition_variable>
#include <mutex>

#include <algorithm>

#include <fmt/format.h>

#include "common/strings.h"

namespace skald {

std::string_view ParentPath(std::string_view path) {
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? std::string_view() : path.substr(0, pos);
}

std::string_view BaseName(std::string_view path) {
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}

namespace {

// Forward migrations; entry i brings the schema from version i to i+1.
const char* const kMigrations[] = {
    // 0 -> 1: nodes and metadata.
    R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nodes(
  account  TEXT    NOT NULL,
  path     TEXT    NOT NULL,
  parent   TEXT    NOT NULL,
  name     TEXT    NOT NULL,
  is_dir   INTEGER NOT NULL,
  size     INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL,
  hash     TEXT    NOT NULL,
  PRIMARY KEY(account, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS nodes_by_parent ON nodes(account, parent, name);
)sql",
};
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kMigrationCount == Catalog::kSchemaVersion);

Status SqlError(sqlite3* db, std::string_view what) {
  int code = sqlite3_errcode(db);
  std::string msg = fmt::format("catalog {}: {}", what, sqlite3_errmsg(db));
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return Status::Corruption(msg);
  if (code == SQLITE_FULL) return Status::ResourceExhausted(msg);
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) return Status::Unavailable(msg);
  return Status::IOError(msg);
}

// A prepared statement, finalized on destruction.
class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
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
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

Status Exec(sqlite3* db, const char* sql, std::string_view what) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    Status base = SqlError(db, what);
    return Status(base.code(), fmt::format("catalog {}: {}", what, msg));
  }
  return Status::Ok();
}

constexpr const char* kNodeColumns = "path, is_dir, size, mtime_ns, ctime_ns, hash";

CatalogNode ReadNode(const Stmt& s) {
  CatalogNode n;
  n.path = s.Text(0);
  n.is_dir = s.Int(1) != 0;
  n.size = static_cast<uint64_t>(s.Int(2));
  n.mtime_ns = s.Int(3);
  n.ctime_ns = s.Int(4);
  n.hash = s.Text(5);
  return n;
}

// Upper bound of the key range of `path`'s descendants: every descendant
// starts with "path/", and '0' is the byte after '/'.
std::string SubtreeEnd(std::string_view path) { return std::string(path) + "0"; }
std::string SubtreeBegin(std::string_view path) { return std::string(path) + "/"; }

Result<sqlite3*> OpenConnection(const std::string& path, bool sync) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Status st = Status::IOError(fmt::format("open catalog {}: {}", path,
                                            db ? sqlite3_errmsg(db) : "out of memory"));
    sqlite3_close(db);
    return st;
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_extended_result_codes(db, 0);
  std::string pragmas = fmt::format(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous={}; PRAGMA foreign_keys=OFF;",
      sync ? "FULL" : "NORMAL");
  Status st = Exec(db, pragmas.c_str(), "configure");
  if (!st.ok()) {
    sqlite3_close(db);
    return st;
  }
  return db;
}

}  // namespace

struct Catalog::Impl {
  CatalogOptions options;
  std::mutex write_mu;
  sqlite3* writer = nullptr;  // guarded by write_mu

  std::mutex read_mu;
  std::condition_variable read_cv;
  std::vector<sqlite3*> idle_readers;  // guarded by read_mu
  std::vector<sqlite3*> all_readers;

  ~Impl() {
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

   private:
    Impl* impl_;
    sqlite3* db_;
  };

  Status Migrate() {
    SKALD_RETURN_IF_ERROR(Exec(writer, "BEGIN IMMEDIATE", "begin migration"));
    int version = 0;
    long long stored = 0;
    {
      Stmt probe(writer, "SELECT value FROM meta WHERE key='schema_version'");
      if (probe.prepared() && probe.Step() == SQLITE_ROW) {
        std::string text = probe.Text(0);
        if (!ParseInt64(text, &stored)) {
          Exec(writer, "ROLLBACK", "rollback").ok();
          return Status::Corruption("catalog schema_version is not a number: " + text);
        }
        version = static_cast<int>(stored);
      }
    }
    if (version > kSchemaVersion) {
      Exec(writer, "ROLLBACK", "rollback").ok();
      return Status::FailedPrecondition(fmt::format(
          "catalog schema version {} is newer than this binary supports ({}); upgrade Skald",
          version, kSchemaVersion));
    }
    for (int v = version; v < kSchemaVersion; ++v) {
      Status st = Exec(writer, kMigrations[v], fmt::format("migrate to v{}", v + 1));
      if (!st.ok()) {
        Exec(writer, "ROLLBACK", "rollback").ok();
        return st;
      }
    }
    Stmt set(writer, "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', ?)");
    set.Bind(1, std::to_string(kSchemaVersion));
    Status st = set.Run("record schema version");
    if (!st.ok()) {
      Exec(writer, "ROLLBACK", "rollback").ok();
      return st;
    }
    return Exec(writer, "COMMIT", "commit migration");
  }
};

Catalog::Catalog() : impl_(std::make_unique<Impl>()) {}
Catalog::~Catalog() = default;

Result<std::unique_ptr<Catalog>> Catalog::Open(const CatalogOptions& options) {
  if (options.path.empty()) return Status::InvalidArgument("catalog path is empty");
  if (options.read_connections < 1) {
    return Status::InvalidArgument("catalog read_connections must be at least 1");
  }
  std::unique_ptr<Catalog> catalog(new Catalog());
  Impl& impl = *catalog->impl_;
  impl.options = options;
  SKALD_ASSIGN_OR_RETURN(impl.writer, OpenConnection(options.path, options.sync));
  // A file that is not SQLite fails here, on the first real read.
  SKALD_RETURN_IF_ERROR(Exec(impl.writer, "SELECT count(*) FROM sqlite_master", "read schema"));
  SKALD_RETURN_IF_ERROR(impl.Migrate());
  for (int i = 0; i < options.read_connections; ++i) {
    SKALD_ASSIGN_OR_RETURN(sqlite3 * db, OpenConnection(options.path, options.sync));
    Exec(db, "PRAGMA query_only=ON", "configure reader").ok();
    impl.all_readers.push_back(db);
    impl.idle_readers.push_back(db);
  }
  return catalog;
}

Result<std::optional<CatalogNode>> Catalog::Get(std::string_view account,
                                                std::string_view path) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), fmt::format("SELECT {} FROM nodes WHERE account=? AND path=?", kNodeColumns));
  if (!s.prepared()) return SqlError(lease.db(), "get");
  s.Bind(1, account).Bind(2, path);
  int rc = s.Step();
  if (rc == SQLITE_ROW) return std::optional<CatalogNode>(ReadNode(s));
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "get");
  return std::optional<CatalogNode>();
}

Result<std::vector<CatalogNode>> Catalog::ListChildren(std::string_view account,
                                                       std::string_view parent) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), fmt::format("SELECT {} FROM nodes WHERE account=? AND parent=? ORDER BY name",
                                 kNodeColumns));
  if (!s.prepared()) return SqlError(lease.db(), "list");
  s.Bind(1, account).Bind(2, parent);
  std::vector<CatalogNode> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(ReadNode(s));
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "list");
  return out;
}

Result<std::vector<CatalogNode>> Catalog::ListSubtree(std::string_view account,
                                                      std::string_view path, int max_depth) {
  Impl::Lease lease(impl_.get());
  std::string sql = fmt::format("SELECT {} FROM nodes WHERE account=?", kNodeColumns);
  if (!path.empty()) sql += " AND path >= ? AND path < ?";
  sql += " ORDER BY path";
  Stmt s(lease.db(), sql);
  if (!s.prepared()) return SqlError(lease.db(), "list subtree");
  s.Bind(1, account);
  if (!path.empty()) s.Bind(2, SubtreeBegin(path)).Bind(3, SubtreeEnd(path));
  size_t base_depth = path.empty() ? 0 : static_cast<size_t>(std::count(path.begin(), path.end(), '/')) + 1;
  std::vector<CatalogNode> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    CatalogNode n = ReadNode(s);
    if (max_depth > 0) {
      size_t depth = static_cast<size_t>(std::count(n.path.begin(), n.path.end(), '/')) + 1;
      if (depth - base_depth > static_cast<size_t>(max_depth)) continue;
    }
    out.push_back(std::move(n));
  }
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "list subtree");
  return out;
}

Result<uint64_t> Catalog::CountSubtree(std::string_view account, std::string_view path) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         "SELECT count(*) FROM nodes WHERE account=? AND (path=? OR (path >= ? AND path < ?))");
  if (!s.prepared()) return SqlError(lease.db(), "count");
  s.Bind(1, account).Bind(2, path).Bind(3, SubtreeBegin(path)).Bind(4, SubtreeEnd(path));
  if (s.Step() != SQLITE_ROW) return SqlError(lease.db(), "count");
  return static_cast<uint64_t>(s.Int(0));
}

namespace {

Result<uint64_t> DeleteSubtreeLocked(sqlite3* db, std::string_view account,
                                     std::string_view path) {
  Stmt s(db, "DELETE FROM nodes WHERE account=? AND (path=? OR (path >= ? AND path < ?))");
  if (!s.prepared()) return SqlError(db, "delete");
  s.Bind(1, account).Bind(2, path).Bind(3, SubtreeBegin(path)).Bind(4, SubtreeEnd(path));
  SKALD_RETURN_IF_ERROR(s.Run("delete"));
  return static_cast<uint64_t>(sqlite3_changes(db));
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

}  // namespace

Status Catalog::Apply(std::string_view account, const std::vector<CatalogNode>& upserts,
                      const std::vector<std::string>& delete_subtrees) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    for (const std::string& path : delete_subtrees) {
      auto deleted = DeleteSubtreeLocked(db, account, path);
      if (!deleted.ok()) return deleted.status();
    }
    Stmt s(db,
           "INSERT OR REPLACE INTO nodes(account, path, parent, name, is_dir, size, mtime_ns, "
           "ctime_ns, hash) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!s.prepared()) return SqlError(db, "upsert");
    for (const CatalogNode& n : upserts) {
      s.Bind(1, account).Bind(2, n.path).Bind(3, ParentPath(n.path)).Bind(4, BaseName(n.path));
      s.Bind(5, int64_t{n.is_dir}).Bind(6, static_cast<int64_t>(n.size)).Bind(7, n.mtime_ns);
      s.Bind(8, n.ctime_ns).Bind(9, n.hash);
      SKALD_RETURN_IF_ERROR(s.Run("upsert"));
      s.Reset();
    }
    return Status::Ok();
  });
}

Result<uint64_t> Catalog::DeleteSubtree(std::string_view account, std::string_view path) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  uint64_t count = 0;
  Status st = InTransaction(impl_->writer, [&]() -> Status {
    SKALD_ASSIGN_OR_RETURN(count, DeleteSubtreeLocked(impl_->writer, account, path));
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return count;
}

Status Catalog::MoveSubtree(std::string_view account, std::string_view from,
                            std::string_view to, int64_t mtime_ns) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    // The moved root changes path, parent, name and mtime.
    Stmt root(db,
              "UPDATE nodes SET path=?, parent=?, name=?, mtime_ns=? WHERE account=? AND path=?");
    if (!root.prepared()) return SqlError(db, "move");
    root.Bind(1, to).Bind(2, ParentPath(to)).Bind(3, BaseName(to)).Bind(4, mtime_ns);
    root.Bind(5, account).Bind(6, from);
    SKALD_RETURN_IF_ERROR(root.Run("move"));
    // Descendants keep their names; path and parent swap the prefix.
    Stmt kids(db,
              "UPDATE nodes SET path = ?1 || substr(path, ?2), parent = ?1 || substr(parent, ?2) "
              "WHERE account=?3 AND path >= ?4 AND path < ?5");
    if (!kids.prepared()) return SqlError(db, "move");
    kids.Bind(1, to).Bind(2, static_cast<int64_t>(from.size()) + 1).Bind(3, account);
    kids.Bind(4, SubtreeBegin(from)).Bind(5, SubtreeEnd(from));
    return kids.Run("move");
  });
}

Result<std::vector<std::string>> Catalog::ListAccounts() {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), "SELECT DISTINCT account FROM nodes ORDER BY account");
  if (!s.prepared()) return SqlError(lease.db(), "list accounts");
  std::vector<std::string> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(s.Text(0));
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "list accounts");
  return out;
}

Result<std::optional<std::string>> Catalog::GetMeta(std::string_view key) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), "SELECT value FROM meta WHERE key=?");
  if (!s.prepared()) return SqlError(lease.db(), "get meta");
  s.Bind(1, key);
  int rc = s.Step();
  if (rc == SQLITE_ROW) return std::optional<std::string>(s.Text(0));
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "get meta");
  return std::optional<std::string>();
}

Status Catalog::SetMeta(std::string_view key, std::string_view value) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  Stmt s(impl_->writer, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  if (!s.prepared()) return SqlError(impl_->writer, "set meta");
  s.Bind(1, key).Bind(2, value);
  return s.Run("set meta");
}

}  // namespace skald
