#pragma once

// Local-file helpers of the `write` and `get` commands.
//
// Thread safety: functions are safe to call concurrently on different paths.

#include <string>
#include <string_view>

#include "common/file_util.h"  // WriteFileAtomically
#include "skald/result.h"
#include "skald/status.h"

namespace skald::cli {

// The whole content of `path`, or of standard input when `path` is "-".
// IOError naming the path when it cannot be read.
Result<std::string> ReadLocalInput(const std::string& path);


// Where `get <uri> <local_path>` writes: `local_path`, or
// `local_path/<last segment of uri>` when local_path is an existing directory.
std::string ResolveDownloadPath(std::string_view uri, const std::string& local_path);

}  // namespace skald::cli
