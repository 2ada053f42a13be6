#pragma once

// Names the calling thread as `top -H`, perf and debuggers show it.

#include <pthread.h>

#include <string>
#include <string_view>

namespace skald {

// Linux keeps the first 15 bytes of a thread's name.
inline void NameThisThread(std::string_view name) {
  const std::string cut(name.substr(0, 15));
  (void)pthread_setname_np(pthread_self(), cut.c_str());
}

}  // namespace skald
