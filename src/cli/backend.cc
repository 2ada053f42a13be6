#include "cli/backend.h"

#include <utility>

namespace skald::cli {

Status UsageError(std::string message) {
  return Status::InvalidArgument(std::move(message)).WithReason(std::string(kUsageErrorReason));
}

bool IsWorkspaceInUse(const Status& status) {
  return status.code() == StatusCode::kUnavailable &&
         status.message().find("in use") != std::string::npos;
}

}  // namespace skald::cli
