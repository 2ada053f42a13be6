#pragma once

// JobRunner: executes the durable job queue. It owns the queue
// (storage/job_queue.h) and its worker threads; modules register one handler
// per JobKind (RegisterHandler), and a worker leases the most urgent runnable
// job (priority, then age), dispatches it to its kind's handler and records
// the outcome:
//
// - ok: the job is completed (with "" as its result unless the handler
//   completed it itself through JobContext::Complete);
// - an error no retry can fix (IsPermanentJobError: bad input, a source that
//   is gone, a conflict with the tree's shape) fails the job at once;
// - any other error (a provider that is down, a lock timeout, an I/O error)
//   returns it to the queue, not leased again before an exponential backoff
//   (retry_base_ns doubling up to retry_max_ns), until its max_attempts are
//   used up;
// - a kind this binary does not know (a job written by a newer version) or
//   one without a handler fails that job with a clear error; the queue goes
//   on with the next job.
//
// A worker that dies mid-job leaves a lease that expires (long jobs renew it
// through JobContext::Progress), and the job runs again.
//
// Thread safety: RegisterHandler and SetIdleTask before Start; everything
// else is safe from any thread. Handlers run on the worker threads, several
// at once (one job per worker). The Catalog must outlive the runner; the
// destructor stops and joins the workers.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "skald/result.h"
#include "storage/catalog.h"
#include "storage/job_kind.h"
#include "storage/job_queue.h"

namespace skald {

// Progress callback of a running job: records `stage` as the task's progress
// label (and renews the lease now and then). Same signature as
// ingest's IndexProgress, so it can be handed to the indexer as is.
using JobProgress = std::function<void(std::string_view stage)>;

class JobRunner;

// What a handler gets for the job it runs. Valid only during the handler
// call. Thread safety: used by the one worker thread that runs the job.
class JobContext {
 public:
  JobContext(JobRunner* runner, const Job* job) : runner_(runner), job_(job) {}

  const Job& job() const { return *job_; }

  // A progress callback for this job: a call records the stage label (a new
  // kind at once, counts of one kind every stage_every_ns) and, every
  // renew_every_ns, extends the lease so a long job is never taken for a dead
  // one. It never waits for the catalog's writer: a label due while another
  // thread writes is left for the next call (progress is best effort; use
  // SetStage for a label that must be recorded). Errors are logged, not
  // returned.
  JobProgress Progress();

  // True once the runner is stopping: a long handler returns at its next
  // step (with an error that is retried, e.g. Unavailable; the job then runs
  // again after a restart).
  bool stopping() const;
  // The flag behind stopping(), for code that takes one (SemanticIndexer).
  const std::atomic<bool>* stop_flag() const;

  // Records `stage` as the task's progress label now; errors are returned.
  Status SetStage(std::string_view stage);

  // The job's milestone "placed" (JobQueue::MarkPlaced): what it adds can
  // be read now, the rest of its work goes on.
  void NotePlaced();

  // Completes the job now with `result_json` (JSON text or ""), for handlers
  // that must do something only once the job can never run again (e.g.
  // delete the upload it imported). The runner then does not complete it
  // again. REQUIRES: called at most once, and the handler returns Ok after.
  Status Complete(std::string_view result_json);
  bool completed() const { return completed_; }

 private:
  JobRunner* runner_;
  const Job* job_;
  bool completed_ = false;
};

// Runs one job. Returns Ok when done (the runner completes the job unless the
// handler did), or the error (see the class comment for retries).
using JobHandler = std::function<Status(JobContext& context)>;

// True for errors no retry can fix: InvalidArgument, NotFound,
// PermissionDenied, FailedPrecondition, AlreadyExists, Corruption and
// ResourceExhausted (e.g. a source over the file-count limit) — except a full
// disk (IsDiskFull), which is retried with backoff since space may come back.
bool IsPermanentJobError(const Status& status);

struct JobRunnerOptions {
  // The queue's clock hook and re-poll interval (tests inject a fake clock).
  JobQueueOptions queue;
  // A leased job is taken for dead when not renewed for this long.
  int64_t lease_ns = int64_t{10} * 60 * 1'000'000'000;
  // How often JobContext::Progress renews the lease of a long job.
  int64_t renew_every_ns = int64_t{30} * 1'000'000'000;
  // Progress labels of one kind ("embedding 120/400") are recorded at
  // most this often; a label of a new kind is recorded at once.
  int64_t stage_every_ns = int64_t{200} * 1'000'000;
  // Backoff after the n-th failed attempt: min(retry_max_ns, retry_base_ns * 2^(n-1)).
  int64_t retry_base_ns = 2'000'000'000;
  int64_t retry_max_ns = int64_t{5} * 60 * 1'000'000'000;
  // How long an idle worker waits for work before it runs the idle task.
  std::chrono::milliseconds idle_wait{1000};
  // When set, held shared while a worker runs a job, so that whoever takes
  // it exclusively (fsck) never runs beside a job. Borrowed; must outlive
  // the runner.
  std::shared_mutex* job_lock = nullptr;
  // When set, asked before each lease; while it answers an error no job is
  // leased (workers wait idle_wait and ask again). The workspace sets it to
  // its disk reserve's check, so that on a full disk background work does
  // not take the room a delete needs.
  std::function<Status()> admit;
  // Appended to WaitIdle's error when jobs are queued but no worker runs,
  // e.g. " (no embedder configured)".
  std::string no_workers_note;
};

// Outcomes of one kind's jobs since the runner was created (in memory;
// reported by /api/v1/system/wait, the observers and /metrics). Each outcome
// is counted before the job's new state is stored, so a caller that saw the
// job finish (WaitIdle, AwaitTask) also sees it counted.
struct JobOutcomeCounts {
  uint64_t processed = 0;  // jobs completed
  uint64_t requeued = 0;   // failed attempts returned to the queue for a retry
  uint64_t failed = 0;     // jobs failed for good (permanent error or attempts used up)
  // The last kMaxRecentJobErrors errors (newest last), each with who
  // enqueued the job, so that callers can show users their own only.
  struct Error {
    std::string account, user, message;
  };
  std::deque<Error> recent_errors;
};
inline constexpr size_t kMaxRecentJobErrors = 20;

class JobRunner {
 public:
  // `catalog` is borrowed. REQUIRES: catalog != nullptr and outlives the runner.
  JobRunner(Catalog* catalog, JobRunnerOptions options);
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Registers the handler of `kind` (replacing an earlier one).
  // REQUIRES: before Start.
  void RegisterHandler(JobKind kind, JobHandler handler);

  // Work a worker does when it waited idle_wait and found no job (e.g.
  // hourly upkeep that throttles itself; another worker may be running a
  // job meanwhile: running_jobs()). REQUIRES: before Start.
  void SetIdleTask(std::function<void()> task);

  // Starts `workers` worker threads (0: none; jobs then wait in the queue).
  // REQUIRES: called at most once.
  void Start(int workers);

  // Stops: running handlers see stopping() and the queue wakes every
  // waiter; joins the workers. Idempotent; the destructor calls it.
  void Stop();

  // The durable queue (enqueue, notify, clock). Owned by the runner.
  JobQueue* queue() { return queue_.get(); }

  // Set once Stop began; handlers that take a stop flag (the indexer) read it.
  const std::atomic<bool>* stop_flag() const { return &stopping_; }

  // Number of worker threads started.
  int workers() const { return static_cast<int>(workers_.size()); }

  // Number of jobs the workers run at this moment (a hint: it may change
  // as soon as it is read).
  int running_jobs() const { return running_jobs_.load(); }

  // Waits until the task ends or `timeout_s` passes (none: a day) and returns
  // the job as last read; a failed task is an Internal error (reason
  // PROCESSING_ERROR) carrying the job's error.
  Result<Job> AwaitTask(const std::string& task_id, std::optional<double> timeout_s);

  // Waits until no job is pending or running (`wait_for_retries` false:
  // jobs waiting out a retry backoff, or held back by `admit`, do not count). FailedPrecondition when
  // jobs are queued but no worker runs; DeadlineExceeded after `timeout_ms`
  // on the queue Env's monotonic clock.
  Status WaitIdle(int64_t timeout_ms, bool wait_for_retries);

  // Outcomes since creation of the jobs of `kind` (zeros for a kind that ran
  // nothing). Thread-safe.
  JobOutcomeCounts Outcomes(JobKind kind) const;

 private:
  friend class JobContext;

  void WorkerLoop();
  // Runs one leased job and records its outcome.
  void RunOne(const Job& job);
  Status Dispatch(JobContext& context);
  // Counts a completed job in Outcomes(); called before the job is marked
  // completed, so whoever sees it finished also sees it counted.
  void CountProcessed(JobKind kind);

  Catalog* const catalog_;
  const JobRunnerOptions options_;
  std::unique_ptr<JobQueue> queue_;
  std::map<JobKind, JobHandler> handlers_;  // fixed before Start
  std::function<void()> idle_task_;         // fixed before Start
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> running_jobs_{0};
  mutable std::mutex outcomes_mu_;
  std::map<JobKind, JobOutcomeCounts> outcomes_;  // GUARDED_BY(outcomes_mu_)
};

}  // namespace skald
