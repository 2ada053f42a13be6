#pragma once

// DiskReserve: a preallocated file of a few MiB inside the workspace that
// keeps a full disk from wedging the database. When a write finds the disk
// full the reserve is released, so that deletions and their catalog and
// lexical-index commits (SQLite needs room for its journal even to delete)
// still have space; until space is back, writes are refused with a
// disk-full status instead of eating the room deletions need. Once enough
// space is free again the next write re-makes the reserve.
//
// Thread safety: safe for concurrent use.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "common/env.h"

namespace skald {

class DiskReserve {
 public:
  // `env` is borrowed (null = Env::Default()); the reserve lives at `path`
  // (its directory must exist) and holds `bytes`. Nothing is touched until
  // Refill() or CheckWrite().
  DiskReserve(Env* env, std::string path, uint64_t bytes);

  // Makes the reserve when it is missing and at least twice its size is
  // free. DiskFullError when there is not enough room (the reserve stays
  // released); other errors are the Env's.
  Status Refill();

  // Ok when writes may proceed: the reserve is in place, or it could be
  // re-made now. DiskFullError("... free space before writing") otherwise.
  Status CheckWrite();

  // Deletes the reserve file. True when it was in place (space was freed).
  bool Release();

  // Releases the reserve when less than its size is free (at open and
  // before a delete, so that they have room). True when it released it.
  bool ReleaseIfLow();

  bool in_place() const { return in_place_.load(); }
  uint64_t bytes() const { return bytes_; }

 private:
  Env* const env_;
  const std::string path_;
  const uint64_t bytes_;
  std::mutex mu_;                     // serializes making and releasing the file
  std::atomic<bool> in_place_{false};
};

}  // namespace skald
