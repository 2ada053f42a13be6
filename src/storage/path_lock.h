#pragma once

// PathLockManager: in-process locks on URI paths, per account.
//
// Two kinds, as in OpenViking's RAGFS: an EXACT lock covers one node; a
// TREE lock covers a node and everything below it. Conflicts: EXACT vs an
// EXACT or TREE lock on the same path or a TREE lock on an ancestor; TREE vs
// any lock on the same path, on a descendant, or a TREE lock on an ancestor.
// A set of locks is acquired all at once (no lock-ordering deadlocks).
// One process owns a workspace (see WorkspaceLock), so in-memory locks are
// enough.
//
// Thread safety: safe for concurrent use.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "skald/status.h"

namespace skald {

class Env;

enum class PathLockKind { kExact, kTree };

struct PathLockRequest {
  std::string account;
  std::string path;  // URI path without scheme ("" = the account root)
  PathLockKind kind = PathLockKind::kExact;
};

class PathLockManager;

// Holds a set of locks until destroyed. Move-only.
class PathLockGuard {
 public:
  PathLockGuard() = default;
  PathLockGuard(PathLockGuard&& other) noexcept;
  PathLockGuard& operator=(PathLockGuard&& other) noexcept;
  ~PathLockGuard();

 private:
  friend class PathLockManager;
  PathLockGuard(PathLockManager* manager, uint64_t id) : manager_(manager), id_(id) {}
  PathLockManager* manager_ = nullptr;
  uint64_t id_ = 0;
};

class PathLockManager {
 public:
  // `env` supplies the clock that lock timeouts are measured on (its
  // MonotonicNanos). Borrowed; null = Env::Default(). Tests pass a FakeClock
  // and advance it to time a waiter out. REQUIRES: env outlives the manager.
  explicit PathLockManager(Env* env = nullptr);
  PathLockManager(const PathLockManager&) = delete;
  PathLockManager& operator=(const PathLockManager&) = delete;

  // Waits up to `timeout` (on the Env's monotonic clock) for all of
  // `requests` to be free, then holds them. Conflict "resource is locked:
  // viking://<path>" on timeout. The wait itself is a real condition-variable
  // wait in slices of at most kWaitSlice, so a waiter notices a release at
  // once and a FakeClock that moves past the deadline within one slice.
  Status Acquire(const std::vector<PathLockRequest>& requests, std::chrono::milliseconds timeout,
                 PathLockGuard* guard);

  // True when some lock covers `path` (the node itself or an ancestor TREE lock).
  bool IsLocked(std::string_view account, std::string_view path) const;

  // Number of Acquire calls blocked right now, waiting for a conflicting lock
  // to be released (for tests and diagnostics: a test can wait until its
  // waiter is blocked instead of sleeping).
  size_t waiting() const;

  // Number of locks held right now (for diagnostics: the lock observer).
  size_t held() const;

 private:
  friend class PathLockGuard;
  struct Held {
    uint64_t id;
    PathLockRequest lock;
  };
  void Release(uint64_t id);
  // First held lock that conflicts with `req`, or nullptr. REQUIRES: mu_ held.
  const PathLockRequest* FindConflict(const PathLockRequest& req) const;

  static constexpr std::chrono::milliseconds kWaitSlice{50};

  Env* const env_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Held> held_;  // guarded by mu_
  uint64_t next_id_ = 1;    // guarded by mu_
  size_t waiting_ = 0;      // guarded by mu_
};

}  // namespace skald
