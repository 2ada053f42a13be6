#pragma once

// Running the built `skald` binary as a child process, for black-box tests.
//
// Thread safety: use from one test thread.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace skald::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// Runs `binary args...` with `stdin_data` on its standard input, waits at
// most `timeout_seconds` (then kills it and reports exit code -1).
ProcessResult RunProcess(const std::string& binary, const std::vector<std::string>& args,
                         const std::string& stdin_data = "", int timeout_seconds = 60);

// A long-running child whose stdout and stderr go to `log_path`.
class BackgroundProcess {
 public:
  BackgroundProcess() = default;
  ~BackgroundProcess() { Stop(); }
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  // Returns false when fork/exec fails.
  bool Start(const std::string& binary, const std::vector<std::string>& args,
             const std::string& log_path);
  // Waits up to `timeout_seconds` for a log line containing `needle`;
  // returns that line ("" on timeout or when the child exited).
  std::string WaitForLine(const std::string& needle, int timeout_seconds) const;
  // SIGTERM, then SIGKILL after 10 s. Returns the exit code (-1 if not running).
  int Stop();
  bool running() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
  std::string log_path_;
};

// A forked child of the test process that reports through a pipe: the
// recovery tests' writer, SIGKILLed at a chosen moment.
struct ForkedChild {
  pid_t pid = -1;       // -1 when pipe or fork failed
  int from_child = -1;  // the pipe's read end (the parent's)
};

// Forks; the child closes the read end and runs `child(report_fd)`, which
// must end the process (_exit, or wait to be killed); if it returns, the
// child _exits with 99. The parent gets the pid and the read end.
ForkedChild ForkChild(const std::function<void(int report_fd)>& child);
// Reads from `fd` up to a newline or end of file; the line without it.
std::string ReadLine(int fd);
// Sends SIGKILL to `pid` (unless it exited already) and reaps it; returns
// the raw wait status (WIFSIGNALED, WEXITSTATUS...).
int KillAndReap(pid_t pid);

}  // namespace skald::testing
