#pragma once

// Packing a local directory into one zip archive, for `add-resource DIR`
// against a server: the server takes one upload per resource and expands
// archives as trees (as the `ov` CLI does, entries are relative to the
// directory, with no top-level folder).
//
// Thread safety: safe to call concurrently with different outputs.

#include <cstdint>
#include <string>

#include "skald/result.h"

namespace skald::cli {

struct ZipStats {
  uint64_t files = 0;
  uint64_t bytes = 0;  // of the files, before compression
};

// Writes `zip_path` holding every regular file below `dir`, deflated at
// the fastest level, or stored as they are when not `compress` (for a
// server on this machine: compressing costs more than it saves). Hidden
// entries (names starting with '.', such as .git) are left out — the
// server skips them anyway — and so are symbolic links and special files.
// IOError naming the file that cannot be read or written.
Result<ZipStats> ZipDirectory(const std::string& dir, const std::string& zip_path,
                              bool compress = true);

}  // namespace skald::cli
