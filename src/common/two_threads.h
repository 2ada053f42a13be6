#pragma once

// The two-core fan-out the import's stages share.

#include <atomic>
#include <cstddef>
#include <optional>
#include <span>
#include <thread>
#include <utility>

namespace skald {

// True when work split in two can run on two cores.
inline bool HasSecondCore() { return std::thread::hardware_concurrency() >= 2; }

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
    std::thread helper(work);
    work();
    helper.join();
  } else {
    work();
  }
}

// fn(first half of `items`) on this thread and fn(second half) on a helper
// thread beside it; returns both results, in that order.
template <typename T, typename Fn>
auto OnTwoHalves(std::span<const T> items, Fn&& fn) {
  using R = decltype(fn(items));
  const size_t half = items.size() / 2;
  std::optional<R> second;
  std::thread helper([&] { second.emplace(fn(items.subspan(half))); });
  R first = fn(items.subspan(0, half));
  helper.join();
  return std::pair<R, R>(std::move(first), std::move(*second));
}

}  // namespace skald
