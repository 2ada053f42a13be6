#pragma once

// JobQueue: blocking wait/wake for worker threads over the catalog's durable
// job table. The catalog is the truth (jobs survive restarts, leases expire);
// this class adds condition variables so that workers sleep until there is
// work and API calls with wait=true sleep until their task finishes.
//
// Thread safety: safe for concurrent use by any number of workers and
// waiters. The Catalog must outlive the queue; Shutdown() and joining every
// thread that waits on the queue must happen before it is destroyed.
//
// Wake-ups are hints, not the protocol: every wait also re-polls the catalog
// every `poll_interval`, so a job whose backoff ends, whose lease expires, or
// that another component enqueued straight through Catalog::Apply is picked
// up without a Notify().

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "common/env.h"
#include "skald/result.h"
#include "storage/catalog.h"

namespace skald {

struct JobQueueOptions {
  // Its wall clock schedules jobs (leases, not_before, backoff) and its
  // monotonic clock measures wait timeouts. Borrowed, null = Env::Default();
  // tests pass a FakeClock. Waits themselves are real-time
  // condition-variable waits bounded by `poll_interval`, so a FakeClock
  // moved past a deadline is noticed within one poll interval.
  Env* env = nullptr;
  // How often a waiter re-polls the catalog when nothing woke it. Shorter
  // picks up expired backoffs and leases sooner at the cost of idle queries.
  std::chrono::milliseconds poll_interval{1000};
};

class JobQueue {
 public:
  // `catalog` is borrowed. REQUIRES: catalog != nullptr and outlives the queue.
  explicit JobQueue(Catalog* catalog, JobQueueOptions options = {});
  ~JobQueue();
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  // The scheduling clock's current time (ns).
  int64_t Now() const;

  // Stores a job (Catalog::EnqueueJob) and wakes waiting workers.
  Result<Job> Enqueue(const JobSpec& spec);

  // Wakes every waiter so it re-polls; call after enqueueing through
  // Catalog::Apply (the outbox) or after changing jobs behind the queue.
  void Notify();

  // Leases a runnable job of `kinds` (empty = any) for `lease_ns` without
  // waiting; nullopt when there is none (see Catalog::LeaseJob for the order).
  Result<std::optional<Job>> TryLease(std::span<const JobKind> kinds, int64_t lease_ns);

  // Like TryLease, but blocks until a job can be leased, `timeout` passes or
  // the queue shuts down (both give nullopt). Errors are the catalog's.
  Result<std::optional<Job>> WaitAndLease(std::span<const JobKind> kinds, int64_t lease_ns,
                                          std::chrono::milliseconds timeout);

  // Extends a running job's lease to Now() + lease_ns (Catalog::RenewJobLease).
  Status Renew(int64_t id, int64_t lease_ns);

  // Records a progress label (Catalog::SetJobStage).
  Status SetStage(int64_t id, std::string_view stage);
  // SetStage unless the catalog's writer is busy (Catalog::TrySetJobStage).
  Result<bool> TrySetStage(int64_t id, std::string_view stage);

  // Marks the job completed (Catalog::CompleteJob) and wakes task waiters.
  Status Complete(int64_t id, std::string_view result_json);

  // Marks the job failed (Catalog::FailJob), retried after Now() +
  // retry_delay_ns while it has attempts left (`permanent`: never); wakes
  // task waiters and workers.
  Status Fail(int64_t id, std::string_view error, int64_t retry_delay_ns,
              bool permanent = false);

  // Blocks until the job with `task_id` is completed or failed, `timeout`
  // passes or the queue shuts down, and returns the job as last read (its
  // state tells which). NotFound when no job has this task id.
  Result<Job> WaitForTask(std::string_view task_id, std::chrono::milliseconds timeout);

  // A running job's milestone "placed": what it adds can be read (an
  // import's files are written; their indexing goes on). Wakes the waiters
  // of WaitForPlaced. In memory: a restart forgets it (nobody waits then).
  void MarkPlaced(int64_t id);

  // Blocks until the job with `task_id` is placed (MarkPlaced), completed,
  // failed or waiting for a retry, `timeout` passes or the queue shuts down;
  // returns the job as last read. NotFound when no job has this task id.
  Result<Job> WaitForPlaced(std::string_view task_id, std::chrono::milliseconds timeout);

  // Blocks until `account` has no pending or running job at or below
  // `resource` (see Catalog::CountUnfinishedJobs) — follow-up jobs that jobs
  // enqueue included. True when idle; false on timeout or shutdown.
  Result<bool> WaitForIdle(std::string_view account, std::string_view resource,
                           std::chrono::milliseconds timeout);

  // Wakes everyone; from now on WaitAndLease returns nullopt at once and the
  // other waits return what they last saw. Idempotent.
  void Shutdown();
  bool is_shut_down() const;

  // Threads blocked in a wait right now (idle workers plus task waiters);
  // for metrics, and for tests that must know a waiter is asleep.
  int blocked_waiters() const;

  // Exponential backoff for the n-th failed attempt (n >= 1):
  // min(max_ns, base_ns * 2^(n-1)).
  static int64_t RetryDelay(int attempts, int64_t base_ns, int64_t max_ns);

 private:
  // `timeout` from now on the Env's monotonic clock (ns).
  int64_t DeadlineAfter(std::chrono::milliseconds timeout) const;
  // Waits on `cv` until `*generation` differs from `seen`, shutdown, the
  // next poll or `deadline`. True when the caller should poll again; false
  // on shutdown or when the deadline passed with no wake-up (the caller
  // stops). REQUIRES: `lock` holds mu_.
  bool WaitForChange(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                     const uint64_t* generation, uint64_t seen, int64_t deadline);
  // WaitForTask, returning early once `reached` (called with mu_ held) is
  // true of the job as read.
  Result<Job> WaitForTaskUntil(std::string_view task_id, std::chrono::milliseconds timeout,
                               const std::function<bool(const Job&)>& reached);
  void BumpWork();
  void BumpDone();

  Catalog* const catalog_;
  const JobQueueOptions options_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // new or retried work
  std::condition_variable done_cv_;  // a job finished
  uint64_t work_generation_ = 0;     // GUARDED_BY(mu_)
  uint64_t done_generation_ = 0;     // GUARDED_BY(mu_)
  bool shutdown_ = false;            // GUARDED_BY(mu_)
  int blocked_waiters_ = 0;          // GUARDED_BY(mu_)
  std::set<int64_t> placed_;         // GUARDED_BY(mu_): running jobs that are placed
};

}  // namespace skald
