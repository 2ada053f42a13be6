#pragma once

// CircuitBreaker: stops calling a provider that keeps failing, so a dead
// endpoint costs one fast error instead of a timeout and retries per call.
// OpenViking's semantics and defaults: after `failure_threshold` consecutive
// failed calls the breaker opens; calls then fail at once until
// `reset_timeout` has passed; then one probe call is let through
// (half-open): success closes the breaker, failure reopens it with the
// timeout doubled, up to `max_reset_timeout`. Unlike OpenViking only one
// probe is in flight at a time.
//
// Thread safety: all methods may be called concurrently.

#include <chrono>
#include <mutex>
#include <string>

#include "common/env.h"
#include "model/retry.h"
#include "skald/status.h"

namespace skald {

struct CircuitBreakerOptions {
  // Consecutive failed calls that open the breaker.
  int failure_threshold = 5;
  // Time the breaker stays open before a probe is allowed.
  std::chrono::milliseconds reset_timeout{60000};
  // Cap of the doubled reset timeout after failed probes.
  std::chrono::milliseconds max_reset_timeout{600000};

  Status Validate() const;
};

class CircuitBreaker {
 public:
  enum class State { kClosed, kOpen, kHalfOpen };

  // Times come from `env`'s monotonic clock (borrowed; null = Env::Default()).
  explicit CircuitBreaker(CircuitBreakerOptions options, Env* env = nullptr);

  // Whether a call may proceed now. When false, *retry_in (if given) is set
  // to the time until a probe will be allowed. A true answer in the open
  // state makes this caller the probe: it must report its outcome.
  bool Allow(std::chrono::milliseconds* retry_in = nullptr);

  // Outcome of a call that Allow() let through. A provider that answers
  // (even with a 400 for one bad input) is up: that is a success.
  void RecordSuccess();
  void RecordFailure();

  State state() const;
  int consecutive_failures() const;

 private:
  std::chrono::steady_clock::time_point Now() const;

  const CircuitBreakerOptions options_;
  Env* const env_;
  mutable std::mutex mu_;
  State state_ = State::kClosed;                       // GUARDED_BY(mu_)
  int failures_ = 0;                                   // GUARDED_BY(mu_)
  bool probe_in_flight_ = false;                       // GUARDED_BY(mu_)
  std::chrono::milliseconds current_timeout_;          // GUARDED_BY(mu_)
  std::chrono::steady_clock::time_point opened_at_{};  // GUARDED_BY(mu_)
};

}  // namespace skald
