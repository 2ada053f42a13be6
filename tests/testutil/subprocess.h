#pragma once

// Running the built `skald` binary as a child process, for black-box tests.
//
// Thread safety: use from one test thread.

#include <sys/types.h>

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

}  // namespace skald::testing
