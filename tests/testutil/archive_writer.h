#pragma once

// Writes real zip and tar(.gz) archives for tests, with libarchive —
// including the hostile ones (entries escaping the root, links, devices,
// bombs) that the import must refuse.
//
// Thread safety: safe to call concurrently with different paths.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace skald::testing {

struct ArchiveItem {
  enum class Kind { kFile, kDir, kSymlink, kHardlink, kCharDevice };
  std::string name;     // stored exactly as given ("../x", "/etc/y" included)
  std::string content;  // kFile
  Kind kind = Kind::kFile;
  std::string target;  // kSymlink, kHardlink
  // kFile: this many zero bytes follow `content` (written in blocks, never
  // held in memory): a highly compressible entry for bomb tests.
  uint64_t zeros = 0;

  static ArchiveItem File(std::string name, std::string content, uint64_t zeros = 0) {
    return {std::move(name), std::move(content), Kind::kFile, "", zeros};
  }
  static ArchiveItem Dir(std::string name) { return {std::move(name), "", Kind::kDir, "", 0}; }
  static ArchiveItem Symlink(std::string name, std::string target) {
    return {std::move(name), "", Kind::kSymlink, std::move(target), 0};
  }
  static ArchiveItem Hardlink(std::string name, std::string target) {
    return {std::move(name), "", Kind::kHardlink, std::move(target), 0};
  }
  static ArchiveItem CharDevice(std::string name) {
    return {std::move(name), "", Kind::kCharDevice, "", 0};
  }
};

enum class ArchiveFormat { kZip, kTar, kTarGz };

// Writes `items` to `path`; false (with a message on stderr) on failure.
bool WriteTestArchive(const std::string& path, ArchiveFormat format,
                      const std::vector<ArchiveItem>& items);

}  // namespace skald::testing
