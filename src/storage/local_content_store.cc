// The local file-system ContentStore.
//
// Durability protocol for a file write: write a temporary file in the target
// directory, fsync it, rename it over the target, fsync the directory. A
// crash at any point leaves either the old or the new file, plus at worst a
// temporary file that CleanLeftovers() removes.

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "common/hash.h"
#include "common/strings.h"
#include "storage/content_store.h"

namespace skald {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTempPrefix = ".skald-tmp.";

Status ErrnoStatus(std::string_view what, const std::string& path, int err) {
  std::string msg = fmt::format("{} {}: {}", what, path, std::strerror(err));
  if (err == ENOENT) return Status::NotFound(msg);
  if (err == ENOSPC || err == EDQUOT) return Status::ResourceExhausted(msg);
  if (err == EACCES || err == EPERM) return Status::PermissionDenied(msg);
  return Status::IOError(msg);
}

int64_t MtimeNanos(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

ContentAttr AttrFromStat(const struct stat& st) {
  ContentAttr attr;
  attr.is_dir = S_ISDIR(st.st_mode);
  attr.size = attr.is_dir ? 0 : static_cast<uint64_t>(st.st_size);
  attr.mtime_ns = MtimeNanos(st);
  return attr;
}

Status FsyncPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open for fsync", path, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync", path, err);
  return Status::Ok();
}

std::string RandomSuffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}());
  return fmt::format("{:x}{:x}", rng(), counter.fetch_add(1));
}

class LocalContentStore final : public ContentStore {
 public:
  explicit LocalContentStore(LocalContentStoreOptions options) : options_(std::move(options)) {}

  std::string Name() const override { return "local"; }

  Result<std::string> ReadFile(std::string_view account, std::string_view path) override {
    std::string full = FsPath(account, path);
    int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open", full, errno);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus("stat", full, err);
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::InvalidArgument("is a directory: " + std::string(path));
    }
    std::string data;
    data.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (true) {
      if (done == data.size()) data.resize(data.size() + 65536);  // file grew: keep reading
      ssize_t n = ::read(fd, data.data() + done, data.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return ErrnoStatus("read", full, err);
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    data.resize(done);
    return data;
  }

  Result<ContentAttr> WriteFile(std::string_view account, std::string_view path,
                                std::string_view data) override {
    std::string full = FsPath(account, path);
    std::string dir = fs::path(full).parent_path().string();
    std::string name = fs::path(full).filename().string();
    std::string tmp = fmt::format("{}/{}{}.{}", dir, kTempPrefix,
                                  std::string(TruncateUtf8(name, 64)), RandomSuffix());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("create", tmp, errno);
    Status st = WriteAll(fd, tmp, data);
    if (st.ok() && options_.sync && ::fsync(fd) != 0) st = ErrnoStatus("fsync", tmp, errno);
    if (::close(fd) != 0 && st.ok()) st = ErrnoStatus("close", tmp, errno);
    if (st.ok() && ::rename(tmp.c_str(), full.c_str()) != 0) st = ErrnoStatus("rename", full, errno);
    if (!st.ok()) {
      ::unlink(tmp.c_str());
      return st;
    }
    if (options_.sync) SKALD_RETURN_IF_ERROR(FsyncPath(dir));
    struct stat s;
    if (::stat(full.c_str(), &s) != 0) return ErrnoStatus("stat", full, errno);
    return AttrFromStat(s);
  }

  Status MakeDir(std::string_view account, std::string_view path) override {
    std::string full = FsPath(account, path);
    if (::mkdir(full.c_str(), 0755) != 0) {
      int err = errno;
      if (err != EEXIST) return ErrnoStatus("mkdir", full, err);
      struct stat s;
      if (::stat(full.c_str(), &s) != 0 || !S_ISDIR(s.st_mode)) {
        return Status::AlreadyExists("a file exists at " + std::string(path));
      }
      return Status::Ok();
    }
    if (options_.sync) return FsyncPath(fs::path(full).parent_path().string());
    return Status::Ok();
  }

  Status Remove(std::string_view account, std::string_view path) override {
    std::string full = FsPath(account, path);
    struct stat s;
    if (::lstat(full.c_str(), &s) != 0) {
      if (errno == ENOENT) return Status::Ok();
      return ErrnoStatus("stat", full, errno);
    }
    // One rename takes the whole tree out of the namespace; the slow
    // recursive delete then works on the trash copy.
    std::string trash = fmt::format("{}/{}", options_.trash_dir, RandomSuffix());
    if (::rename(full.c_str(), trash.c_str()) != 0) return ErrnoStatus("rename", full, errno);
    if (options_.sync) {
      SKALD_RETURN_IF_ERROR(FsyncPath(fs::path(full).parent_path().string()));
    }
    std::error_code ec;
    fs::remove_all(trash, ec);  // leftovers are retried by CleanLeftovers()
    return Status::Ok();
  }

  Status Rename(std::string_view account, std::string_view from, std::string_view to) override {
    std::string src = FsPath(account, from);
    std::string dst = FsPath(account, to);
    if (::renameat2(AT_FDCWD, src.c_str(), AT_FDCWD, dst.c_str(), RENAME_NOREPLACE) != 0) {
      int err = errno;
      if (err == EEXIST) return Status::AlreadyExists("already exists: " + std::string(to));
      return ErrnoStatus("rename", src, err);
    }
    if (options_.sync) {
      std::string src_dir = fs::path(src).parent_path().string();
      std::string dst_dir = fs::path(dst).parent_path().string();
      SKALD_RETURN_IF_ERROR(FsyncPath(dst_dir));
      if (src_dir != dst_dir) SKALD_RETURN_IF_ERROR(FsyncPath(src_dir));
    }
    return Status::Ok();
  }

  Result<ContentAttr> Stat(std::string_view account, std::string_view path) override {
    std::string full = FsPath(account, path);
    struct stat s;
    if (::stat(full.c_str(), &s) != 0) return ErrnoStatus("stat", full, errno);
    return AttrFromStat(s);
  }

  Result<std::vector<ContentEntry>> Scan(std::string_view account) override {
    std::vector<ContentEntry> out;
    std::string base = AccountRoot(account);
    std::error_code ec;
    if (!fs::exists(base, ec)) return out;
    fs::recursive_directory_iterator it(base, fs::directory_options::none, ec), end;
    if (ec) return Status::IOError(fmt::format("scan {}: {}", base, ec.message()));
    for (; it != end; it.increment(ec)) {
      if (ec) return Status::IOError(fmt::format("scan {}: {}", base, ec.message()));
      const fs::directory_entry& entry = *it;
      std::string name = entry.path().filename().string();
      if (name.rfind(kTempPrefix, 0) == 0) continue;
      struct stat s;
      if (::lstat(entry.path().c_str(), &s) != 0) continue;  // vanished meanwhile
      if (!S_ISDIR(s.st_mode) && !S_ISREG(s.st_mode)) {
        if (S_ISLNK(s.st_mode)) continue;  // never created by Skald; not followed
        continue;
      }
      ContentEntry e;
      e.path = fs::relative(entry.path(), base, ec).string();
      if (ec) return Status::IOError(fmt::format("scan {}: {}", base, ec.message()));
      ContentAttr attr = AttrFromStat(s);
      e.is_dir = attr.is_dir;
      e.size = attr.size;
      e.mtime_ns = attr.mtime_ns;
      out.push_back(std::move(e));
    }
    return out;
  }

  Result<std::vector<std::string>> ListAccounts() override {
    std::vector<std::string> out;
    std::error_code ec;
    fs::directory_iterator it(options_.root, ec), end;
    if (ec) return Status::IOError(fmt::format("list {}: {}", options_.root, ec.message()));
    for (; it != end; it.increment(ec)) {
      if (ec) break;
      if (it->is_directory(ec)) out.push_back(it->path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<uint64_t> CleanLeftovers() override {
    uint64_t removed = 0;
    std::error_code ec;
    for (fs::directory_iterator it(options_.trash_dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      std::error_code rm_ec;
      fs::remove_all(it->path(), rm_ec);
      ++removed;
    }
    std::vector<fs::path> temps;
    fs::recursive_directory_iterator it(options_.root, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().rfind(kTempPrefix, 0) == 0) temps.push_back(it->path());
    }
    for (const auto& p : temps) {
      std::error_code rm_ec;
      if (fs::remove(p, rm_ec)) ++removed;
    }
    return removed;
  }

 private:
  static Status WriteAll(int fd, const std::string& path, std::string_view data) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("write", path, errno);
      }
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  std::string AccountRoot(std::string_view account) const {
    return fmt::format("{}/{}", options_.root, account);
  }

  std::string FsPath(std::string_view account, std::string_view path) const {
    std::string out = AccountRoot(account);
    if (path.empty()) return out;
    for (const std::string& seg : Split(path, '/')) {
      out += '/';
      out += StoredSegmentName(seg);
    }
    return out;
  }

  LocalContentStoreOptions options_;
};

}  // namespace

std::string StoredSegmentName(std::string_view segment) {
  if (segment.size() <= kMaxStoredSegmentBytes) return std::string(segment);
  // "<prefix>\<32 hex>" in at most 255 bytes, the prefix cut on a
  // UTF-8 boundary. The backslash marks the name as shortened: no URI segment
  // may hold one (VikingUri::IsValidSegment), so no segment is stored under a
  // name that another segment is shortened to.
  constexpr size_t kHashChars = kShortenedHashBits / 4;
  std::string_view prefix = TruncateUtf8(segment, kMaxStoredSegmentBytes - 1 - kHashChars);
  std::string out(prefix);
  out += kShortenedSegmentMarker;
  out += Sha256Hex(segment).substr(0, kHashChars);
  return out;
}

bool IsShortenedSegmentName(std::string_view stored) {
  return stored.find(kShortenedSegmentMarker) != std::string_view::npos;
}

Result<std::unique_ptr<ContentStore>> NewLocalContentStore(
    const LocalContentStoreOptions& options) {
  if (options.root.empty() || options.trash_dir.empty()) {
    return Status::InvalidArgument("content store needs a root and a trash directory");
  }
  std::error_code ec;
  fs::create_directories(options.root, ec);
  if (ec) return Status::IOError(fmt::format("create {}: {}", options.root, ec.message()));
  fs::create_directories(options.trash_dir, ec);
  if (ec) return Status::IOError(fmt::format("create {}: {}", options.trash_dir, ec.message()));
  return std::unique_ptr<ContentStore>(std::make_unique<LocalContentStore>(options));
}

}  // namespace skald
