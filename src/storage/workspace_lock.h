#pragma once

// WorkspaceLock: one process per workspace, enforced with flock(2) on
// <workspace>/LOCK. The lock is released when the holder exits, crashes
// included, so a stale LOCK file never blocks a restart.
//
// Thread safety: not shared; owned by the Db.

#include <memory>
#include <string>

#include "skald/result.h"

namespace skald {

class WorkspaceLock {
 public:
  // Unavailable "workspace is in use by another process (pid N holds its
  // LOCK file)" when another process holds it (not logged: the caller
  // reports it).
  static Result<std::unique_ptr<WorkspaceLock>> Acquire(const std::string& workspace);
  ~WorkspaceLock();
  WorkspaceLock(const WorkspaceLock&) = delete;
  WorkspaceLock& operator=(const WorkspaceLock&) = delete;

 private:
  explicit WorkspaceLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace skald
