#include "storage/workspace_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace skald {

Result<std::unique_ptr<WorkspaceLock>> WorkspaceLock::Acquire(const std::string& workspace) {
  // Errors name the workspace file ("LOCK"), never its host path; the log
  // has the full path for the operator.
  std::string path = workspace + "/LOCK";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    spdlog::error("cannot open the workspace lock {}: {}", path, std::strerror(err));
    return Status::IOError(fmt::format("open LOCK: {}", std::strerror(err)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {0};
    ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      // Not logged: the caller reports the error (the CLI and serve name the
      // workspace), and a second line saying the same helped no one.
      return Status::Unavailable(fmt::format(
          "workspace is in use by another process (pid {} holds its LOCK file)", pid));
    }
    spdlog::error("cannot lock the workspace lock {}: {}", path, std::strerror(err));
    return Status::IOError(fmt::format("lock LOCK: {}", std::strerror(err)));
  }
  std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The pid is informational; the flock is what protects the workspace.
  }
  return std::unique_ptr<WorkspaceLock>(new WorkspaceLock(fd));
}

WorkspaceLock::~WorkspaceLock() { ::close(fd_); }

}  // namespace skald
