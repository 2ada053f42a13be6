#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

namespace skald::testing {
namespace {

std::vector<char*> Argv(const std::string& binary, const std::vector<std::string>& args,
                        std::vector<std::string>* storage) {
  storage->clear();
  storage->push_back(binary);
  storage->insert(storage->end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : *storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  return argv;
}

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

ProcessResult RunProcess(const std::string& binary, const std::vector<std::string>& args,
                         const std::string& stdin_data, int timeout_seconds) {
  ProcessResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return result;
  std::vector<std::string> storage;
  std::vector<char*> argv = Argv(binary, args, &storage);
  pid_t pid = fork();
  if (pid < 0) return result;
  if (pid == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      close(fd);
    }
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Small inputs only: written before reading so the child cannot block us.
  signal(SIGPIPE, SIG_IGN);
  size_t done = 0;
  while (done < stdin_data.size()) {
    ssize_t n = write(in_pipe[1], stdin_data.data() + done, stdin_data.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(in_pipe[1]);

  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  bool timed_out = false;
  char buf[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = timed_out ? -1 : DecodeWaitStatus(status);
  return result;
}

bool BackgroundProcess::Start(const std::string& binary, const std::vector<std::string>& args,
                              const std::string& log_path) {
  log_path_ = log_path;
  std::vector<std::string> storage;
  std::vector<char*> argv = Argv(binary, args, &storage);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // no orphan outlives a killed test
    int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) _exit(127);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  pid_ = pid;
  return true;
}

std::string BackgroundProcess::WaitForLine(const std::string& needle, int timeout_seconds) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream log(log_path_);
    std::string line;
    while (std::getline(log, line)) {
      if (line.find(needle) != std::string::npos) return line;
    }
    if (pid_ <= 0 || waitpid(pid_, nullptr, WNOHANG) == pid_) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

int BackgroundProcess::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int code = -1;
  for (;;) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      code = DecodeWaitStatus(status);
      break;
    }
    if (r < 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      code = DecodeWaitStatus(status);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return code;
}

ForkedChild ForkChild(const std::function<void(int report_fd)>& child) {
  ForkedChild forked;
  int fds[2];
  if (pipe(fds) != 0) return forked;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return forked;
  }
  if (pid == 0) {
    close(fds[0]);
    child(fds[1]);
    _exit(99);
  }
  close(fds[1]);
  forked.pid = pid;
  forked.from_child = fds[0];
  return forked;
}

std::string ReadLine(int fd) {
  std::string line;
  char c = 0;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

int KillAndReap(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace skald::testing
