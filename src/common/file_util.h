#pragma once

// Local-file helpers shared by the CLI (`get`) and the service (uploads).
//
// Thread safety: functions are safe to call concurrently on different paths.

#include <string>
#include <string_view>

#include "skald/status.h"

namespace skald {

// Writes `bytes` to `path` atomically: a temporary file in the same
// directory, fsync, rename over `path`. Readers see the old file or the
// complete new one, never a part. The file gets mode 0666 & ~umask.
// The data is durable when this returns (the directory entry is not
// fsync'd). IOError naming the path on failure (the temporary file is removed).
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace skald
