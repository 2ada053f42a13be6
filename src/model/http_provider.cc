#include "model/http_provider.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "common/strings.h"
#include "common/time_util.h"

namespace skald {
namespace {

constexpr size_t kMaxSnippetBytes = 300;

// Human-readable part of an error body: OpenAI {"error":{"message"}},
// {"error":"..."}, {"message":"..."}, {"detail":"..."}, else the raw text.
std::string ErrorSnippet(const std::string& body) {
  std::string text;
  Result<Json> parsed = ParseJson(body);
  if (parsed.ok() && parsed->is_object()) {
    const Json& j = *parsed;
    auto pick = [](const Json& v) -> std::string {
      return v.is_string() ? v.get<std::string>() : "";
    };
    if (auto e = j.find("error"); e != j.end()) {
      text = e->is_object() && e->contains("message") ? pick((*e)["message"]) : pick(*e);
    }
    if (text.empty() && j.contains("message")) text = pick(j["message"]);
    if (text.empty() && j.contains("detail")) text = pick(j["detail"]);
  }
  if (text.empty()) text = body;
  std::string out(TruncateUtf8(text, kMaxSnippetBytes));
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (out.size() < text.size()) out += "...";
  return out;
}

std::string ReasonPhrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

}  // namespace

std::string JoinUrl(std::string_view base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return fmt::format("{}/{}", base, path);
}

ProviderClient::ProviderClient(ProviderClientOptions options, ModelEnv env)
    : options_(std::move(options)),
      env_(std::move(env)),
      breaker_(options_.breaker, env_.env),
      slots_(std::clamp(options_.max_concurrent, 1, 1024)) {}

std::string ProviderClient::Redact(std::string text) const {
  auto scrub = [&text](const std::string& secret) {
    if (secret.size() < 4) return;
    size_t pos = 0;
    while ((pos = text.find(secret, pos)) != std::string::npos) {
      text.replace(pos, secret.size(), "[REDACTED]");
      pos += 10;
    }
  };
  scrub(options_.api_key);
  for (const auto& [name, value] : options_.extra_headers) {
    if (value.size() >= 8) scrub(value);
  }
  return text;
}

Status ProviderClient::Error(std::string_view what) const {
  return Status::Unavailable(Redact(fmt::format("{} provider '{}' model '{}': {}", options_.kind,
                                                options_.provider, options_.model, what)))
      .WithDetail("provider", options_.provider)
      .WithDetail("model", options_.model);
}

Status ProviderClient::Describe(const Status& base, int attempts) const {
  std::string what = base.message();
  if (attempts > 1) what += fmt::format(" (after {} attempts)", attempts);
  Status out = Error(what);
  if (base.code() == StatusCode::kDeadlineExceeded) {
    out = Status(StatusCode::kDeadlineExceeded, out.message())
              .WithDetail("provider", options_.provider)
              .WithDetail("model", options_.model);
  }
  return out;
}

ProviderClient::Attempt ProviderClient::SendOnce(const HttpRequest& request,
                                                 const Validator& validate, Json* json) {
  Attempt attempt;
  ++requests_;
  Result<HttpResponse> sent = env_.transport->Send(request);
  if (!sent.ok()) {
    // Timeouts and unreachable hosts are transient.
    attempt.error = sent.status();
    attempt.retryable = true;
    attempt.provider_fault = true;
    return attempt;
  }
  const HttpResponse& response = *sent;
  if (response.status >= 200 && response.status < 300) {
    Result<Json> parsed = ParseJson(response.body);
    if (!parsed.ok()) {
      attempt.error = Status::Internal(fmt::format("HTTP {} with a body that is not valid JSON: {}",
                                                   response.status, ErrorSnippet(response.body)));
      attempt.provider_fault = true;
      return attempt;
    }
    if (validate) {
      if (Status valid = validate(*parsed); !valid.ok()) {
        attempt.error = valid;
        attempt.provider_fault = true;
        return attempt;
      }
    }
    *json = std::move(parsed).value();
    return attempt;
  }
  const int status = response.status;
  std::string what = fmt::format("HTTP {}", status);
  if (std::string reason = ReasonPhrase(status); !reason.empty()) what += " " + reason;
  if (std::string snippet = ErrorSnippet(response.body); !snippet.empty()) what += ": " + snippet;
  attempt.error = status == 429 ? Status::ResourceExhausted(what) : Status::Unavailable(what);
  attempt.retryable = IsRetryableHttpStatus(status);
  // 401/403/404: wrong key, wrong URL or unknown model; every call fails.
  attempt.provider_fault = attempt.retryable || status == 401 || status == 403 || status == 404;
  if (attempt.retryable) {
    attempt.retry_after = ParseRetryAfter(response.Header("Retry-After"),
                                            EnvOrDefault(env_.env)->NowNanos() / 1000000000);
  }
  return attempt;
}

Result<Json> ProviderClient::PostJson(const std::string& url, const Json& body,
                                      const Validator& validate) {
  HttpRequest request;
  request.method = "POST";
  request.url = url;
  request.body = DumpJson(body);
  request.timeout = options_.timeout;
  request.connect_timeout = std::min(options_.timeout, std::chrono::milliseconds(10000));
  request.headers.emplace_back("Content-Type", "application/json");
  request.headers.emplace_back("Accept", "application/json");
  if (!options_.api_key.empty()) {
    request.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  }
  for (const auto& [name, value] : options_.extra_headers)
    request.headers.emplace_back(name, value);

  slots_.acquire();
  struct Release {
    std::counting_semaphore<1024>& slots;
    ~Release() { slots.release(); }
  } release{slots_};

  const int max_attempts = options_.retry.max_retries + 1;
  for (int attempt_no = 1;; ++attempt_no) {
    std::chrono::milliseconds retry_in{0};
    if (!breaker_.Allow(&retry_in)) {
      ++fast_fails_;
      return Error(fmt::format(
          "failing fast: the circuit breaker is open after {} consecutive failed calls; next "
          "attempt allowed in {} s",
          breaker_.consecutive_failures(), (retry_in.count() + 999) / 1000));
    }
    Json json;
    Attempt attempt = SendOnce(request, validate, &json);
    if (attempt.error.ok()) {
      breaker_.RecordSuccess();
      return json;
    }
    if (!attempt.retryable || attempt_no >= max_attempts) {
      if (attempt.provider_fault) {
        breaker_.RecordFailure();
      } else {
        breaker_.RecordSuccess();  // it answered: a request problem, not an outage
      }
      return Describe(attempt.error, attempt_no);
    }
    std::chrono::milliseconds delay = BackoffDelay(options_.retry, attempt_no - 1);
    if (attempt.retry_after) {
      if (*attempt.retry_after > options_.retry.max_retry_after) {
        breaker_.RecordFailure();
        return Describe(
            Status(attempt.error.code(),
                   fmt::format("{}; the provider asked to retry after {} s",
                               attempt.error.message(), attempt.retry_after->count() / 1000)),
            attempt_no);
      }
      delay = *attempt.retry_after;
    }
    // The probe slot of a half-open breaker is ours until we report.
    if (breaker_.state() == CircuitBreaker::State::kHalfOpen) {
      breaker_.RecordFailure();
      return Describe(attempt.error, attempt_no);
    }
    spdlog::warn("{}", Redact(fmt::format("{} provider '{}' model '{}': {}; retry {}/{} in {} ms",
                                          options_.kind, options_.provider, options_.model,
                                          attempt.error.message(), attempt_no,
                                          options_.retry.max_retries, delay.count())));
    ++retries_;
    EnvOrDefault(env_.env)->SleepForNanos(
        std::chrono::duration_cast<std::chrono::nanoseconds>(delay).count());
  }
}

ModelStats ProviderClient::stats() const {
  ModelStats s;
  s.calls = calls_.load();
  s.requests = requests_.load();
  s.retries = retries_.load();
  s.failures = failures_.load();
  s.fast_fails = fast_fails_.load();
  return s;
}

}  // namespace skald
