// The FTS5 lexical index (see lexical_index.h; design and file layout in
// docs/architecture.md, "Lexical index").

#include "index/lexical_index.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>

#include "index/fts5_bm25.h"
#include "index/fts5_tokenizer.h"
#include "index/lexical_query.h"
#include "index/lexical_sql.h"
#include "storage/sqlite_env_vfs.h"
#include "uri/uri_path.h"

namespace skald {

namespace {

// Bump on any change to the schema or to what is stored; an index with another
// version is discarded and rebuilt by its owner.
constexpr int64_t kFormatVersion = 1;
// meta 'kind': marks the file as ours, so that a path pointing at some other
// database is refused instead of being reset.
constexpr char kFileKind[] = "skald-lexical-index";

constexpr char kSchema[] = R"sql(
CREATE TABLE meta(name TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE partitions(id INTEGER PRIMARY KEY, account TEXT NOT NULL UNIQUE,
                        doc_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE docs(
  id INTEGER PRIMARY KEY,
  part INTEGER NOT NULL,
  level INTEGER NOT NULL,
  context_type TEXT NOT NULL,
  uri TEXT NOT NULL,
  depth INTEGER NOT NULL,
  owner TEXT NOT NULL,
  created_ns INTEGER NOT NULL,
  updated_ns INTEGER NOT NULL);
CREATE INDEX docs_part_uri ON docs(part, uri);
CREATE TABLE doc_tags(id INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(id, tag)) WITHOUT ROWID;
CREATE TABLE term_df(part INTEGER NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL,
                     PRIMARY KEY(part, term)) WITHOUT ROWID;
)sql";

// MaxScore's first plan leaves out the most common query terms whose score
// bounds sum to at most this fraction of all bounds (tuned on SciFact; any
// value gives the same results, only the number of second plans changes).
constexpr double kFirstGuessBoundFraction = 0.3;

// Partition `part` keeps its text in FTS5 table fts_<part>.
std::string FtsTable(int64_t part) { return fmt::format("fts_{}", part); }

bool IsCorruption(const Status& status) { return status.code() == StatusCode::kCorruption; }

void RemoveDatabaseFiles(const std::string& path) {
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path + suffix, ignored);
  }
}

// Thread safety: as LexicalIndex. Writes hold write_mu_; reads borrow a
// connection from the pool; the rest is immutable after Init().
class Fts5LexicalIndex final : public LexicalIndex {
 public:
  Fts5LexicalIndex(const LexicalIndexOptions& options, std::unique_ptr<Tokenizer> owned)
      : options_(options),
        owned_tokenizer_(std::move(owned)),
        tokenizer_(options.tokenizer != nullptr ? options.tokenizer : owned_tokenizer_.get()),
        tokenizer_name_(tokenizer_->Name()) {
    rank_sql_ = fmt::format("{}, {}, {}, {}, {}", options_.k1, options_.b, options_.title_weight,
                            options_.abstract_weight, options_.body_weight);
    // A field with weight 0 is not searched at all (an FTS5 column filter),
    // rather than matched with score 0.
    const std::pair<const char*, double> fields[] = {{"title", options_.title_weight},
                                                     {"abstract", options_.abstract_weight},
                                                     {"body", options_.body_weight}};
    for (const auto& [name, weight] : fields) {
      if (weight > 0) {
        searched_columns_ += searched_columns_.empty() ? name : std::string(" ") + name;
      }
    }
    if (searched_columns_ == "title abstract body") searched_columns_.clear();
  }

  Status Init();

  std::string_view Kind() const override { return "fts5"; }
  const std::string& tokenizer_name() const override { return tokenizer_name_; }
  Status Upsert(std::span<const RecordFields> records,
                std::span<const LexicalText> texts) override;
  Result<uint64_t> Delete(std::span<const uint64_t> ids) override;
  Status Search(std::string_view query, const RecordFilter& filter, int k,
                std::vector<SearchHit>* hits) const override;
  Result<uint64_t> Count(const RecordFilter& filter) const override;
  int64_t applied_seq() const override { return applied_seq_.load(); }
  Status SetAppliedSeq(int64_t seq) override;
  bool was_reset() const override { return was_reset_; }
  Status Optimize() override;

 private:
  // Lends a read connection for the duration of one call.
  class ReaderLease {
   public:
    explicit ReaderLease(const Fts5LexicalIndex* index) : index_(index) {
      std::unique_lock lock(index_->pool_mu_);
      index_->pool_cv_.wait(lock, [&] { return !index_->free_readers_.empty(); });
      conn_ = std::move(index_->free_readers_.back());
      index_->free_readers_.pop_back();
    }
    ~ReaderLease() {
      {
        std::lock_guard lock(index_->pool_mu_);
        index_->free_readers_.push_back(std::move(conn_));
      }
      index_->pool_cv_.notify_one();
    }
    ReaderLease(const ReaderLease&) = delete;
    ReaderLease& operator=(const ReaderLease&) = delete;
    LexicalConnection& conn() { return *conn_; }

   private:
    const Fts5LexicalIndex* index_;
    std::unique_ptr<LexicalConnection> conn_;
  };

  Result<std::unique_ptr<LexicalConnection>> Connect(bool writer) const;
  // Opens the write connection on an existing or new file. Returns false when
  // the file is unusable (corrupt, other version or tokenizer) and must be reset.
  Result<bool> OpenWriter();
  // The partition of `account`, created (with its FTS5 table) when missing.
  // REQUIRES: write_mu_ held, inside a write transaction.
  Result<int64_t> PartitionFor(const std::string& account);
  Status LoadPartitions();
  Status UpsertOne(const RecordFields& r, const LexicalText& text);
  Status DeleteOne(int64_t id, bool* found);
  struct Partition {
    int64_t id = 0;
    int64_t doc_count = 0;
  };
  struct ScoredHit {
    int64_t id = 0;
    double score = 0;
  };
  // Partitions a filter applies to (one, none or all).
  Result<std::vector<Partition>> Partitions(LexicalConnection& conn,
                                            const RecordFilter& filter) const;
  // The top k of one partition, with MaxScore pruning (lexical_query.h).
  Status SearchPartition(LexicalConnection& conn, const Partition& part,
                         const std::vector<LexicalQueryTerm>& terms, const std::string& conditions,
                         const std::vector<SqlValue>& condition_args, int k,
                         std::vector<ScoredHit>* out) const;
  Status RunPlan(LexicalConnection& conn, int64_t part, const LexicalQueryPlan& plan,
                 const std::string& conditions, const std::vector<SqlValue>& condition_args, int k,
                 std::vector<ScoredHit>* out) const;
  // Adds `delta` to the document frequency of each distinct term in `*terms`
  // (then cleared). REQUIRES: write_mu_ held, inside a write transaction.
  void CountTerms(int64_t part, std::vector<std::string>* terms, int delta);
  // Writes df_delta_ to term_df. REQUIRES: as CountTerms.
  Status FlushDocFrequencies();
  // Runs `body` in a write transaction (BEGIN IMMEDIATE ... COMMIT/ROLLBACK).
  template <typename Fn>
  Status InTransaction(Fn&& body);

  const LexicalIndexOptions options_;
  const std::unique_ptr<Tokenizer> owned_tokenizer_;
  const Tokenizer* const tokenizer_;
  const std::string tokenizer_name_;
  std::string rank_sql_;          // the constant arguments of skald_bm25()
  std::string searched_columns_;  // columns with weight > 0 ("" = all)
  bool was_reset_ = false;
  std::atomic<int64_t> applied_seq_{0};

  std::mutex write_mu_;                        // serializes writes
  std::unique_ptr<LexicalConnection> writer_;  // guarded by write_mu_
  std::map<std::string, int64_t> partitions_;  // account -> id; guarded by write_mu_
  // Document-frequency changes of the open write transaction, written to
  // term_df before it commits; guarded by write_mu_.
  std::map<int64_t, std::unordered_map<std::string, int64_t>> df_delta_;  // part -> term -> delta
  std::vector<std::string> captured_terms_;  // scratch; guarded by write_mu_

  mutable std::mutex pool_mu_;
  mutable std::condition_variable pool_cv_;
  mutable std::vector<std::unique_ptr<LexicalConnection>> free_readers_;  // guarded by pool_mu_
};

Result<std::unique_ptr<LexicalConnection>> Fts5LexicalIndex::Connect(bool writer) const {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (writer ? SQLITE_OPEN_CREATE : 0);
  int rc = OpenSqliteWithEnv(options_.path, flags, options_.env, &raw);
  SqliteDbPtr db(raw);
  if (rc != SQLITE_OK) {
    spdlog::error("cannot open lexical index {}: {}", options_.path, sqlite3_errstr(rc));
    return SqliteStatus(raw, rc, "open");
  }
  sqlite3_extended_result_codes(raw, 1);
  auto conn = std::make_unique<LexicalConnection>(std::move(db));
  SKALD_RETURN_IF_ERROR(RegisterFts5Tokenizer(conn->db(), tokenizer_));
  SKALD_RETURN_IF_ERROR(RegisterFts5Bm25(conn->db()));
  SKALD_RETURN_IF_ERROR(conn->Exec("PRAGMA busy_timeout=10000"));
  if (writer) {
    SKALD_RETURN_IF_ERROR(conn->Exec("PRAGMA journal_mode=WAL"));
    SKALD_RETURN_IF_ERROR(
        conn->Exec(options_.sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"));
  } else {
    SKALD_RETURN_IF_ERROR(conn->Exec("PRAGMA query_only=1"));
  }
  return conn;
}

Result<bool> Fts5LexicalIndex::OpenWriter() {
  auto conn = Connect(/*writer=*/true);
  if (!conn.ok()) {
    if (IsCorruption(conn.status())) return false;
    return conn.status();
  }
  writer_ = std::move(conn).value();
  SKALD_ASSIGN_OR_RETURN(sqlite3_stmt * tables,
                         writer_->Prepare("SELECT count(*) FROM sqlite_master"));
  int rc = sqlite3_step(tables);
  if (rc != SQLITE_ROW) {
    Status status = SqliteStatus(writer_->db(), rc, "read schema");
    if (IsCorruption(status)) return false;
    return status;
  }
  const bool new_file = sqlite3_column_int64(tables, 0) == 0;
  sqlite3_reset(tables);
  if (new_file) {
    Status created = InTransaction([&]() -> Status {
      SKALD_RETURN_IF_ERROR(writer_->Exec(kSchema));
      SKALD_RETURN_IF_ERROR(writer_->Run("INSERT INTO meta VALUES('kind', ?1)", {kFileKind}));
      SKALD_RETURN_IF_ERROR(
          writer_->Run("INSERT INTO meta VALUES('format', ?1)", {kFormatVersion}));
      SKALD_RETURN_IF_ERROR(
          writer_->Run("INSERT INTO meta VALUES('tokenizer', ?1)", {tokenizer_name_}));
      return writer_->Run("INSERT INTO meta VALUES('applied_seq', 0)");
    });
    if (!created.ok()) return created;
    return true;
  }
  std::map<std::string, std::string> meta;
  auto read = writer_->Prepare("SELECT name, CAST(value AS TEXT) FROM meta");
  if (!read.ok() && IsCorruption(read.status())) return false;
  if (!read.ok()) {
    // Some other SQLite database: never overwrite what is not ours.
    spdlog::error("{} is not a Skald lexical index (no meta table)", options_.path);
    return Status::FailedPrecondition(fmt::format(
        "index file {} is not a Skald lexical index (no meta table); refusing to reset it",
        std::filesystem::path(options_.path).filename().string()));
  }
  while ((rc = sqlite3_step(*read)) == SQLITE_ROW) {
    auto text = [&](int col) {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(*read, col));
      return std::string(p != nullptr ? p : "");
    };
    meta[text(0)] = text(1);
  }
  if (rc != SQLITE_DONE) {
    Status status = SqliteStatus(writer_->db(), rc, "read meta");
    if (IsCorruption(status)) return false;
    return status;
  }
  sqlite3_reset(*read);
  if (meta["kind"] != kFileKind) {
    return Status::FailedPrecondition(
        "the lexical index file is not a Skald lexical index; refusing to reset it");
  }
  if (meta["format"] != std::to_string(kFormatVersion) || meta["tokenizer"] != tokenizer_name_) {
    return false;
  }
  long long seq = 0;
  try {
    seq = std::stoll(meta["applied_seq"]);
  } catch (const std::exception&) {
    return false;
  }
  applied_seq_ = seq;
  Status loaded = LoadPartitions();
  if (IsCorruption(loaded)) return false;
  SKALD_RETURN_IF_ERROR(loaded);
  return true;
}

Status Fts5LexicalIndex::Init() {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(options_.path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    spdlog::error("cannot create {}: {}", parent.string(), ec.message());
    return Status::IOError("cannot create the lexical index directory: " + ec.message());
  }
  SKALD_ASSIGN_OR_RETURN(bool usable, OpenWriter());
  if (!usable) {
    writer_.reset();
    partitions_.clear();
    applied_seq_ = 0;
    RemoveDatabaseFiles(options_.path);
    was_reset_ = true;
    SKALD_ASSIGN_OR_RETURN(usable, OpenWriter());
    if (!usable) return Status::Internal("lexical index: a freshly created file is unusable");
  }
  for (int i = 0; i < options_.read_connections; ++i) {
    SKALD_ASSIGN_OR_RETURN(auto reader, Connect(/*writer=*/false));
    free_readers_.push_back(std::move(reader));
  }
  return Status::Ok();
}

Status Fts5LexicalIndex::LoadPartitions() {
  partitions_.clear();
  SKALD_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                         writer_->Prepare("SELECT id, account FROM partitions"));
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const auto* account = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
    partitions_[account != nullptr ? account : ""] = sqlite3_column_int64(stmt, 0);
  }
  if (rc != SQLITE_DONE) return SqliteStatus(writer_->db(), rc, "read partitions");
  return Status::Ok();
}

template <typename Fn>
Status Fts5LexicalIndex::InTransaction(Fn&& body) {
  SKALD_RETURN_IF_ERROR(writer_->Exec("BEGIN IMMEDIATE"));
  df_delta_.clear();
  captured_terms_.clear();  // a failed statement may have left terms behind
  Status status = body();
  if (status.ok()) status = FlushDocFrequencies();
  if (status.ok()) status = writer_->Exec("COMMIT");
  if (!status.ok()) {
    (void)writer_->Exec("ROLLBACK");
    // Partitions created by the failed transaction are gone again.
    Status reload = LoadPartitions();
    (void)reload;
  }
  return status;
}

void Fts5LexicalIndex::CountTerms(int64_t part, std::vector<std::string>* terms, int delta) {
  std::sort(terms->begin(), terms->end());
  terms->erase(std::unique(terms->begin(), terms->end()), terms->end());
  auto& deltas = df_delta_[part];
  for (std::string& term : *terms) deltas[std::move(term)] += delta;
  terms->clear();
}

Status Fts5LexicalIndex::FlushDocFrequencies() {
  for (const auto& [part, deltas] : df_delta_) {
    for (const auto& [term, delta] : deltas) {
      if (delta == 0) continue;
      SKALD_RETURN_IF_ERROR(
          writer_->Run("INSERT INTO term_df(part, term, df) VALUES(?1, ?2, ?3) "
                       "ON CONFLICT(part, term) DO UPDATE SET df = df + excluded.df",
                       {part, term, delta}));
      if (delta < 0) {
        SKALD_RETURN_IF_ERROR(writer_->Run(
            "DELETE FROM term_df WHERE part = ?1 AND term = ?2 AND df <= 0", {part, term}));
      }
    }
  }
  df_delta_.clear();
  return Status::Ok();
}

Result<int64_t> Fts5LexicalIndex::PartitionFor(const std::string& account) {
  auto it = partitions_.find(account);
  if (it != partitions_.end()) return it->second;
  SKALD_RETURN_IF_ERROR(writer_->Run("INSERT INTO partitions(account) VALUES(?1)", {account}));
  int64_t part = sqlite3_last_insert_rowid(writer_->db());
  std::string table = FtsTable(part);
  // The FTS5 table holds its own copy of the text (a regular FTS5 table) so
  // that deletes need only the rowid; SQLite 3.40 has no contentless delete.
  std::string create =
      fmt::format("CREATE VIRTUAL TABLE {} USING fts5(title, abstract, body, tokenize='{}')", table,
                  kFts5TokenizerName);
  SKALD_RETURN_IF_ERROR(writer_->Exec(create.c_str()));
  partitions_[account] = part;
  return part;
}

Status Fts5LexicalIndex::DeleteOne(int64_t id, bool* found) {
  SKALD_ASSIGN_OR_RETURN(sqlite3_stmt * find,
                         writer_->Prepare("SELECT part FROM docs WHERE id = ?1", {id}));
  int rc = sqlite3_step(find);
  const int64_t part = rc == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
  sqlite3_reset(find);
  if (rc == SQLITE_DONE) {
    *found = false;
    return Status::Ok();
  }
  if (rc != SQLITE_ROW) return SqliteStatus(writer_->db(), rc, "find record");

  *found = true;
  {
    // FTS5 tokenizes the stored text to find the postings to remove.
    ScopedTermCapture capture(&captured_terms_);
    SKALD_RETURN_IF_ERROR(
        writer_->Run(fmt::format("DELETE FROM {} WHERE rowid = ?1", FtsTable(part)), {id}));
  }
  CountTerms(part, &captured_terms_, -1);
  SKALD_RETURN_IF_ERROR(writer_->Run("DELETE FROM docs WHERE id = ?1", {id}));
  SKALD_RETURN_IF_ERROR(
      writer_->Run("UPDATE partitions SET doc_count = doc_count - 1 WHERE id = ?1", {part}));
  return writer_->Run("DELETE FROM doc_tags WHERE id = ?1", {id});
}

Status Fts5LexicalIndex::UpsertOne(const RecordFields& r, const LexicalText& text) {
  const auto id = static_cast<int64_t>(r.key);
  bool existed = false;
  SKALD_RETURN_IF_ERROR(DeleteOne(id, &existed));
  SKALD_ASSIGN_OR_RETURN(int64_t part, PartitionFor(r.account));
  SKALD_RETURN_IF_ERROR(writer_->Run(
      "INSERT INTO docs(id, part, level, context_type, uri, depth, owner, created_ns, updated_ns) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
      {id, part, static_cast<int64_t>(r.level), std::string(ContextTypeName(r.context_type)),
       r.uri, static_cast<int64_t>(UriDepth(r.uri)), r.owner, r.created_ns, r.updated_ns}));
  {
    ScopedTermCapture capture(&captured_terms_);
    SKALD_RETURN_IF_ERROR(writer_->Run(
        fmt::format("INSERT INTO {}(rowid, title, abstract, body) VALUES(?1, ?2, ?3, ?4)",
                    FtsTable(part)),
        {id, text.title, text.abstract, text.body}));
  }
  CountTerms(part, &captured_terms_, +1);
  SKALD_RETURN_IF_ERROR(
      writer_->Run("UPDATE partitions SET doc_count = doc_count + 1 WHERE id = ?1", {part}));
  for (const std::string& tag : r.tags) {
    SKALD_RETURN_IF_ERROR(
        writer_->Run("INSERT OR IGNORE INTO doc_tags(id, tag) VALUES(?1, ?2)", {id, tag}));
  }
  return Status::Ok();
}

Status Fts5LexicalIndex::Upsert(std::span<const RecordFields> records,
                                std::span<const LexicalText> texts) {
  SKALD_RETURN_IF_ERROR(CheckUpsertArguments(records, texts));
  if (records.empty()) return Status::Ok();
  std::lock_guard lock(write_mu_);
  return InTransaction([&]() -> Status {
    for (size_t i = 0; i < records.size(); ++i) {
      SKALD_RETURN_IF_ERROR(UpsertOne(records[i], texts[i]));
    }
    return Status::Ok();
  });
}

Result<uint64_t> Fts5LexicalIndex::Delete(std::span<const uint64_t> ids) {
  if (ids.empty()) return uint64_t{0};
  std::lock_guard lock(write_mu_);
  uint64_t removed = 0;
  Status status = InTransaction([&]() -> Status {
    for (uint64_t id : ids) {
      bool found = false;
      SKALD_RETURN_IF_ERROR(DeleteOne(static_cast<int64_t>(id), &found));
      removed += found ? 1 : 0;
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return removed;
}

Status Fts5LexicalIndex::SetAppliedSeq(int64_t seq) {
  std::lock_guard lock(write_mu_);
  SKALD_RETURN_IF_ERROR(
      writer_->Run("INSERT OR REPLACE INTO meta(name, value) VALUES('applied_seq', ?1)", {seq}));
  applied_seq_ = seq;
  return Status::Ok();
}

Status Fts5LexicalIndex::Optimize() {
  std::lock_guard lock(write_mu_);
  for (const auto& [account, part] : partitions_) {
    std::string table = FtsTable(part);
    std::string sql = fmt::format("INSERT INTO {0}({0}) VALUES('optimize')", table);
    SKALD_RETURN_IF_ERROR(writer_->Exec(sql.c_str()));
  }
  return Status::Ok();
}

Result<std::vector<Fts5LexicalIndex::Partition>> Fts5LexicalIndex::Partitions(
    LexicalConnection& conn, const RecordFilter& filter) const {
  std::vector<Partition> parts;
  sqlite3_stmt* stmt = nullptr;
  if (filter.account.empty()) {
    SKALD_ASSIGN_OR_RETURN(stmt, conn.Prepare("SELECT id, doc_count FROM partitions ORDER BY id"));
  } else {
    SKALD_ASSIGN_OR_RETURN(
        stmt,
        conn.Prepare("SELECT id, doc_count FROM partitions WHERE account = ?1", {filter.account}));
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    parts.push_back({sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 1)});
  }
  sqlite3_reset(stmt);
  if (rc != SQLITE_DONE) return SqliteStatus(conn.db(), rc, "read partitions");
  return parts;
}

Status Fts5LexicalIndex::RunPlan(LexicalConnection& conn, int64_t part,
                                 const LexicalQueryPlan& plan, const std::string& conditions,
                                 const std::vector<SqlValue>& condition_args, int k,
                                 std::vector<ScoredHit>* out) const {
  out->clear();
  const std::string table = FtsTable(part);
  // CROSS JOIN keeps the FTS5 match as the outer loop: candidates come from
  // the posting lists, each checked against its docs row by primary key.
  // Without conditions the join is skipped (one B-tree probe less per match).
  std::string sql = fmt::format(
      "SELECT {0}.rowid, {1}({0}, {2}, ?) AS score FROM {0}{3} WHERE {0} MATCH ?", table,
      kFts5Bm25Name, rank_sql_,
      conditions.empty() ? "" : fmt::format(" CROSS JOIN docs AS d ON d.id = {}.rowid", table));
  std::string match = plan.match;
  if (!searched_columns_.empty()) match = "{" + searched_columns_ + "} : (" + match + ")";
  std::string doc_freq(reinterpret_cast<const char*>(plan.phrase_doc_freq.data()),
                       plan.phrase_doc_freq.size() * sizeof(int64_t));
  std::vector<SqlValue> args{SqlBlob{std::move(doc_freq)}, std::move(match)};
  sql += conditions;
  args.insert(args.end(), condition_args.begin(), condition_args.end());
  sql += fmt::format(" ORDER BY score DESC, {}.rowid LIMIT ?", table);
  args.emplace_back(static_cast<int64_t>(k));
  SKALD_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, conn.Prepare(sql, args));
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    out->push_back({sqlite3_column_int64(stmt, 0), sqlite3_column_double(stmt, 1)});
  }
  sqlite3_reset(stmt);
  if (rc != SQLITE_DONE) return SqliteStatus(conn.db(), rc, "search");
  return Status::Ok();
}

Status Fts5LexicalIndex::SearchPartition(LexicalConnection& conn, const Partition& part,
                                         const std::vector<LexicalQueryTerm>& terms,
                                         const std::string& conditions,
                                         const std::vector<SqlValue>& condition_args, int k,
                                         std::vector<ScoredHit>* out) const {
  // Statistics: document frequencies from term_df, upper bounds
  // idf * (k1 + 1). Terms the partition lacks are dropped. Without pruning,
  // skald_bm25 counts frequencies from the postings itself (which also makes
  // the exhaustive path an independent check of term_df in tests).
  std::vector<ScoredQueryTerm> scored;
  const bool prune = options_.prune && searched_columns_.empty();
  for (const LexicalQueryTerm& term : terms) {
    ScoredQueryTerm s{&term, kComputeDocFrequency, std::numeric_limits<double>::infinity()};
    if (prune && term.single) {
      SKALD_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                             conn.Prepare("SELECT df FROM term_df WHERE part = ?1 AND term = ?2",
                                          {part.id, term.term}));
      int rc = sqlite3_step(stmt);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqliteStatus(conn.db(), rc, "read term_df");
      s.doc_frequency = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
      sqlite3_reset(stmt);
      if (s.doc_frequency == 0) continue;
      s.upper_bound =
          Bm25Idf(static_cast<double>(part.doc_count), static_cast<double>(s.doc_frequency)) *
          (options_.k1 + 1);
    }
    scored.push_back(s);
  }
  out->clear();
  if (scored.empty()) return Status::Ok();
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.upper_bound > b.upper_bound; });
  size_t essential = scored.size();
  if (prune) {
    // First guess: leave out the most common terms whose bounds add up to a
    // small part of the total; the k-th score is usually well above that.
    double total = 0;
    for (const auto& s : scored) total += std::isinf(s.upper_bound) ? 0 : s.upper_bound;
    essential = EssentialTermsFor(scored, kFirstGuessBoundFraction * total);
  }
  LexicalQueryPlan plan = PlanLexicalQuery(scored, essential);
  SKALD_RETURN_IF_ERROR(RunPlan(conn, part.id, plan, conditions, condition_args, k, out));
  if (plan.essential == scored.size()) return Status::Ok();
  const bool full = out->size() == static_cast<size_t>(k);
  if (full && out->back().score > plan.non_essential_bound * (1 + 1e-9) + 1e-12) {
    return Status::Ok();  // nothing left out can reach the top k
  }
  // The k-th score found is a lower bound of the true one: with the terms
  // that bound admits, the second plan is exact.
  plan =
      PlanLexicalQuery(scored, full ? EssentialTermsFor(scored, out->back().score) : scored.size());
  return RunPlan(conn, part.id, plan, conditions, condition_args, k, out);
}

Status Fts5LexicalIndex::Search(std::string_view query, const RecordFilter& filter, int k,
                                std::vector<SearchHit>* hits) const {
  hits->clear();
  SKALD_RETURN_IF_ERROR(CheckSearchArguments(filter, k));
  const std::vector<LexicalQueryTerm> terms = ExtractQueryTerms(*tokenizer_, query);
  if (terms.empty()) return Status::Ok();

  ReaderLease lease(this);
  LexicalConnection& conn = lease.conn();
  // One read transaction: statistics and matches come from one snapshot.
  SKALD_RETURN_IF_ERROR(conn.Exec("BEGIN"));
  struct EndRead {
    LexicalConnection& conn;
    ~EndRead() { (void)conn.Exec("COMMIT"); }
  } end_read{conn};
  SKALD_ASSIGN_OR_RETURN(std::vector<Partition> parts, Partitions(conn, filter));
  std::string conditions;  // the filter beyond the account (its partition)
  std::vector<SqlValue> condition_args;
  AppendFilterSql(filter, &conditions, &condition_args);
  std::vector<ScoredHit> found;
  for (const Partition& part : parts) {
    SKALD_RETURN_IF_ERROR(
        SearchPartition(conn, part, terms, conditions, condition_args, k, &found));
    for (const ScoredHit& hit : found) {
      hits->push_back({static_cast<uint64_t>(hit.id), static_cast<float>(hit.score)});
    }
  }
  if (parts.size() > 1) {
    std::sort(hits->begin(), hits->end(), [](const SearchHit& a, const SearchHit& b) {
      return a.score != b.score ? a.score > b.score : a.id < b.id;
    });
    if (hits->size() > static_cast<size_t>(k)) hits->resize(static_cast<size_t>(k));
  }
  return Status::Ok();
}

Result<uint64_t> Fts5LexicalIndex::Count(const RecordFilter& filter) const {
  SKALD_RETURN_IF_ERROR(filter.Validate());
  ReaderLease lease(this);
  LexicalConnection& conn = lease.conn();
  std::string sql = "SELECT count(*) FROM docs AS d WHERE 1";
  std::vector<SqlValue> args;
  if (!filter.account.empty()) {
    SKALD_ASSIGN_OR_RETURN(std::vector<Partition> parts, Partitions(conn, filter));
    if (parts.empty()) return uint64_t{0};
    sql += " AND d.part = ?";
    args.emplace_back(parts[0].id);
  }
  AppendFilterSql(filter, &sql, &args);
  SKALD_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, conn.Prepare(sql, args));
  int rc = sqlite3_step(stmt);
  if (rc != SQLITE_ROW) return SqliteStatus(conn.db(), rc, "count");
  auto count = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
  sqlite3_reset(stmt);
  return count;
}

}  // namespace

Status LexicalIndexOptions::Validate() const {
  if (path.empty()) return Status::InvalidArgument("lexical index: path is empty");
  if (!(k1 >= 0 && k1 <= 100)) {
    return Status::InvalidArgument(fmt::format("lexical index: k1 = {} not in [0, 100]", k1));
  }
  if (!(b >= 0 && b <= 1)) {
    return Status::InvalidArgument(fmt::format("lexical index: b = {} not in [0, 1]", b));
  }
  for (double w : {title_weight, abstract_weight, body_weight}) {
    if (!(w >= 0 && w <= 1000)) {
      return Status::InvalidArgument(
          fmt::format("lexical index: field weight {} not in [0, 1000]", w));
    }
  }
  if (title_weight + abstract_weight + body_weight <= 0) {
    return Status::InvalidArgument("lexical index: every field weight is 0");
  }
  if (read_connections < 1 || read_connections > 64) {
    return Status::InvalidArgument(
        fmt::format("lexical index: read_connections = {} not in [1, 64]", read_connections));
  }
  return Status::Ok();
}

Status CheckUpsertArguments(std::span<const RecordFields> records,
                            std::span<const LexicalText> texts) {
  if (records.size() != texts.size()) {
    return Status::InvalidArgument(fmt::format("lexical index: {} records but {} texts",
                                               records.size(), texts.size()));
  }
  for (const RecordFields& r : records) {
    if (r.account.empty()) {
      return Status::InvalidArgument(fmt::format("lexical index: record {} has no account", r.key));
    }
  }
  return Status::Ok();
}

Status CheckSearchArguments(const RecordFilter& filter, int k) {
  if (k < 1) return Status::InvalidArgument(fmt::format("lexical search: k = {} < 1", k));
  return filter.Validate();
}

Result<std::unique_ptr<LexicalIndex>> OpenFts5LexicalIndex(const LexicalIndexOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  std::unique_ptr<Tokenizer> owned;
  if (options.tokenizer == nullptr) {
    SKALD_ASSIGN_OR_RETURN(owned, NewIcuTokenizer());
  }
  auto index = std::make_unique<Fts5LexicalIndex>(options, std::move(owned));
  SKALD_RETURN_IF_ERROR(index->Init());
  return std::unique_ptr<LexicalIndex>(std::move(index));
}

}  // namespace skald
