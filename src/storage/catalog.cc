#include "storage/catalog.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/strings.h"
#include "storage/catalog_internal.h"
#include "storage/sqlite_env_vfs.h"
#include "uri/uri_path.h"

namespace skald {

using namespace catalog_internal;  // NOLINT: this file is the catalog itself

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
    // 1 -> 2: retrieval records with their vectors, and a change sequence.
    R"sql(
CREATE TABLE IF NOT EXISTS records(
  key          INTEGER PRIMARY KEY,
  account      TEXT    NOT NULL,
  id           TEXT    NOT NULL,
  uri          TEXT    NOT NULL,
  parent_uri   TEXT    NOT NULL,
  level        INTEGER NOT NULL,
  context_type TEXT    NOT NULL,
  owner        TEXT    NOT NULL,
  abstract     TEXT    NOT NULL,
  embedder     TEXT    NOT NULL,
  vector       BLOB,
  tags         TEXT    NOT NULL,
  created_ns   INTEGER NOT NULL,
  updated_ns   INTEGER NOT NULL,
  active_count INTEGER NOT NULL,
  seq          INTEGER NOT NULL,
  deleted      INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS records_by_id ON records(account, id);
CREATE INDEX IF NOT EXISTS records_by_uri ON records(account, uri);
CREATE INDEX IF NOT EXISTS records_by_seq ON records(seq);
)sql",
    // 2 -> 3: the durable job queue (outbox) and the embedding cache.
    R"sql(
CREATE TABLE IF NOT EXISTS jobs(
  id             INTEGER PRIMARY KEY,
  task_id        TEXT    NOT NULL UNIQUE,
  kind           TEXT    NOT NULL,
  account        TEXT    NOT NULL,
  user           TEXT    NOT NULL,
  resource_id    TEXT    NOT NULL,
  payload        TEXT    NOT NULL,
  priority       INTEGER NOT NULL,
  state          TEXT    NOT NULL,
  attempts       INTEGER NOT NULL,
  max_attempts   INTEGER NOT NULL,
  not_before_ns  INTEGER NOT NULL,
  lease_until_ns INTEGER NOT NULL,
  stage          TEXT    NOT NULL,
  result         TEXT    NOT NULL,
  error          TEXT    NOT NULL,
  created_ns     INTEGER NOT NULL,
  updated_ns     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state, priority DESC, id);
CREATE INDEX IF NOT EXISTS jobs_by_resource ON jobs(account, resource_id);
CREATE TABLE IF NOT EXISTS embed_cache(
  embedder  TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector    BLOB NOT NULL,
  PRIMARY KEY(embedder, text_hash)
) WITHOUT ROWID;
)sql",
    // 3 -> 4: the embedding cache is per account (a hit must not tell one
    // account what another has embedded); old entries are dropped (a cache).
    R"sql(
DROP TABLE IF EXISTS embed_cache;
CREATE TABLE embed_cache(
  account   TEXT NOT NULL,
  embedder  TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector    BLOB NOT NULL,
  PRIMARY KEY(account, embedder, text_hash)
) WITHOUT ROWID;
)sql",
    // 4 -> 5: the account registry (accounts, users, hashed API keys). The
    // `default` account exists from the start (with no users); accounts that
    // already hold data (made through dev-mode identity headers) are
    // registered so that they keep being listed.
    R"sql(
CREATE TABLE IF NOT EXISTS accounts(
  account_id TEXT    PRIMARY KEY,
  created_ns INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS users(
  account_id TEXT    NOT NULL,
  user_id    TEXT    NOT NULL,
  role       TEXT    NOT NULL,
  key_hash   TEXT    NOT NULL,
  key_prefix TEXT    NOT NULL,
  created_ns INTEGER NOT NULL,
  deleting   INTEGER NOT NULL,
  PRIMARY KEY(account_id, user_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO accounts(account_id, created_ns)
  VALUES('default', CAST(strftime('%s', 'now') AS INTEGER) * 1000000000);
INSERT OR IGNORE INTO accounts(account_id, created_ns)
  SELECT DISTINCT account, CAST(strftime('%s', 'now') AS INTEGER) * 1000000000 FROM nodes;
)sql",
    // 5 -> 6: snapshots (storage/snapshot_objects.h): each account's objects
    // by id, its branches, and its .ovgitignore.
    R"sql(
CREATE TABLE IF NOT EXISTS snapshot_objects(
  account TEXT    NOT NULL,
  oid     TEXT    NOT NULL,
  kind    INTEGER NOT NULL,
  sha256  TEXT    NOT NULL,
  data    BLOB    NOT NULL,
  UNIQUE(account, oid)
);
CREATE INDEX IF NOT EXISTS snapshot_blobs_by_sha256 ON snapshot_objects(account, sha256)
  WHERE kind = 1;
CREATE TABLE IF NOT EXISTS snapshot_refs(
  account TEXT NOT NULL,
  name    TEXT NOT NULL,
  oid     TEXT NOT NULL,
  PRIMARY KEY(account, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot_ignore(
  account TEXT PRIMARY KEY,
  content TEXT NOT NULL
) WITHOUT ROWID;
)sql",
};
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kMigrationCount == Catalog::kSchemaVersion);

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

// Upper bound of the read connections' memory map (address space, not
// memory: pages are shared with the OS page cache). The price of mapping: a
// read error of the device under the catalog is a SIGBUS, not an
// SQLITE_IOERR (as for every memory-mapped database), and reads bypass the
// Env (fault injection covers writes and syncs only).
constexpr const char* kReaderMmapPragma = "PRAGMA mmap_size=4294967296";

Result<sqlite3*> OpenConnection(const std::string& path, bool sync, Env* env) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (OpenSqliteWithEnv(path, flags, env, &db) != SQLITE_OK) {
    // The path goes to the server log only: statuses reach API clients.
    spdlog::error("cannot open catalog {}: {}", path, db ? sqlite3_errmsg(db) : "out of memory");
    Status st = Status::IOError(
        fmt::format("cannot open the catalog: {}", db ? sqlite3_errmsg(db) : "out of memory"));
    sqlite3_close(db);
    return st;
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_extended_result_codes(db, 0);
  std::string pragmas =
      fmt::format("PRAGMA journal_mode=WAL; PRAGMA synchronous={}; PRAGMA foreign_keys=OFF;",
                  sync ? "FULL" : "NORMAL");
  Status st = Exec(db, pragmas.c_str(), "configure");
  if (!st.ok()) {
    sqlite3_close(db);
    return st;
  }
  return db;
}

Status Migrate(sqlite3* writer) {
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
  if (version > Catalog::kSchemaVersion) {
    Exec(writer, "ROLLBACK", "rollback").ok();
    return Status::FailedPrecondition(fmt::format(
        "catalog schema version {} is newer than this binary supports ({}); upgrade Skald", version,
        Catalog::kSchemaVersion));
  }
  if (version == Catalog::kSchemaVersion) {
    // Nothing to migrate: write nothing, so that a workspace on a full disk
    // still opens.
    return Exec(writer, "ROLLBACK", "end migration check");
  }
  for (int v = version; v < Catalog::kSchemaVersion; ++v) {
    Status st = Exec(writer, kMigrations[v], fmt::format("migrate to v{}", v + 1));
    if (!st.ok()) {
      Exec(writer, "ROLLBACK", "rollback").ok();
      return st;
    }
  }
  Stmt set(writer, "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', ?)");
  set.Bind(1, std::to_string(Catalog::kSchemaVersion));
  Status st = set.Run("record schema version");
  if (!st.ok()) {
    Exec(writer, "ROLLBACK", "rollback").ok();
    return st;
  }
  return Exec(writer, "COMMIT", "commit migration");
}

}  // namespace

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
  SKALD_ASSIGN_OR_RETURN(impl.writer, OpenConnection(options.path, options.sync, options.env));
  // A file that is not SQLite fails here, on the first real read.
  SKALD_RETURN_IF_ERROR(Exec(impl.writer, "SELECT count(*) FROM sqlite_master", "read schema"));
  SKALD_RETURN_IF_ERROR(Migrate(impl.writer));
  for (int i = 0; i < options.read_connections; ++i) {
    SKALD_ASSIGN_OR_RETURN(sqlite3 * db, OpenConnection(options.path, options.sync, options.env));
    Exec(db, "PRAGMA query_only=ON", "configure reader").ok();
    // Readers map the file instead of copying pages through pread: a find
    // looks up a few hundred records scattered over the records table,
    // which the default 2 MB page cache does not hold. Writes still go
    // through the VFS (and its Env); best effort, like query_only.
    Exec(db, kReaderMmapPragma, "configure reader").ok();
    impl.all_readers.push_back(db);
    impl.reader_stmts[db];
    impl.idle_readers.push_back(db);
  }
  return catalog;
}

Result<std::optional<CatalogNode>> Catalog::Get(std::string_view account, std::string_view path) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), fmt::format("SELECT {} FROM nodes WHERE account=? AND path=?", kNodeColumns),
         lease.stmts());
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
  size_t base_depth =
      path.empty() ? 0 : static_cast<size_t>(std::count(path.begin(), path.end(), '/')) + 1;
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

Result<uint64_t> DeleteSubtreeLocked(sqlite3* db, std::string_view account, std::string_view path) {
  Stmt s(db, "DELETE FROM nodes WHERE account=? AND (path=? OR (path >= ? AND path < ?))");
  if (!s.prepared()) return SqlError(db, "delete");
  s.Bind(1, account).Bind(2, path).Bind(3, SubtreeBegin(path)).Bind(4, SubtreeEnd(path));
  SKALD_RETURN_IF_ERROR(s.Run("delete"));
  uint64_t deleted = static_cast<uint64_t>(sqlite3_changes(db));
  // Records describe nodes: they die with them, in the same transaction, so
  // a crash can never leave deleted content findable.
  SKALD_ASSIGN_OR_RETURN(uint64_t tombstones,
                         TombstoneRecordsUnderLocked(db, account, "viking://" + std::string(path)));
  (void)tombstones;
  return deleted;
}

// Deletes then upserts; REQUIRES: write_mu held, inside a transaction.
Status ApplyNodesLocked(sqlite3* db, std::string_view account,
                        const std::vector<CatalogNode>& upserts,
                        const std::vector<std::string>& delete_subtrees) {
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
}

}  // namespace

Status Catalog::Apply(std::string_view account, const std::vector<CatalogNode>& upserts,
                      const std::vector<std::string>& delete_subtrees) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(
      db, [&]() -> Status { return ApplyNodesLocked(db, account, upserts, delete_subtrees); });
}

Status Catalog::Apply(std::string_view account, const std::vector<CatalogNode>& upserts,
                      const std::vector<std::string>& delete_subtrees,
                      const std::vector<JobSpec>& jobs, std::vector<Job>* enqueued) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  std::vector<Job> stored;
  Status st = InTransaction(db, [&]() -> Status {
    SKALD_RETURN_IF_ERROR(ApplyNodesLocked(db, account, upserts, delete_subtrees));
    stored.reserve(jobs.size());
    for (const JobSpec& spec : jobs) {
      JobSpec with_account = spec;
      if (with_account.account.empty()) with_account.account = std::string(account);
      SKALD_ASSIGN_OR_RETURN(Job job, InsertJobLocked(db, with_account));
      stored.push_back(std::move(job));
    }
    return Status::Ok();
  });
  if (st.ok() && enqueued != nullptr) *enqueued = std::move(stored);
  return st;
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

Status Catalog::MoveSubtree(std::string_view account, std::string_view from, std::string_view to,
                            int64_t mtime_ns, const std::vector<JobSpec>& jobs,
                            std::vector<Record>* carried) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    // Records are keyed by URI: the old ones go with the move, the caller's
    // copies at the new place come in (and its index job makes them exact).
    SKALD_ASSIGN_OR_RETURN(uint64_t tombstones, TombstoneRecordsUnderLocked(
                                                    db, account, "viking://" + std::string(from)));
    (void)tombstones;
    if (carried != nullptr && !carried->empty()) {
      SKALD_RETURN_IF_ERROR(UpsertRecordsLocked(db, account, carried));
    }
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
    SKALD_RETURN_IF_ERROR(kids.Run("move"));
    for (const JobSpec& spec : jobs) {
      JobSpec with_account = spec;
      if (with_account.account.empty()) with_account.account = std::string(account);
      SKALD_ASSIGN_OR_RETURN(Job job, InsertJobLocked(db, with_account));
      (void)job;
    }
    return Status::Ok();
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

Status Catalog::Checkpoint() {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  return Exec(impl_->writer, "PRAGMA wal_checkpoint(TRUNCATE);", "checkpoint");
}

Status Catalog::SetMeta(std::string_view key, std::string_view value) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  Stmt s(impl_->writer, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  if (!s.prepared()) return SqlError(impl_->writer, "set meta");
  s.Bind(1, key).Bind(2, value);
  return s.Run("set meta");
}

// The keys of a meta tree: `prefix` itself, and the range ["prefix/",
// "prefix0") ('0' follows '/' in byte order), which is every key that
// starts with "prefix/".
constexpr const char* kMetaTreeWhere = "key = ?1 OR (key >= ?1 || '/' AND key < ?1 || '0')";

namespace {

// Deletes the meta tree of `prefix` on the writer `db`; returns how many
// keys went. REQUIRES: the catalog's write_mu held.
Result<uint64_t> DeleteMetaTreeLocked(sqlite3* db, std::string_view prefix) {
  Stmt s(db, fmt::format("DELETE FROM meta WHERE {}", kMetaTreeWhere));
  if (!s.prepared()) return SqlError(db, "delete meta tree");
  s.Bind(1, prefix);
  SKALD_RETURN_IF_ERROR(s.Run("delete meta tree"));
  return static_cast<uint64_t>(sqlite3_changes(db));
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> Catalog::ListMetaTree(
    std::string_view prefix) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         fmt::format("SELECT key, value FROM meta WHERE {} ORDER BY key", kMetaTreeWhere));
  if (!s.prepared()) return SqlError(lease.db(), "list meta tree");
  s.Bind(1, prefix);
  std::vector<std::pair<std::string, std::string>> rows;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) rows.emplace_back(s.Text(0), s.Text(1));
  if (rc != SQLITE_DONE) return SqlError(lease.db(), "list meta tree");
  return rows;
}

Result<uint64_t> Catalog::DeleteMetaTree(std::string_view prefix) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  return DeleteMetaTreeLocked(impl_->writer, prefix);
}

Result<uint64_t> Catalog::MoveMetaTree(std::string_view from, std::string_view to) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  uint64_t moved = 0;
  Status st = InTransaction(db, [&]() -> Status {
    std::vector<std::pair<std::string, std::string>> rows;
    {
      Stmt s(db, fmt::format("SELECT key, value FROM meta WHERE {}", kMetaTreeWhere));
      if (!s.prepared()) return SqlError(db, "move meta tree");
      s.Bind(1, from);
      int rc;
      while ((rc = s.Step()) == SQLITE_ROW) rows.emplace_back(s.Text(0), s.Text(1));
      if (rc != SQLITE_DONE) return SqlError(db, "move meta tree");
    }
    SKALD_ASSIGN_OR_RETURN(uint64_t deleted, DeleteMetaTreeLocked(db, from));
    (void)deleted;  // the rows read above
    for (const auto& [key, value] : rows) {
      Stmt put(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
      if (!put.prepared()) return SqlError(db, "move meta tree");
      put.Bind(1, std::string(to) + key.substr(from.size())).Bind(2, value);
      SKALD_RETURN_IF_ERROR(put.Run("move meta tree"));
    }
    moved = rows.size();
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return moved;
}

}  // namespace skald
