#pragma once

// Writes real zip and tar(.gz) archives for tests, with libarchive —
// including the hostile ones (entries escaping the root, links, devices,
// bombs) that the import must refuse.
//
// Thread safety: safe to call concurrently with different paths.

#include <cstdint>
#include <string>
#include <vector>

namespace skald::testing {

struct ArchiveItem {
  enum class Kind { kFile, kDir, kSymlink, kHardlink, kCharDevice };
  std::string name;     // stored exactly as given ("../x", "/etc/y" included)
  std::string content;  // kFile
  Kind kind = Kind::kFile;
  std::string target;   // kSymlink, kHardlink
  // kFile: this many zero bytes follow `content` (written in blocks, never
  // held in memory): a highly compressible entry for bomb tests.
  uint64_t zeros = 0;
};

enum class ArchiveFormat { kZip, kTar, kTarGz };

// Writes `items` to `path`; false (with a message on stderr) on failure.
bool WriteTestArchive(const std::string& path, ArchiveFormat format,
                      const std::vector<ArchiveItem>& items);

}  // namespace skald::testing
