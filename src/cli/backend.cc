#include "cli/backend.h"

#include <thread>
#include <utility>

namespace skald::cli {

Status UsageError(std::string message) {
  return Status::InvalidArgument(std::move(message)).WithReason(std::string(kUsageErrorReason));
}

bool IsWorkspaceInUse(const Status& status) {
  return status.code() == StatusCode::kUnavailable &&
         status.message().find("in use") != std::string::npos;
}

void Backend::PauseForTask(const std::string&, std::chrono::milliseconds at_most) {
  std::this_thread::sleep_for(at_most);
}

}  // namespace skald::cli
