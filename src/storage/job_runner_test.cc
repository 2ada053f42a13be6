#include "storage/job_runner.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "storage/catalog.h"
#include "tests/testutil/fault_injection_env.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr double kLongWaitS = 120;  // a correct runner finishes long before

JobSpec Spec(JobKind kind, std::string resource = "viking://resources/a") {
  JobSpec s;
  s.kind = kind;
  s.account = "acct";
  s.resource_id = std::move(resource);
  return s;
}

class JobRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Catalog::Open({dir_.Sub("skald.db")});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(c).value();
    options_.queue.env = &clock_;
    options_.queue.poll_interval = std::chrono::milliseconds(5);
    options_.idle_wait = std::chrono::milliseconds(5);
    options_.retry_base_ns = 7 * kSecond;
    options_.retry_max_ns = 60 * kSecond;
  }
  void TearDown() override { runner_.reset(); }
  // Rewrites the stored kind of `task_id` to `raw` behind the catalog's back,
  // as a newer version of Skald would have queued it. REQUIRES: no runner yet.
  void WriteRawKind(const std::string& task_id, const std::string& raw) {
    catalog_.reset();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir_.Sub("skald.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE jobs SET kind=? WHERE task_id=?", -1, &s, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(s, 1, raw.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, task_id.c_str(), -1, SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);
    EXPECT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);
    auto c = Catalog::Open({dir_.Sub("skald.db")});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(c).value();
  }
  JobRunner& MakeRunner() {
    runner_ = std::make_unique<JobRunner>(catalog_.get(), options_);
    return *runner_;
  }
  Job Get(const std::string& task_id) {
    auto j = catalog_->GetJobByTaskId(task_id);
    EXPECT_TRUE(j.ok() && j->has_value());
    return j.ok() && j->has_value() ? **j : Job{};
  }
  // The job as soon as it is finished (completed or failed); polls the
  // catalog (a failure does not wake WaitForTask before attempts run out).
  Job AwaitFinished(const std::string& task_id) {
    auto done = runner_->queue()->WaitForTask(task_id, std::chrono::minutes(2));
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    return done.ok() ? *done : Job{};
  }

  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
  testing::FakeClock clock_{1000 * kSecond};
  JobRunnerOptions options_;
  std::unique_ptr<JobRunner> runner_;
};

TEST_F(JobRunnerTest, DispatchesEachJobToTheHandlerOfItsKind) {
  JobRunner& runner = MakeRunner();
  std::mutex mu;
  std::vector<std::pair<JobKind, std::string>> seen;
  for (JobKind kind : {JobKind::kIndex, JobKind::kRefresh}) {
    runner.RegisterHandler(kind, [&, kind](JobContext& ctx) {
      std::lock_guard<std::mutex> lock(mu);
      seen.emplace_back(kind, ctx.job().resource_id);
      return Status::Ok();
    });
  }
  auto index = runner.queue()->Enqueue(Spec(JobKind::kIndex, "viking://resources/i"));
  auto refresh = runner.queue()->Enqueue(Spec(JobKind::kRefresh, "viking://resources/r"));
  ASSERT_TRUE(index.ok() && refresh.ok());
  runner.Start(2);
  ASSERT_TRUE(runner.AwaitTask(index->task_id, kLongWaitS).ok());
  ASSERT_TRUE(runner.AwaitTask(refresh->task_id, kLongWaitS).ok());
  EXPECT_EQ(Get(index->task_id).state, JobState::kCompleted);
  EXPECT_EQ(Get(refresh->task_id).state, JobState::kCompleted);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(seen.size(), 2u);
  for (const auto& [kind, resource] : seen) {
    EXPECT_EQ(resource, kind == JobKind::kIndex ? "viking://resources/i" : "viking://resources/r");
  }
}

TEST_F(JobRunnerTest, AHandlerMayCompleteItsJobWithAResult) {
  JobRunner& runner = MakeRunner();
  runner.RegisterHandler(JobKind::kAddResource, [](JobContext& ctx) {
    ctx.Progress()("importing");
    return ctx.Complete(R"({"files":3})");
  });
  auto job = runner.queue()->Enqueue(Spec(JobKind::kAddResource));
  ASSERT_TRUE(job.ok());
  runner.Start(1);
  Result<Job> done = runner.AwaitTask(job->task_id, kLongWaitS);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->state, JobState::kCompleted);
  EXPECT_EQ(done->result, R"({"files":3})");
  EXPECT_EQ(done->stage, "importing");
}

TEST_F(JobRunnerTest, ProgressCountsOfOneKindAreRecordedAtMostEveryInterval) {
  options_.stage_every_ns = kSecond;
  JobRunner& runner = MakeRunner();
  std::vector<std::string> seen;  // the stored stage after each call
  runner.RegisterHandler(JobKind::kAddResource, [&](JobContext& ctx) {
    JobProgress progress = ctx.Progress();
    auto stored = [&] { seen.push_back(Get(ctx.job().task_id).stage); };
    progress("summarizing files 64/300");  // the first: written
    stored();
    progress("summarizing files 128/300");  // same kind, same instant: not written
    stored();
    clock_.Advance(kSecond);
    progress("summarizing files 192/300");  // an interval later: written
    stored();
    progress("embedding 10/300");  // a new kind: written at once
    stored();
    progress("embedding 20/300");
    stored();
    return ctx.Complete("{}");
  });
  auto job = runner.queue()->Enqueue(Spec(JobKind::kAddResource));
  ASSERT_TRUE(job.ok());
  runner.Start(1);
  ASSERT_TRUE(runner.AwaitTask(job->task_id, kLongWaitS).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"summarizing files 64/300", "summarizing files 64/300",
                                            "summarizing files 192/300", "embedding 10/300",
                                            "embedding 10/300"}));
}

TEST_F(JobRunnerTest, AnUnknownKindFailsThatJobAndTheQueueGoesOn) {
  JobSpec future = Spec(JobKind::kAddResource);
  future.priority = kJobPriorityInteractive;  // leased first
  auto unknown = catalog_->EnqueueJob(future);
  auto known = catalog_->EnqueueJob(Spec(JobKind::kIndex));
  ASSERT_TRUE(unknown.ok() && known.ok());
  WriteRawKind(unknown->task_id, "session_commit_v9");  // e.g. queued by a newer version
  Job stored = Get(unknown->task_id);
  EXPECT_EQ(stored.kind, JobKind::kUnknown);
  EXPECT_EQ(stored.kind_name, "session_commit_v9");
  EXPECT_EQ(*catalog_->CountJobs(JobState::kPending, JobKind::kUnknown), 1u);
  EXPECT_EQ(*catalog_->CountJobs(JobState::kPending, JobKind::kIndex), 1u);

  JobRunner& runner = MakeRunner();
  std::atomic<int> ran{0};
  runner.RegisterHandler(JobKind::kIndex, [&](JobContext&) {
    ++ran;
    return Status::Ok();
  });
  runner.Start(1);
  Result<Job> failed = runner.AwaitTask(unknown->task_id, kLongWaitS);
  EXPECT_EQ(failed.status().code(), StatusCode::kInternal);
  Job row = Get(unknown->task_id);
  EXPECT_EQ(row.state, JobState::kFailed);
  EXPECT_EQ(row.attempts, 1);  // no retry can teach this binary a new kind
  EXPECT_NE(row.error.find("unknown job kind 'session_commit_v9'"), std::string::npos) << row.error;
  ASSERT_TRUE(runner.AwaitTask(known->task_id, kLongWaitS).ok());
  EXPECT_EQ(ran.load(), 1);
}

TEST_F(JobRunnerTest, AKindWithoutHandlerFailsWithAnError) {
  JobRunner& runner = MakeRunner();
  auto job = runner.queue()->Enqueue(Spec(JobKind::kReindex));
  ASSERT_TRUE(job.ok());
  runner.Start(1);
  EXPECT_FALSE(runner.AwaitTask(job->task_id, kLongWaitS).ok());
  Job row = Get(job->task_id);
  EXPECT_EQ(row.state, JobState::kFailed);
  EXPECT_NE(row.error.find("no handler is registered for job kind 'reindex'"), std::string::npos)
      << row.error;
}

TEST_F(JobRunnerTest, APermanentErrorFailsAtOnce) {
  JobRunner& runner = MakeRunner();
  std::atomic<int> calls{0};
  runner.RegisterHandler(JobKind::kIndex, [&](JobContext&) {
    ++calls;
    return Status::InvalidArgument("payload names no path");
  });
  JobSpec spec = Spec(JobKind::kIndex);
  spec.max_attempts = 5;
  auto job = runner.queue()->Enqueue(spec);
  ASSERT_TRUE(job.ok());
  runner.Start(1);
  Job row = AwaitFinished(job->task_id);
  EXPECT_EQ(row.state, JobState::kFailed);
  EXPECT_EQ(row.attempts, 1);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_NE(row.error.find("payload names no path"), std::string::npos) << row.error;
  Result<Job> awaited = runner.AwaitTask(job->task_id, kLongWaitS);
  EXPECT_EQ(awaited.status().code(), StatusCode::kInternal);
  EXPECT_NE(awaited.status().message().find("payload names no path"), std::string::npos);
}

TEST_F(JobRunnerTest, ATransientErrorIsRetriedAfterABackoff) {
  JobRunner& runner = MakeRunner();
  std::atomic<int> calls{0};
  runner.RegisterHandler(JobKind::kIndex, [&](JobContext&) {
    return ++calls == 1 ? Status::Unavailable("provider is down") : Status::Ok();
  });
  const int64_t enqueued_at = clock_.NowNanos();
  auto job = runner.queue()->Enqueue(Spec(JobKind::kIndex));
  ASSERT_TRUE(job.ok());
  runner.Start(1);
  // The first attempt fails and the job waits out its backoff: the fake
  // clock stands still, so it is not leased again until the test moves it.
  Job waiting;
  do {
    std::this_thread::yield();
    waiting = Get(job->task_id);
  } while (waiting.error.empty());
  EXPECT_EQ(waiting.state, JobState::kPending);
  EXPECT_EQ(waiting.attempts, 1);
  EXPECT_EQ(waiting.not_before_ns, enqueued_at + options_.retry_base_ns);
  EXPECT_NE(waiting.error.find("provider is down"), std::string::npos);
  EXPECT_EQ(calls.load(), 1);

  clock_.Advance(options_.retry_base_ns);  // the backoff is over
  Result<Job> done = runner.AwaitTask(job->task_id, kLongWaitS);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->state, JobState::kCompleted);
  EXPECT_EQ(done->attempts, 2);
  EXPECT_EQ(calls.load(), 2);
}

TEST_F(JobRunnerTest, TransientErrorsFailTheJobWhenAttemptsRunOut) {
  options_.retry_base_ns = 0;  // no backoff: each retry is due at once
  options_.retry_max_ns = 0;
  JobRunner& runner = MakeRunner();
  std::atomic<int> calls{0};
  runner.RegisterHandler(JobKind::kRefresh, [&](JobContext&) {
    ++calls;
    return Status::IOError("disk hiccup");
  });
  JobSpec spec = Spec(JobKind::kRefresh);
  spec.max_attempts = 3;
  auto job = runner.queue()->Enqueue(spec);
  ASSERT_TRUE(job.ok());
  runner.Start(1);
  Job row = AwaitFinished(job->task_id);
  EXPECT_EQ(row.state, JobState::kFailed);
  EXPECT_EQ(row.attempts, 3);
  EXPECT_EQ(calls.load(), 3);
}

TEST_F(JobRunnerTest, StopEndsRunningHandlersAndWorkers) {
  JobRunner& runner = MakeRunner();
  std::atomic<bool> started{false};
  runner.RegisterHandler(JobKind::kAddResource, [&](JobContext& ctx) {
    started = true;
    while (!ctx.stopping()) std::this_thread::yield();
    return Status::Unavailable("interrupted by shutdown");
  });
  auto job = runner.queue()->Enqueue(Spec(JobKind::kAddResource));
  ASSERT_TRUE(job.ok());
  runner.Start(2);
  while (!started) std::this_thread::yield();
  runner.Stop();  // returns only once both workers have ended
  EXPECT_EQ(runner.workers(), 0);
  EXPECT_TRUE(*runner.stop_flag());
  // The interrupted job goes back to the queue for the next run.
  Job row = Get(job->task_id);
  EXPECT_EQ(row.state, JobState::kPending);
  // Nothing runs a job enqueued after the stop.
  auto later = catalog_->EnqueueJob(Spec(JobKind::kAddResource));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(Get(later->task_id).state, JobState::kPending);
  EXPECT_EQ(runner.WaitIdle(0, true).code(), StatusCode::kFailedPrecondition);
}

TEST_F(JobRunnerTest, OutcomesCountCompletionsRetriesAndFailuresPerKind) {
  options_.retry_base_ns = 0;  // no backoff: each retry is due at once
  options_.retry_max_ns = 0;
  JobRunner& runner = MakeRunner();
  std::atomic<int> index_calls{0};
  runner.RegisterHandler(JobKind::kIndex, [&](JobContext&) {
    return ++index_calls == 1 ? Status::Unavailable("provider is down") : Status::Ok();
  });
  runner.RegisterHandler(JobKind::kRefresh,
                         [&](JobContext&) { return Status::InvalidArgument("bad payload"); });
  JobSpec index = Spec(JobKind::kIndex);
  index.user = "alice";
  JobSpec refresh = Spec(JobKind::kRefresh);
  refresh.user = "bob";
  auto index_job = runner.queue()->Enqueue(index);
  auto refresh_job = runner.queue()->Enqueue(refresh);
  ASSERT_TRUE(index_job.ok() && refresh_job.ok());
  EXPECT_EQ(runner.Outcomes(JobKind::kIndex).processed, 0u);
  runner.Start(1);
  ASSERT_TRUE(runner.WaitIdle(120'000, /*wait_for_retries=*/true).ok());

  JobOutcomeCounts i = runner.Outcomes(JobKind::kIndex);
  EXPECT_EQ(i.processed, 1u);
  EXPECT_EQ(i.requeued, 1u);
  EXPECT_EQ(i.failed, 0u);
  ASSERT_EQ(i.recent_errors.size(), 1u);
  EXPECT_EQ(i.recent_errors[0].user, "alice");
  EXPECT_NE(i.recent_errors[0].message.find("provider is down"), std::string::npos);

  JobOutcomeCounts r = runner.Outcomes(JobKind::kRefresh);
  EXPECT_EQ(r.processed, 0u);
  EXPECT_EQ(r.requeued, 0u);
  EXPECT_EQ(r.failed, 1u);
  ASSERT_EQ(r.recent_errors.size(), 1u);
  EXPECT_EQ(r.recent_errors[0].account, "acct");
  EXPECT_EQ(r.recent_errors[0].user, "bob");
  EXPECT_EQ(runner.Outcomes(JobKind::kReindex).processed, 0u);
}

TEST_F(JobRunnerTest, WaitIdleReturnsOnceEveryJobIsDone) {
  JobRunner& runner = MakeRunner();
  runner.RegisterHandler(JobKind::kIndex, [](JobContext&) { return Status::Ok(); });
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(runner.queue()->Enqueue(Spec(JobKind::kIndex)).ok());
  runner.Start(2);
  ASSERT_TRUE(runner.WaitIdle(120'000, true).ok());
  EXPECT_EQ(*catalog_->CountJobs(JobState::kCompleted), 5u);
}

// WaitIdle reads the queue as one snapshot: a job leased while it looks
// (pending a moment ago, running now) is still waited for. Counted in two
// statements, this returned under a running job now and then, and the CLI,
// which waits for its work before it exits, cut an import's indexing short.
TEST_F(JobRunnerTest, WaitIdleNeverReturnsUnderAJobLeasedWhileItLooks) {
  JobRunner& runner = MakeRunner();
  runner.RegisterHandler(JobKind::kIndex, [](JobContext&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Status::Ok();
  });
  runner.Start(2);
  for (uint64_t i = 1; i <= 200; ++i) {
    // Stored without waking the workers: one leases it at its next poll,
    // at some moment of WaitIdle's look.
    ASSERT_TRUE(catalog_->EnqueueJob(Spec(JobKind::kIndex)).ok());
    ASSERT_TRUE(runner.WaitIdle(120'000, /*wait_for_retries=*/false).ok());
    ASSERT_EQ(*catalog_->CountJobs(JobState::kCompleted), i) << "round " << i;
  }
}

TEST_F(JobRunnerTest, CountActiveJobsSeesRunningDueAndHeldBackJobs) {
  ASSERT_TRUE(runner_ == nullptr);
  JobQueue queue(catalog_.get(), options_.queue);
  ASSERT_TRUE(queue.Enqueue(Spec(JobKind::kIndex)).ok());
  JobSpec later = Spec(JobKind::kIndex);
  later.not_before_ns = clock_.NowNanos() + 5 * kSecond;
  ASSERT_TRUE(queue.Enqueue(later).ok());
  ASSERT_TRUE(queue.Enqueue(Spec(JobKind::kIndex)).ok());
  const std::vector<JobKind> kinds{JobKind::kIndex};
  auto leased = queue.TryLease(kinds, 60 * kSecond);
  ASSERT_TRUE(leased.ok() && leased->has_value());
  auto active = catalog_->CountActiveJobs(clock_.NowNanos());
  ASSERT_TRUE(active.ok()) << active.status().ToString();
  EXPECT_EQ(active->running, 1u);
  EXPECT_EQ(active->pending, 2u);
  EXPECT_EQ(active->due, 1u);
  clock_.Advance(6 * kSecond);
  active = catalog_->CountActiveJobs(clock_.NowNanos());
  ASSERT_TRUE(active.ok());
  EXPECT_EQ(active->due, 2u);
}

// The idle task runs on a worker that found no job; running_jobs() tells
// it whether another worker is running one (upkeep waits for that).
TEST_F(JobRunnerTest, TheIdleTaskSeesTheJobsOtherWorkersRun) {
  JobRunner& runner = MakeRunner();
  std::atomic<bool> started{false}, release{false};
  runner.RegisterHandler(JobKind::kAddResource, [&](JobContext&) {
    started = true;
    while (!release) std::this_thread::yield();
    return Status::Ok();
  });
  std::atomic<int> idle_busy{0}, idle_free{0};
  runner.SetIdleTask([&] { ++(runner.running_jobs() > 0 ? idle_busy : idle_free); });
  auto job = runner.queue()->Enqueue(Spec(JobKind::kAddResource));
  ASSERT_TRUE(job.ok());
  runner.Start(2);
  while (!started) std::this_thread::yield();
  // The other worker idles meanwhile (its idle wait ends on the clock).
  for (int i = 0; i < 10'000 && idle_busy.load() < 3; ++i) {
    clock_.Advance(std::chrono::seconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(idle_busy.load(), 3);
  EXPECT_EQ(idle_free.load(), 0);
  EXPECT_EQ(runner.running_jobs(), 1);
  release = true;
  ASSERT_TRUE(runner.AwaitTask(job->task_id, kLongWaitS).ok());
  for (int i = 0; i < 10'000 && idle_free.load() < 3; ++i) {
    clock_.Advance(std::chrono::seconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(idle_free.load(), 3);
  EXPECT_EQ(runner.running_jobs(), 0);
}

// While the admission check fails (a full disk), no job is leased and
// WaitIdle without retries does not wait for the held-back jobs; once it
// passes, the jobs run.
TEST_F(JobRunnerTest, AdmissionHoldsJobsBackUntilItPasses) {
  std::atomic<bool> admit{false};
  std::atomic<int> asked{0};
  options_.admit = [&] {
    ++asked;
    return admit.load() ? Status::Ok() : Status::ResourceExhausted("disk full: test");
  };
  JobRunner& runner = MakeRunner();
  std::atomic<int> ran{0};
  runner.RegisterHandler(JobKind::kIndex, [&](JobContext&) {
    ++ran;
    return Status::Ok();
  });
  ASSERT_TRUE(runner.queue()->Enqueue(Spec(JobKind::kIndex)).ok());
  runner.Start(1);
  while (asked.load() < 3) std::this_thread::yield();  // the worker asked, and asked again
  EXPECT_EQ(ran.load(), 0);
  EXPECT_EQ(*catalog_->CountJobs(JobState::kPending), 1u);
  ASSERT_TRUE(runner.WaitIdle(120'000, /*wait_for_retries=*/false).ok());
  admit = true;
  ASSERT_TRUE(runner.WaitIdle(120'000, /*wait_for_retries=*/true).ok());
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(*catalog_->CountJobs(JobState::kCompleted), 1u);
}

// WaitIdle's timeout runs on the queue Env's clock: while a job runs and
// the FakeClock stands still it keeps waiting; moved past the deadline, it
// gives up with DeadlineExceeded.
TEST_F(JobRunnerTest, WaitIdleTimesOutOnTheEnvClock) {
  JobRunner& runner = MakeRunner();
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};
  runner.RegisterHandler(JobKind::kIndex, [&](JobContext&) {
    started = true;
    while (!release.load()) std::this_thread::yield();
    return Status::Ok();
  });
  ASSERT_TRUE(runner.queue()->Enqueue(Spec(JobKind::kIndex)).ok());
  runner.Start(1);
  while (!started.load()) std::this_thread::yield();
  std::atomic<bool> returned{false};
  Status waited;
  std::thread waiter([&] {
    waited = runner.WaitIdle(1000, true);
    returned = true;
  });
  // Well over a second of real polls would pass a real-clock deadline.
  for (int i = 0; i < 25 && !returned.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  }
  EXPECT_FALSE(returned.load()) << "WaitIdle timed out on the real clock: " << waited.ToString();
  clock_.Advance(2 * kSecond);
  waiter.join();
  EXPECT_EQ(waited.code(), StatusCode::kDeadlineExceeded) << waited.ToString();
  release = true;
  ASSERT_TRUE(runner.WaitIdle(120'000, true).ok());
}

TEST(JobKindTest, NamesRoundTrip) {
  for (JobKind kind : KnownJobKinds()) EXPECT_EQ(ParseJobKind(JobKindName(kind)), kind);
  EXPECT_EQ(KnownJobKinds().size(), 10u);
  EXPECT_EQ(JobKindName(JobKind::kSessionCommit), "session_commit");
  EXPECT_EQ(JobKindName(JobKind::kAddResource), "add_resource");
  EXPECT_EQ(JobKindName(JobKind::kAddSkill), "add_skill");
  EXPECT_EQ(JobKindName(JobKind::kContentWrite), "content_write");
  EXPECT_EQ(JobKindName(JobKind::kSnapshotRestoreReindex), "snapshot_restore_reindex");
  EXPECT_FALSE(ParseJobKind("semantic").has_value());
  EXPECT_FALSE(ParseJobKind("").has_value());
}

TEST(JobErrorTest, PermanentErrorsAreThoseNoRetryCanFix) {
  EXPECT_TRUE(IsPermanentJobError(Status::InvalidArgument("x")));
  EXPECT_TRUE(IsPermanentJobError(Status::NotFound("x")));
  EXPECT_TRUE(IsPermanentJobError(Status::ResourceExhausted("x")));
  EXPECT_FALSE(IsPermanentJobError(Status::Unavailable("x")));
  EXPECT_FALSE(IsPermanentJobError(Status::IOError("x")));
  EXPECT_FALSE(IsPermanentJobError(Status::DeadlineExceeded("x")));
}

}  // namespace
}  // namespace skald
