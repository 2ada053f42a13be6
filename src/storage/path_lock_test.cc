#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "storage/path_lock.h"
#include "tests/testutil/fault_injection_env.h"

namespace skald {
namespace {

using std::chrono::milliseconds;

PathLockRequest Exact(std::string path) { return {"a", std::move(path), PathLockKind::kExact}; }
PathLockRequest Tree(std::string path) { return {"a", std::move(path), PathLockKind::kTree}; }

TEST(PathLockTest, ConflictRules) {
  PathLockManager m;
  PathLockGuard tree;
  ASSERT_TRUE(m.Acquire({Tree("resources/d")}, milliseconds(0), &tree).ok());
  PathLockGuard g;
  EXPECT_EQ(m.Acquire({Exact("resources/d/x")}, milliseconds(0), &g).code(),
            StatusCode::kConflict);                                         // under a tree lock
  EXPECT_FALSE(m.Acquire({Tree("resources")}, milliseconds(0), &g).ok());  // ancestor tree
  EXPECT_TRUE(m.Acquire({Exact("resources/d-x")}, milliseconds(0), &g).ok());  // sibling prefix
  PathLockGuard other_account;
  EXPECT_TRUE(m.Acquire({{"b", "resources/d", PathLockKind::kTree}}, milliseconds(0),
                        &other_account)
                  .ok());
  EXPECT_TRUE(m.IsLocked("a", "resources/d/deep/x"));
  EXPECT_FALSE(m.IsLocked("a", "resources"));
}

TEST(PathLockTest, ExactLocksOnDifferentFilesUnderSameDirCoexist) {
  PathLockManager m;
  PathLockGuard a, b;
  ASSERT_TRUE(m.Acquire({Exact("resources/d/a")}, milliseconds(0), &a).ok());
  EXPECT_TRUE(m.Acquire({Exact("resources/d/b")}, milliseconds(0), &b).ok());
  PathLockGuard c;
  EXPECT_FALSE(m.Acquire({Exact("resources/d/a")}, milliseconds(0), &c).ok());
}

// A waiter blocks while a conflicting TREE lock is held and gets its lock
// when that is released. No sleeps: the test waits until the manager reports
// the waiter blocked, or until the waiter returns, which with the TREE lock
// still held means the lock did not exclude it (the test then fails).
TEST(PathLockTest, ReleaseWakesWaiter) {
  PathLockManager m;
  auto held = std::make_unique<PathLockGuard>();
  ASSERT_TRUE(m.Acquire({Tree("resources")}, milliseconds(0), held.get()).ok());
  std::atomic<bool> returned{false};
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    PathLockGuard g;
    // An hour, far beyond ctest's timeout: a release that did not wake the
    // waiter fails the test there instead of passing by the deadline's last look.
    got = m.Acquire({Exact("resources/x")}, std::chrono::hours(1), &g).ok();
    returned = true;
  });
  while (m.waiting() == 0 && !returned.load()) std::this_thread::yield();
  EXPECT_FALSE(returned.load()) << "the waiter got past a TREE lock on its ancestor";
  EXPECT_EQ(m.waiting(), 1u);
  PathLockGuard probe;
  EXPECT_EQ(m.Acquire({Exact("resources/x")}, milliseconds(0), &probe).code(),
            StatusCode::kConflict);
  held.reset();
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(m.waiting(), 0u);
  EXPECT_FALSE(m.IsLocked("a", "resources"));
}

// Lock timeouts run on the Env's clock: a waiter under a frozen FakeClock
// keeps waiting however long it really takes, and times out with a Conflict
// naming the URI once the clock is moved past its deadline.
TEST(PathLockTest, TimeoutIsMeasuredOnTheEnvClock) {
  testing::FakeClock clock;
  PathLockManager m(&clock);
  PathLockGuard held;
  ASSERT_TRUE(m.Acquire({Tree("resources")}, milliseconds(0), &held).ok());
  std::atomic<bool> returned{false};
  Status result;
  std::thread waiter([&] {
    PathLockGuard g;
    result = m.Acquire({Exact("resources/x")}, milliseconds(10), &g);
    returned = true;
  });
  while (m.waiting() == 0 && !returned.load()) std::this_thread::yield();
  EXPECT_FALSE(returned.load()) << "the waiter timed out although the clock stood still";
  // Several wait slices of real time pass; the fake clock has not moved.
  for (int i = 0; i < 3 && !returned.load(); ++i) std::this_thread::sleep_for(milliseconds(60));
  EXPECT_FALSE(returned.load()) << "the timeout was measured on the real clock";
  clock.Advance(milliseconds(11));
  waiter.join();
  EXPECT_EQ(result.code(), StatusCode::kConflict) << result.ToString();
  EXPECT_NE(result.message().find("viking://resources/x"), std::string::npos) << result.ToString();
  EXPECT_EQ(m.waiting(), 0u);
}

TEST(PathLockTest, MutualExclusionUnderContention) {
  PathLockManager m;
  int counter = 0;  // protected only by the path lock
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        PathLockGuard g;
        ASSERT_TRUE(m.Acquire({Exact("resources/c")}, milliseconds(10000), &g).ok());
        int v = counter;
        std::this_thread::yield();
        counter = v + 1;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(counter, 2000);
}

}  // namespace
}  // namespace skald
