#include "skald/options.h"

#include <fmt/format.h>

namespace skald {

Status DbOptions::Validate() const {
  if (workspace.empty()) return Status::InvalidArgument("workspace must not be empty");
  if (lock_timeout_ms < 0) return Status::InvalidArgument("lock_timeout_ms must be >= 0");
  return Status::Ok();
}

Status LsOptions::Validate() const {
  if (node_limit < 1) {
    return Status::InvalidArgument(fmt::format("node_limit must be >= 1, got {}", node_limit));
  }
  if (level_limit < 1) {
    return Status::InvalidArgument(fmt::format("level_limit must be >= 1, got {}", level_limit));
  }
  if (abs_limit < 4) {
    return Status::InvalidArgument(fmt::format("abs_limit must be >= 4, got {}", abs_limit));
  }
  return Status::Ok();
}

Status GrepRequest::Validate() const {
  if (pattern.empty()) return Status::InvalidArgument("pattern must not be empty");
  if (node_limit < 1) {
    return Status::InvalidArgument(fmt::format("node_limit must be >= 1, got {}", node_limit));
  }
  if (level_limit < 1) {
    return Status::InvalidArgument(fmt::format("level_limit must be >= 1, got {}", level_limit));
  }
  return Status::Ok();
}

Status GlobRequest::Validate() const {
  if (pattern.empty()) return Status::InvalidArgument("pattern must not be empty");
  if (node_limit < 1) {
    return Status::InvalidArgument(fmt::format("node_limit must be >= 1, got {}", node_limit));
  }
  return Status::Ok();
}

}  // namespace skald
