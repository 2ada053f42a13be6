#include "model/circuit_breaker.h"

#include <algorithm>

namespace skald {

Status CircuitBreakerOptions::Validate() const {
  if (failure_threshold < 1) {
    return Status::InvalidArgument("circuit_breaker.failure_threshold must be at least 1");
  }
  if (reset_timeout.count() < 1) {
    return Status::InvalidArgument("circuit_breaker.reset_timeout must be positive");
  }
  if (max_reset_timeout < reset_timeout) {
    return Status::InvalidArgument(
        "circuit_breaker.max_reset_timeout must be at least circuit_breaker.reset_timeout");
  }
  return Status::Ok();
}

CircuitBreaker::CircuitBreaker(CircuitBreakerOptions options, Env* env)
    : options_(options), env_(EnvOrDefault(env)), current_timeout_(options.reset_timeout) {}

std::chrono::steady_clock::time_point CircuitBreaker::Now() const {
  return std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(env_->MonotonicNanos()));
}

bool CircuitBreaker::Allow(std::chrono::milliseconds* retry_in) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kClosed) return true;
  const auto now = Now();
  const auto reopen_at = opened_at_ + current_timeout_;
  if (state_ == State::kOpen && now >= reopen_at) {
    state_ = State::kHalfOpen;
    probe_in_flight_ = false;
  }
  if (state_ == State::kHalfOpen && !probe_in_flight_) {
    probe_in_flight_ = true;
    return true;
  }
  if (retry_in != nullptr) {
    *retry_in = std::max(std::chrono::milliseconds(0),
                         std::chrono::duration_cast<std::chrono::milliseconds>(reopen_at - now));
  }
  return false;
}

void CircuitBreaker::RecordSuccess() {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = State::kClosed;
  failures_ = 0;
  probe_in_flight_ = false;
  current_timeout_ = options_.reset_timeout;
}

void CircuitBreaker::RecordFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  ++failures_;
  if (state_ == State::kHalfOpen) {
    state_ = State::kOpen;
    probe_in_flight_ = false;
    opened_at_ = Now();
    current_timeout_ = std::min(current_timeout_ * 2, options_.max_reset_timeout);
    return;
  }
  if (state_ == State::kClosed && failures_ >= options_.failure_threshold) {
    state_ = State::kOpen;
    opened_at_ = Now();
    current_timeout_ = options_.reset_timeout;
  }
}

CircuitBreaker::State CircuitBreaker::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

int CircuitBreaker::consecutive_failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_;
}

}  // namespace skald
