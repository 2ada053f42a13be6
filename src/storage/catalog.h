#pragma once

// Catalog: the SQLite database (WAL mode) that records every node of every
// account — kind, size, mtime, content hash — plus workspace metadata, the
// retrieval records, the durable job queue and the embedding cache. The
// on-disk schema is specified in docs/format/catalog.md.
//
// Thread safety: safe for concurrent use. Writes are serialized on one
// connection; reads use a small pool of connections and see the last
// committed state. Each method is one transaction.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/env.h"
#include "common/tags.h"
#include "skald/result.h"
#include "skald/types.h"
#include "storage/job_kind.h"
#include "storage/record.h"
#include "storage/snapshot_objects.h"

namespace skald {

// One file or directory as the catalog records it.
struct CatalogNode {
  std::string path;  // URI path without scheme: "resources/a/b.md"
  bool is_dir = false;
  uint64_t size = 0;     // bytes; 0 for directories
  int64_t mtime_ns = 0;  // files: mtime of the bytes on disk; dirs: last change
  int64_t ctime_ns = 0;  // creation
  std::string hash;      // hex SHA-256 of the bytes; "" for directories
};

// Priorities of jobs (higher runs first). Interactive work — a session
// commit, a single write — must never wait behind bulk ingestion.
inline constexpr int kJobPriorityBulk = 0;
inline constexpr int kJobPriorityInteractive = 100;

// Metadata keys "<this><account>/…": what snapshot restores of the account
// have yet to write back (service/snapshot_restore.cc); PurgeAccount
// deletes an account's.
inline constexpr std::string_view kSnapshotPendingMetaPrefix = "snapshot-restore/";

// What to enqueue. Thread safety: a value type.
struct JobSpec {
  JobKind kind = JobKind::kUnknown;  // what the job does; required (not kUnknown)
  std::string account;               // tenant; "" inside Apply() means Apply's account
  std::string user;                  // who asked for it ("" for system work)
  std::string resource_id;           // what it works on, usually a URI ("viking://resources/a")
  std::string payload = "{}";        // JSON text, opaque to the queue
  int priority = kJobPriorityBulk;
  int max_attempts = 5;       // >= 1; a job leased this many times and not done fails
  int64_t not_before_ns = 0;  // not leased before this time (0 = at once)
  std::string task_id;        // "" = a new random UUID (version 4)
};

// A new task id (a random version 4 UUID), for a JobSpec named before it
// is queued (a plan that queues it again after a crash must not duplicate it).
std::string NewTaskId();

// A job's state is the state its task shows (skald/types.h); the `state`
// column stores TaskStateName().
using JobState = TaskState;

// One row of the job queue. Thread safety: a value type.
struct Job {
  int64_t id = 0;  // catalog-assigned, increasing with enqueue order
  std::string task_id;
  // What the job does. kUnknown for a stored kind this binary does not know
  // (written by a newer version, or a damaged row): such a job is still
  // listed and leased, so that the runner can fail it with a clear error.
  JobKind kind = JobKind::kUnknown;
  // The kind as stored: JobKindName(kind), or the unknown text for kUnknown.
  std::string kind_name;
  std::string account, user, resource_id, payload;
  int priority = 0;
  JobState state = JobState::kPending;
  int attempts = 0;  // times leased so far
  int max_attempts = 0;
  int64_t not_before_ns = 0;   // earliest next lease (backoff after a failure)
  int64_t lease_until_ns = 0;  // while running: when the lease expires
  int64_t created_ns = 0;      // wall clock
  int64_t updated_ns = 0;      // wall clock of the last change
  std::string stage;           // progress label set by the worker
  std::string result;          // JSON text given to CompleteJob ("" until then)
  std::string error;           // last failure message (kept through retries)
};

// Selection for ListJobs; empty strings and nullopt match anything.
struct JobFilter {
  // kUnknown selects the jobs whose stored kind this binary does not know.
  std::optional<JobKind> kind;
  std::vector<JobKind> exclude_kinds;      // none of these
  std::string account, user, resource_id;  // resource_id: exact match
  std::optional<JobState> state;
  int limit = 50;  // <= 0: no limit
};

// One registered account (table `accounts`). Thread safety: a value type.
struct AccountRow {
  std::string account_id;
  int64_t created_ns = 0;   // wall clock
  uint64_t user_count = 0;  // users of the account, those being deleted included
};

// One user of an account (table `users`). Only a hash of the API key is
// stored. Thread safety: a value type.
struct UserRow {
  std::string account_id;
  std::string user_id;
  std::string role;        // "user" | "admin"
  std::string key_hash;    // hex SHA-256 of the whole key; "" = no valid key (revoked)
  std::string key_prefix;  // first characters of the key's secret, for listings
  int64_t created_ns = 0;  // wall clock
  bool deleting = false;   // removed; its user_delete job has not finished yet
};

struct CatalogOptions {
  // Path of the database file.
  std::string path;
  // Read connections kept open (concurrent readers).
  int read_connections = 4;
  // synchronous=FULL: a commit survives power loss. Off = NORMAL, which
  // survives process crashes but may lose the last commits on power loss.
  bool sync = true;
  // SQLite's writes and syncs are offered to it first (storage/sqlite_env_vfs.h),
  // so a fault-injecting env can fail them. Borrowed; null = Env::Default().
  Env* env = nullptr;
};

class Catalog {
 public:
  // The schema version this binary writes; older databases are migrated
  // forward on open, newer ones are refused (FailedPrecondition).
  static constexpr int kSchemaVersion = 6;

  // Opens or creates the database and migrates it.
  static Result<std::unique_ptr<Catalog>> Open(const CatalogOptions& options);

  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // The node at `path`, or nullopt.
  Result<std::optional<CatalogNode>> Get(std::string_view account, std::string_view path);

  // Direct children of `parent` ("" = the account root), ordered by name.
  Result<std::vector<CatalogNode>> ListChildren(std::string_view account, std::string_view parent);

  // Descendants of `path` ("" = everything) at most `max_depth` levels
  // below it (0 = unlimited), ordered by path. `path` itself is excluded.
  Result<std::vector<CatalogNode>> ListSubtree(std::string_view account, std::string_view path,
                                               int max_depth);

  // Number of nodes at or below `path`.
  Result<uint64_t> CountSubtree(std::string_view account, std::string_view path);

  // Inserts or replaces nodes and deletes subtrees, all in one transaction.
  // Deletes run first.
  Status Apply(std::string_view account, const std::vector<CatalogNode>& upserts,
               const std::vector<std::string>& delete_subtrees);

  // The outbox: like Apply above, and in the same transaction enqueues
  // `jobs` (a spec with an empty account gets `account`), so a node and the
  // follow-up work it needs are committed together or not at all. When
  // `enqueued` is given it receives the stored jobs in the order of `jobs`.
  // Callers that run workers through a JobQueue call JobQueue::Notify() after.
  Status Apply(std::string_view account, const std::vector<CatalogNode>& upserts,
               const std::vector<std::string>& delete_subtrees, const std::vector<JobSpec>& jobs,
               std::vector<Job>* enqueued = nullptr);

  Status Put(std::string_view account, const CatalogNode& node) {
    return Apply(account, {node}, {});
  }

  // Deletes `path` and everything below it; returns the number of rows removed.
  Result<uint64_t> DeleteSubtree(std::string_view account, std::string_view path);

  // Re-keys `from` and its subtree to `to` in one transaction; `mtime_ns`
  // becomes the moved root's mtime. REQUIRES: `to` is free. The records of
  // `from` are tombstoned and `carried` (the caller's copies of them re-keyed
  // to `to`; null for none) upserted, so that search finds the tree at its
  // new place at once. As the outbox Apply, `jobs` are enqueued in the same
  // transaction (the moved tree's index job: a crash never leaves a move
  // without the work it needs).
  Status MoveSubtree(std::string_view account, std::string_view from, std::string_view to,
                     int64_t mtime_ns, const std::vector<JobSpec>& jobs = {},
                     std::vector<Record>* carried = nullptr);

  // Accounts with at least one node.
  Result<std::vector<std::string>> ListAccounts();

  // Inserts or replaces records (matched by account + id) in one
  // transaction, assigning each a new change sequence number; `key` and
  // `seq` are filled in on the given records. A record i with
  // `keep_stored_tags[i]` (when given) that replaces a stored one keeps the
  // stored tags, as they are at the write (a tag change that landed after
  // the caller read the record is not undone); its `tags` are set to them.
  Status UpsertRecords(std::string_view account, std::vector<Record>* records,
                       const std::vector<bool>& keep_stored_tags = {});

  // Marks the records of `uri` and everything below it as deleted (a
  // tombstone per record, with a new sequence number and no vector).
  // Returns how many records were deleted.
  Result<uint64_t> DeleteRecordsUnder(std::string_view account, std::string_view uri);

  // Calls `fn` for each live (or, with include_deleted, every) record of an
  // account in key order; stops early with fn's error.
  Status ScanRecords(std::string_view account, bool include_deleted,
                     const std::function<Status(const Record&)>& fn);

  // Records of every account changed after `after_seq`, tombstones included,
  // in sequence order, at most `limit` of them (catch-up of indexes).
  // `with_vectors` false leaves Record::vector empty (the lexical index
  // needs none), which saves reading each record's vector.
  Result<std::vector<Record>> RecordsChangedSince(int64_t after_seq, int limit,
                                                  bool with_vectors = true);

  // Highest change sequence number assigned so far (0 when none).
  Result<int64_t> MaxRecordSeq();

  // Removes tombstones with seq <= `up_to_seq` (once every index has seen them).
  Result<uint64_t> PurgeTombstones(int64_t up_to_seq);

  // Live records of `account` with these keys, in the order of `keys`
  // (missing or deleted keys are skipped; a repeated key repeats its record).
  // with_vectors=false leaves `vector` empty, which reads far less. One
  // statement whatever the number of keys.
  Result<std::vector<Record>> GetRecordsByKeys(std::string_view account,
                                               std::span<const uint64_t> keys,
                                               bool with_vectors = false);

  // Live records of one node (`uri` exactly: its L0, L1 or L2 records), by level.
  Result<std::vector<Record>> GetRecordsByUri(std::string_view account, std::string_view uri,
                                              bool with_vectors = false);

  // Live records of `uri` and of every node below it (their vectors only
  // `with_vectors`), in URI then level order.
  Result<std::vector<Record>> GetRecordsUnder(std::string_view account, std::string_view uri,
                                              bool with_vectors = false);
  // The live records of `uri` and its subtree (their vectors only
  // `with_vectors`), in URI order (then level), handed to `visit` one at a
  // time until it returns false.
  Status ScanRecordsUnder(std::string_view account, std::string_view uri,
                          const std::function<bool(Record&)>& visit, bool with_vectors = false);

  // Applies `tags` in `mode` (common/tags.h ApplyTags) to the tags of live
  // records (by key) as they are in this transaction, so that a change
  // another writer made after the caller read the records is built on, not
  // undone. Each record whose tags change gets a new change sequence number
  // (the indexes' filters catch up); the rest of it (its vector included)
  // is left as it is. Keys of records deleted meanwhile are skipped.
  // Returns how many records changed.
  Result<uint64_t> ApplyRecordTags(std::string_view account, std::span<const uint64_t> keys,
                                   std::span<const std::string> tags, TagMode mode);

  // Adds 1 to active_count of every live record of each distinct URI in
  // `uris` (all levels), in one transaction. Neither seq nor updated_ns
  // change: indexes do not store active_count (rankers read it from the
  // catalog), so the bump must not make them re-read vectors, and hotness'
  // age term keeps measuring content age. Unknown URIs are ignored.
  Status BumpActiveCount(std::string_view account, std::span<const std::string> uris);

  // BumpActiveCount at most once per `once_key`: the key is recorded (in the
  // workspace metadata) in the same transaction as the bump, so a caller
  // that runs again after a crash (a session commit's phase 2) does not
  // count twice. Returns true when it bumped now, false when the key was
  // already recorded. ForgetActiveCountBump drops the key once the caller
  // can no longer run again (Ok when it is unknown).
  Result<bool> BumpActiveCountOnce(std::string_view account, std::string_view once_key,
                                   std::span<const std::string> uris);
  Status ForgetActiveCountBump(std::string_view once_key);

  // ---- Job queue (table `jobs`). Scheduling times (`now_ns`, leases,
  // not_before) are the caller's clock; created_ns/updated_ns are wall clock.

  // Stores a pending job. InvalidArgument for kind kUnknown, max_attempts < 1
  // or a payload that is not JSON; AlreadyExists for a task_id in use.
  Result<Job> EnqueueJob(const JobSpec& spec);

  // Leases the next runnable job whose kind is in `kinds` (empty = any;
  // kUnknown in `kinds` matches every stored kind this binary does not know):
  // highest priority first, then oldest. Runnable = pending with
  // not_before_ns <= now_ns, or running with lease_until_ns < now_ns (its
  // worker died; the job runs again). The job becomes running with
  // attempts + 1 and lease_until_ns = now_ns + lease_ns. An expired job that
  // already used max_attempts is not re-leased but marked failed (a job that
  // kills its worker cannot loop forever). nullopt when nothing is runnable.
  // A lease is not a fence: a worker that outlived its lease can still
  // complete or fail the job another worker re-leased, so jobs must be
  // idempotent and workers renew leases well before they expire.
  Result<std::optional<Job>> LeaseJob(std::span<const JobKind> kinds, int64_t now_ns,
                                      int64_t lease_ns);

  // Extends a running job's lease. NotFound for an unknown id,
  // FailedPrecondition when the job is not running.
  Status RenewJobLease(int64_t id, int64_t lease_until_ns);

  // Makes every running job pending again at once (attempts are kept). Only
  // for the process that just took the workspace LOCK: no worker can be
  // running, so those leases belong to a process that died. Returns how many.
  Result<uint64_t> ReleaseRunningJobs();

  // Records a progress label. NotFound for an unknown id.
  Status SetJobStage(int64_t id, std::string_view stage);
  // SetJobStage without waiting: false (nothing written) while another
  // thread holds the catalog's writer, e.g. in a transaction's commit.
  Result<bool> TrySetJobStage(int64_t id, std::string_view stage);

  // Running -> completed with `result_json` ("" or JSON text). NotFound /
  // FailedPrecondition (not running) / InvalidArgument (not JSON).
  Status CompleteJob(int64_t id, std::string_view result_json);

  // A running job failed with `error`. While attempts < max_attempts it goes
  // back to pending, not leased before `retry_at_ns` (other jobs lease
  // meanwhile); otherwise it is terminally failed. The error is kept either
  // way. NotFound / FailedPrecondition (not running).
  // `permanent` (an error no retry can fix: bad input, a missing source)
  // fails the job terminally at once, whatever attempts are left.
  Status FailJob(int64_t id, std::string_view error, int64_t retry_at_ns, bool permanent = false);

  // The job with this task id, or nullopt.
  Result<std::optional<Job>> GetJobByTaskId(std::string_view task_id);

  // Jobs matching `filter`, newest first.
  Result<std::vector<Job>> ListJobs(const JobFilter& filter);

  // Number of jobs in `state` (nullopt = any) of `kind` (nullopt = any;
  // kUnknown = every stored kind this binary does not know).
  Result<uint64_t> CountJobs(std::optional<JobState> state,
                             std::optional<JobKind> kind = std::nullopt);

  // The jobs not done yet, read in one statement (one snapshot: a job that
  // moves from pending to running between two counts is not missed).
  struct ActiveJobs {
    uint64_t running = 0;
    uint64_t pending = 0;  // all pending jobs
    uint64_t due = 0;      // of them, those leasable at `now_ns` (not_before_ns <= now_ns)
  };
  Result<ActiveJobs> CountActiveJobs(int64_t now_ns);

  // Pending or running jobs of `account` whose resource_id is `resource` or
  // below it ("" = every job of the account; "viking://resources" covers
  // "viking://resources/a/b"). 0 means everything asked for so far is done.
  Result<uint64_t> CountUnfinishedJobs(std::string_view account, std::string_view resource);

  // Deletes completed and failed jobs last changed before
  // `finished_before_ns` (wall clock); returns how many.
  Result<uint64_t> PurgeFinishedJobs(int64_t finished_before_ns);

  // ---- Embedding cache (table `embed_cache`), keyed by (account, embedder
  // identity, text hash): accounts never share entries, so a cache hit tells
  // an account nothing about another. Vectors are stored as float32.

  // For each of `text_hashes` (in order) the vector `account` cached for
  // `embedder`, or nullopt. One statement whatever the number of hashes.
  Result<std::vector<std::optional<std::vector<float>>>> GetCachedEmbeddings(
      std::string_view account, std::string_view embedder,
      std::span<const std::string> text_hashes);

  // Stores (or replaces) vectors[i] for text_hashes[i] of `account` in one
  // transaction. REQUIRES: equal lengths (InvalidArgument otherwise).
  Status PutCachedEmbeddings(std::string_view account, std::string_view embedder,
                             std::span<const std::string> text_hashes,
                             std::span<const std::vector<float>> vectors);

  // Deletes the entries (of every account) of every embedder but
  // `keep_embedder`; returns how many.
  Result<uint64_t> PurgeEmbeddingCache(std::string_view keep_embedder);

  // Deletes the entries of `account` under `embedder` exactly; returns how
  // many.
  Result<uint64_t> DeleteEmbeddingCacheOf(std::string_view account, std::string_view embedder);

  // The distinct (account, embedder) keys of the cache whose embedder
  // contains `fragment`.
  Result<std::vector<std::pair<std::string, std::string>>> EmbeddingCacheKeysWith(
      std::string_view fragment);

  // ---- Account registry (tables `accounts` and `users`). Policy (who may
  // do what, key format) lives in service/account_registry.h; these are the
  // rows.

  // Registers `account_id` (created at `created_ns`) and, when `first_user`
  // is given, that user, in one transaction. AlreadyExists when the account
  // is registered.
  Status InsertAccount(std::string_view account_id, int64_t created_ns,
                       const UserRow* first_user = nullptr);
  // Registers `account_id` unless it is (an account first used through
  // dev/trusted-mode identity headers). Ok either way.
  Status EnsureAccountRow(std::string_view account_id, int64_t created_ns);
  // The account, or nullopt.
  Result<std::optional<AccountRow>> GetAccount(std::string_view account_id);
  // Every registered account, ordered by id.
  Result<std::vector<AccountRow>> ListAccountRows();
  // Adds a user. NotFound when its account is not registered, AlreadyExists
  // when the user exists (being deleted included).
  Status InsertUser(const UserRow& user);
  // The user, or nullopt.
  Result<std::optional<UserRow>> GetUser(std::string_view account_id, std::string_view user_id);
  // The users of an account, ordered by id.
  Result<std::vector<UserRow>> ListUsers(std::string_view account_id);
  // Replaces a user's key hash and prefix. NotFound for an unknown user or
  // one being deleted.
  Status SetUserKey(std::string_view account_id, std::string_view user_id,
                    std::string_view key_hash, std::string_view key_prefix);
  // Changes a user's role. NotFound for an unknown user or one being deleted.
  Status SetUserRole(std::string_view account_id, std::string_view user_id, std::string_view role);
  // In one transaction: revokes the user's key, marks it deleting and
  // enqueues `cleanup` (its deletion job). NotFound for an unknown user,
  // FailedPrecondition when it is already being deleted.
  Result<Job> BeginUserDeletion(std::string_view account_id, std::string_view user_id,
                                const JobSpec& cleanup);
  // Drops the user row (the end of its deletion). Ok when it is gone already.
  Status DeleteUserRow(std::string_view account_id, std::string_view user_id);
  // Deletes the jobs of `user_id` in `account_id` that are not running,
  // except the job with task id `keep_task_id`. Returns how many.
  Result<uint64_t> DeleteUserJobs(std::string_view account_id, std::string_view user_id,
                                  std::string_view keep_task_id);
  // In one transaction removes everything of an account from the catalog:
  // its registry row and users, its nodes, its records (tombstoned, so the
  // indexes drop them at their next catch-up), its jobs that are not running
  // and its cached embeddings. NotFound when the account is not registered.
  Status PurgeAccount(std::string_view account_id);

  // ---- Snapshots (tables snapshot_objects, snapshot_refs, snapshot_ignore;
  // storage/snapshot_objects.h): per account, its objects by id, its
  // branches ("refs/heads/<name>" -> commit id) and its .ovgitignore.
  // Accounts never share objects.

  // The object `oid` of `account`, or nullopt.
  Result<std::optional<SnapshotObject>> GetSnapshotObject(std::string_view account,
                                                          std::string_view oid);
  // Whether `account` holds the object `oid` (without reading it).
  Result<bool> HasSnapshotObject(std::string_view account, std::string_view oid);
  // The id of a stored blob whose bytes have this SHA-256 (hex), or nullopt.
  Result<std::optional<std::string>> FindSnapshotBlob(std::string_view account,
                                                      std::string_view sha256);
  // The ids of `account`'s commits that start with `prefix`, at most `limit`.
  Result<std::vector<std::string>> SnapshotCommitsWithPrefix(std::string_view account,
                                                             std::string_view prefix,
                                                             size_t limit);
  // The commit id the ref `name` points at, or nullopt.
  Result<std::optional<std::string>> GetSnapshotRef(std::string_view account,
                                                    std::string_view name);
  // Stores `objects` (those already stored are kept) in one transaction.
  Status StoreSnapshotObjects(std::string_view account, std::span<const SnapshotObject> objects);
  // In one transaction: stores `objects` (those already stored are kept)
  // and moves the ref `name` from `expected` (nullopt: the ref must not
  // exist yet) to `oid`. Conflict, with nothing stored, when the ref is not
  // at `expected` (another commit moved it).
  Status StoreSnapshotCommit(std::string_view account, std::span<const SnapshotObject> objects,
                             std::string_view name, const std::optional<std::string>& expected,
                             std::string_view oid);
  // Deletes the blobs `oids` of `account` (ids of other kinds, or unknown
  // ones, are passed over) in one transaction.
  Status DeleteSnapshotBlobs(std::string_view account, std::span<const std::string> oids);
  // The account's .ovgitignore ("" when it has none).
  Result<std::string> GetSnapshotIgnore(std::string_view account);
  // Replaces it; "" deletes it.
  Status SetSnapshotIgnore(std::string_view account, std::string_view content);

  // Folds the write-ahead log into the database file and truncates it, as
  // the close does: a caller that closes other files too does it beside
  // them, and the close finds (almost) nothing left to fold.
  Status Checkpoint();

  // Workspace metadata (key/value).
  Result<std::optional<std::string>> GetMeta(std::string_view key);
  Status SetMeta(std::string_view key, std::string_view value);
  // Metadata keys named like paths: the tree of `prefix` is the key
  // `prefix` and every key that starts with `prefix` + "/".
  // Deletes the tree of `prefix`; returns how many keys went.
  Result<uint64_t> DeleteMetaTree(std::string_view prefix);
  // Renames the tree of `from` to the tree of `to` (`from` + rest becomes
  // `to` + rest) in one transaction; a key already at a new name is
  // replaced. Returns how many keys moved. REQUIRES: `to` is not in the tree
  // of `from`.
  Result<uint64_t> MoveMetaTree(std::string_view from, std::string_view to);
  // The (key, value) pairs of the tree of `prefix`, by key.
  Result<std::vector<std::pair<std::string, std::string>>> ListMetaTree(std::string_view prefix);

 private:
  Catalog();

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace skald
