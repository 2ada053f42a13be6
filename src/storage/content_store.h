#pragma once

// ContentStore: the bytes of every file, per account, addressed by the
// URI path ("resources/docs/a.md"). The catalog holds the metadata; the
// content store is the source of truth for bytes, and recovery makes the
// catalog agree with it.
//
// Thread safety: implementations are safe for concurrent use; callers
// serialize conflicting operations on the same path with path locks.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

class DiskReserve;  // storage/disk_reserve.h
class Env;          // common/env.h
class HelperPool;   // common/two_threads.h

// What a scan found on disk.
struct ContentEntry {
  std::string path;  // stored path, "resources/a/b.md" (long segments as StoredSegmentName())
  bool is_dir = false;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

// Attributes of one stored file or directory.
struct ContentAttr {
  bool is_dir = false;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

// Detail that a failed ContentStore call attaches when its change was
// already visible when the error struck (e.g. the directory fsync after the
// rename failed): the content may now be ahead of the catalog, and the
// caller must have the workspace reconciled (recovery at the next open).
inline constexpr std::string_view kContentChangedDetail = "content_changed";

// `st` with the kContentChangedDetail marker.
Status MarkContentChanged(Status st);
// True when a failed call's change may be visible (see kContentChangedDetail).
bool ContentChangedDespiteError(const Status& st);

// Names that start with this are the store's own temporary files and
// staging areas (storage/tree_swap.h): Scan never reports them and
// CleanLeftovers removes them. No URI may hold such a segment.
inline constexpr std::string_view kTempNamePrefix = ".skald-tmp.";

// Errors never name a host path (they may reach API clients); a full disk
// is DiskFullError (common/env.h).
class ContentStore {
 public:
  virtual ~ContentStore() = default;

  // Stored with the workspace so that data is never opened with another backend.
  virtual std::string Name() const = 0;

  // NotFound when the file does not exist; InvalidArgument for a directory.
  virtual Result<std::string> ReadFile(std::string_view account, std::string_view path) = 0;

  // Replaces the file atomically and durably: after Ok the new bytes survive
  // a crash; after a crash mid-call the old or the new bytes are there,
  // never a mix. REQUIRES: the parent directory exists.
  // Returns the attributes of the written file (its mtime on disk).
  virtual Result<ContentAttr> WriteFile(std::string_view account, std::string_view path,
                                        std::string_view data) = 0;

  // One file of WriteFiles. The views must outlive the call.
  struct FileWrite {
    std::string_view path;
    std::string_view data;
  };

  // Writes several files, each as WriteFile would (atomically: after a
  // crash every file holds its old or its new bytes), with one durability
  // barrier for the batch instead of one per file: after Ok every file of
  // the batch survives a crash. On an error some files may already hold
  // their new bytes (the Status then says so, see kContentChangedDetail).
  // Returns the attributes of the written files, in the order of `writes`.
  // REQUIRES: the parent directories exist; no path twice.
  virtual Result<std::vector<ContentAttr>> WriteFiles(std::string_view account,
                                                      std::span<const FileWrite> writes) {
    std::vector<ContentAttr> attrs;
    for (const FileWrite& w : writes) {
      Result<ContentAttr> attr = WriteFile(account, w.path, w.data);
      if (!attr.ok()) {
        return attrs.empty() ? attr.status() : MarkContentChanged(attr.status());
      }
      attrs.push_back(*attr);
    }
    return attrs;
  }

  // Creates one directory (Ok when it already exists as a directory);
  // durable on return. REQUIRES: the parent exists.
  virtual Status MakeDir(std::string_view account, std::string_view path) = 0;

  // Creates several directories as MakeDir would, with one durability
  // barrier for all of them instead of one per directory: after Ok every
  // one survives a crash. AlreadyExists when a file is in the way; on an
  // error some directories may already exist (the Status then says so, see
  // kContentChangedDetail). REQUIRES: each parent exists or comes earlier
  // in `paths`.
  virtual Status MakeDirs(std::string_view account, std::span<const std::string> paths) {
    for (size_t i = 0; i < paths.size(); ++i) {
      Status made = MakeDir(account, paths[i]);
      if (!made.ok()) return i == 0 ? made : MarkContentChanged(std::move(made));
    }
    return Status::Ok();
  }

  // Removes a file or a whole directory tree atomically: the path first
  // disappears in one rename (so a crash never leaves half a tree), then its
  // bytes are released. Ok when the path does not exist.
  virtual Status Remove(std::string_view account, std::string_view path) = 0;

  // Renames a file or directory tree atomically and durably.
  // REQUIRES: `to` does not exist and its parent exists.
  virtual Status Rename(std::string_view account, std::string_view from,
                        std::string_view to) = 0;

  // Attributes of a path; NotFound when missing.
  virtual Result<ContentAttr> Stat(std::string_view account, std::string_view path) = 0;

  // Every file and directory of an account (the account root itself
  // excluded), parents before children. Leftover temporary files are not
  // reported.
  virtual Result<std::vector<ContentEntry>> Scan(std::string_view account) = 0;

  // The names in directory `path` ("" = the account root) as they are
  // stored, temporary ones included (recovery looks for what an interrupted
  // process left). NotFound when the directory does not exist.
  virtual Result<std::vector<std::string>> ListStoredNames(std::string_view account,
                                                           std::string_view path) = 0;

  // Accounts that have a content directory.
  virtual Result<std::vector<std::string>> ListAccounts() = 0;

  // Deletes temporary files and trash left by an interrupted process.
  // Returns how many leftovers were removed.
  virtual Result<uint64_t> CleanLeftovers() = 0;
};

// content->WriteFiles(account, writes), its two halves side by side on two
// threads when there are enough files and a second core: file creation is
// kernel work that runs on both cores (files of different directories do
// not contend). The second half goes to a helper of `helpers` (null: a
// thread started for it). The contract of WriteFiles, except that on an
// error the files of the other half may be written (the Status then says
// so).
Result<std::vector<ContentAttr>> WriteFilesOnTwoThreads(
    ContentStore* content, std::string_view account,
    std::span<const ContentStore::FileWrite> writes, HelperPool* helpers);

struct LocalContentStoreOptions {
  // Root directory; accounts live in <root>/<account>/.
  std::string root;
  // Directory on the same file system for trees being deleted.
  std::string trash_dir;
  // fsync data and directories (off only for benchmarks and tests).
  bool sync = true;
  // Every file-system call goes through it; borrowed, null = Env::Default().
  Env* env = nullptr;
  // Borrowed; when set, writes and mkdirs are refused (disk full) while the
  // reserve is spent and space is short, and a write that finds the disk
  // full releases it so that deletions can proceed. Null = no reserve.
  DiskReserve* reserve = nullptr;
};

// The local file-system backend: <root>/<account>/<stored path>, where the
// stored path maps every URI segment through StoredSegmentName() (see
// docs/format/content.md), so names stay within file-system limits.
Result<std::unique_ptr<ContentStore>> NewLocalContentStore(const LocalContentStoreOptions& options);

// Longest on-disk name of one segment (the usual file-system limit, NAME_MAX).
inline constexpr size_t kMaxStoredSegmentBytes = 255;
// Marks a shortened on-disk name. URI segments never contain it (a backslash
// is refused by VikingUri::IsValidSegment), so a shortened name never equals
// the stored name of any segment.
inline constexpr char kShortenedSegmentMarker = '\\';
// Bits of SHA-256 a shortened name keeps: two long segments with the same
// prefix collide with probability ~2^-128.
inline constexpr size_t kShortenedHashBits = 128;

// The on-disk name of one URI segment: the segment itself when it has at most
// kMaxStoredSegmentBytes bytes; else "<prefix>\<h>", where h is the first 32
// hex digits of the SHA-256 of the whole segment and prefix is the segment cut
// on a UTF-8 boundary so that the name has at most 255 bytes. Distinct segments
// get distinct names (up to the hash). Pure; thread-safe.
std::string StoredSegmentName(std::string_view segment);

// True when `stored` is a shortened on-disk name (holds the marker).
bool IsShortenedSegmentName(std::string_view stored);

}  // namespace skald
