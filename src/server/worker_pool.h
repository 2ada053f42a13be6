#pragma once

// WorkerPool: the request thread pool handed to cpp-httplib (its TaskQueue).
// cpp-httplib gives a connection one task for its whole keep-alive life, so
// the pool holds one thread per open connection. It starts with
// `min_threads`, starts another thread whenever a task arrives and no thread
// is idle (up to `max_threads`; past that, tasks wait in FIFO order), and a
// thread above `min_threads` that has been idle for `idle_exit` exits.
//
// Thread safety: enqueue() and shutdown() may be called from any thread;
// cpp-httplib calls enqueue() from its accept thread and shutdown() once,
// from the same thread, when listening stops.

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace skald::server {

struct WorkerPoolOptions {
  // Threads started up front and never retired.
  size_t min_threads = 8;
  // Upper bound on threads (= connections served at once).
  size_t max_threads = 512;
  // A thread above min_threads idle this long exits.
  std::chrono::milliseconds idle_exit{std::chrono::seconds(30)};
};

class WorkerPool final : public httplib::TaskQueue {
 public:
  // REQUIRES: 1 <= min_threads <= max_threads.
  explicit WorkerPool(WorkerPoolOptions options);
  // Calls shutdown().
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `fn` to run on a pool thread; starts a thread when none is idle
  // and the pool is below max_threads. Tasks enqueued after shutdown() are
  // run on the caller's thread (cpp-httplib's tasks then just close their socket).
  void enqueue(std::function<void()> fn) override;
  // Runs every queued task, then joins every thread. Idempotent.
  void shutdown() override;

  // Threads currently alive (for tests and metrics).
  size_t thread_count() const;

 private:
  void Work(std::thread::id self);
  // REQUIRES: mutex_ held.
  void StartThreadLocked();
  // Joins threads that have retired. REQUIRES: mutex_ held.
  void ReapLocked();

  const WorkerPoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  std::map<std::thread::id, std::thread> threads_;
  std::vector<std::thread> retired_;
  size_t idle_ = 0;
  bool shutdown_ = false;
};

}  // namespace skald::server
