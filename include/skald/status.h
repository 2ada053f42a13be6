#pragma once

// Status: the outcome of every fallible operation in Skald.
//
// Thread safety: a Status is a value type; distinct objects may be used from
// different threads freely, one object is not synchronized.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skald {

enum class StatusCode {
  kOk = 0,
  kNotFound,
  kInvalidArgument,
  kAlreadyExists,
  kPermissionDenied,
  kUnauthenticated,
  kFailedPrecondition,
  kConflict,
  kCorruption,
  kIOError,
  kUnavailable,
  kDeadlineExceeded,
  kResourceExhausted,
  kInternal,
};

// Returns a stable lower-case name ("not_found") for logs and messages.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // One key/value pair of machine-readable detail ("uri" -> "viking://x").
  using Detail = std::pair<std::string, std::string>;

  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status InvalidArgument(std::string msg) {
    return {StatusCode::kInvalidArgument, std::move(msg)};
  }
  static Status AlreadyExists(std::string msg) {
    return {StatusCode::kAlreadyExists, std::move(msg)};
  }
  static Status PermissionDenied(std::string msg) {
    return {StatusCode::kPermissionDenied, std::move(msg)};
  }
  static Status Unauthenticated(std::string msg) {
    return {StatusCode::kUnauthenticated, std::move(msg)};
  }
  static Status FailedPrecondition(std::string msg) {
    return {StatusCode::kFailedPrecondition, std::move(msg)};
  }
  static Status Conflict(std::string msg) { return {StatusCode::kConflict, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
  static Status DeadlineExceeded(std::string msg) {
    return {StatusCode::kDeadlineExceeded, std::move(msg)};
  }
  static Status ResourceExhausted(std::string msg) {
    return {StatusCode::kResourceExhausted, std::move(msg)};
  }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // An optional wire-level reason ("INVALID_URI") that refines the code for
  // API clients; empty means "derive it from code()".
  const std::string& reason() const { return reason_; }
  Status& WithReason(std::string reason) & {
    reason_ = std::move(reason);
    return *this;
  }
  Status&& WithReason(std::string reason) && {
    reason_ = std::move(reason);
    return std::move(*this);
  }

  // Machine-readable details, in insertion order.
  const std::vector<Detail>& details() const { return details_; }
  Status& WithDetail(std::string key, std::string value) & {
    details_.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Status&& WithDetail(std::string key, std::string value) && {
    details_.emplace_back(std::move(key), std::move(value));
    return std::move(*this);
  }

  // "not_found: File not found: viking://x" (or "ok").
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string reason_;
  std::vector<Detail> details_;
};

}  // namespace skald

#define SKALD_STATUS_CONCAT_INNER(a, b) a##b
#define SKALD_STATUS_CONCAT(a, b) SKALD_STATUS_CONCAT_INNER(a, b)

// Evaluates `expr` (a Status) and returns it from the enclosing function if not ok.
#define SKALD_RETURN_IF_ERROR(expr)                 \
  do {                                              \
    ::skald::Status skald_status_tmp_ = (expr);     \
    if (!skald_status_tmp_.ok()) return skald_status_tmp_; \
  } while (0)
