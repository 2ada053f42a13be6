#pragma once

// Retry policy for model providers (OpenViking's utils/model_retry.py):
// transient failures — HTTP 408, 429, 500, 502, 503, 504, timeouts and
// connection errors — are retried up to `max_retries` times after
// min(base · 2^attempt, max) seconds, multiplied by a random jitter factor
// in [0.5, 1.5). A `Retry-After` header (seconds or an HTTP date) replaces
// the computed delay; one longer than `max_retry_after` ends the retries.
//
// Thread safety: pure functions and value types; the jitter source is
// per-thread.

#include <chrono>
#include <functional>
#include <optional>
#include <string_view>

namespace skald {

struct RetryPolicy {
  // Additional attempts after the first failure (0 = no retries).
  int max_retries = 3;
  // Delay before the first retry; doubles each time.
  std::chrono::milliseconds base_delay{500};
  // Upper bound of the computed (not the Retry-After) delay.
  std::chrono::milliseconds max_delay{8000};
  // Retry-After values up to this long are waited for; longer ones make the
  // call fail at once (naming the value) instead of blocking a worker.
  std::chrono::milliseconds max_retry_after{60000};
  // Multiply computed delays by a random factor in [0.5, 1.5).
  bool jitter = true;
};

// True for HTTP statuses worth retrying (408, 429, 500, 502, 503, 504).
bool IsRetryableHttpStatus(int status);

// Delay before retry number `attempt` (0 = the first retry), jitter included.
std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int attempt);

// Parses a Retry-After value: delta-seconds ("120", fractions accepted) or
// an IMF-fixdate ("Wed, 21 Oct 2015 07:28:00 GMT", relative to `now_unix_s`).
// nullopt when absent or unparseable; dates in the past give 0.
std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view value,
                                                         int64_t now_unix_s);


}  // namespace skald
