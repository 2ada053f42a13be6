#include "storage/job_queue.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>


namespace skald {

JobQueue::JobQueue(Catalog* catalog, JobQueueOptions options)
    : catalog_(catalog), options_(std::move(options)) {}

JobQueue::~JobQueue() = default;

int64_t JobQueue::Now() const { return EnvOrDefault(options_.env)->NowNanos(); }

int64_t JobQueue::DeadlineAfter(std::chrono::milliseconds timeout) const {
  // Saturate so that milliseconds::max() means "forever" without overflow.
  constexpr auto kForever = std::chrono::hours(24 * 365 * 100);
  auto bounded = std::clamp<std::chrono::milliseconds>(
      timeout, std::chrono::milliseconds(0),
      std::chrono::duration_cast<std::chrono::milliseconds>(kForever));
  return EnvOrDefault(options_.env)->MonotonicNanos() +
         std::chrono::duration_cast<std::chrono::nanoseconds>(bounded).count();
}

bool JobQueue::WaitForChange(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                             const uint64_t* generation, uint64_t seen, int64_t deadline) {
  if (shutdown_) return false;
  Env* env = EnvOrDefault(options_.env);
  int64_t now = env->MonotonicNanos();
  if (now >= deadline) return false;
  // The deadline is on the Env's clock, the wait itself a real
  // condition-variable wait of at most one poll interval.
  int64_t wait_ns = std::min<int64_t>(
      deadline - now,
      std::chrono::duration_cast<std::chrono::nanoseconds>(options_.poll_interval).count());
  ++blocked_waiters_;
  bool changed = cv.wait_for(lock, std::chrono::nanoseconds(wait_ns),
                             [&] { return shutdown_ || *generation != seen; });
  --blocked_waiters_;
  if (shutdown_) return false;
  // Poll again after a wake-up or a poll tick, but not once the deadline has
  // passed with nothing new: a timeout then means the wait saw nothing.
  return changed || env->MonotonicNanos() < deadline;
}

void JobQueue::BumpWork() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++work_generation_;
  }
  work_cv_.notify_all();
}

void JobQueue::BumpDone() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_generation_;
  }
  done_cv_.notify_all();
}

Result<Job> JobQueue::Enqueue(const JobSpec& spec) {
  SKALD_ASSIGN_OR_RETURN(Job job, catalog_->EnqueueJob(spec));
  BumpWork();
  return job;
}

void JobQueue::Notify() {
  BumpWork();
  BumpDone();
}

Result<std::optional<Job>> JobQueue::TryLease(std::span<const JobKind> kinds,
                                              int64_t lease_ns) {
  return catalog_->LeaseJob(kinds, Now(), lease_ns);
}

Result<std::optional<Job>> JobQueue::WaitAndLease(std::span<const JobKind> kinds,
                                                  int64_t lease_ns,
                                                  std::chrono::milliseconds timeout) {
  int64_t deadline = DeadlineAfter(timeout);
  while (true) {
    uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (shutdown_) return std::optional<Job>();
      // Read before polling: an Enqueue between the poll and the wait
      // changes the generation, so it is never missed.
      seen = work_generation_;
    }
    SKALD_ASSIGN_OR_RETURN(std::optional<Job> job, TryLease(kinds, lease_ns));
    if (job) return job;
    std::unique_lock<std::mutex> lock(mu_);
    if (!WaitForChange(lock, work_cv_, &work_generation_, seen, deadline)) {
      return std::optional<Job>();
    }
  }
}

Status JobQueue::Renew(int64_t id, int64_t lease_ns) {
  return catalog_->RenewJobLease(id, Now() + lease_ns);
}

Status JobQueue::SetStage(int64_t id, std::string_view stage) {
  return catalog_->SetJobStage(id, stage);
}

Result<bool> JobQueue::TrySetStage(int64_t id, std::string_view stage) {
  return catalog_->TrySetJobStage(id, stage);
}

Status JobQueue::Complete(int64_t id, std::string_view result_json) {
  SKALD_RETURN_IF_ERROR(catalog_->CompleteJob(id, result_json));
  {
    std::lock_guard<std::mutex> lock(mu_);
    placed_.erase(id);
  }
  BumpDone();
  return Status::Ok();
}

Status JobQueue::Fail(int64_t id, std::string_view error, int64_t retry_delay_ns,
                      bool permanent) {
  SKALD_RETURN_IF_ERROR(catalog_->FailJob(id, error, Now() + std::max<int64_t>(0, retry_delay_ns),
                                          permanent));
  {
    std::lock_guard<std::mutex> lock(mu_);
    placed_.erase(id);  // a retry places it again
  }
  // Terminal failures finish a task; retries may be runnable at once.
  BumpDone();
  BumpWork();
  return Status::Ok();
}

Result<Job> JobQueue::WaitForTask(std::string_view task_id, std::chrono::milliseconds timeout) {
  return WaitForTaskUntil(task_id, timeout, [](const Job&) { return false; });
}

Result<Job> JobQueue::WaitForTaskUntil(std::string_view task_id,
                                       std::chrono::milliseconds timeout,
                                       const std::function<bool(const Job&)>& reached) {
  int64_t deadline = DeadlineAfter(timeout);
  while (true) {
    uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen = done_generation_;
    }
    SKALD_ASSIGN_OR_RETURN(std::optional<Job> job, catalog_->GetJobByTaskId(task_id));
    if (!job) return Status::NotFound(fmt::format("task {} not found", task_id));
    if (job->state == JobState::kCompleted || job->state == JobState::kFailed) {
      return std::move(*job);
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (reached(*job)) return std::move(*job);
    if (!WaitForChange(lock, done_cv_, &done_generation_, seen, deadline)) {
      return std::move(*job);
    }
  }
}

void JobQueue::MarkPlaced(int64_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    placed_.insert(id);
  }
  BumpDone();
}

Result<Job> JobQueue::WaitForPlaced(std::string_view task_id, std::chrono::milliseconds timeout) {
  // Called with mu_ held. A job that failed an attempt waits out its
  // backoff: not soon placed.
  return WaitForTaskUntil(task_id, timeout, [this](const Job& job) {
    return (job.state == JobState::kPending && job.attempts > 0) || placed_.contains(job.id);
  });
}

Result<bool> JobQueue::WaitForIdle(std::string_view account, std::string_view resource,
                                   std::chrono::milliseconds timeout) {
  int64_t deadline = DeadlineAfter(timeout);
  while (true) {
    uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen = done_generation_;
    }
    SKALD_ASSIGN_OR_RETURN(uint64_t unfinished, catalog_->CountUnfinishedJobs(account, resource));
    if (unfinished == 0) return true;
    std::unique_lock<std::mutex> lock(mu_);
    if (!WaitForChange(lock, done_cv_, &done_generation_, seen, deadline)) return false;
  }
}

void JobQueue::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  work_cv_.notify_all();
  done_cv_.notify_all();
}

int JobQueue::blocked_waiters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocked_waiters_;
}

bool JobQueue::is_shut_down() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shutdown_;
}

int64_t JobQueue::RetryDelay(int attempts, int64_t base_ns, int64_t max_ns) {
  if (attempts < 1 || base_ns <= 0) return std::max<int64_t>(0, std::min(base_ns, max_ns));
  int64_t delay = base_ns;
  for (int i = 1; i < attempts && delay < max_ns; ++i) {
    delay = delay > max_ns / 2 ? max_ns : delay * 2;
  }
  return std::min(delay, max_ns);
}

}  // namespace skald
