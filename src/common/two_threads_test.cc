#include "common/two_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace skald {
namespace {

TEST(TwoThreadsTest, EveryIndexRunsOnceOnAtMostTwoThreads) {
  HelperPool pool;
  for (HelperPool* helpers : {&pool, static_cast<HelperPool*>(nullptr)}) {
    for (size_t n : {0, 1, 2, 3, 64, 1000}) {
      std::vector<std::atomic<int>> runs(n);
      std::mutex mu;
      std::set<std::thread::id> threads;
      ForEachOnTwoThreads(helpers, 0, n, [&](size_t i) {
        runs[i]++;
        std::lock_guard<std::mutex> lock(mu);
        threads.insert(std::this_thread::get_id());
      });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "n=" << n << " i=" << i;
      EXPECT_LE(threads.size(), 2u);
    }
  }
}

// Told its share, fn sees share 0 on the caller's thread and 1 on one
// helper thread only.
TEST(TwoThreadsTest, EachShareIsCalledFromOneThread) {
  HelperPool pool;
  for (HelperPool* helpers : {&pool, static_cast<HelperPool*>(nullptr)}) {
    for (size_t n : {1, 2, 64, 1000}) {
      std::mutex mu;
      std::set<std::thread::id> share_threads[2];
      std::vector<int> shares(n, -1);
      ForEachOnTwoThreads(helpers, 0, n, [&](size_t i, int share) {
        ASSERT_TRUE(share == 0 || share == 1);
        shares[i] = share;
        std::lock_guard<std::mutex> lock(mu);
        share_threads[share].insert(std::this_thread::get_id());
      });
      for (size_t i = 0; i < n; ++i) EXPECT_NE(shares[i], -1) << "n=" << n << " i=" << i;
      // (The helper may take every index before this thread takes one.)
      EXPECT_LE(share_threads[0].size(), 1u) << "n=" << n;
      if (!share_threads[0].empty()) {
        EXPECT_EQ(*share_threads[0].begin(), std::this_thread::get_id());
      }
      EXPECT_LE(share_threads[1].size(), 1u);
      if (!share_threads[1].empty()) {
        EXPECT_NE(*share_threads[1].begin(), std::this_thread::get_id());
      }
    }
  }
}

// A posted task runs on a helper beside the caller (on any number of cores):
// the task and the caller each wait for the other to start.
TEST(TwoThreadsTest, APostedTaskRunsBesideTheCaller) {
  HelperPool pool;
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> started{0};
    auto meet = [&] {
      started++;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      return started.load() == 2;
    };
    bool helper_met = false;
    HelperTask task{[&] { helper_met = meet(); }};
    pool.Post(&task);
    const bool caller_met = meet();
    ASSERT_TRUE(pool.Withdraw(&task)) << "round " << round;  // it ran
    EXPECT_TRUE(caller_met) << "round " << round;
    EXPECT_TRUE(helper_met) << "round " << round;
  }
}

// An exception from the caller's share leaves the fan-out only once its
// helper is done: nothing runs on the caller's (gone) stack afterwards.
TEST(TwoThreadsTest, ACallersExceptionWaitsForItsHelper) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> helper_items{0};
  HelperPool pool;
  EXPECT_THROW(ForEachOnTwoThreads(&pool, 0, 2000,
                                   [&](size_t i) {
                                     if (std::this_thread::get_id() == caller) {
                                       if (i > 20) throw std::runtime_error("caller fails");
                                       return;
                                     }
                                     helper_items++;
                                     std::this_thread::sleep_for(std::chrono::microseconds(20));
                                   }),
               std::runtime_error);
  const int at_return = helper_items.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(helper_items.load(), at_return);
  // The helpers still serve later fan-outs.
  std::atomic<int> runs{0};
  ForEachOnTwoThreads(&pool, 0, 100, [&](size_t) { runs++; });
  EXPECT_EQ(runs.load(), 100);
}

TEST(TwoThreadsTest, HalvesComeBackInOrder) {
  std::vector<int> items(101);
  std::iota(items.begin(), items.end(), 0);
  HelperPool pool;
  auto [first, second] =
      OnTwoHalves(&pool, std::span<const int>(items), [](std::span<const int> part) {
        return std::vector<int>(part.begin(), part.end());
      });
  ASSERT_EQ(first.size(), 50u);
  ASSERT_EQ(second.size(), 51u);
  EXPECT_EQ(first.front(), 0);
  EXPECT_EQ(second.front(), 50);
  EXPECT_EQ(second.back(), 100);
}

// More callers at once than the pool keeps helpers for, each fanning out
// again inside: every share still runs once, nobody waits forever for a
// helper that never comes, and the pool then stops and joins its threads.
TEST(TwoThreadsTest, ManyCallersAndNestedFanOutsAllFinish) {
  constexpr int kCallers = 40;
  HelperPool pool(/*max_threads=*/4);
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        ForEachOnTwoThreads(&pool, 0, 8, [&](size_t) {
          std::vector<int> items(10, 1);
          auto [a, b] = OnTwoHalves(&pool, std::span<const int>(items),
                                    [](std::span<const int> part) {
            return std::accumulate(part.begin(), part.end(), 0L);
          });
          total += a + b;
        });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), long{kCallers} * 20 * 8 * 10);
}

}  // namespace
}  // namespace skald
