#include "common/two_threads.h"

#include <algorithm>

#include "common/thread_name.h"

namespace skald {

HelperPool::~HelperPool() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    threads.swap(threads_);
  }
  work_.notify_all();
  for (std::thread& t : threads) t.join();
}

void HelperPool::Post(HelperTask* task) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(task);
  if (idle_ < queue_.size() && threads_.size() < max_threads_ && !stop_) {
    try {
      threads_.emplace_back([this] { Loop(); });
      return;
    } catch (...) {
      // No thread to be had (a process limit, no memory): the task stays
      // queued for a helper that comes free, and its caller does the work
      // itself when none took it.
    }
  }
  work_.notify_one();
}

bool HelperPool::Withdraw(HelperTask* task) {
  std::unique_lock<std::mutex> lock(mu_);
  if (auto it = std::find(queue_.begin(), queue_.end(), task); it != queue_.end()) {
    queue_.erase(it);
    return false;
  }
  done_.wait(lock, [&] { return task->done; });
  return true;
}

void HelperPool::Loop() {
  NameThisThread("skald-helper");
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    ++idle_;
    work_.wait(lock, [&] { return !queue_.empty() || stop_; });
    --idle_;
    if (queue_.empty()) return;  // stopping
    HelperTask* task = queue_.front();
    queue_.pop_front();
    lock.unlock();
    task->fn();
    lock.lock();
    task->done = true;
    done_.notify_all();
  }
}

}  // namespace skald
