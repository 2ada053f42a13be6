#pragma once

// Env: the one seam between Skald and the outside world — files,
// directories, free space, the clocks and sleeping (leveldb's idea). Every
// component that touches the disk or the time takes an `Env*`, so tests can
// swap in a fault-injecting file layer (tests/testutil/fault_injection_env.h)
// or a fake clock, and production code runs on the POSIX one (Env::Default()).
//
// Error messages never name a host path (they reach API clients); the POSIX
// env logs the path with spdlog when a call fails for a reason other than
// "not found". A full disk (ENOSPC, EDQUOT) is reported as DiskFullError().
//
// Thread safety: every Env method is safe to call concurrently. A file
// object (WritableFile, SequentialFile) is used by one thread at a time.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"
#include "skald/status.h"

namespace skald {

// Detail key/value that marks a ResourceExhausted status as "the disk (or
// the quota) is full", as opposed to other exhausted resources.
inline constexpr std::string_view kExhaustedResourceKey = "exhausted";
inline constexpr std::string_view kDiskFullValue = "disk";

// ResourceExhausted "disk full: <what>" marked with {exhausted: disk}.
// `what` names the operation, never a host path.
Status DiskFullError(std::string_view what);

// True for a status made by DiskFullError (a full disk, a full quota or
// SQLITE_FULL).
bool IsDiskFull(const Status& status);

// A Status for a failed system call `op` with errno `err`: NotFound (ENOENT),
// DiskFullError (ENOSPC, EDQUOT), PermissionDenied (EACCES, EPERM),
// AlreadyExists (EEXIST), IOError otherwise. The message is "<op>: <reason>"
// and carries no path.
Status ErrnoToStatus(std::string_view op, int err);

enum class FileType { kRegular, kDirectory, kSymlink, kOther };

// What Env::Stat found.
struct FileInfo {
  FileType type = FileType::kRegular;
  uint64_t size = 0;      // bytes of a regular file (0 for directories)
  int64_t mtime_ns = 0;   // modification time, ns since the epoch
  bool is_dir() const { return type == FileType::kDirectory; }
  bool is_regular() const { return type == FileType::kRegular; }
};

// A file open for writing. Close() reports the last errors; the destructor
// closes without reporting (the caller already failed).
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends `data` at the end of what this object wrote so far.
  virtual Status Append(std::string_view data) = 0;
  // Overwrites bytes at `offset`. REQUIRES: offset + data.size() <= bytes
  // appended so far (patching a header, never extending the file).
  virtual Status WriteAt(uint64_t offset, std::string_view data) = 0;
  // Makes the data written so far durable (fsync).
  virtual Status Sync() = 0;
  // Closes the file. Idempotent; later calls other than Close fail.
  virtual Status Close() = 0;
};

// A file open for reading from the start.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to `n` bytes into `buf`; returns how many (0 = end of file).
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
};

struct WritableFileOptions {
  // Fail with AlreadyExists when the file exists (O_EXCL); otherwise an
  // existing file is truncated.
  bool exclusive = false;
  // Permission bits for a new file (before the umask).
  uint32_t mode = 0644;
};

class Env {
 public:
  virtual ~Env() = default;

  // The process-wide POSIX env. It holds no state (every call goes straight
  // to the kernel), is never destroyed, and is what a null `Env*` means in
  // every options struct.
  static Env* Default();

  // ---- files ----
  // Creates (or truncates) `path` for writing; caller owns the file.
  // REQUIRES: the parent directory exists.
  virtual Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, const WritableFileOptions& options = {}) = 0;
  // Opens `path` for reading; NotFound when missing.
  virtual Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) = 0;
  // fsyncs a directory so that entries created, renamed or removed in it
  // are durable.
  virtual Status SyncDir(const std::string& path) = 0;
  // rename(2): replaces `to` atomically when it exists.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Like Rename, but AlreadyExists when `to` exists (never replaces).
  virtual Status RenameNoReplace(const std::string& from, const std::string& to) = 0;
  // Removes one file (or an empty directory); NotFound when missing.
  virtual Status RemoveFile(const std::string& path) = 0;
  // Removes a file or a directory tree; Ok when missing.
  virtual Status RemoveTree(const std::string& path) = 0;
  // Creates one directory (mode 0755); AlreadyExists when something exists
  // at `path`. REQUIRES: the parent exists.
  virtual Status CreateDir(const std::string& path) = 0;
  // Creates `path` and every missing parent; Ok when it already exists.
  virtual Status CreateDirs(const std::string& path) = 0;
  // Names in a directory ("." and ".." excluded), unsorted.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;
  // Attributes of `path`, following symlinks; NotFound when missing.
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  // Attributes of `path` itself (a symlink is reported as kSymlink).
  virtual Result<FileInfo> LinkStat(const std::string& path) = 0;
  // Bytes an unprivileged writer can still allocate on the file system
  // that holds `path`.
  virtual Result<uint64_t> FreeSpace(const std::string& path) = 0;

  // A write (`bytes` > 0) or a sync (`bytes` == 0) that a library doing its
  // own I/O (SQLite, through storage/sqlite_env_vfs.h) is about to make on
  // `path`. A non-Ok answer fails that write instead; the POSIX env always
  // answers Ok. Lets a fault-injecting env reach SQLite's files.
  virtual Status BeforeForeignWrite(const std::string& path, uint64_t bytes);

  // ---- time ----
  // Wall clock, ns since the Unix epoch.
  virtual int64_t NowNanos() = 0;
  // A monotonic clock (ns from an arbitrary origin) for timeouts and backoff.
  virtual int64_t MonotonicNanos() = 0;
  // Blocks the calling thread for `nanos` (a fake clock just advances).
  virtual void SleepForNanos(int64_t nanos) = 0;
};

// Reads a whole file through `env`.
Result<std::string> ReadFileToString(Env* env, const std::string& path);

// `env`, or Env::Default() when null.
inline Env* EnvOrDefault(Env* env) { return env != nullptr ? env : Env::Default(); }

// Wraps another Env and forwards every call to it; fault-injecting and
// counting envs override what they change. `target` is borrowed and must
// outlive the wrapper.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, const WritableFileOptions& options = {}) override {
    return target_->NewWritableFile(path, options);
  }
  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    return target_->NewSequentialFile(path);
  }
  Status SyncDir(const std::string& path) override { return target_->SyncDir(path); }
  Status Rename(const std::string& from, const std::string& to) override {
    return target_->Rename(from, to);
  }
  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    return target_->RenameNoReplace(from, to);
  }
  Status RemoveFile(const std::string& path) override { return target_->RemoveFile(path); }
  Status RemoveTree(const std::string& path) override { return target_->RemoveTree(path); }
  Status CreateDir(const std::string& path) override { return target_->CreateDir(path); }
  Status CreateDirs(const std::string& path) override { return target_->CreateDirs(path); }
  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    return target_->ListDir(path);
  }
  Result<FileInfo> Stat(const std::string& path) override { return target_->Stat(path); }
  Result<FileInfo> LinkStat(const std::string& path) override { return target_->LinkStat(path); }
  Result<uint64_t> FreeSpace(const std::string& path) override {
    return target_->FreeSpace(path);
  }
  Status BeforeForeignWrite(const std::string& path, uint64_t bytes) override {
    return target_->BeforeForeignWrite(path, bytes);
  }
  int64_t NowNanos() override { return target_->NowNanos(); }
  int64_t MonotonicNanos() override { return target_->MonotonicNanos(); }
  void SleepForNanos(int64_t nanos) override { target_->SleepForNanos(nanos); }

 private:
  Env* const target_;
};

}  // namespace skald
