#pragma once

// Local-file helpers of the `write` and `get` commands.
//
// Thread safety: functions are safe to call concurrently on different paths.

#include <string>
#include <string_view>

#include "skald/result.h"
#include "skald/status.h"

namespace skald::cli {

// The whole content of `path`, or of standard input when `path` is "-".
// IOError naming the path when it cannot be read.
Result<std::string> ReadLocalInput(const std::string& path);

// Writes `bytes` to `path` atomically: a temporary file in the same
// directory, fsync, rename over `path`. Readers see the old file or the
// complete new one, never a part. The file gets mode 0666 & ~umask.
// IOError naming the path on failure (the temporary file is removed).
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// Where `get <uri> <local_path>` writes: `local_path`, or
// `local_path/<last segment of uri>` when local_path is an existing directory.
std::string ResolveDownloadPath(std::string_view uri, const std::string& local_path);

}  // namespace skald::cli
