#pragma once

// RunOnTwoThreads: the two-core fan-out the import's stages share.

#include <cstddef>
#include <thread>

namespace skald {

// Runs `work` (which takes items from a shared counter until none is left)
// on this thread and, for more than one item on a machine with a second
// core, on a helper thread beside it.
template <typename Work>
void RunOnTwoThreads(size_t items, Work& work) {
  if (items > 1 && std::thread::hardware_concurrency() >= 2) {
    std::thread helper(work);
    work();
    helper.join();
  } else {
    work();
  }
}

}  // namespace skald
