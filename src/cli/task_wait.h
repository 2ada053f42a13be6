#pragma once

// Following a background task (add-resource) to its end while showing its
// progress, the same way for embedded and remote backends.
//
// Thread safety: WaitForTask drives one Backend from the calling thread.

#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "cli/backend.h"
#include "common/json_util.h"
#include "skald/result.h"

namespace skald::cli {

// How a wait ended.
struct TaskWaitOutcome {
  Json task;               // the last task dict seen
  bool timed_out = false;  // `timeout` passed before the task ended
};

// True for "completed", "failed" and "cancelled".
bool IsFinalTaskStatus(std::string_view status);

// Polls backend.GetTask(task_id) until the task's status is final or
// `timeout` (when set) has passed — first after 10 ms, the pause
// (Backend::PauseForTask, which an embedded backend ends as the task ends)
// doubling up to `poll_interval`, so a short task is not kept waiting for a
// whole interval — writing "<status>:
// <stage>" to `progress`: one line rewritten in place when `progress_is_tty`,
// else one line per change. The progress line is cleared (TTY) before
// returning. An error from GetTask ends the wait with that error.
Result<TaskWaitOutcome> WaitForTask(
    Backend& backend, const std::string& task_id, std::optional<std::chrono::milliseconds> timeout,
    std::ostream& progress, bool progress_is_tty,
    std::chrono::milliseconds poll_interval = std::chrono::milliseconds(100));

}  // namespace skald::cli
