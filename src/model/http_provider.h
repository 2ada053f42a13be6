#pragma once

// ProviderClient: what every HTTP model provider shares — JSON POSTs over
// the shared HttpTransport with bounded concurrency, retries with backoff
// and Retry-After, a circuit breaker, counters, and error messages that name
// the provider, the model and the HTTP status and never contain the API key
// (nor the value of any configured extra header). Internal to the model
// module: callers use embedder.h / llm.h / reranker.h through factory.h.
//
// Thread safety: PostJson may be called concurrently.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <semaphore>
#include <string>

#include "common/env.h"
#include "common/json_util.h"
#include "model/circuit_breaker.h"
#include "model/embedder.h"
#include "model/http_transport.h"
#include "model/retry.h"

namespace skald {

// Shared resources and test hooks for the clients the factory builds.
struct ModelEnv {
  // Shared by every client; null = the factory creates a libcurl transport.
  std::shared_ptr<HttpTransport> transport;
  // Sleeping between retries, the circuit breakers' monotonic clock and the
  // wall clock for Retry-After dates. Borrowed (must outlive the clients);
  // null = Env::Default(). Tests pass a FakeClock so that nothing waits.
  Env* env = nullptr;
};

struct ProviderClientOptions {
  std::string kind;  // "embedding", "chat" or "rerank" (messages)
  std::string provider;
  std::string model;
  std::string api_key;  // "" = no Authorization header
  std::map<std::string, std::string> extra_headers;
  std::chrono::milliseconds timeout{30000};
  RetryPolicy retry;
  CircuitBreakerOptions breaker;
  int max_concurrent = 10;
};

class ProviderClient {
 public:
  // Checks a 2xx reply's JSON before it counts as a success; an error here
  // is not retried and counts as a provider failure for the breaker.
  using Validator = std::function<Status(const Json&)>;

  // REQUIRES: env.transport is not null.
  ProviderClient(ProviderClientOptions options, ModelEnv env);

  // POSTs `body` to `url` and returns the parsed JSON of a 2xx response.
  Result<Json> PostJson(const std::string& url, const Json& body,
                        const Validator& validate = nullptr);

  // An Unavailable error "<kind> provider '<p>' model '<m>': <what>", with
  // secrets redacted.
  Status Error(std::string_view what) const;
  // `text` with the API key and extra header values replaced by "[REDACTED]".
  std::string Redact(std::string text) const;

  const ProviderClientOptions& options() const { return options_; }
  void CountCall() { ++calls_; }
  void CountFailure() { ++failures_; }
  ModelStats stats() const;

 private:
  // One request; nullopt on success (reply in *json).
  struct Attempt {
    Status error;
    bool retryable = false;
    bool provider_fault = false;  // counts against the breaker
    std::optional<std::chrono::milliseconds> retry_after;
  };
  Attempt SendOnce(const HttpRequest& request, const Validator& validate, Json* json);
  Status Describe(const Status& base, int attempts) const;

  const ProviderClientOptions options_;
  const ModelEnv env_;
  CircuitBreaker breaker_;
  std::counting_semaphore<1024> slots_;
  std::atomic<uint64_t> calls_{0}, requests_{0}, retries_{0}, failures_{0}, fast_fails_{0};
};

// Joins a base URL and a path with exactly one '/'.
std::string JoinUrl(std::string_view base, std::string_view path);

}  // namespace skald
