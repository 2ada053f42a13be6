#include "model/retry.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "common/strings.h"

namespace skald {

bool IsRetryableHttpStatus(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int attempt) {
  double ms = static_cast<double>(policy.base_delay.count()) *
              std::pow(2.0, static_cast<double>(std::clamp(attempt, 0, 30)));
  ms = std::min(ms, static_cast<double>(policy.max_delay.count()));
  if (policy.jitter) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::uniform_real_distribution<double> factor(0.5, 1.5);
    ms *= factor(rng);
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::max(0.0, ms)));
}

std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view value,
                                                         int64_t now_unix_s) {
  std::string_view text = Trim(value);
  if (text.empty()) return std::nullopt;
  double seconds = 0;
  if (ParseDouble(text, &seconds)) {
    if (seconds < 0 || seconds > 1e9) return std::nullopt;
    return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
  }
  std::tm tm{};
  const std::string copy(text);
  const char* end = strptime(copy.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const int64_t at = static_cast<int64_t>(timegm(&tm));
  return std::chrono::milliseconds(std::max<int64_t>(0, at - now_unix_s) * 1000);
}

}  // namespace skald
