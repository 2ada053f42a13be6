#include "storage/job_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "common/env.h"
#include "common/thread_name.h"

namespace skald {

bool IsPermanentJobError(const Status& st) {
  if (IsDiskFull(st)) return false;  // space may come back: retry with backoff
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kPermissionDenied:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
    case StatusCode::kCorruption:
    case StatusCode::kResourceExhausted:  // e.g. a source over the file-count limit
      return true;
    default:
      return false;
  }
}

namespace {

// The label's kind: what comes before its first digit ("embedding" of
// "embedding 120/400").
std::string_view StageKind(std::string_view stage) {
  size_t digit = stage.find_first_of("0123456789");
  return stage.substr(0, digit == std::string_view::npos ? stage.size() : digit);
}

}  // namespace

JobProgress JobContext::Progress() {
  JobQueue* queue = runner_->queue();
  const int64_t lease_ns = runner_->options_.lease_ns;
  const int64_t renew_every_ns = runner_->options_.renew_every_ns;
  const int64_t stage_every_ns = runner_->options_.stage_every_ns;
  struct State {
    int64_t last_renew = 0;
    int64_t last_stage = 0;
    std::string kind;  // StageKind of the last label written
    bool written = false;
    bool missed = false;  // a label due was not written: the writer was busy
  };
  auto state = std::make_shared<State>();
  state->last_renew = queue->Now();
  return [queue, lease_ns, renew_every_ns, stage_every_ns, id = job_->id,
          state](std::string_view stage) {
    // A label of a new kind is due at once; counts within one kind at
    // most every stage_every_ns. Each write is a catalog transaction, and
    // the job never waits for one: while the catalog's writer is busy (the
    // job's own record writes commit beside it, 10 ms and more on a busy
    // disk), the label is left out and the next call writes its own.
    const int64_t now = queue->Now();
    Status st = Status::Ok();
    if (!state->written || state->missed || StageKind(stage) != state->kind ||
        now - state->last_stage >= stage_every_ns) {
      Result<bool> wrote = queue->TrySetStage(id, stage);
      state->missed = wrote.ok() && !*wrote;
      if (!wrote.ok()) st = wrote.status();
      if (!state->missed) {
        state->written = true;
        state->kind = std::string(StageKind(stage));
        state->last_stage = now;
      }
    }
    if (now - state->last_renew > renew_every_ns) {
      Status renewed = queue->Renew(id, lease_ns);
      if (st.ok()) st = std::move(renewed);
      state->last_renew = queue->Now();
    }
    if (!st.ok()) spdlog::warn("job progress: {}", st.ToString());
  };
}

bool JobContext::stopping() const { return runner_->stopping_.load(); }

const std::atomic<bool>* JobContext::stop_flag() const { return &runner_->stopping_; }

Status JobContext::SetStage(std::string_view stage) {
  return runner_->queue()->SetStage(job_->id, stage);
}

void JobContext::NotePlaced() { runner_->queue()->MarkPlaced(job_->id); }

Status JobContext::Complete(std::string_view result_json) {
  runner_->CountProcessed(job_->kind);  // before Complete wakes the task's waiters
  SKALD_RETURN_IF_ERROR(runner_->queue()->Complete(job_->id, result_json));
  completed_ = true;
  return Status::Ok();
}

JobRunner::JobRunner(Catalog* catalog, JobRunnerOptions options)
    : catalog_(catalog),
      options_(std::move(options)),
      queue_(std::make_unique<JobQueue>(catalog, options_.queue)) {}

JobRunner::~JobRunner() { Stop(); }

void JobRunner::RegisterHandler(JobKind kind, JobHandler handler) {
  handlers_[kind] = std::move(handler);
}

void JobRunner::SetIdleTask(std::function<void()> task) { idle_task_ = std::move(task); }

void JobRunner::Start(int workers) {
  for (int i = 0; i < workers; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

void JobRunner::Stop() {
  stopping_ = true;
  queue_->Shutdown();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void JobRunner::WorkerLoop() {
  NameThisThread("skald-job");
  while (true) {
    if (options_.admit) {
      if (Status admitted = options_.admit(); !admitted.ok()) {
        if (queue_->is_shut_down()) return;
        // A real wait, not the Env's sleep: it measures nothing, and a fake
        // clock's sleep would return at once and spin.
        std::this_thread::sleep_for(options_.idle_wait);
        continue;
      }
    }
    Result<std::optional<Job>> leased =
        queue_->WaitAndLease({}, options_.lease_ns, options_.idle_wait);
    if (leased.ok() && !leased->has_value() && queue_->is_shut_down()) return;
    if (!leased.ok()) {
      spdlog::error("job queue: {}", leased.status().ToString());
      EnvOrDefault(options_.queue.env)->SleepForNanos(200'000'000);  // back off 200 ms
      continue;
    }
    if (!leased->has_value()) {
      if (idle_task_) idle_task_();
      continue;
    }
    RunOne(**leased);
  }
}

void JobRunner::RunOne(const Job& job) {
  running_jobs_.fetch_add(1);
  struct Done {
    std::atomic<int>* count;
    ~Done() { count->fetch_sub(1); }
  } done{&running_jobs_};
  std::shared_lock<std::shared_mutex> running;
  if (options_.job_lock) running = std::shared_lock<std::shared_mutex>(*options_.job_lock);
  JobContext context(this, &job);
  Status st = Dispatch(context);
  if (st.ok()) {
    if (!context.completed()) {
      CountProcessed(job.kind);  // before Complete wakes the task's waiters
      st = queue_->Complete(job.id, "");
    }
    if (!st.ok()) spdlog::error("job {}: {}", job.task_id, st.ToString());
    return;
  }
  int64_t delay = JobQueue::RetryDelay(job.attempts, options_.retry_base_ns, options_.retry_max_ns);
  bool permanent = IsPermanentJobError(st);
  {
    std::lock_guard<std::mutex> lock(outcomes_mu_);
    JobOutcomeCounts& counts = outcomes_[job.kind];
    if (permanent || job.attempts >= job.max_attempts) {
      ++counts.failed;
    } else {
      ++counts.requeued;
    }
    counts.recent_errors.push_back({job.account, job.user, st.ToString()});
    if (counts.recent_errors.size() > kMaxRecentJobErrors) counts.recent_errors.pop_front();
  }
  spdlog::warn("job {} ({} {}) failed (attempt {}/{}{}): {}", job.task_id, job.kind_name,
               job.resource_id, job.attempts, job.max_attempts, permanent ? ", not retried" : "",
               st.ToString());
  Status failed = queue_->Fail(job.id, st.ToString(), delay, permanent);
  if (!failed.ok()) spdlog::error("job {}: {}", job.task_id, failed.ToString());
}

Status JobRunner::Dispatch(JobContext& context) {
  const Job& job = context.job();
  if (job.kind == JobKind::kUnknown) {
    return Status::InvalidArgument(
        fmt::format("unknown job kind '{}' (written by a newer version of Skald?)", job.kind_name));
  }
  auto handler = handlers_.find(job.kind);
  if (handler == handlers_.end()) {
    return Status::FailedPrecondition(
        fmt::format("no handler is registered for job kind '{}'", job.kind_name));
  }
  return handler->second(context);
}

Result<Job> JobRunner::AwaitTask(const std::string& task_id, std::optional<double> timeout_s) {
  auto timeout = std::chrono::milliseconds(
      timeout_s.has_value() ? static_cast<int64_t>(*timeout_s * 1000) : int64_t{24} * 3600 * 1000);
  SKALD_ASSIGN_OR_RETURN(Job job, queue_->WaitForTask(task_id, timeout));
  if (job.state == JobState::kFailed) {
    return Status::Internal(fmt::format("task {} failed: {}", task_id, job.error))
        .WithReason("PROCESSING_ERROR")
        .WithDetail("task_id", task_id);
  }
  return job;
}

void JobRunner::CountProcessed(JobKind kind) {
  std::lock_guard<std::mutex> lock(outcomes_mu_);
  ++outcomes_[kind].processed;
}

JobOutcomeCounts JobRunner::Outcomes(JobKind kind) const {
  std::lock_guard<std::mutex> lock(outcomes_mu_);
  auto it = outcomes_.find(kind);
  return it == outcomes_.end() ? JobOutcomeCounts() : it->second;
}

Status JobRunner::WaitIdle(int64_t timeout_ms, bool wait_for_retries) {
  // The deadline is on the Env's monotonic clock (a FakeClock that does not
  // move never times out). The 20 ms between polls stays a real pause: it
  // measures nothing, and a FakeClock's sleep would return at once and spin.
  Env* env = EnvOrDefault(options_.queue.env);
  const int64_t deadline = env->MonotonicNanos() + std::max<int64_t>(timeout_ms, 0) * 1'000'000;
  while (true) {
    // One snapshot of the queue: counted apart, a job leased between the
    // two counts (pending, then running) was seen in neither, and a command
    // that waits for its work before it exits closed under a running job.
    SKALD_ASSIGN_OR_RETURN(Catalog::ActiveJobs active, catalog_->CountActiveJobs(queue_->Now()));
    const uint64_t running = active.running;
    uint64_t pending = wait_for_retries ? active.pending : active.due;
    // Jobs the admission check holds back (a full disk) wait, like retries.
    if (!wait_for_retries && pending > 0 && options_.admit && !options_.admit().ok()) pending = 0;
    if (pending + running == 0) return Status::Ok();
    if (workers_.empty()) {
      return Status::FailedPrecondition("background jobs are queued but no worker runs them" +
                                        options_.no_workers_note);
    }
    if (env->MonotonicNanos() >= deadline) {
      return Status::DeadlineExceeded(
          fmt::format("{} background jobs still pending or running", pending + running));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace skald
