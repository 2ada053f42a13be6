#pragma once

// Result<T>: a value or a non-ok Status (libstdc++ 12 has no std::expected).
//
// Thread safety: a value type, like Status.

#include <cassert>
#include <optional>
#include <utility>

#include "skald/status.h"

namespace skald {

template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit so that `return value;` and `return Status::NotFound(..)` both work.
  Result(T value) : value_(std::move(value)) {}  // NOLINT
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    // A Result built from a Status must carry an error.
    if (status_.ok()) status_ = Status::Internal("Result constructed from an ok Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok().
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace skald

// Evaluates `rexpr` (a Result<T>); on error returns its Status, else moves the
// value into `lhs` (which may be a declaration such as `auto x`).
#define SKALD_ASSIGN_OR_RETURN(lhs, rexpr) \
  SKALD_ASSIGN_OR_RETURN_IMPL(SKALD_STATUS_CONCAT(skald_result_, __LINE__), lhs, rexpr)

#define SKALD_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
