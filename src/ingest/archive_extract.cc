#include "ingest/archive_extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "common/file_util.h"
#include "common/strings.h"
#include "ingest/source_import.h"

namespace skald {
namespace {

namespace fs = std::filesystem;

// Longest extensions first, so ".tar.gz" wins over ".gz".
constexpr std::array<std::string_view, 8> kArchiveExtensions = {
    ".tar.bz2", ".tar.gz", ".tar.xz", ".tbz2", ".tar", ".tgz", ".txz", ".zip"};

size_t ArchiveExtensionLength(std::string_view name) {
  const std::string lower = AsciiLower(name);
  for (std::string_view ext : kArchiveExtensions) {
    if (lower.size() > ext.size() &&
        std::string_view(lower).substr(lower.size() - ext.size()) == ext) {
      return ext.size();
    }
  }
  return 0;
}

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};

// libarchive's reason for the last failure of `a`.
std::string Reason(archive* a) {
  const char* text = archive_error_string(a);
  return text != nullptr && *text != '\0' ? std::string(text) : "unreadable data";
}

Status Corrupt(archive* a) {
  const char* text = archive_error_string(a);
  if (text == nullptr || *text == '\0') {
    return Status::InvalidArgument("the archive is corrupt or not a zip/tar archive");
  }
  return Status::InvalidArgument(
      fmt::format("the archive is corrupt or not a zip/tar archive: {}", text));
}

// Limits of an entry's path, as a file system would set them (and the
// import's walk recurses once per level).
constexpr size_t kMaxEntryPathBytes = 4096;
constexpr size_t kMaxEntryNameBytes = 255;
constexpr size_t kMaxEntryDepth = 256;

// The entry's path relative to the archive root ("" for the root itself),
// or InvalidArgument when it would land outside it or is too long.
Result<std::string> SafeRelativePath(std::string_view raw) {
  std::string path(raw);
  std::replace(path.begin(), path.end(), '\\', '/');  // zips written on Windows
  auto escapes = [&] {
    return Status::InvalidArgument(fmt::format(
        "the archive entry '{}' points outside the archive (absolute path or '..'); the archive "
        "is refused",
        raw));
  };
  if (!path.empty() && path.front() == '/') return escapes();
  auto too_long = [&] {
    return Status::InvalidArgument(fmt::format(
        "an archive entry's path is longer than {} bytes, has a name longer than {} bytes or is "
        "deeper than {} levels; the archive is refused",
        kMaxEntryPathBytes, kMaxEntryNameBytes, kMaxEntryDepth));
  };
  if (path.size() > kMaxEntryPathBytes) return too_long();
  std::vector<std::string> parts;
  for (const std::string& part : Split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return escapes();
    if (parts.empty() && part.size() >= 2 && part[1] == ':') return escapes();  // "C:"
    if (part.size() > kMaxEntryNameBytes || parts.size() >= kMaxEntryDepth) return too_long();
    parts.push_back(part);
  }
  return Join(parts, "/");
}

Status WriteError(std::string_view name, std::string_view reason) {
  return Status::IOError(fmt::format("cannot expand the archive entry '{}': {}", name, reason));
}

// Where DiskSink puts the entries: files under `dest`.
class DiskSink {
 public:
  explicit DiskSink(fs::path dest) : dest_(std::move(dest)) {}

  Status Dir(const std::string& rel, std::string_view name) {
    std::error_code ec;
    fs::create_directories(dest_ / fs::path(rel), ec);
    if (ec) return WriteError(name, ec.message());
    return Status::Ok();
  }

  Status BeginFile(const std::string& rel, std::string_view name, uint64_t /*size_hint*/) {
    const fs::path target = dest_ / fs::path(rel);
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) return WriteError(name, ec.message());
    // Nothing in dest_ is a link (none is ever made), and O_NOFOLLOW keeps
    // it so; a repeated entry replaces the earlier one.
    out_.Reset(::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out_.fd < 0) return WriteError(name, std::strerror(errno));
    return Status::Ok();
  }

  Status Write(const void* block, size_t size, uint64_t offset, std::string_view name) {
    if (::pwrite(out_.fd, block, size, static_cast<off_t>(offset)) != static_cast<ssize_t>(size)) {
      return WriteError(name, std::strerror(errno));
    }
    return Status::Ok();
  }

 private:
  const fs::path dest_;
  FdCloser out_;
};

// Where MemorySink puts the entries: a MemoryTree.
class MemorySink {
 public:
  explicit MemorySink(MemoryTree* tree) : tree_(tree) {}

  Status Dir(const std::string& rel, std::string_view name) {
    if (tree_->files.count(rel) > 0) return Clash(name);
    return AddParents(rel + "/", name);
  }

  // `size_hint`: the bytes the entry says it holds, within what the limits
  // still allow (reserved at once, so the bytes are not copied as they grow).
  Status BeginFile(const std::string& rel, std::string_view name, uint64_t size_hint) {
    if (tree_->dirs.count(rel) > 0) return Clash(name);
    SKALD_RETURN_IF_ERROR(AddParents(rel, name));
    current_ = &tree_->files[rel];
    current_->clear();  // a repeated entry replaces the earlier one
    current_->shrink_to_fit();
    current_->reserve(size_hint);
    return Status::Ok();
  }

  Status Write(const void* block, size_t size, uint64_t offset, std::string_view /*name*/) {
    if (offset + size > current_->size()) current_->resize(offset + size);
    std::memcpy(current_->data() + offset, block, size);
    return Status::Ok();
  }

 private:
  // Names every directory above `rel` (each prefix ending before a '/'),
  // deepest first: one already named has its parents named too.
  Status AddParents(std::string_view rel, std::string_view name) {
    for (size_t slash = rel.rfind('/'); slash != std::string_view::npos && slash > 0;
         slash = rel.rfind('/', slash - 1)) {
      const std::string_view dir = rel.substr(0, slash);
      if (tree_->dirs.find(dir) != tree_->dirs.end()) return Status::Ok();
      if (tree_->files.find(dir) != tree_->files.end()) return Clash(name);
      tree_->dirs.emplace(dir);
    }
    return Status::Ok();
  }

  static Status Clash(std::string_view name) {
    return Status::InvalidArgument(
        fmt::format("the archive entry '{}' makes one path both a file and a directory", name));
  }

  MemoryTree* const tree_;
  std::string* current_ = nullptr;
};

// Reads every entry of `a` into `Sink` (DiskSink, MemorySink), checking each
// entry and the limits as it goes.
template <class Sink>
class Extractor {
 public:
  Extractor(const ArchiveLimits& limits, Sink* sink, uint64_t archive_bytes)
      : limits_(limits), sink_(sink), archive_bytes_(std::max<uint64_t>(archive_bytes, 1)) {}

  Status Run(archive* a) {
    archive_entry* entry = nullptr;
    for (;;) {
      int r = archive_read_next_header(a, &entry);
      if (r == ARCHIVE_EOF) break;
      if (r < ARCHIVE_WARN) return Corrupt(a);
      SKALD_RETURN_IF_ERROR(Entry(a, entry));
    }
    if (stats_.files == 0 && stats_.directories == 0) {
      return Status::InvalidArgument("the archive is empty");
    }
    return Status::Ok();
  }

  const ArchiveStats& stats() const { return stats_; }

 private:
  Status Entry(archive* a, archive_entry* entry) {
    const char* utf8 = archive_entry_pathname_utf8(entry);
    const char* name = utf8 != nullptr ? utf8 : archive_entry_pathname(entry);
    if (name == nullptr) return Status::InvalidArgument("the archive has an entry without a name");
    SKALD_ASSIGN_OR_RETURN(std::string rel, SafeRelativePath(name));
    if (++entries_ > limits_.max_entries) {
      return Status::ResourceExhausted(
          fmt::format("the archive holds more than {} entries", limits_.max_entries));
    }
    const mode_t type = archive_entry_filetype(entry);
    if (archive_entry_hardlink(entry) != nullptr) return Refused(name, "a hard link");
    if (type == AE_IFLNK || archive_entry_symlink(entry) != nullptr) {
      return Refused(name, "a symbolic link");
    }
    if (type != AE_IFREG && type != AE_IFDIR) return Refused(name, "a device, FIFO or socket");
    if (rel.empty() || rel == "__MACOSX" || rel.rfind("__MACOSX/", 0) == 0) {
      return Status::Ok();  // the root itself; macOS resource forks
    }
    if (type == AE_IFDIR) {
      SKALD_RETURN_IF_ERROR(sink_->Dir(rel, name));
      ++stats_.directories;
      return Status::Ok();
    }
    const uint64_t declared = archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0
                                  ? static_cast<uint64_t>(archive_entry_size(entry))
                                  : 0;
    const uint64_t room =
        limits_.max_total_bytes > stats_.bytes ? limits_.max_total_bytes - stats_.bytes : 0;
    SKALD_RETURN_IF_ERROR(sink_->BeginFile(rel, name, std::min(declared, room)));
    ++stats_.files;
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    for (;;) {
      int r = archive_read_data_block(a, &block, &size, &offset);
      if (r == ARCHIVE_EOF) break;
      if (r < ARCHIVE_WARN) {
        return Status::InvalidArgument(
            fmt::format("the archive entry '{}' cannot be read: {}", name, Reason(a)));
      }
      if (offset < 0) {
        return Status::InvalidArgument(
            fmt::format("the archive entry '{}' cannot be read: a negative offset", name));
      }
      // Sparse entries hand out offsets; holes are written as zeros and
      // counted like data.
      const uint64_t end = static_cast<uint64_t>(offset) + size;
      SKALD_RETURN_IF_ERROR(Count(end > written_in_entry_ ? end - written_in_entry_ : 0));
      SKALD_RETURN_IF_ERROR(sink_->Write(block, size, static_cast<uint64_t>(offset), name));
      written_in_entry_ = std::max(written_in_entry_, end);
    }
    written_in_entry_ = 0;
    return Status::Ok();
  }

  // Adds `more` expanded bytes and checks the limits.
  Status Count(uint64_t more) {
    stats_.bytes += more;
    if (stats_.bytes > limits_.max_total_bytes) {
      return Status::ResourceExhausted(
          fmt::format("the archive expands to more than {} bytes; import it in parts",
                      limits_.max_total_bytes));
    }
    if (stats_.bytes > limits_.ratio_free_bytes &&
        static_cast<double>(stats_.bytes) >
            limits_.max_ratio * static_cast<double>(archive_bytes_)) {
      return Status::ResourceExhausted(fmt::format(
          "the archive expands to more than {:g} times its size ({} bytes); refused as a "
          "possible zip bomb",
          limits_.max_ratio, archive_bytes_));
    }
    return Status::Ok();
  }

  static Status Refused(std::string_view name, std::string_view what) {
    return Status::InvalidArgument(fmt::format(
        "the archive entry '{}' is {}; archives with links or special files are refused", name,
        what));
  }

  const ArchiveLimits& limits_;
  Sink* const sink_;
  const uint64_t archive_bytes_;
  ArchiveStats stats_;
  uint64_t entries_ = 0;
  uint64_t written_in_entry_ = 0;
};

// Opens the archive at `archive_path` and reads all of it into `sink`.
// REQUIRES: limits.Validate() is ok.
template <class Sink>
Result<ArchiveStats> ReadInto(const std::string& archive_path, const ArchiveLimits& limits,
                              Sink* sink) {
  // Opened here (not by libarchive) so that no message carries the path.
  FdCloser in{::open(archive_path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st {};
  if (in.fd < 0 || ::fstat(in.fd, &st) != 0) {
    spdlog::warn("archive: cannot open {}: {}", archive_path, std::strerror(errno));
    return Status::IOError("cannot open the archive");
  }
  std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
  if (!a) return Status::ResourceExhausted("out of memory opening the archive");
  archive_read_support_format_zip(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_bzip2(a.get());
  archive_read_support_filter_xz(a.get());
  if (archive_read_open_fd(a.get(), in.fd, 64 * 1024) != ARCHIVE_OK) return Corrupt(a.get());
  Extractor<Sink> extractor(limits, sink, static_cast<uint64_t>(st.st_size));
  SKALD_RETURN_IF_ERROR(extractor.Run(a.get()));
  return extractor.stats();
}

}  // namespace

std::optional<std::string> LoneArchiveFile(const std::string& archive_path) {
  FdCloser in{::open(archive_path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) return std::nullopt;
  std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
  if (!a) return std::nullopt;
  // A zip's central directory lists its entries: read without inflating
  // anything (a compressed tar would have to be decompressed to find its
  // second header, which a bomb makes arbitrarily long).
  archive_read_support_format_zip_seekable(a.get());
  if (archive_read_open_fd(a.get(), in.fd, 64 * 1024) != ARCHIVE_OK) return std::nullopt;
  std::optional<std::string> lone;
  archive_entry* entry = nullptr;
  for (int read = 0; read < 1000; ++read) {
    const int status = archive_read_next_header(a.get(), &entry);
    if (status == ARCHIVE_EOF) return lone;
    if (status != ARCHIVE_OK && status != ARCHIVE_WARN) return std::nullopt;
    const char* utf8 = archive_entry_pathname_utf8(entry);
    const char* name = utf8 != nullptr ? utf8 : archive_entry_pathname(entry);
    if (name == nullptr) return std::nullopt;
    Result<std::string> rel = SafeRelativePath(name);
    if (!rel.ok()) return std::nullopt;
    if (rel->empty() || *rel == "__MACOSX" || rel->rfind("__MACOSX/", 0) == 0) {
      archive_read_data_skip(a.get());
      continue;
    }
    if (archive_entry_filetype(entry) != AE_IFREG || lone || rel->find('/') != std::string::npos) {
      return std::nullopt;
    }
    lone = std::move(*rel);
    if (archive_read_data_skip(a.get()) != ARCHIVE_OK) return std::nullopt;
  }
  return std::nullopt;
}

Status ArchiveLimits::Validate() const {
  if (max_entries == 0) return Status::InvalidArgument("archive max_entries must be > 0");
  if (max_total_bytes == 0) return Status::InvalidArgument("archive max_total_bytes must be > 0");
  if (!(max_ratio >= 1)) return Status::InvalidArgument("archive max_ratio must be >= 1");
  return Status::Ok();
}

bool IsArchiveName(std::string_view name) { return ArchiveExtensionLength(name) > 0; }

std::string ArchiveStem(std::string_view name) {
  const size_t ext = ArchiveExtensionLength(name);
  if (ext == 0) return StemOf(name);
  return std::string(name.substr(0, name.size() - ext));
}

Result<ArchiveStats> ExtractArchive(const std::string& archive_path, const std::string& dest_dir,
                                    const ArchiveLimits& limits) {
  SKALD_RETURN_IF_ERROR(limits.Validate());
  std::error_code ec;
  fs::create_directories(dest_dir, ec);
  if (ec) {
    spdlog::warn("archive: cannot create {}: {}", dest_dir, ec.message());
    return Status::IOError(fmt::format("cannot create the staging directory: {}", ec.message()));
  }
  DiskSink sink{fs::path(dest_dir)};
  return ReadInto(archive_path, limits, &sink);
}

Result<MemoryTree> ReadArchive(const std::string& archive_path, const ArchiveLimits& limits) {
  SKALD_RETURN_IF_ERROR(limits.Validate());
  MemoryTree tree;
  MemorySink sink(&tree);
  SKALD_ASSIGN_OR_RETURN(tree.stats, ReadInto(archive_path, limits, &sink));
  return tree;
}

}  // namespace skald
