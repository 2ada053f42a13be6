#pragma once

// Test Envs: FaultInjectionEnv fails chosen file-system operations the way a
// sick or full disk does; FakeClock is a clock that only moves when the test
// (or a sleep) moves it.
//
// Thread safety: both are safe for concurrent use.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/env.h"

namespace skald::testing {

// Kinds of operations the fault env counts and can fail.
enum class FaultOp {
  kWrite,   // WritableFile::Append / WriteAt, and SQLite writes through the VFS
  kSync,    // WritableFile::Sync, SyncDir, and SQLite syncs through the VFS
  kRename,  // Rename, RenameNoReplace
  kCreate,  // NewWritableFile, CreateDir, CreateDirs
  kRemove,  // RemoveFile, RemoveTree
};
inline constexpr int kFaultOpCount = 5;

// Wraps a real Env (borrowed) and fails, with ENOSPC (DiskFullError) or EIO
// (IOError):
//  - the Nth operation of one kind (FailNth), or every one from the Nth on
//    (FailFrom), counting from the call that arms the fault;
//  - every write once `limit` more bytes have been written ("a full disk",
//    FillAfter): writes and creates fail until bytes are freed again by
//    removing files, and FreeSpace() reports what is left.
// Clear() disarms every fault; counters keep running.
class FaultInjectionEnv final : public EnvWrapper {
 public:
  enum class Error { kNoSpace, kIo };

  explicit FaultInjectionEnv(Env* target = Env::Default()) : EnvWrapper(target) {}

  // Fails the `n`th (1-based) operation of kind `op` from now on; only that one.
  void FailNth(FaultOp op, uint64_t n, Error error);
  // Fails the `n`th operation of kind `op` and every later one.
  void FailFrom(FaultOp op, uint64_t n, Error error);
  // The disk fills up after `limit` more bytes (ENOSPC from then on).
  void FillAfter(uint64_t limit);
  // Fails every write, sync or create of a file whose path contains
  // `path_part` — SQLite's through the VFS and this env's own files — e.g.
  // "lexical.": one index on a disk that has no room for it while the
  // catalog still commits.
  void FailWritesTo(std::string path_part, Error error);
  // Disarms every fault (the disk is no longer full).
  void Clear();

  // Operations of `op` seen so far (failed ones included).
  uint64_t count(FaultOp op) const;
  // Faults injected so far.
  uint64_t injected() const { return injected_.load(); }
  // Bytes written through this env so far (failed writes excluded).
  uint64_t bytes_written() const { return bytes_written_.load(); }

  // ---- Env ----
  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path, const WritableFileOptions& options = {}) override;
  Status SyncDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status RenameNoReplace(const std::string& from, const std::string& to) override;
  Status RemoveFile(const std::string& path) override;
  Status RemoveTree(const std::string& path) override;
  Status CreateDir(const std::string& path) override;
  Status CreateDirs(const std::string& path) override;
  Result<uint64_t> FreeSpace(const std::string& path) override;
  Status BeforeForeignWrite(const std::string& path, uint64_t bytes) override;

  // Counts one operation of `op`, which is about to write `bytes`; the
  // error to fail it with, or Ok. Used by the file objects.
  Status Check(FaultOp op, uint64_t bytes);
  // Check for an operation on the file `path` (FailWritesTo first).
  Status CheckFile(const std::string& path, FaultOp op, uint64_t bytes);

 private:
  struct Rule {
    bool armed = false;
    bool every_after = false;
    uint64_t fire_at = 0;  // count value that fails
    Error error = Error::kNoSpace;
  };
  static Status Make(Error error, FaultOp op);
  // Bytes a tree holds (to give them back to the "full disk" on removal).
  uint64_t TreeBytes(const std::string& path);
  void Credit(uint64_t bytes);

  mutable std::mutex mu_;
  uint64_t counts_[kFaultOpCount] = {};  // GUARDED_BY(mu_)
  Rule rules_[kFaultOpCount];            // GUARDED_BY(mu_)
  bool full_armed_ = false;              // GUARDED_BY(mu_)
  std::string path_part_;                // GUARDED_BY(mu_); "" = no FailWritesTo rule
  Error path_error_ = Error::kNoSpace;   // GUARDED_BY(mu_)
  uint64_t space_left_ = 0;              // GUARDED_BY(mu_)
  std::atomic<uint64_t> injected_{0};
  std::atomic<uint64_t> bytes_written_{0};
};

// An Env whose clocks stand still until Advance() (or a sleep, which
// advances them by its length and returns at once); files go to `target`.
class FakeClock final : public EnvWrapper {
 public:
  explicit FakeClock(int64_t start_ns = int64_t{1'700'000'000} * 1'000'000'000,
                     Env* target = Env::Default())
      : EnvWrapper(target), now_ns_(start_ns) {}

  void Advance(int64_t nanos) { now_ns_.fetch_add(nanos); }
  void Advance(std::chrono::nanoseconds d) { Advance(static_cast<int64_t>(d.count())); }
  void Set(int64_t now_ns) { now_ns_.store(now_ns); }
  // Total time slept through SleepForNanos, and each sleep in order.
  int64_t slept_ns() const { return slept_ns_.load(); }
  std::vector<std::chrono::nanoseconds> sleeps() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

  int64_t NowNanos() override { return now_ns_.load(); }
  int64_t MonotonicNanos() override { return now_ns_.load(); }
  void SleepForNanos(int64_t nanos) override {
    if (nanos <= 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    sleeps_.emplace_back(nanos);
    slept_ns_.fetch_add(nanos);
    now_ns_.fetch_add(nanos);
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::chrono::nanoseconds> sleeps_;  // GUARDED_BY(mu_)
  std::atomic<int64_t> now_ns_;
  std::atomic<int64_t> slept_ns_{0};
};

// One kind of injected fault, named for test messages.
struct FaultKind {
  const char* name;
  FaultOp op;
  FaultInjectionEnv::Error error;
};

// The faults every write path is run under: ENOSPC and EIO on writes, a
// failed fsync, a failed rename, no room for a new file.
inline constexpr FaultKind kWritePathFaults[] = {
    {"write_enospc", FaultOp::kWrite, FaultInjectionEnv::Error::kNoSpace},
    {"write_eio", FaultOp::kWrite, FaultInjectionEnv::Error::kIo},
    {"fsync_eio", FaultOp::kSync, FaultInjectionEnv::Error::kIo},
    {"rename_eio", FaultOp::kRename, FaultInjectionEnv::Error::kIo},
    {"create_enospc", FaultOp::kCreate, FaultInjectionEnv::Error::kNoSpace},
};

}  // namespace skald::testing
