#include "server/worker_pool.h"

#include <algorithm>
#include <utility>

namespace skald::server {

WorkerPool::WorkerPool(WorkerPoolOptions options) : options_(options) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < std::max<size_t>(options_.min_threads, 1); ++i) StartThreadLocked();
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::StartThreadLocked() {
  // The new thread blocks on mutex_ (held here) until its handle is stored.
  std::thread thread;
  thread = std::thread([this] { Work(std::this_thread::get_id()); });
  const std::thread::id id = thread.get_id();
  threads_.emplace(id, std::move(thread));
}

void WorkerPool::ReapLocked() {
  for (std::thread& t : retired_) t.join();
  retired_.clear();
}

void WorkerPool::enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!shutdown_) {
      ReapLocked();
      tasks_.push_back(std::move(fn));
      if (idle_ < tasks_.size() && threads_.size() < options_.max_threads) StartThreadLocked();
      wake_.notify_one();
      return;
    }
  }
  fn();
}

void WorkerPool::Work(std::thread::id self) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (tasks_.empty()) {
      if (shutdown_) return;
      ++idle_;
      const bool woken = wake_.wait_for(lock, options_.idle_exit,
                                        [this] { return shutdown_ || !tasks_.empty(); });
      --idle_;
      if (!woken && threads_.size() > options_.min_threads) {
        // Retire: hand our handle to the reaper (the next enqueue or shutdown).
        auto it = threads_.find(self);
        if (it != threads_.end()) {
          retired_.push_back(std::move(it->second));
          threads_.erase(it);
        }
        return;
      }
      continue;
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // destroy captures outside the lock
    lock.lock();
  }
}

void WorkerPool::shutdown() {
  std::map<std::thread::id, std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
    wake_.notify_all();
  }
  // Threads keep running queued tasks until the queue is empty, then return.
  // Joining happens outside the lock; retiring threads take the lock, so
  // take the handles only once every thread has seen shutdown_.
  while (true) {
    std::unique_lock<std::mutex> lock(mutex_);
    ReapLocked();
    if (threads_.empty()) break;
    threads.swap(threads_);
    lock.unlock();
    for (auto& [id, t] : threads) t.join();
    threads.clear();
  }
}

size_t WorkerPool::thread_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_.size();
}

}  // namespace skald::server
