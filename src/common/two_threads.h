#pragma once

// The two-core fan-out the import's stages share: a caller does one share
// of the work and lends the other to a helper thread of a HelperPool.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace skald {

// True when work split in two can run on two cores. Asked once per process:
// hardware_concurrency reads /sys/devices/system/cpu/online each time (an
// import asks ~250 times).
inline bool HasSecondCore() {
  static const bool second = std::thread::hardware_concurrency() >= 2;
  return second;
}

// A piece of work lent to a helper thread (HelperPool).
struct HelperTask {
  std::function<void()> fn;
  bool done = false;  // guarded by the pool's mutex
};

// Helper threads kept for the owner's lifetime: a fan-out hands its second
// share to an idle one instead of starting a thread (a start costs a stack
// mapping, its page faults and a malloc arena, and a thread that started
// late did little of a short share). Threads are started as fan-outs need
// them, up to `max_threads`.
//
// Thread safety: safe for concurrent use. REQUIRES: no fan-out uses the
// pool once its destructor runs (which stops and joins the threads).
class HelperPool {
 public:
  explicit HelperPool(size_t max_threads = 16) : max_threads_(max_threads) {}
  ~HelperPool();
  HelperPool(const HelperPool&) = delete;
  HelperPool& operator=(const HelperPool&) = delete;

  // Queues `task` for a helper: an idle one, or one started for it (at
  // most max_threads; beyond that, or when no thread can be started, it
  // waits for one to come free, and Withdraw may take it back).
  void Post(HelperTask* task);
  // After Post: true once the task has run, false if no helper had taken
  // it yet (it is withdrawn, and never runs). Waits while a helper runs it.
  bool Withdraw(HelperTask* task);

 private:
  void Loop();

  const size_t max_threads_;
  std::mutex mu_;
  std::condition_variable work_;  // a task was queued, or stopping
  std::condition_variable done_;  // a task has run
  std::deque<HelperTask*> queue_;    // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;  // GUARDED_BY(mu_)
  size_t idle_ = 0;                   // threads waiting for a task; GUARDED_BY(mu_)
  bool stop_ = false;                 // GUARDED_BY(mu_)
};

namespace two_threads_internal {

// A share lent for the scope of a fan-out: posted to `pool` (or, without a
// pool, run on a thread started for it), and withdrawn when the scope ends,
// however it ends (an exception from the caller's share included): nothing
// runs the share after that, whose captures live on the caller's stack.
class PostedTask {
 public:
  PostedTask(HelperPool* pool, std::function<void()> fn) : pool_(pool), task_{std::move(fn)} {
    if (pool_ != nullptr) {
      pool_->Post(&task_);
    } else {
      thread_ = std::thread(task_.fn);
    }
  }
  ~PostedTask() {
    if (!withdrawn_) Withdraw();
  }
  PostedTask(const PostedTask&) = delete;
  PostedTask& operator=(const PostedTask&) = delete;
  // True when the share ran; false when it was taken back unrun.
  bool Withdraw() {
    withdrawn_ = true;
    if (pool_ != nullptr) return pool_->Withdraw(&task_);
    thread_.join();
    return true;
  }

 private:
  HelperPool* const pool_;
  HelperTask task_;
  std::thread thread_;  // without a pool
  bool withdrawn_ = false;
};

}  // namespace two_threads_internal

// Calls fn(i) once for every i in [begin, end): on this thread and, for more
// than one item on a machine with a second core, on a helper beside it (of
// `pool`; null: a thread started for the call), the two taking the next
// index from a shared counter. An fn that takes (i, share) is also told
// which of the two calls it: share 0 on this thread, 1 on the helper (one
// thread at a time calls with each share: state per share needs no lock).
template <typename Fn>
void ForEachOnTwoThreads(HelperPool* pool, size_t begin, size_t end, Fn&& fn) {
  std::atomic<size_t> next{begin};
  auto call = [&](size_t i, int share) {
    if constexpr (std::is_invocable_v<Fn&, size_t, int>) {
      fn(i, share);
    } else {
      fn(i);
    }
  };
  auto work = [&](int share) {
    for (size_t i = next++; i < end; i = next++) call(i, share);
  };
  if (end > begin + 1 && HasSecondCore()) {
    two_threads_internal::PostedTask helper(pool, [&] { work(1); });
    work(0);
    // Every index is taken: a helper that has not started is not waited for.
    helper.Withdraw();
  } else {
    work(0);
  }
}

// fn(first half of `items`) on this thread and fn(second half) on a helper
// beside it (of `pool`; null: a thread started for the call), or on this
// thread after the first when no helper took it; returns both results, in
// that order.
template <typename T, typename Fn>
auto OnTwoHalves(HelperPool* pool, std::span<const T> items, Fn&& fn) {
  using R = decltype(fn(items));
  const size_t half = items.size() / 2;
  std::optional<R> second;
  two_threads_internal::PostedTask helper(pool,
                                          [&] { second.emplace(fn(items.subspan(half))); });
  R first = fn(items.subspan(0, half));
  if (!helper.Withdraw()) second.emplace(fn(items.subspan(half)));
  return std::pair<R, R>(std::move(first), std::move(*second));
}

}  // namespace skald
