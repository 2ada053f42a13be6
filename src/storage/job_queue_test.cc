#include "storage/job_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>

#include "storage/catalog.h"
#include "tests/testutil/fault_injection_env.h"
#include "tests/testutil/temp_dir.h"

namespace skald {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
// Waits that a correct queue ends at once; when it does not, the wait times
// out and the test's expectations on the result fail.
constexpr auto kLongWait = std::chrono::minutes(2);
// No periodic re-poll within a test, so only an explicit wake-up can end a wait.
constexpr auto kNoPolling = std::chrono::hours(24);

JobSpec Spec(JobKind kind, int priority = kJobPriorityBulk, std::string resource = "") {
  JobSpec s;
  s.kind = kind;
  s.account = "acct";
  s.user = "alice";
  s.resource_id = std::move(resource);
  s.priority = priority;
  return s;
}

class JobsTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  // Opens the catalog `name` (again), through `env` when one is given.
  void Reopen(const std::string& name = "skald.db", Env* env = nullptr) {
    catalog_.reset();
    CatalogOptions options;
    options.path = dir_.Sub(name);
    options.env = env;
    auto c = Catalog::Open(options);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(c).value();
  }
  std::optional<Job> Lease(int64_t now, std::vector<JobKind> kinds = {}) {
    auto leased = catalog_->LeaseJob(kinds, now, 30 * kSecond);
    EXPECT_TRUE(leased.ok()) << leased.status().ToString();
    return leased.ok() ? *leased : std::nullopt;
  }
  Job Get(const std::string& task_id) {
    auto j = catalog_->GetJobByTaskId(task_id);
    EXPECT_TRUE(j.ok() && j->has_value());
    return j.ok() && j->has_value() ? **j : Job{};
  }

  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(JobsTest, EnqueueLeaseComplete) {
  JobSpec spec = Spec(JobKind::kIndex, kJobPriorityBulk, "viking://resources/a");
  spec.payload = R"({"uri":"viking://resources/a"})";
  auto enq = catalog_->EnqueueJob(spec);
  ASSERT_TRUE(enq.ok()) << enq.status().ToString();
  // A fresh random UUID version 4.
  ASSERT_EQ(enq->task_id.size(), 36u);
  EXPECT_EQ(enq->task_id[14], '4');
  EXPECT_EQ(enq->state, JobState::kPending);
  EXPECT_EQ(*catalog_->CountJobs(JobState::kPending), 1u);

  std::optional<Job> job = Lease(100);
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->task_id, enq->task_id);
  EXPECT_EQ(job->state, JobState::kRunning);
  EXPECT_EQ(job->attempts, 1);
  EXPECT_EQ(job->lease_until_ns, 100 + 30 * kSecond);
  EXPECT_EQ(job->payload, spec.payload);
  EXPECT_EQ(job->user, "alice");
  EXPECT_FALSE(Lease(101).has_value());  // leased jobs are not handed out twice

  ASSERT_TRUE(catalog_->SetJobStage(job->id, "summarize").ok());
  ASSERT_TRUE(catalog_->RenewJobLease(job->id, 200 * kSecond).ok());
  EXPECT_EQ(Get(job->task_id).stage, "summarize");
  EXPECT_EQ(Get(job->task_id).lease_until_ns, 200 * kSecond);
  ASSERT_TRUE(catalog_->CompleteJob(job->id, R"({"files":3})").ok());
  Job done = Get(job->task_id);
  EXPECT_EQ(done.state, JobState::kCompleted);
  EXPECT_EQ(done.result, R"({"files":3})");
  EXPECT_EQ(done.attempts, 1);
  EXPECT_FALSE(Lease(1000 * kSecond).has_value());
  EXPECT_EQ(catalog_->CompleteJob(job->id, "{}").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(catalog_->RenewJobLease(job->id, 1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(catalog_->CompleteJob(9999, "{}").code(), StatusCode::kNotFound);
  EXPECT_EQ(catalog_->SetJobStage(9999, "x").code(), StatusCode::kNotFound);
}

// An env that holds every sync SQLite makes on the catalog while armed,
// until released: the thread committing then keeps the catalog's writer.
class HeldSyncEnv final : public EnvWrapper {
 public:
  HeldSyncEnv() : EnvWrapper(Env::Default()) {}
  void Arm() { armed_ = true; }
  // Waits until a sync is held (false on a timeout).
  bool WaitHeld() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kLongWait, [&] { return held_; });
  }
  void Release() {
    armed_ = false;
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  Status BeforeForeignWrite(const std::string& path, uint64_t bytes) override {
    if (bytes == 0 && armed_) {
      std::unique_lock lock(mu_);
      held_ = true;
      cv_.notify_all();
      cv_.wait_for(lock, kLongWait, [&] { return released_; });
    }
    return EnvWrapper::BeforeForeignWrite(path, bytes);
  }

 private:
  std::atomic<bool> armed_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  bool released_ = false;
};

// A progress label written without waiting: left out while another thread
// commits (it holds the writer), written once the writer is free.
TEST_F(JobsTest, ALabelWrittenWithoutWaitingIsLeftOutWhileTheWriterIsBusy) {
  HeldSyncEnv env;
  std::thread committer;
  // However the test ends: the held sync released, the committer joined,
  // and the catalog closed before the env it uses.
  struct Cleanup {
    HeldSyncEnv& env;
    std::thread& committer;
    std::unique_ptr<Catalog>& catalog;
    ~Cleanup() {
      env.Release();
      if (committer.joinable()) committer.join();
      catalog.reset();
    }
  } cleanup{env, committer, catalog_};
  Reopen("held.db", &env);
  ASSERT_TRUE(catalog_->EnqueueJob(Spec(JobKind::kIndex)).ok());
  std::optional<Job> job = Lease(100);
  ASSERT_TRUE(job.has_value());

  ASSERT_TRUE(catalog_->SetJobStage(job->id, "before").ok());
  env.Arm();
  // A synced commit (labels are not synced: ProgressLabelsCommitWithoutASync).
  committer = std::thread([&] { EXPECT_TRUE(catalog_->EnqueueJob(Spec(JobKind::kIndex)).ok()); });
  ASSERT_TRUE(env.WaitHeld());
  Result<bool> busy = catalog_->TrySetJobStage(job->id, "left out");
  ASSERT_TRUE(busy.ok()) << busy.status().ToString();
  EXPECT_FALSE(*busy);
  env.Release();
  committer.join();
  EXPECT_EQ(Get(job->task_id).stage, "before");

  Result<bool> wrote = catalog_->TrySetJobStage(job->id, "written");
  ASSERT_TRUE(wrote.ok());
  EXPECT_TRUE(*wrote);
  EXPECT_EQ(Get(job->task_id).stage, "written");
  EXPECT_EQ(catalog_->TrySetJobStage(9999, "x").status().code(), StatusCode::kNotFound);
}

// Counts the syncs (foreign writes of no bytes) through the Env.
class SyncCountingEnv final : public EnvWrapper {
 public:
  SyncCountingEnv() : EnvWrapper(Env::Default()) {}
  Status BeforeForeignWrite(const std::string& path, uint64_t bytes) override {
    if (bytes == 0) ++syncs;
    return EnvWrapper::BeforeForeignWrite(path, bytes);
  }
  std::atomic<int> syncs{0};
};

// A progress label is committed without a sync of its own; the next synced
// commit makes it durable with itself (the write-ahead log is in order), and
// every other commit still syncs.
TEST_F(JobsTest, ProgressLabelsCommitWithoutASync) {
  SyncCountingEnv env;
  {
    Reopen("labels.db", &env);
    ASSERT_TRUE(catalog_->EnqueueJob(Spec(JobKind::kIndex)).ok());
    std::optional<Job> job = Lease(100);
    ASSERT_TRUE(job.has_value());
    const int before = env.syncs.load();
    ASSERT_TRUE(catalog_->SetJobStage(job->id, "one").ok());
    Result<bool> wrote = catalog_->TrySetJobStage(job->id, "two");
    ASSERT_TRUE(wrote.ok() && *wrote);
    EXPECT_EQ(env.syncs.load(), before);
    EXPECT_EQ(Get(job->task_id).stage, "two");
    ASSERT_TRUE(catalog_->EnqueueJob(Spec(JobKind::kIndex)).ok());
    EXPECT_GT(env.syncs.load(), before);
    // The connection syncs again after a label.
    const int after_enqueue = env.syncs.load();
    ASSERT_TRUE(catalog_->SetJobStage(job->id, "three").ok());
    ASSERT_TRUE(catalog_->EnqueueJob(Spec(JobKind::kIndex)).ok());
    EXPECT_GT(env.syncs.load(), after_enqueue);
    catalog_.reset();
  }
  Reopen("labels.db", &env);
  Result<std::vector<Job>> listed = catalog_->ListJobs(JobFilter{});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  bool found = false;
  for (const Job& j : *listed) found = found || j.stage == "three";
  EXPECT_TRUE(found);
  catalog_.reset();
}

TEST_F(JobsTest, InvalidSpecsAndDuplicateTaskIdsAreRejected) {
  EXPECT_EQ(catalog_->EnqueueJob(Spec(JobKind::kUnknown)).status().code(), StatusCode::kInvalidArgument);
  JobSpec bad_attempts = Spec(JobKind::kReindex);
  bad_attempts.max_attempts = 0;
  EXPECT_EQ(catalog_->EnqueueJob(bad_attempts).status().code(), StatusCode::kInvalidArgument);
  JobSpec bad_payload = Spec(JobKind::kReindex);
  bad_payload.payload = "{not json";
  EXPECT_EQ(catalog_->EnqueueJob(bad_payload).status().code(), StatusCode::kInvalidArgument);
  JobSpec named = Spec(JobKind::kReindex);
  named.task_id = "task-1";
  ASSERT_TRUE(catalog_->EnqueueJob(named).ok());
  EXPECT_EQ(catalog_->EnqueueJob(named).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*catalog_->CountJobs(std::nullopt), 1u);
  auto leased = Lease(1);
  ASSERT_TRUE(leased.has_value());
  EXPECT_EQ(catalog_->CompleteJob(leased->id, "{oops").code(), StatusCode::kInvalidArgument);
}

TEST_F(JobsTest, InteractiveJobsRunBeforeBulkThenOldestFirst) {
  auto bulk1 = catalog_->EnqueueJob(Spec(JobKind::kReindex, kJobPriorityBulk));
  auto bulk2 = catalog_->EnqueueJob(Spec(JobKind::kReindex, kJobPriorityBulk));
  auto commit = catalog_->EnqueueJob(Spec(JobKind::kAddResource, kJobPriorityInteractive));
  ASSERT_TRUE(bulk1.ok() && bulk2.ok() && commit.ok());
  EXPECT_EQ(Lease(1)->task_id, commit->task_id);
  EXPECT_EQ(Lease(1)->task_id, bulk1->task_id);
  EXPECT_EQ(Lease(1)->task_id, bulk2->task_id);
  EXPECT_FALSE(Lease(1).has_value());
}

TEST_F(JobsTest, LeaseFiltersByKind) {
  auto semantic = catalog_->EnqueueJob(Spec(JobKind::kIndex, kJobPriorityInteractive));
  auto embed = catalog_->EnqueueJob(Spec(JobKind::kReindex));
  ASSERT_TRUE(semantic.ok() && embed.ok());
  EXPECT_EQ(Lease(1, {JobKind::kReindex, JobKind::kRefresh})->task_id, embed->task_id);
  EXPECT_FALSE(Lease(1, {JobKind::kReindex}).has_value());
  EXPECT_EQ(Lease(1, {JobKind::kIndex})->task_id, semantic->task_id);
}

TEST_F(JobsTest, FailedJobBacksOffWhileOthersRun) {
  auto poison = catalog_->EnqueueJob(Spec(JobKind::kReindex));
  auto healthy = catalog_->EnqueueJob(Spec(JobKind::kReindex));
  ASSERT_TRUE(poison.ok() && healthy.ok());
  std::optional<Job> first = Lease(10);
  ASSERT_EQ(first->task_id, poison->task_id);
  ASSERT_TRUE(catalog_->FailJob(first->id, "provider timeout", 50).ok());
  Job waiting = Get(poison->task_id);
  EXPECT_EQ(waiting.state, JobState::kPending);
  EXPECT_EQ(waiting.not_before_ns, 50);
  EXPECT_EQ(waiting.error, "provider timeout");
  // Before retry_at the failing job is skipped; the other one runs.
  std::optional<Job> second = Lease(20);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->task_id, healthy->task_id);
  EXPECT_FALSE(Lease(49).has_value());
  std::optional<Job> retry = Lease(50);
  ASSERT_TRUE(retry.has_value());
  EXPECT_EQ(retry->task_id, poison->task_id);
  EXPECT_EQ(retry->attempts, 2);
  EXPECT_EQ(retry->error, "provider timeout");  // kept while it retries
}

TEST_F(JobsTest, FailsTerminallyAfterMaxAttemptsKeepingTheError) {
  JobSpec spec = Spec(JobKind::kReindex);
  spec.max_attempts = 2;
  auto enq = catalog_->EnqueueJob(spec);
  ASSERT_TRUE(enq.ok());
  std::optional<Job> a1 = Lease(1);
  ASSERT_TRUE(catalog_->FailJob(a1->id, "boom 1", 2).ok());
  std::optional<Job> a2 = Lease(2);
  ASSERT_TRUE(a2.has_value());
  ASSERT_TRUE(catalog_->FailJob(a2->id, "boom 2", 3).ok());
  Job failed = Get(enq->task_id);
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_EQ(failed.error, "boom 2");
  EXPECT_EQ(failed.attempts, 2);
  EXPECT_FALSE(Lease(1000 * kSecond).has_value());
  EXPECT_EQ(catalog_->FailJob(a2->id, "again", 4).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(*catalog_->CountJobs(JobState::kFailed, JobKind::kReindex), 1u);
  EXPECT_EQ(*catalog_->CountJobs(JobState::kFailed, JobKind::kIndex), 0u);
}

TEST_F(JobsTest, RunningJobComesBackAfterCrashAndReopen) {
  auto enq = catalog_->EnqueueJob(Spec(JobKind::kIndex));
  ASSERT_TRUE(enq.ok());
  std::optional<Job> job = Lease(kSecond);  // lease until 31 s
  ASSERT_TRUE(job.has_value());
  Reopen();  // the worker's process is gone; the catalog file stays
  EXPECT_EQ(Get(enq->task_id).state, JobState::kRunning);
  EXPECT_FALSE(Lease(31 * kSecond - 1).has_value());  // lease still valid
  std::optional<Job> again = Lease(31 * kSecond + 1);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->task_id, enq->task_id);
  EXPECT_EQ(again->attempts, 2);
  ASSERT_TRUE(catalog_->CompleteJob(again->id, "").ok());
}

TEST_F(JobsTest, ReleaseRunningJobsResumesOrphansAtOnceButNotPoison) {
  auto orphan = catalog_->EnqueueJob(Spec(JobKind::kIndex));
  JobSpec last_try = Spec(JobKind::kIndex);
  last_try.max_attempts = 1;
  auto poison = catalog_->EnqueueJob(last_try);
  auto waiting = catalog_->EnqueueJob(Spec(JobKind::kIndex));
  ASSERT_TRUE(orphan.ok() && poison.ok() && waiting.ok());
  ASSERT_TRUE(Lease(0).has_value());
  ASSERT_TRUE(Lease(0).has_value());
  Reopen();  // the process that held both leases died
  auto released = catalog_->ReleaseRunningJobs();
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(*released, 1u);
  EXPECT_EQ(Get(orphan->task_id).state, JobState::kPending);
  Job failed = Get(poison->task_id);
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_NE(failed.error.find("process died"), std::string::npos) << failed.error;
  EXPECT_EQ(Get(waiting->task_id).state, JobState::kPending);
  // Leasable right away, long before the old lease would have expired.
  std::optional<Job> again = Lease(kSecond);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->task_id, orphan->task_id);
  EXPECT_EQ(again->attempts, 2);
}

TEST_F(JobsTest, PermanentFailureEndsTheJobWithAttemptsLeft) {
  auto enq = catalog_->EnqueueJob(Spec(JobKind::kReindex));  // 5 attempts
  ASSERT_TRUE(enq.ok());
  std::optional<Job> job = Lease(0);
  ASSERT_TRUE(job.has_value());
  ASSERT_TRUE(catalog_->FailJob(job->id, "source is gone", 0, /*permanent=*/true).ok());
  Job failed = Get(enq->task_id);
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_EQ(failed.attempts, 1);
  EXPECT_EQ(failed.error, "source is gone");
  EXPECT_FALSE(Lease(kSecond).has_value());
}

TEST_F(JobsTest, ExpiredLeaseOnLastAttemptFailsInsteadOfLooping) {
  JobSpec spec = Spec(JobKind::kIndex);
  spec.max_attempts = 1;
  auto enq = catalog_->EnqueueJob(spec);
  ASSERT_TRUE(enq.ok());
  ASSERT_TRUE(Lease(0).has_value());
  EXPECT_FALSE(Lease(60 * kSecond).has_value());
  Job failed = Get(enq->task_id);
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_NE(failed.error.find("lease expired"), std::string::npos) << failed.error;
}

TEST_F(JobsTest, OutboxCommitsNodesAndJobsTogether) {
  CatalogNode node{"resources/a.md", false, 3, 1, 1, "abc"};
  std::vector<Job> enqueued;
  JobSpec other_account = Spec(JobKind::kReindex);
  other_account.account = "other";
  ASSERT_TRUE(
      catalog_->Apply("acct", {node}, {}, {Spec(JobKind::kIndex), other_account}, &enqueued).ok());
  ASSERT_EQ(enqueued.size(), 2u);
  EXPECT_EQ(enqueued[0].kind, JobKind::kIndex);
  EXPECT_EQ(enqueued[0].kind_name, "index");
  EXPECT_EQ(enqueued[1].account, "other");
  EXPECT_TRUE(catalog_->Get("acct", "resources/a.md")->has_value());
  EXPECT_EQ(Get(enqueued[0].task_id).state, JobState::kPending);

  // An Apply with the empty account default fills in Apply's account.
  JobSpec unscoped = Spec(JobKind::kIndex);
  unscoped.account.clear();
  std::vector<Job> second;
  ASSERT_TRUE(catalog_->Apply("acct2", {}, {}, {unscoped}, &second).ok());
  EXPECT_EQ(second[0].account, "acct2");
}

TEST_F(JobsTest, FailedOutboxApplyLeavesNeitherNodesNorJobs) {
  JobSpec taken = Spec(JobKind::kIndex);
  taken.task_id = "taken";
  ASSERT_TRUE(catalog_->EnqueueJob(taken).ok());
  CatalogNode node{"resources/b.md", false, 3, 1, 1, "abc"};
  Status st = catalog_->Apply("acct", {node}, {}, {Spec(JobKind::kIndex), taken});
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  EXPECT_FALSE(catalog_->Get("acct", "resources/b.md")->has_value());
  EXPECT_EQ(*catalog_->CountJobs(std::nullopt), 1u);  // only the first "taken"
  JobSpec bad = Spec(JobKind::kIndex);
  bad.payload = "[";
  EXPECT_EQ(catalog_->Apply("acct", {node}, {}, {bad}).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(catalog_->Get("acct", "resources/b.md")->has_value());
}

TEST_F(JobsTest, ListCountUnfinishedAndPurge) {
  auto a = catalog_->EnqueueJob(Spec(JobKind::kIndex, 0, "viking://resources/docs"));
  auto b = catalog_->EnqueueJob(Spec(JobKind::kReindex, 0, "viking://resources/docs/x.md"));
  auto c = catalog_->EnqueueJob(Spec(JobKind::kReindex, 0, "viking://resources/docs-old"));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  auto all = catalog_->ListJobs({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].task_id, c->task_id);  // newest first
  JobFilter embeds;
  embeds.kind = JobKind::kReindex;
  embeds.limit = 1;
  EXPECT_EQ(catalog_->ListJobs(embeds)->size(), 1u);
  JobFilter by_resource;
  by_resource.resource_id = "viking://resources/docs";
  EXPECT_EQ(catalog_->ListJobs(by_resource)->size(), 1u);
  JobFilter other_user;
  other_user.user = "bob";
  EXPECT_TRUE(catalog_->ListJobs(other_user)->empty());

  EXPECT_EQ(*catalog_->CountUnfinishedJobs("acct", "viking://resources/docs"), 2u);
  EXPECT_EQ(*catalog_->CountUnfinishedJobs("acct", "viking://resources"), 3u);
  EXPECT_EQ(*catalog_->CountUnfinishedJobs("acct", "viking://"), 3u);
  EXPECT_EQ(*catalog_->CountUnfinishedJobs("acct", ""), 3u);
  EXPECT_EQ(*catalog_->CountUnfinishedJobs("other", ""), 0u);

  // Finish the two "docs" jobs; the subtree is then idle.
  for (int i = 0; i < 2; ++i) {
    std::optional<Job> j = Lease(1);
    ASSERT_TRUE(j.has_value());
    ASSERT_TRUE(catalog_->CompleteJob(j->id, "{}").ok());
  }
  EXPECT_EQ(*catalog_->CountUnfinishedJobs("acct", "viking://resources/docs"), 0u);
  JobFilter completed;
  completed.state = JobState::kCompleted;
  EXPECT_EQ(catalog_->ListJobs(completed)->size(), 2u);
  EXPECT_EQ(*catalog_->PurgeFinishedJobs(0), 0u);  // nothing finished that long ago
  EXPECT_EQ(*catalog_->PurgeFinishedJobs(std::numeric_limits<int64_t>::max()), 2u);
  EXPECT_EQ(*catalog_->CountJobs(std::nullopt), 1u);  // the pending one stays
}

TEST(JobStateTest, NamesRoundTrip) {
  for (JobState s :
       {JobState::kPending, JobState::kRunning, JobState::kCompleted, JobState::kFailed}) {
    EXPECT_EQ(ParseTaskState(TaskStateName(s)), s);
  }
  EXPECT_EQ(TaskStateName(TaskState::kCompleted), "completed");
  EXPECT_FALSE(ParseTaskState("done").has_value());
}

TEST(JobQueueRetryDelayTest, DoublesUpToTheCap) {
  EXPECT_EQ(JobQueue::RetryDelay(1, 100, 1000), 100);
  EXPECT_EQ(JobQueue::RetryDelay(2, 100, 1000), 200);
  EXPECT_EQ(JobQueue::RetryDelay(4, 100, 1000), 800);
  EXPECT_EQ(JobQueue::RetryDelay(5, 100, 1000), 1000);
  EXPECT_EQ(JobQueue::RetryDelay(200, 100, 1000), 1000);
}

// ---- JobQueue: blocking waits. A waiter's arrival is observed through
// blocked_waiters() so each test knows the waiter is asleep before acting.

class JobQueueTest : public JobsTest {
 protected:
  std::unique_ptr<JobQueue> MakeQueue(std::chrono::milliseconds poll) {
    JobQueueOptions options;
    options.env = &clock_;
    options.poll_interval = poll;
    return std::make_unique<JobQueue>(catalog_.get(), options);
  }
  static void AwaitBlocked(const JobQueue& q, int n) {
    while (q.blocked_waiters() < n) std::this_thread::yield();
  }
  testing::FakeClock clock_{1000 * kSecond};
};

TEST_F(JobQueueTest, WaitAndLeaseWakesOnEnqueue) {
  auto q = MakeQueue(kNoPolling);  // only the Enqueue can wake the worker
  Result<std::optional<Job>> got = Status::Internal("not run");
  std::thread worker([&] { got = q->WaitAndLease({}, 30 * kSecond, kLongWait); });
  AwaitBlocked(*q, 1);
  auto enq = q->Enqueue(Spec(JobKind::kIndex));
  worker.join();
  ASSERT_TRUE(enq.ok());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->task_id, enq->task_id);
  EXPECT_EQ((*got)->lease_until_ns, clock_.NowNanos() + 30 * kSecond);
}

TEST_F(JobQueueTest, WaitAndLeaseReturnsNothingOnShutdown) {
  auto q = MakeQueue(kNoPolling);
  Result<std::optional<Job>> got = Status::Internal("not run");
  // A timeout would also give nullopt, so wait "forever": if Shutdown did not
  // wake the worker, the test hangs and ctest's timeout fails it.
  std::thread worker([&] { got = q->WaitAndLease({}, kSecond, kNoPolling); });
  AwaitBlocked(*q, 1);
  q->Shutdown();
  worker.join();
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
  EXPECT_TRUE(q->is_shut_down());
  // After shutdown nothing is handed out, even with work queued.
  ASSERT_TRUE(catalog_->EnqueueJob(Spec(JobKind::kIndex)).ok());
  EXPECT_FALSE(q->WaitAndLease({}, kSecond, kLongWait)->has_value());
}

TEST_F(JobQueueTest, BackoffExpiryIsPickedUpByPollingWithoutEnqueue) {
  auto q = MakeQueue(std::chrono::milliseconds(5));
  auto enq = q->Enqueue(Spec(JobKind::kReindex));
  ASSERT_TRUE(enq.ok());
  std::optional<Job> first = *q->TryLease({}, kSecond);
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(q->Fail(first->id, "rate limited", 10 * kSecond).ok());
  EXPECT_FALSE(q->TryLease({}, kSecond)->has_value());
  Result<std::optional<Job>> got = Status::Internal("not run");
  std::thread worker([&] { got = q->WaitAndLease({}, kSecond, kLongWait); });
  AwaitBlocked(*q, 1);
  clock_.Advance(10 * kSecond);  // no Notify: only the periodic re-poll can see this
  worker.join();
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->task_id, enq->task_id);
  EXPECT_EQ((*got)->attempts, 2);
}

TEST_F(JobQueueTest, WaitForTaskReturnsWhenTheJobFinishes) {
  auto q = MakeQueue(kNoPolling);
  auto ok_job = q->Enqueue(Spec(JobKind::kAddResource, kJobPriorityInteractive));
  JobSpec doomed_spec = Spec(JobKind::kReindex);
  doomed_spec.max_attempts = 1;
  auto doomed = q->Enqueue(doomed_spec);
  ASSERT_TRUE(ok_job.ok() && doomed.ok());

  EXPECT_EQ(q->WaitForTask("no-such-task", kLongWait).status().code(), StatusCode::kNotFound);
  // A zero timeout returns the job as it is.
  EXPECT_EQ(q->WaitForTask(ok_job->task_id, std::chrono::milliseconds(0))->state,
            JobState::kPending);

  // One waiter at a time, so each wake-up is the one its own event sent.
  Result<Job> completed = Status::Internal("not run");
  std::thread w1([&] { completed = q->WaitForTask(ok_job->task_id, kLongWait); });
  AwaitBlocked(*q, 1);
  std::optional<Job> a = *q->TryLease({}, kSecond);
  EXPECT_EQ(a->task_id, ok_job->task_id);
  EXPECT_TRUE(q->Complete(a->id, R"({"memories":2})").ok());
  w1.join();
  ASSERT_TRUE(completed.ok());
  EXPECT_EQ(completed->state, JobState::kCompleted);
  EXPECT_EQ(completed->result, R"({"memories":2})");

  Result<Job> failed = Status::Internal("not run");
  std::thread w2([&] { failed = q->WaitForTask(doomed->task_id, kLongWait); });
  AwaitBlocked(*q, 1);
  std::optional<Job> b = *q->TryLease({}, kSecond);
  EXPECT_TRUE(q->Fail(b->id, "parser crashed", 0).ok());
  w2.join();
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->state, JobState::kFailed);
  EXPECT_EQ(failed->error, "parser crashed");
}

TEST_F(JobQueueTest, WaitForPlacedReturnsAtTheMilestoneOrTheEnd) {
  auto q = MakeQueue(kNoPolling);
  auto placed = q->Enqueue(Spec(JobKind::kAddResource, kJobPriorityInteractive));
  JobSpec retried_spec = Spec(JobKind::kAddResource);
  retried_spec.max_attempts = 3;
  auto retried = q->Enqueue(retried_spec);
  ASSERT_TRUE(placed.ok() && retried.ok());
  EXPECT_EQ(q->WaitForPlaced("no-such-task", kLongWait).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(q->WaitForPlaced(placed->task_id, std::chrono::milliseconds(0))->state,
            JobState::kPending);

  // Placed while running: the waiter returns, the job is still running.
  Result<Job> got = Status::Internal("not run");
  std::thread w1([&] { got = q->WaitForPlaced(placed->task_id, kLongWait); });
  AwaitBlocked(*q, 1);
  std::optional<Job> a = *q->TryLease({}, kSecond);
  ASSERT_EQ(a->task_id, placed->task_id);
  q->MarkPlaced(a->id);
  w1.join();
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->state, JobState::kRunning);
  // And once it completes, the mark is forgotten; waiting returns the end.
  ASSERT_TRUE(q->Complete(a->id, "{}").ok());
  EXPECT_EQ(q->WaitForPlaced(placed->task_id, kLongWait)->state, JobState::kCompleted);

  // A job that failed an attempt (waiting out its backoff) is not waited for.
  std::optional<Job> b = *q->TryLease({}, kSecond);
  ASSERT_EQ(b->task_id, retried->task_id);
  ASSERT_TRUE(q->Fail(b->id, "busy", 60 * kSecond).ok());
  Result<Job> backing_off = q->WaitForPlaced(retried->task_id, kLongWait);
  ASSERT_TRUE(backing_off.ok());
  EXPECT_EQ(backing_off->state, JobState::kPending);
}

TEST_F(JobQueueTest, WaitForIdleCoversFollowUpJobs) {
  auto q = MakeQueue(kNoPolling);
  ASSERT_TRUE(q->Enqueue(Spec(JobKind::kIndex, 0, "viking://resources/r")).ok());
  EXPECT_FALSE(*q->WaitForIdle("acct", "viking://resources/r", std::chrono::milliseconds(0)));
  Result<bool> idle = Status::Internal("not run");
  std::thread waiter([&] { idle = q->WaitForIdle("acct", "viking://resources/r", kLongWait); });
  AwaitBlocked(*q, 1);
  // The first job enqueues a follow-up below the resource before completing,
  // so the waiter wakes, still sees work, and sleeps again.
  std::optional<Job> parent = *q->TryLease({}, kSecond);
  EXPECT_TRUE(q->Enqueue(Spec(JobKind::kReindex, 0, "viking://resources/r/a.md")).ok());
  EXPECT_TRUE(q->Complete(parent->id, "{}").ok());
  std::optional<Job> child = *q->TryLease({}, kSecond);
  EXPECT_TRUE(child.has_value());
  EXPECT_EQ(child->kind, JobKind::kReindex);
  EXPECT_TRUE(q->Complete(child->id, "{}").ok());
  waiter.join();
  ASSERT_TRUE(idle.ok());
  EXPECT_TRUE(*idle);
}

}  // namespace
}  // namespace skald
