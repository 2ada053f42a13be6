// Catalog: the durable job queue (table `jobs`). Layout and state machine:
// docs/format/catalog.md.

#include <openssl/rand.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/json_util.h"
#include "common/time_util.h"
#include "storage/catalog.h"
#include "storage/catalog_internal.h"

namespace skald {

using namespace catalog_internal;  // NOLINT: part of the catalog itself

namespace {

constexpr const char* kJobColumns =
    "id, task_id, kind, account, user, resource_id, payload, priority, state, attempts, "
    "max_attempts, not_before_ns, lease_until_ns, stage, result, error, created_ns, updated_ns";

// A SQL condition on the `kind` column matching any of `kinds` (kUnknown:
// any stored kind this binary does not know). The names are this binary's
// constants, so they are inlined as literals.
std::string KindCondition(std::span<const JobKind> kinds) {
  auto quoted_list = [](auto&& names) {
    std::string out;
    for (std::string_view name : names) {
      if (!out.empty()) out += ", ";
      out += fmt::format("'{}'", name);
    }
    return out;
  };
  std::vector<std::string_view> known, all;
  bool unknown = false;
  for (JobKind k : kinds) {
    if (k == JobKind::kUnknown) {
      unknown = true;
    } else {
      known.push_back(JobKindName(k));
    }
  }
  std::vector<std::string> terms;
  if (!known.empty()) terms.push_back(fmt::format("kind IN ({})", quoted_list(known)));
  if (unknown) {
    for (JobKind k : KnownJobKinds()) all.push_back(JobKindName(k));
    terms.push_back(fmt::format("kind NOT IN ({})", quoted_list(all)));
  }
  if (terms.empty()) return "1";
  if (terms.size() == 1) return terms[0];
  return fmt::format("({} OR {})", terms[0], terms[1]);
}

Result<Job> ReadJob(const Stmt& s) {
  Job j;
  j.id = s.Int(0);
  j.task_id = s.Text(1);
  j.kind_name = s.Text(2);
  j.kind = ParseJobKind(j.kind_name).value_or(JobKind::kUnknown);
  j.account = s.Text(3);
  j.user = s.Text(4);
  j.resource_id = s.Text(5);
  j.payload = s.Text(6);
  j.priority = static_cast<int>(s.Int(7));
  std::string state = s.Text(8);
  std::optional<JobState> parsed = ParseTaskState(state);
  if (!parsed) {
    return Status::Corruption(fmt::format("catalog job {}: unknown state '{}'", j.id, state));
  }
  j.state = *parsed;
  j.attempts = static_cast<int>(s.Int(9));
  j.max_attempts = static_cast<int>(s.Int(10));
  j.not_before_ns = s.Int(11);
  j.lease_until_ns = s.Int(12);
  j.stage = s.Text(13);
  j.result = s.Text(14);
  j.error = s.Text(15);
  j.created_ns = s.Int(16);
  j.updated_ns = s.Int(17);
  return j;
}

// Steps a statement selecting kJobColumns to the end.
Result<std::vector<Job>> ReadJobs(sqlite3* db, Stmt& s, std::string_view what) {
  std::vector<Job> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    SKALD_ASSIGN_OR_RETURN(Job j, ReadJob(s));
    out.push_back(std::move(j));
  }
  if (rc != SQLITE_DONE) return SqlError(db, what);
  return out;
}

// A random (version 4) UUID in canonical text form.
std::string NewUuid4() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof(b)) != 1) {
    // The OpenSSL generator is not seeded (never expected on Linux); task ids
    // only need to be unique, not secret.
    std::random_device rd;
    for (unsigned char& c : b) c = static_cast<unsigned char>(rd());
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string out;
  out.reserve(36);
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 0x0f]);
  }
  return out;
}

// Reads the current state of job `id` (for error messages): NotFound or the state.
Result<JobState> JobStateLocked(sqlite3* db, int64_t id) {
  Stmt s(db, "SELECT state FROM jobs WHERE id=?");
  if (!s.prepared()) return SqlError(db, "job state");
  s.Bind(1, id);
  int rc = s.Step();
  if (rc == SQLITE_DONE) return Status::NotFound(fmt::format("job {} not found", id));
  if (rc != SQLITE_ROW) return SqlError(db, "job state");
  std::optional<JobState> st = ParseTaskState(s.Text(0));
  if (!st) return Status::Corruption(fmt::format("catalog job {}: unknown state", id));
  return *st;
}

// Runs an UPDATE on a job that must be running; turns "no row changed" into
// NotFound or FailedPrecondition naming the job's actual state.
Status UpdateRunningJob(sqlite3* db, Stmt& update, int64_t id, std::string_view what) {
  SKALD_RETURN_IF_ERROR(update.Run(what));
  if (sqlite3_changes(db) > 0) return Status::Ok();
  SKALD_ASSIGN_OR_RETURN(JobState state, JobStateLocked(db, id));
  return Status::FailedPrecondition(
      fmt::format("{}: job {} is {}, not running", what, id, TaskStateName(state)));
}

Status CheckJson(std::string_view text, std::string_view what) {
  if (text.empty()) return Status::Ok();
  auto parsed = ParseJson(text);
  if (!parsed.ok()) {
    return Status::InvalidArgument(
        fmt::format("{} is not JSON: {}", what, parsed.status().message()));
  }
  return Status::Ok();
}

}  // namespace

namespace catalog_internal {

Result<Job> InsertJobLocked(sqlite3* db, const JobSpec& spec) {
  if (spec.kind == JobKind::kUnknown) return Status::InvalidArgument("job kind is unknown");
  if (spec.max_attempts < 1) {
    return Status::InvalidArgument(
        fmt::format("job max_attempts must be at least 1, got {}", spec.max_attempts));
  }
  if (spec.payload.empty()) return Status::InvalidArgument("job payload is empty (use \"{}\")");
  SKALD_RETURN_IF_ERROR(CheckJson(spec.payload, "job payload"));
  std::string task_id = spec.task_id.empty() ? NewUuid4() : spec.task_id;
  int64_t now = NowNanos();
  Stmt s(db, fmt::format("INSERT INTO jobs(task_id, kind, account, user, resource_id, payload, "
                         "priority, state, attempts, max_attempts, not_before_ns, lease_until_ns, "
                         "stage, result, error, created_ns, updated_ns) "
                         "VALUES(?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, 0, '', '', '', ?, ?) "
                         "RETURNING {}",
                         kJobColumns));
  if (!s.prepared()) return SqlError(db, "enqueue job");
  s.Bind(1, task_id).Bind(2, JobKindName(spec.kind)).Bind(3, spec.account).Bind(4, spec.user);
  s.Bind(5, spec.resource_id).Bind(6, spec.payload).Bind(7, int64_t{spec.priority});
  s.Bind(8, int64_t{spec.max_attempts}).Bind(9, spec.not_before_ns).Bind(10, now).Bind(11, now);
  int rc = s.Step();
  if (rc == SQLITE_CONSTRAINT) {
    return Status::AlreadyExists(fmt::format("job task_id '{}' already exists", task_id));
  }
  if (rc != SQLITE_ROW) return SqlError(db, "enqueue job");
  SKALD_ASSIGN_OR_RETURN(Job job, ReadJob(s));
  // Finish the statement so the insert is complete before the caller commits.
  if (s.Step() != SQLITE_DONE) return SqlError(db, "enqueue job");
  return job;
}

}  // namespace catalog_internal

std::string NewTaskId() { return NewUuid4(); }

Result<Job> Catalog::EnqueueJob(const JobSpec& spec) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  std::optional<Job> job;
  Status st = InTransaction(db, [&]() -> Status {
    SKALD_ASSIGN_OR_RETURN(job, InsertJobLocked(db, spec));
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return std::move(*job);
}

Result<std::optional<Job>> Catalog::LeaseJob(std::span<const JobKind> kinds, int64_t now_ns,
                                             int64_t lease_ns) {
  if (lease_ns <= 0) return Status::InvalidArgument("job lease must be positive");
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  std::optional<Job> leased;
  Status st = InTransaction(db, [&]() -> Status {
    int64_t wall = NowNanos();
    // A job whose worker died on its last allowed attempt fails for good
    // instead of being run again.
    Stmt exhausted(db,
                   "UPDATE jobs SET state='failed', lease_until_ns=0, updated_ns=?2, "
                   "error = CASE WHEN error='' THEN '' ELSE error || '; ' END || "
                   "'lease expired on attempt ' || attempts || ' of ' || max_attempts || "
                   "' (worker stopped?)' "
                   "WHERE state='running' AND lease_until_ns < ?1 AND attempts >= max_attempts");
    if (!exhausted.prepared()) return SqlError(db, "lease job");
    exhausted.Bind(1, now_ns).Bind(2, wall);
    SKALD_RETURN_IF_ERROR(exhausted.Run("lease job"));

    // The best pending and the best expired job are each found by walking
    // jobs_by_state in (priority DESC, id) order, so a lease costs no sort
    // however many jobs wait; the better of the two wins.
    std::string kind_filter = kinds.empty() ? "" : " AND " + KindCondition(kinds);
    Stmt s(db, fmt::format(
                   "UPDATE jobs SET state='running', attempts=attempts+1, lease_until_ns=?1 + ?2, "
                   "updated_ns=?3 WHERE id = (SELECT id FROM ("
                   "SELECT * FROM (SELECT id, priority FROM jobs WHERE state='pending' AND "
                   "not_before_ns <= ?1{0} ORDER BY priority DESC, id LIMIT 1) UNION ALL "
                   "SELECT * FROM (SELECT id, priority FROM jobs WHERE state='running' AND "
                   "lease_until_ns < ?1{0} ORDER BY priority DESC, id LIMIT 1)) "
                   "ORDER BY priority DESC, id LIMIT 1) RETURNING {1}",
                   kind_filter, kJobColumns));
    if (!s.prepared()) return SqlError(db, "lease job");
    s.Bind(1, now_ns).Bind(2, lease_ns).Bind(3, wall);
    int rc = s.Step();
    if (rc == SQLITE_DONE) return Status::Ok();
    if (rc != SQLITE_ROW) return SqlError(db, "lease job");
    SKALD_ASSIGN_OR_RETURN(leased, ReadJob(s));
    if (s.Step() != SQLITE_DONE) return SqlError(db, "lease job");
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return leased;
}

Status Catalog::RenewJobLease(int64_t id, int64_t lease_until_ns) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    Stmt s(db, "UPDATE jobs SET lease_until_ns=?, updated_ns=? WHERE id=? AND state='running'");
    if (!s.prepared()) return SqlError(db, "renew job lease");
    s.Bind(1, lease_until_ns).Bind(2, NowNanos()).Bind(3, id);
    return UpdateRunningJob(db, s, id, "renew job lease");
  });
}

Result<uint64_t> Catalog::ReleaseRunningJobs() {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  uint64_t released = 0;
  Status st = InTransaction(db, [&]() -> Status {
    // A job that was on its last attempt when its process died may be what
    // killed it: it fails instead of running again (no crash loop).
    Stmt poison(db,
                "UPDATE jobs SET state='failed', lease_until_ns=0, updated_ns=?, "
                "error=CASE WHEN error='' THEN '' ELSE error || '; ' END || "
                "'the process died while running it (attempt ' || attempts || ')' "
                "WHERE state='running' AND attempts>=max_attempts");
    if (!poison.prepared()) return SqlError(db, "fail orphaned jobs");
    poison.Bind(1, NowNanos());
    SKALD_RETURN_IF_ERROR(poison.Run("fail orphaned jobs"));
    Stmt s(db,
           "UPDATE jobs SET state='pending', lease_until_ns=0, not_before_ns=0, updated_ns=? "
           "WHERE state='running'");
    if (!s.prepared()) return SqlError(db, "release running jobs");
    s.Bind(1, NowNanos());
    SKALD_RETURN_IF_ERROR(s.Run("release running jobs"));
    released = static_cast<uint64_t>(sqlite3_changes(db));
    return Status::Ok();
  });
  SKALD_RETURN_IF_ERROR(st);
  return released;
}

namespace {

// SetJobStage's body. A progress label is committed without a sync of its
// own (synchronous=NORMAL for that commit): the write-ahead log keeps
// commits in order, so the label is durable with the next synced commit,
// and a crash loses at most the last labels, which the job's rerun writes
// again. An import of 5,000 files sets about twenty. REQUIRES: write_mu
// held; `synced`: the connection commits with synchronous=FULL.
Status WriteJobStage(sqlite3* db, bool synced, int64_t id, std::string_view stage) {
  if (synced) SKALD_RETURN_IF_ERROR(Exec(db, "PRAGMA synchronous=NORMAL", "set job stage"));
  Status st = InTransaction(db, [&]() -> Status {
    Stmt s(db, "UPDATE jobs SET stage=?, updated_ns=? WHERE id=?");
    if (!s.prepared()) return SqlError(db, "set job stage");
    s.Bind(1, stage).Bind(2, NowNanos()).Bind(3, id);
    SKALD_RETURN_IF_ERROR(s.Run("set job stage"));
    if (sqlite3_changes(db) == 0) return Status::NotFound(fmt::format("job {} not found", id));
    return Status::Ok();
  });
  if (synced) {
    Status restored = Exec(db, "PRAGMA synchronous=FULL", "set job stage");
    if (st.ok()) st = restored;
  }
  return st;
}

}  // namespace

Status Catalog::SetJobStage(int64_t id, std::string_view stage) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  return WriteJobStage(impl_->writer, impl_->options.sync, id, stage);
}

Result<bool> Catalog::TrySetJobStage(int64_t id, std::string_view stage) {
  std::unique_lock<std::mutex> lock(impl_->write_mu, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  SKALD_RETURN_IF_ERROR(WriteJobStage(impl_->writer, impl_->options.sync, id, stage));
  return true;
}

Status Catalog::CompleteJob(int64_t id, std::string_view result_json) {
  SKALD_RETURN_IF_ERROR(CheckJson(result_json, "job result"));
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    Stmt s(db,
           "UPDATE jobs SET state='completed', result=?, lease_until_ns=0, updated_ns=? "
           "WHERE id=? AND state='running'");
    if (!s.prepared()) return SqlError(db, "complete job");
    s.Bind(1, result_json).Bind(2, NowNanos()).Bind(3, id);
    return UpdateRunningJob(db, s, id, "complete job");
  });
}

Status Catalog::FailJob(int64_t id, std::string_view error, int64_t retry_at_ns, bool permanent) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  return InTransaction(db, [&]() -> Status {
    Stmt s(db,
           "UPDATE jobs SET error=?1, updated_ns=?2, lease_until_ns=0, "
           "state = CASE WHEN attempts < max_attempts AND ?5 = 0 THEN 'pending' "
           "ELSE 'failed' END, "
           "not_before_ns = CASE WHEN attempts < max_attempts AND ?5 = 0 THEN ?3 "
           "ELSE not_before_ns END "
           "WHERE id=?4 AND state='running'");
    if (!s.prepared()) return SqlError(db, "fail job");
    s.Bind(1, error).Bind(2, NowNanos()).Bind(3, retry_at_ns).Bind(4, id);
    s.Bind(5, static_cast<int64_t>(permanent ? 1 : 0));
    return UpdateRunningJob(db, s, id, "fail job");
  });
}

Result<std::optional<Job>> Catalog::GetJobByTaskId(std::string_view task_id) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(), fmt::format("SELECT {} FROM jobs WHERE task_id=?", kJobColumns));
  if (!s.prepared()) return SqlError(lease.db(), "get job");
  s.Bind(1, task_id);
  SKALD_ASSIGN_OR_RETURN(std::vector<Job> jobs, ReadJobs(lease.db(), s, "get job"));
  if (jobs.empty()) return std::optional<Job>();
  return std::optional<Job>(std::move(jobs.front()));
}

Result<std::vector<Job>> Catalog::ListJobs(const JobFilter& filter) {
  Impl::Lease lease(impl_.get());
  std::string sql = fmt::format("SELECT {} FROM jobs WHERE 1", kJobColumns);
  // Parameters are numbered so that unused filters need no placeholder.
  if (filter.kind) sql += " AND " + KindCondition(std::span<const JobKind>(&*filter.kind, 1));
  if (!filter.exclude_kinds.empty()) {
    sql += " AND NOT (" + KindCondition(filter.exclude_kinds) + ")";
  }
  if (!filter.account.empty()) sql += " AND account=?2";
  if (!filter.user.empty()) sql += " AND user=?3";
  if (!filter.resource_id.empty()) sql += " AND resource_id=?4";
  if (filter.state) sql += " AND state=?5";
  sql += " ORDER BY id DESC";
  if (filter.limit > 0) sql += " LIMIT ?6";
  Stmt s(lease.db(), sql);
  if (!s.prepared()) return SqlError(lease.db(), "list jobs");
  if (!filter.account.empty()) s.Bind(2, filter.account);
  if (!filter.user.empty()) s.Bind(3, filter.user);
  if (!filter.resource_id.empty()) s.Bind(4, filter.resource_id);
  if (filter.state) s.Bind(5, TaskStateName(*filter.state));
  if (filter.limit > 0) s.Bind(6, int64_t{filter.limit});
  return ReadJobs(lease.db(), s, "list jobs");
}

Result<uint64_t> Catalog::CountJobs(std::optional<JobState> state, std::optional<JobKind> kind) {
  Impl::Lease lease(impl_.get());
  std::string sql = "SELECT count(*) FROM jobs WHERE 1";
  if (state) sql += " AND state=?1";
  if (kind) sql += " AND " + KindCondition(std::span<const JobKind>(&*kind, 1));
  Stmt s(lease.db(), sql);
  if (!s.prepared()) return SqlError(lease.db(), "count jobs");
  if (state) s.Bind(1, TaskStateName(*state));
  if (s.Step() != SQLITE_ROW) return SqlError(lease.db(), "count jobs");
  return static_cast<uint64_t>(s.Int(0));
}

Result<Catalog::ActiveJobs> Catalog::CountActiveJobs(int64_t now_ns) {
  Impl::Lease lease(impl_.get());
  Stmt s(lease.db(),
         "SELECT count(*) FILTER (WHERE state='running'), count(*) FILTER (WHERE "
         "state='pending'), count(*) FILTER (WHERE state='pending' AND not_before_ns <= ?1) "
         "FROM jobs WHERE state IN ('pending', 'running')");
  if (!s.prepared()) return SqlError(lease.db(), "count active jobs");
  s.Bind(1, now_ns);
  if (s.Step() != SQLITE_ROW) return SqlError(lease.db(), "count active jobs");
  ActiveJobs out;
  out.running = static_cast<uint64_t>(s.Int(0));
  out.pending = static_cast<uint64_t>(s.Int(1));
  out.due = static_cast<uint64_t>(s.Int(2));
  return out;
}

Result<uint64_t> Catalog::CountUnfinishedJobs(std::string_view account, std::string_view resource) {
  Impl::Lease lease(impl_.get());
  std::string sql =
      "SELECT count(*) FROM jobs WHERE account=?1 AND state IN ('pending', 'running')";
  // The subtree of R is R itself plus the key range [R + "/", R + "0"): '0'
  // is the byte after '/'. A prefix that already ends in '/' ("viking://")
  // covers [R, R without its '/' + "0").
  std::string begin, end;
  if (!resource.empty()) {
    if (resource.back() == '/') {
      begin = std::string(resource);
      end = std::string(resource.substr(0, resource.size() - 1)) + "0";
      sql += " AND resource_id >= ?2 AND resource_id < ?3";
    } else {
      begin = std::string(resource) + "/";
      end = std::string(resource) + "0";
      sql += " AND (resource_id = ?4 OR (resource_id >= ?2 AND resource_id < ?3))";
    }
  }
  Stmt s(lease.db(), sql);
  if (!s.prepared()) return SqlError(lease.db(), "count unfinished jobs");
  s.Bind(1, account);
  if (!resource.empty()) {
    s.Bind(2, begin).Bind(3, end);
    if (resource.back() != '/') s.Bind(4, resource);
  }
  if (s.Step() != SQLITE_ROW) return SqlError(lease.db(), "count unfinished jobs");
  return static_cast<uint64_t>(s.Int(0));
}

Result<uint64_t> Catalog::PurgeFinishedJobs(int64_t finished_before_ns) {
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  sqlite3* db = impl_->writer;
  Stmt s(db, "DELETE FROM jobs WHERE state IN ('completed', 'failed') AND updated_ns < ?");
  if (!s.prepared()) return SqlError(db, "purge jobs");
  s.Bind(1, finished_before_ns);
  SKALD_RETURN_IF_ERROR(s.Run("purge jobs"));
  return static_cast<uint64_t>(sqlite3_changes(db));
}

}  // namespace skald
