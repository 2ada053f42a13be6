// MaintenanceSchedule: when the idle workers' maintenance runs.

#include "service/upkeep.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace skald {
namespace {

constexpr int64_t kMinute = int64_t{60} * 1'000'000'000;
constexpr int64_t kHour = MaintenanceSchedule::kEveryNs;
constexpr int64_t kStart = int64_t{1'800'000'000} * 1'000'000'000;

TEST(MaintenanceScheduleTest, DueAtTheFirstIdleAskThenHourly) {
  MaintenanceSchedule schedule;
  EXPECT_TRUE(schedule.Claim(kStart, false));
  EXPECT_FALSE(schedule.Claim(kStart + 1, false));
  EXPECT_FALSE(schedule.Claim(kStart + kHour - 1, false));
  EXPECT_TRUE(schedule.Claim(kStart + kHour, false));
  EXPECT_FALSE(schedule.Claim(kStart + kHour + kMinute, false));
}

TEST(MaintenanceScheduleTest, ADueRunWaitsWhileAJobRuns) {
  MaintenanceSchedule schedule;
  // Opened, and an import starts at once: the first run waits for it.
  EXPECT_FALSE(schedule.Claim(kStart, true));
  EXPECT_FALSE(schedule.Claim(kStart + 10 * kMinute, true));
  EXPECT_TRUE(schedule.Claim(kStart + 11 * kMinute, false));  // the import ended
  // The next is due an hour after that run, and waits again.
  EXPECT_FALSE(schedule.Claim(kStart + 11 * kMinute + kHour - 1, false));
  EXPECT_FALSE(schedule.Claim(kStart + 11 * kMinute + kHour, true));
  EXPECT_TRUE(schedule.Claim(kStart + 12 * kMinute + kHour, false));
}

TEST(MaintenanceScheduleTest, AWorkspaceNeverIdleGetsItAnHourLate) {
  MaintenanceSchedule schedule;
  EXPECT_FALSE(schedule.Claim(kStart, true));
  EXPECT_FALSE(schedule.Claim(kStart + kHour - 1, true));
  EXPECT_TRUE(schedule.Claim(kStart + kHour, true));
  // Then hourly, each again at most an hour late.
  EXPECT_FALSE(schedule.Claim(kStart + 2 * kHour, true));
  EXPECT_FALSE(schedule.Claim(kStart + 3 * kHour - 1, true));
  EXPECT_TRUE(schedule.Claim(kStart + 3 * kHour, true));
}

TEST(MaintenanceScheduleTest, OneOfTheWorkersAskingAtOnceClaimsTheRun) {
  MaintenanceSchedule schedule;
  std::atomic<int> claimed{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 8; ++i) {
    workers.emplace_back([&] {
      for (int k = 0; k < 100; ++k) claimed += schedule.Claim(kStart + k, false) ? 1 : 0;
    });
  }
  for (std::thread& t : workers) t.join();
  EXPECT_EQ(claimed.load(), 1);
}

}  // namespace
}  // namespace skald
