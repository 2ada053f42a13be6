#include "storage/path_lock.h"

#include <algorithm>

#include "common/env.h"

namespace skald {
namespace {

// True when `ancestor` is a strict ancestor of `path` ("" is everyone's).
bool IsStrictAncestor(std::string_view ancestor, std::string_view path) {
  if (ancestor.size() >= path.size()) return false;
  if (ancestor.empty()) return true;
  return path.substr(0, ancestor.size()) == ancestor && path[ancestor.size()] == '/';
}

bool Conflicts(const PathLockRequest& a, const PathLockRequest& b) {
  if (a.account != b.account) return false;
  if (a.path == b.path) return true;
  if (IsStrictAncestor(a.path, b.path)) return a.kind == PathLockKind::kTree;
  if (IsStrictAncestor(b.path, a.path)) return b.kind == PathLockKind::kTree;
  return false;
}

}  // namespace

PathLockGuard::PathLockGuard(PathLockGuard&& other) noexcept
    : manager_(other.manager_), id_(other.id_) {
  other.manager_ = nullptr;
}

PathLockGuard& PathLockGuard::operator=(PathLockGuard&& other) noexcept {
  if (this != &other) {
    if (manager_) manager_->Release(id_);
    manager_ = other.manager_;
    id_ = other.id_;
    other.manager_ = nullptr;
  }
  return *this;
}

PathLockGuard::~PathLockGuard() {
  if (manager_) manager_->Release(id_);
}

PathLockManager::PathLockManager(Env* env) : env_(EnvOrDefault(env)) {}

const PathLockRequest* PathLockManager::FindConflict(const PathLockRequest& req) const {
  for (const Held& h : held_) {
    if (Conflicts(h.lock, req)) return &h.lock;
  }
  return nullptr;
}

Status PathLockManager::Acquire(const std::vector<PathLockRequest>& requests,
                                std::chrono::milliseconds timeout, PathLockGuard* guard) {
  // Deadline on the Env's monotonic clock; a huge timeout means "forever".
  constexpr auto kForever =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::hours(24 * 365 * 100));
  const auto bounded = std::clamp(timeout, std::chrono::milliseconds(0), kForever);
  const int64_t deadline =
      env_->MonotonicNanos() + std::chrono::duration_cast<std::chrono::nanoseconds>(bounded).count();
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    const PathLockRequest* blocked_by = nullptr;
    const PathLockRequest* blocked = nullptr;
    for (const PathLockRequest& req : requests) {
      blocked_by = FindConflict(req);
      if (blocked_by) {
        blocked = &req;
        break;
      }
    }
    if (!blocked_by) break;
    const int64_t now = env_->MonotonicNanos();
    if (now < deadline) {
      // A real timed wait (a condition variable has no other kind), at most
      // one slice long; the loop re-reads the Env's clock after it.
      const auto slice = std::min<int64_t>(
          deadline - now, std::chrono::nanoseconds(kWaitSlice).count());
      ++waiting_;
      cv_.wait_for(lock, std::chrono::nanoseconds(slice));
      --waiting_;
    }
    if (env_->MonotonicNanos() >= deadline) {
      // One last look: the holder may have released just now.
      bool still = false;
      for (const PathLockRequest& req : requests) still = still || FindConflict(req) != nullptr;
      if (still) {
        return Status::Conflict("resource is locked: viking://" + blocked->path)
            .WithDetail("resource", "viking://" + blocked->path);
      }
      break;
    }
  }
  uint64_t id = next_id_++;
  for (const PathLockRequest& req : requests) held_.push_back(Held{id, req});
  *guard = PathLockGuard(this, id);
  return Status::Ok();
}

void PathLockManager::Release(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(held_, [id](const Held& h) { return h.id == id; });
  }
  cv_.notify_all();
}

size_t PathLockManager::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

size_t PathLockManager::held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_.size();
}

bool PathLockManager::IsLocked(std::string_view account, std::string_view path) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Held& h : held_) {
    if (h.lock.account != account) continue;
    if (h.lock.path == path) return true;
    if (h.lock.kind == PathLockKind::kTree && IsStrictAncestor(h.lock.path, path)) return true;
  }
  return false;
}

}  // namespace skald
