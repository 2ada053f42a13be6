#include "cli/task_wait.h"

#include <algorithm>
#include <chrono>

#include "cli/output.h"

namespace skald::cli {
namespace {

std::string Field(const Json& task, std::string_view key) {
  if (!task.is_object()) return std::string();
  auto it = task.find(key);
  return it != task.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The first pause between polls; each next one is twice as long, up to
// the caller's interval.
constexpr int kFirstPauseMs = 10;

}  // namespace

bool IsFinalTaskStatus(std::string_view status) {
  return status == "completed" || status == "failed" || status == "cancelled";
}

Result<TaskWaitOutcome> WaitForTask(Backend& backend, const std::string& task_id,
                                    std::optional<std::chrono::milliseconds> timeout,
                                    std::ostream& progress, bool progress_is_tty,
                                    std::chrono::milliseconds poll_interval) {
  // No timeout: a deadline that never comes.
  const auto deadline = timeout.has_value() ? std::chrono::steady_clock::now() + *timeout
                                            : std::chrono::steady_clock::time_point::max();
  std::string last_line;
  bool drew = false;
  auto clear = [&] {
    if (progress_is_tty && drew) progress << "\r\033[2K" << std::flush;
  };
  TaskWaitOutcome outcome;
  std::chrono::milliseconds pause =
      std::min(poll_interval, std::chrono::milliseconds(kFirstPauseMs));
  while (true) {
    Result<Json> task = backend.GetTask(task_id);
    if (!task.ok()) {
      clear();
      return task.status();
    }
    outcome.task = std::move(task).value();
    const std::string status = Field(outcome.task, "status");
    const std::string stage = Field(outcome.task, "stage");
    std::string line = "task " + task_id + " " + status;
    if (!stage.empty()) line += ": " + OneLine(stage, 80);
    if (line != last_line) {
      if (progress_is_tty) {
        progress << "\r\033[2K" << line << std::flush;
        drew = true;
      } else {
        progress << line << '\n' << std::flush;
      }
      last_line = std::move(line);
    }
    if (IsFinalTaskStatus(status)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      outcome.timed_out = true;
      break;
    }
    backend.PauseForTask(task_id, pause);
    pause = std::min(poll_interval, pause * 2);
  }
  clear();
  return outcome;
}

}  // namespace skald::cli
