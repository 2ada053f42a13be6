#pragma once

// The format version a vector index file declares (the u32 after its
// 8-byte magic; docs/format/vector-index.md), for tests; 0 when unreadable.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

namespace skald::testing {

inline uint32_t IndexFileVersion(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[12] = {};
  if (!in.read(head, sizeof(head))) return 0;
  uint32_t version = 0;
  std::memcpy(&version, head + 8, sizeof(version));
  return version;
}

}  // namespace skald::testing
