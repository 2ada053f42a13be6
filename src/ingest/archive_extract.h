#pragma once

// Safe expansion of an uploaded or fetched archive (.zip, .tar, .tar.gz,
// .tgz, .tar.bz2, .tar.xz) with libarchive: into memory, for the import to
// plan as a tree (source_import.h), or into a private staging directory.
//
// An archive is refused as a whole (InvalidArgument, the message naming the
// entry and the reason) when any entry
// - escapes the root: an absolute path, a drive letter, or a ".." component;
// - has a path longer than 4,096 bytes, a name longer than 255 bytes or
//   more than 256 levels;
// - is a symbolic link, a hard link, a device, a FIFO or a socket;
// and stopped (ResourceExhausted) as soon as what it expands to passes the
// limits: entries, total uncompressed bytes, or the ratio of uncompressed
// bytes to the archive's own size (zip bombs: the bytes written are counted
// as they are decompressed, so a header that lies about a size changes
// nothing). A corrupt, truncated or encrypted archive, or one of another
// format, is InvalidArgument with libarchive's reason. Messages never name
// a host path. Entries under "__MACOSX/" (resource forks) are left out.
//
// Thread safety: functions are safe to call concurrently on different
// destinations.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "skald/result.h"

namespace skald {

struct ArchiveLimits {
  // Entries (files and directories) one archive may hold.
  uint64_t max_entries = 100000;
  // Bytes all its files expand to. Matches what one import may hold in text
  // (ImportOptions::max_total_bytes is larger, for local directories).
  uint64_t max_total_bytes = uint64_t{1} << 30;
  // Expanded bytes per byte of archive, checked once more than
  // ratio_free_bytes have been expanded: text deflates 3-10x, a zip bomb
  // 1000x and more. Small archives may exceed the ratio (a few kilobytes of
  // repetitive text), hence the allowance.
  double max_ratio = 100.0;
  uint64_t ratio_free_bytes = uint64_t{8} << 20;

  Status Validate() const;
};

struct ArchiveStats {
  uint64_t files = 0;
  uint64_t directories = 0;
  uint64_t bytes = 0;  // expanded bytes written
};

// True for names ending (case-insensitively) in an archive extension this
// module expands: .zip, .tar, .tar.gz, .tgz, .tar.bz2, .tbz2, .tar.xz, .txz.
bool IsArchiveName(std::string_view name);

// The name without its archive extension ("docs.tar.gz" -> "docs"); other
// names as StemOf (source_import.h) would give them.
std::string ArchiveStem(std::string_view name);

// Expands the archive at `archive_path` into `dest_dir` (created when
// missing; should be empty and private to the caller). On error what was
// expanded so far stays in dest_dir: the caller removes the directory.
Result<ArchiveStats> ExtractArchive(const std::string& archive_path, const std::string& dest_dir,
                                    const ArchiveLimits& limits);

// An archive read into memory: its files by path relative to the archive
// root ('/'-separated, no empty, "." or ".." segment) and every directory
// it names or holds files in.
struct MemoryTree {
  std::map<std::string, std::string, std::less<>> files;
  std::set<std::string, std::less<>> dirs;
  ArchiveStats stats;
};

// Reads the archive at `archive_path` into memory, with ExtractArchive's
// checks and limits (it holds up to limits.max_total_bytes, files the
// import will skip included); an entry that makes one path both a file and
// a directory is InvalidArgument (on disk: IOError). Nothing is written to
// disk, so an import planned from it has no copy to write back.
Result<MemoryTree> ReadArchive(const std::string& archive_path, const ArchiveLimits& limits);

// The name of the one file the zip at `archive_path` holds at its top
// level, when it holds exactly that (no directory, no second file; macOS
// resource forks aside): such an archive is placed as that file
// (OpenViking's "unpack, then apply the rules"). Reads the zip's central
// directory only, inflating nothing; nullopt for any other archive (tars
// are not looked into) and for one that cannot be read (its import reports
// why).
std::optional<std::string> LoneArchiveFile(const std::string& archive_path);

}  // namespace skald
