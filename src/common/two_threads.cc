#include "common/two_threads.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "common/thread_name.h"

namespace skald::two_threads_internal {

struct HelperThreads::State {
  std::mutex mu;
  std::condition_variable work;  // a task was queued
  std::condition_variable done;  // a task has run
  std::deque<HelperTask*> queue;
  size_t threads = 0;
  size_t idle = 0;  // threads waiting for a task
};

HelperThreads& HelperThreads::Get() {
  // Never destroyed: its threads (detached, waiting for work) outlive
  // static destruction at exit.
  static HelperThreads* const helpers = new HelperThreads();
  return *helpers;
}

HelperThreads::State* HelperThreads::state() {
  static State* const s = new State();
  return s;
}

void HelperThreads::Post(HelperTask* task) {
  State& s = *state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.queue.push_back(task);
  if (s.idle < s.queue.size() && s.threads < kMaxThreads) {
    try {
      std::thread([this] { Loop(); }).detach();
      ++s.threads;
    } catch (...) {
      // No thread to be had (a process limit, no memory): the task stays
      // queued for a helper that comes free, and its caller does the work
      // itself when none took it.
      s.work.notify_one();
    }
  } else {
    s.work.notify_one();
  }
}

bool HelperThreads::Withdraw(HelperTask* task) {
  State& s = *state();
  std::unique_lock<std::mutex> lock(s.mu);
  if (auto it = std::find(s.queue.begin(), s.queue.end(), task); it != s.queue.end()) {
    s.queue.erase(it);
    return false;
  }
  s.done.wait(lock, [&] { return task->done; });
  return true;
}

void HelperThreads::Loop() {
  NameThisThread("skald-helper");
  State& s = *state();
  std::unique_lock<std::mutex> lock(s.mu);
  while (true) {
    ++s.idle;
    s.work.wait(lock, [&] { return !s.queue.empty(); });
    --s.idle;
    HelperTask* task = s.queue.front();
    s.queue.pop_front();
    lock.unlock();
    task->fn();
    lock.lock();
    task->done = true;
    s.done.notify_all();
  }
}

}  // namespace skald::two_threads_internal
