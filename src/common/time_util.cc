#include "common/time_util.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

namespace skald {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

std::tm ToUtc(int64_t nanos, int64_t* millis) {
  int64_t secs = nanos / 1000000000;
  int64_t rem = nanos % 1000000000;
  if (rem < 0) {
    rem += 1000000000;
    --secs;
  }
  *millis = rem / 1000000;
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

}  // namespace

std::string FormatIsoMillis(int64_t nanos) {
  int64_t millis = 0;
  std::tm tm = ToUtc(nanos, &millis);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

std::string FormatRfc3339(int64_t nanos) {
  int64_t millis = 0;
  std::tm tm = ToUtc(nanos, &millis);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace skald
