#include "common/env.h"

#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace skald {

Status DiskFullError(std::string_view what) {
  return Status::ResourceExhausted(fmt::format("disk full: {}", what))
      .WithDetail(std::string(kExhaustedResourceKey), std::string(kDiskFullValue));
}

bool IsDiskFull(const Status& status) {
  if (status.code() != StatusCode::kResourceExhausted) return false;
  for (const auto& [key, value] : status.details()) {
    if (key == kExhaustedResourceKey && value == kDiskFullValue) return true;
  }
  return false;
}

Status ErrnoToStatus(std::string_view op, int err) {
  if (err == ENOSPC || err == EDQUOT) {
    return DiskFullError(fmt::format("{} failed: no space left on the device", op));
  }
  std::string msg = fmt::format("{}: {}", op, std::strerror(err));
  if (err == ENOENT) return Status::NotFound(std::move(msg));
  if (err == EEXIST) return Status::AlreadyExists(std::move(msg));
  if (err == EACCES || err == EPERM) return Status::PermissionDenied(std::move(msg));
  return Status::IOError(std::move(msg));
}

Status Env::BeforeForeignWrite(const std::string&, uint64_t) { return Status::Ok(); }

Result<std::string> ReadFileToString(Env* env, const std::string& path) {
  SKALD_ASSIGN_OR_RETURN(auto file, env->NewSequentialFile(path));
  std::string out;
  char buf[65536];
  while (true) {
    SKALD_ASSIGN_OR_RETURN(size_t n, file->Read(buf, sizeof(buf)));
    if (n == 0) break;
    out.append(buf, n);
  }
  return out;
}

namespace {

// The failed call's status; the path goes to the server log only.
Status PosixError(std::string_view op, const std::string& path, int err) {
  if (err != ENOENT && err != EEXIST) {
    spdlog::warn("{} {}: {}", op, path, std::strerror(err));
  }
  return ErrnoToStatus(op, err);
}

int64_t ToNanos(const struct timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

FileInfo InfoFromStat(const struct stat& st) {
  FileInfo info;
  if (S_ISREG(st.st_mode)) {
    info.type = FileType::kRegular;
  } else if (S_ISDIR(st.st_mode)) {
    info.type = FileType::kDirectory;
  } else if (S_ISLNK(st.st_mode)) {
    info.type = FileType::kSymlink;
  } else {
    info.type = FileType::kOther;
  }
  info.size = info.is_regular() ? static_cast<uint64_t>(st.st_size) : 0;
  info.mtime_ns = ToNanos(st.st_mtim);
  return info;
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Append(std::string_view data) override {
    if (fd_ < 0) return Status::FailedPrecondition("write to a closed file");
    while (!data.empty()) {
      ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return Status::Ok();
  }

  Status WriteAt(uint64_t offset, std::string_view data) override {
    if (fd_ < 0) return Status::FailedPrecondition("write to a closed file");
    while (!data.empty()) {
      ssize_t n = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(offset));
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
      offset += static_cast<uint64_t>(n);
    }
    return Status::Ok();
  }

  Status Sync() override {
    if (fd_ < 0) return Status::FailedPrecondition("sync of a closed file");
    if (::fdatasync(fd_) != 0) return PosixError("fsync", path_, errno);
    return Status::Ok();
  }

  Status Close() override {
    if (fd_ < 0) return Status::Ok();
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return PosixError("close", path_, errno);
    return Status::Ok();
  }

 private:
  const std::string path_;
  int fd_;
};

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override { ::close(fd_); }

  Result<size_t> Read(char* buf, size_t n) override {
    while (true) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno != EINTR) return PosixError("read", path_, errno);
    }
  }

 private:
  const std::string path_;
  const int fd_;
};

class PosixEnv final : public Env {
 public:
  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, const WritableFileOptions& options) override {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (options.exclusive ? O_EXCL : O_TRUNC);
    int fd = ::open(path.c_str(), flags, static_cast<mode_t>(options.mode));
    if (fd < 0) return PosixError("create file", path, errno);
    return std::unique_ptr<WritableFile>(std::make_unique<PosixWritableFile>(path, fd));
  }

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError("open file", path, errno);
    return std::unique_ptr<SequentialFile>(std::make_unique<PosixSequentialFile>(path, fd));
  }

  Status SyncDir(const std::string& path) override {
    int fd = ::open(path.empty() ? "." : path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return PosixError("open directory", path, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return PosixError("fsync directory", path, err);
    return Status::Ok();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return PosixError("rename", from, errno);
    return Status::Ok();
  }

  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0) {
      return PosixError("rename", from, errno);
    }
    return Status::Ok();
  }

  Status RemoveFile(const std::string& path) override {
    if (::remove(path.c_str()) != 0) return PosixError("remove", path, errno);
    return Status::Ok();
  }

  Status RemoveTree(const std::string& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::Ok();
      return PosixError("stat", path, errno);
    }
    if (S_ISDIR(st.st_mode)) {
      SKALD_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDir(path));
      for (const std::string& name : names) SKALD_RETURN_IF_ERROR(RemoveTree(path + "/" + name));
    }
    if (::remove(path.c_str()) != 0 && errno != ENOENT) return PosixError("remove", path, errno);
    return Status::Ok();
  }

  Status CreateDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) != 0) return PosixError("mkdir", path, errno);
    return Status::Ok();
  }

  Status CreateDirs(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return Status::Ok();
      return PosixError("mkdir", path, ENOTDIR);
    }
    size_t slash = path.find_last_of('/');
    if (slash != std::string::npos && slash > 0) {
      SKALD_RETURN_IF_ERROR(CreateDirs(path.substr(0, slash)));
    }
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      return PosixError("mkdir", path, errno);
    }
    return Status::Ok();
  }

  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return PosixError("list directory", path, errno);
    std::vector<std::string> out;
    while (true) {
      errno = 0;
      struct dirent* entry = ::readdir(dir);
      if (entry == nullptr) break;
      std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      out.emplace_back(name);
    }
    int err = errno;
    ::closedir(dir);
    if (err != 0) return PosixError("list directory", path, err);
    return out;
  }

  Result<FileInfo> Stat(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError("stat", path, errno);
    return InfoFromStat(st);
  }

  Result<FileInfo> LinkStat(const std::string& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return PosixError("stat", path, errno);
    return InfoFromStat(st);
  }

  Result<uint64_t> FreeSpace(const std::string& path) override {
    struct statvfs vfs;
    if (::statvfs(path.c_str(), &vfs) != 0) return PosixError("statvfs", path, errno);
    return static_cast<uint64_t>(vfs.f_bavail) * static_cast<uint64_t>(vfs.f_frsize);
  }

  int64_t NowNanos() override {
    struct timespec ts;
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return ToNanos(ts);
  }

  int64_t MonotonicNanos() override {
    struct timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return ToNanos(ts);
  }

  void SleepForNanos(int64_t nanos) override {
    if (nanos <= 0) return;
    struct timespec ts;
    ts.tv_sec = static_cast<time_t>(nanos / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(nanos % 1'000'000'000);
    while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
};

}  // namespace

Env* Env::Default() {
  // Stateless (and trivially destructible), so sharing one instance shares
  // nothing and it stays usable from other statics' destructors at exit.
  static PosixEnv env;
  return &env;
}

}  // namespace skald
