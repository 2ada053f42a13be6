#pragma once

// The two-core fan-out the import's stages share.

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <thread>
#include <utility>

namespace skald {

// True when work split in two can run on two cores.
inline bool HasSecondCore() { return std::thread::hardware_concurrency() >= 2; }

namespace two_threads_internal {

// A piece of work lent to a helper thread of the process (HelperThreads).
struct HelperTask {
  std::function<void()> fn;
  bool done = false;  // guarded by the helpers' mutex
};

// Helper threads kept for the life of the process: a fan-out hands its
// second share to an idle one instead of starting a thread (starting one
// costs tens of microseconds, and the new thread often came in after the
// caller had done most of a short share itself).
class HelperThreads {
 public:
  static HelperThreads& Get();

  // Queues `task` for a helper: an idle one, or one started for it (at
  // most kMaxThreads; beyond that, or when no thread can be started, it
  // waits for one to come free, and Withdraw may take it back).
  void Post(HelperTask* task);
  // After Post: true once the task has run, false if no helper had taken
  // it yet (it is withdrawn, and never runs). Waits while a helper runs it.
  bool Withdraw(HelperTask* task);

 private:
  static constexpr size_t kMaxThreads = 16;
  HelperThreads() = default;
  void Loop();

  struct State;
  State* state();
};

// Withdraws a posted task when the fan-out's scope ends, however it ends
// (an exception from the caller's share included): no helper may touch the
// task, which lives on the caller's stack, after that.
class PostedTask {
 public:
  explicit PostedTask(std::function<void()> fn) : task_{std::move(fn)} {
    HelperThreads::Get().Post(&task_);
  }
  ~PostedTask() {
    if (!withdrawn_) HelperThreads::Get().Withdraw(&task_);
  }
  PostedTask(const PostedTask&) = delete;
  PostedTask& operator=(const PostedTask&) = delete;
  // HelperThreads::Withdraw, once.
  bool Withdraw() {
    withdrawn_ = true;
    return HelperThreads::Get().Withdraw(&task_);
  }

 private:
  HelperTask task_;
  bool withdrawn_ = false;
};

}  // namespace two_threads_internal

// Calls fn(i) once for every i in [begin, end): on this thread and, for more
// than one item on a machine with a second core, on a helper thread beside
// it, the two taking the next index from a shared counter.
template <typename Fn>
void ForEachOnTwoThreads(size_t begin, size_t end, Fn&& fn) {
  std::atomic<size_t> next{begin};
  auto work = [&] {
    for (size_t i = next++; i < end; i = next++) fn(i);
  };
  if (end > begin + 1 && HasSecondCore()) {
    two_threads_internal::PostedTask helper(work);
    work();
    // Every index is taken: a helper that has not started is not waited for.
    helper.Withdraw();
  } else {
    work();
  }
}

// fn(first half of `items`) on this thread and fn(second half) on a helper
// thread beside it (or on this one after the first, when no helper took it);
// returns both results, in that order.
template <typename T, typename Fn>
auto OnTwoHalves(std::span<const T> items, Fn&& fn) {
  using R = decltype(fn(items));
  const size_t half = items.size() / 2;
  std::optional<R> second;
  two_threads_internal::PostedTask helper([&] { second.emplace(fn(items.subspan(half))); });
  R first = fn(items.subspan(0, half));
  if (!helper.Withdraw()) second.emplace(fn(items.subspan(half)));
  return std::pair<R, R>(std::move(first), std::move(*second));
}

}  // namespace skald
