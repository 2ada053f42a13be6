#pragma once

// Local-file helpers of the `write` and `get` commands and of `--data`.
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

// Checks the `--data` directory before a workspace is opened in it: an
// existing path must be a directory, and a missing one must have an existing
// parent directory (the workspace directory is created, its parents are not:
// a mistyped parent is reported instead of becoming a new, empty workspace).
// A usage error (backend.h) naming `dir` as given, else OK; paths that cannot
// be examined (no permission) are left to the open to report.
Status CheckWorkspaceDir(const std::string& dir);

}  // namespace skald::cli
