#pragma once

// Local-file helpers shared by the CLI (`get`), the service (uploads) and
// ingest (reading sources and archives).
//
// Thread safety: functions are safe to call concurrently on different paths.

#include <unistd.h>

#include <string>
#include <string_view>

#include "common/env.h"
#include "skald/status.h"

namespace skald {

// Owns a file descriptor (-1: none), closed when replaced or destroyed.
struct FdCloser {
  int fd = -1;
  FdCloser() = default;
  explicit FdCloser(int f) : fd(f) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() { Reset(-1); }
  void Reset(int f) {
    if (fd >= 0) ::close(fd);
    fd = f;
  }
};

// Writes `bytes` to `path` atomically through `env` (null = Env::Default()):
// a temporary file in the same directory, fsync, rename over `path`. Readers
// see the old file or the complete new one, never a part. The file gets mode
// 0666 & ~umask. The data is durable when this returns (the directory entry
// is not fsync'd). On failure the temporary file is removed and the status
// (DiskFullError when the disk is full) names the step, never the path: the
// caller adds the path where its reader may see it (the CLI does; the server
// must not).
Status WriteFileAtomically(Env* env, const std::string& path, std::string_view bytes);
inline Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  return WriteFileAtomically(nullptr, path, bytes);
}

// A random lower-case hex string of 16 characters, for temporary file names.
std::string RandomFileSuffix();

// 32 random lower-case hex characters (128 bits of a per-thread generator
// seeded from std::random_device): ids of messages, traces and uploads.
// Not for secrets (keys use getrandom).
std::string RandomHex128();

}  // namespace skald
