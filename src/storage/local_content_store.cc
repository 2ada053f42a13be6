// The local file-system ContentStore.
//
// Durability protocol for a file write: write a temporary file in the target
// directory, fsync it, rename it over the target, fsync the directory. A
// crash at any point leaves either the old or the new file, plus at worst a
// temporary file that CleanLeftovers() removes.

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <set>

#include "common/env.h"
#include "common/file_util.h"
#include "common/hash.h"
#include "common/strings.h"
#include "common/two_threads.h"
#include "storage/content_store.h"
#include "storage/disk_reserve.h"

namespace skald {
namespace {

constexpr std::string_view kTempPrefix = kTempNamePrefix;

std::string ParentDir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A failure after the change became visible (see kContentChangedDetail).
Status Changed(Status st) { return st.ok() ? st : MarkContentChanged(std::move(st)); }

ContentAttr AttrFromInfo(const FileInfo& info) {
  ContentAttr attr;
  attr.is_dir = info.is_dir();
  attr.size = attr.is_dir ? 0 : info.size;
  attr.mtime_ns = info.mtime_ns;
  return attr;
}

class LocalContentStore final : public ContentStore {
 public:
  explicit LocalContentStore(LocalContentStoreOptions options)
      : options_(std::move(options)), env_(EnvOrDefault(options_.env)) {}

  std::string Name() const override { return "local"; }

  Result<std::string> ReadFile(std::string_view account, std::string_view path) override {
    std::string full = FsPath(account, path);
    SKALD_ASSIGN_OR_RETURN(FileInfo info, env_->Stat(full));
    if (info.is_dir()) return Status::InvalidArgument("is a directory: " + std::string(path));
    return ReadFileToString(env_, full);
  }

  Result<ContentAttr> WriteFile(std::string_view account, std::string_view path,
                                std::string_view data) override {
    SKALD_RETURN_IF_ERROR(CheckSpace());
    std::string full = FsPath(account, path);
    std::string dir = ParentDir(full);
    std::string tmp = fmt::format("{}/{}{}.{}", dir, kTempPrefix,
                                  std::string(TruncateUtf8(BaseName(full), 64)),
                                  RandomFileSuffix());
    WritableFileOptions create;
    create.exclusive = true;
    Status st;
    {
      Result<std::unique_ptr<WritableFile>> file = env_->NewWritableFile(tmp, create);
      if (!file.ok()) return Noted(file.status());
      st = (*file)->Append(data);
      if (st.ok() && options_.sync) st = (*file)->Sync();
      Status closed = (*file)->Close();
      if (st.ok()) st = closed;
    }
    if (st.ok()) st = env_->Rename(tmp, full);
    if (!st.ok()) {
      Status removed = env_->RemoveFile(tmp);
      (void)removed;  // best effort; CleanLeftovers() sweeps what remains
      return Noted(st);
    }
    if (options_.sync) SKALD_RETURN_IF_ERROR(Changed(Noted(env_->SyncDir(dir))));
    Result<FileInfo> info = env_->Stat(full);
    if (!info.ok()) return Changed(info.status());
    return AttrFromInfo(*info);
  }

  Result<std::vector<ContentAttr>> WriteFiles(std::string_view account,
                                              std::span<const FileWrite> writes) override {
    // Temporary files first, then the renames, then the directories made
    // durable. On the real file system that takes two barriers for the whole
    // call: syncfs(2) after the temporary files are written (each closed as
    // soon as written) and after the renames, instead of an fsync (a device
    // cache flush) per file and per directory. The barrier's descriptor is
    // opened before the first write, so that syncfs reports a write-back
    // error of any of them, even one the kernel met in the background.
    // Through any other Env (fault injection in tests) every file and
    // directory is synced through it, as WriteFile does, in chunks that
    // each keep a descriptor open until the file is durable.
    constexpr size_t kOpenAtOnce = 128;
    const bool one_barrier = options_.sync && env_ == Env::Default();
    std::vector<ContentAttr> attrs;
    attrs.reserve(writes.size());
    bool visible = false;  // a rename happened: errors must say so
    auto fail = [&](Status st) { return visible ? Changed(Noted(st)) : Noted(st); };
    FdCloser barrier;  // the root, for the barriers
    if (one_barrier && !writes.empty()) {
      SKALD_ASSIGN_OR_RETURN(int root, OpenRoot());
      barrier.Reset(root);
    }
    const size_t chunk = one_barrier ? std::max<size_t>(writes.size(), 1) : kOpenAtOnce;
    for (size_t begin = 0; begin < writes.size(); begin += chunk) {
      SKALD_RETURN_IF_ERROR(visible ? Changed(CheckSpace()) : CheckSpace());
      size_t end = std::min(writes.size(), begin + chunk);
      struct Staged {
        std::string full;
        std::string tmp;
        std::unique_ptr<WritableFile> file;  // null once closed
      };
      std::vector<Staged> staged;
      staged.reserve(end - begin);
      auto discard = [&](Status st) {
        for (Staged& one : staged) {
          if (one.file) (void)one.file->Close();
          (void)env_->RemoveFile(one.tmp);  // best effort; CleanLeftovers sweeps the rest
        }
        return fail(std::move(st));
      };
      WritableFileOptions create;
      create.exclusive = true;
      for (size_t i = begin; i < end; ++i) {
        Staged one;
        one.full = FsPath(account, writes[i].path);
        one.tmp =
            fmt::format("{}/{}{}.{}", ParentDir(one.full), kTempPrefix,
                        std::string(TruncateUtf8(BaseName(one.full), 64)), RandomFileSuffix());
        Result<std::unique_ptr<WritableFile>> file = env_->NewWritableFile(one.tmp, create);
        if (!file.ok()) return discard(file.status());
        one.file = std::move(*file);
        Status appended = one.file->Append(writes[i].data);
        if (appended.ok() && one_barrier) {
          appended = one.file->Close();
          one.file.reset();
        }
        staged.push_back(std::move(one));
        if (!appended.ok()) return discard(appended);
      }
      if (one_barrier) {
        Status synced = SyncFs(barrier.fd);
        if (!synced.ok()) return discard(synced);
      } else {
        for (Staged& one : staged) {
          Status st = options_.sync ? one.file->Sync() : Status::Ok();
          Status closed = one.file->Close();
          one.file.reset();
          if (st.ok()) st = closed;
          if (!st.ok()) return discard(st);
        }
      }
      std::set<std::string> dirs;
      for (size_t j = 0; j < staged.size(); ++j) {
        Status renamed = env_->Rename(staged[j].tmp, staged[j].full);
        if (!renamed.ok()) {
          for (size_t k = j; k < staged.size(); ++k) (void)env_->RemoveFile(staged[k].tmp);
          return fail(renamed);
        }
        visible = true;
        dirs.insert(ParentDir(staged[j].full));
      }
      if (one_barrier) {
        SKALD_RETURN_IF_ERROR(fail(SyncFs(barrier.fd)));
      } else if (options_.sync) {
        for (const std::string& dir : dirs) SKALD_RETURN_IF_ERROR(fail(env_->SyncDir(dir)));
      }
      for (const Staged& one : staged) {
        Result<FileInfo> info = env_->Stat(one.full);
        if (!info.ok()) return Changed(info.status());
        attrs.push_back(AttrFromInfo(*info));
      }
    }
    return attrs;
  }

  Status MakeDir(std::string_view account, std::string_view path) override {
    std::string full = FsPath(account, path);
    Result<FileInfo> existing = env_->Stat(full);
    if (existing.ok()) {
      if (!existing->is_dir()) {
        return Status::AlreadyExists("a file exists at " + std::string(path));
      }
      return Status::Ok();
    }
    SKALD_RETURN_IF_ERROR(CheckSpace());
    Status made = env_->CreateDir(full);
    if (made.code() == StatusCode::kAlreadyExists) {
      SKALD_ASSIGN_OR_RETURN(FileInfo info, env_->Stat(full));
      if (!info.is_dir()) return Status::AlreadyExists("a file exists at " + std::string(path));
      return Status::Ok();
    }
    SKALD_RETURN_IF_ERROR(Noted(made));
    if (options_.sync) return Changed(Noted(env_->SyncDir(ParentDir(full))));
    return Status::Ok();
  }

  Status MakeDirs(std::string_view account, std::span<const std::string> paths) override {
    // Every directory made first, then one barrier: syncfs(2) on the real
    // file system, else an fsync of each parent that gained an entry.
    const bool one_barrier = options_.sync && env_ == Env::Default();
    bool made_any = false;
    auto fail = [&](Status st) { return made_any ? Changed(Noted(st)) : Noted(st); };
    std::set<std::string> parents;
    for (const std::string& path : paths) {
      std::string full = FsPath(account, path);
      if (Result<FileInfo> existing = env_->Stat(full); existing.ok()) {
        if (!existing->is_dir()) return fail(Status::AlreadyExists("a file exists at " + path));
        continue;
      }
      SKALD_RETURN_IF_ERROR(fail(CheckSpace()));
      Status made = env_->CreateDir(full);
      if (made.code() == StatusCode::kAlreadyExists) {  // made meanwhile
        Result<FileInfo> info = env_->Stat(full);
        if (!info.ok()) return fail(info.status());
        if (!info->is_dir()) return fail(Status::AlreadyExists("a file exists at " + path));
        continue;
      }
      SKALD_RETURN_IF_ERROR(fail(made));
      made_any = true;
      parents.insert(ParentDir(full));
    }
    if (!made_any || !options_.sync) return Status::Ok();
    if (one_barrier) return fail(SyncFileSystem());
    for (const std::string& dir : parents) SKALD_RETURN_IF_ERROR(fail(env_->SyncDir(dir)));
    return Status::Ok();
  }

  Status Remove(std::string_view account, std::string_view path) override {
    std::string full = FsPath(account, path);
    Result<FileInfo> info = env_->LinkStat(full);
    if (!info.ok()) {
      if (info.status().code() == StatusCode::kNotFound) return Status::Ok();
      return info.status();
    }
    // One rename takes the whole tree out of the namespace; the slow
    // recursive delete then works on the trash copy.
    std::string trash = fmt::format("{}/{}", options_.trash_dir, RandomFileSuffix());
    SKALD_RETURN_IF_ERROR(env_->Rename(full, trash));
    if (options_.sync) SKALD_RETURN_IF_ERROR(Changed(env_->SyncDir(ParentDir(full))));
    Status removed = env_->RemoveTree(trash);
    (void)removed;  // leftovers are retried by CleanLeftovers()
    return Status::Ok();
  }

  Status Rename(std::string_view account, std::string_view from, std::string_view to) override {
    std::string src = FsPath(account, from);
    std::string dst = FsPath(account, to);
    Status renamed = env_->RenameNoReplace(src, dst);
    if (renamed.code() == StatusCode::kAlreadyExists) {
      return Status::AlreadyExists("already exists: " + std::string(to));
    }
    SKALD_RETURN_IF_ERROR(Noted(renamed));
    if (options_.sync) {
      std::string src_dir = ParentDir(src);
      std::string dst_dir = ParentDir(dst);
      SKALD_RETURN_IF_ERROR(Changed(env_->SyncDir(dst_dir)));
      if (src_dir != dst_dir) SKALD_RETURN_IF_ERROR(Changed(env_->SyncDir(src_dir)));
    }
    return Status::Ok();
  }

  Result<ContentAttr> Stat(std::string_view account, std::string_view path) override {
    SKALD_ASSIGN_OR_RETURN(FileInfo info, env_->Stat(FsPath(account, path)));
    return AttrFromInfo(info);
  }

  Result<std::vector<ContentEntry>> Scan(std::string_view account) override {
    std::vector<ContentEntry> out;
    std::string base = AccountRoot(account);
    Result<FileInfo> root = env_->Stat(base);
    if (!root.ok() && root.status().code() == StatusCode::kNotFound) return out;
    SKALD_RETURN_IF_ERROR(root.status());
    SKALD_RETURN_IF_ERROR(ScanDir(base, "", &out));
    return out;
  }

  Result<std::vector<std::string>> ListStoredNames(std::string_view account,
                                                   std::string_view path) override {
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDir(FsPath(account, path)));
    std::sort(names.begin(), names.end());
    return names;
  }

  Result<std::vector<std::string>> ListAccounts() override {
    std::vector<std::string> out;
    SKALD_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDir(options_.root));
    for (std::string& name : names) {
      Result<FileInfo> info = env_->Stat(options_.root + "/" + name);
      if (info.ok() && info->is_dir()) out.push_back(std::move(name));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<uint64_t> CleanLeftovers() override {
    uint64_t removed = 0;
    if (Result<std::vector<std::string>> trash = env_->ListDir(options_.trash_dir); trash.ok()) {
      for (const std::string& name : *trash) {
        Status st = env_->RemoveTree(options_.trash_dir + "/" + name);
        (void)st;  // retried at the next open
        ++removed;
      }
    }
    std::vector<std::string> temps;
    std::function<void(const std::string&)> walk = [&](const std::string& dir) {
      Result<std::vector<std::string>> names = env_->ListDir(dir);
      if (!names.ok()) return;
      for (const std::string& name : *names) {
        std::string child = dir + "/" + name;
        if (name.rfind(kTempPrefix, 0) == 0) {
          temps.push_back(child);
          continue;
        }
        Result<FileInfo> info = env_->LinkStat(child);
        if (info.ok() && info->is_dir()) walk(child);
      }
    };
    walk(options_.root);
    for (const std::string& p : temps) {
      if (env_->RemoveTree(p).ok()) ++removed;
    }
    return removed;
  }

 private:
  // A descriptor of the root, for syncfs(2) of the file system holding it.
  Result<int> OpenRoot() const {
    int fd = ::open(options_.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      return Status::IOError(fmt::format("cannot open the content root: {}", std::strerror(errno)));
    }
    return fd;
  }

  // syncfs(2) through `fd` (OpenRoot): every write made so far is durable
  // on Ok, which fails on a write-back error the file system met since `fd`
  // was opened.
  static Status SyncFs(int fd) {
    if (::syncfs(fd) != 0) {
      return Status::IOError(fmt::format("syncfs failed: {}", std::strerror(errno)));
    }
    return Status::Ok();
  }

  Status SyncFileSystem() const {
    SKALD_ASSIGN_OR_RETURN(int fd, OpenRoot());
    FdCloser root(fd);
    return SyncFs(fd);
  }

  // Writes are refused while the disk reserve is spent and space is short.
  Status CheckSpace() {
    return options_.reserve != nullptr ? options_.reserve->CheckWrite() : Status::Ok();
  }

  // A failed write that found the disk full gives the reserve back, so that
  // deletions (and their catalog commits) can still go through.
  Status Noted(Status st) {
    if (IsDiskFull(st) && options_.reserve != nullptr) options_.reserve->Release();
    return st;
  }

  // Pre-order walk of `dir` (URI path `rel`), parents before children.
  Status ScanDir(const std::string& dir, const std::string& rel, std::vector<ContentEntry>* out) {
    Result<std::vector<std::string>> names = env_->ListDir(dir);
    if (!names.ok()) {
      // Vanished meanwhile (a concurrent delete): nothing to report.
      if (names.status().code() == StatusCode::kNotFound) return Status::Ok();
      return names.status();
    }
    std::sort(names->begin(), names->end());
    for (const std::string& name : *names) {
      if (name.rfind(kTempPrefix, 0) == 0) continue;
      std::string child = dir + "/" + name;
      Result<FileInfo> info = env_->LinkStat(child);
      if (!info.ok()) continue;  // vanished meanwhile
      // Symlinks are never created by Skald and not followed.
      if (!info->is_dir() && !info->is_regular()) continue;
      ContentEntry e;
      e.path = rel.empty() ? name : rel + "/" + name;
      ContentAttr attr = AttrFromInfo(*info);
      e.is_dir = attr.is_dir;
      e.size = attr.size;
      e.mtime_ns = attr.mtime_ns;
      std::string child_rel = e.path;
      out->push_back(std::move(e));
      if (info->is_dir()) SKALD_RETURN_IF_ERROR(ScanDir(child, child_rel, out));
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

  const LocalContentStoreOptions options_;
  Env* const env_;
};

}  // namespace

Status MarkContentChanged(Status st) {
  return std::move(st).WithDetail(std::string(kContentChangedDetail), "true");
}

Result<std::vector<ContentAttr>> WriteFilesOnTwoThreads(
    ContentStore* content, std::string_view account,
    std::span<const ContentStore::FileWrite> writes, HelperPool* helpers) {
  constexpr size_t kSplitFrom = 64;
  if (writes.size() < kSplitFrom || !HasSecondCore()) return content->WriteFiles(account, writes);
  auto [first, second] =
      OnTwoHalves(helpers, writes, [&](std::span<const ContentStore::FileWrite> part) {
        return content->WriteFiles(account, part);
      });
  if (!first.ok() || !second.ok()) {
    Status failed = !first.ok() ? first.status() : second.status();
    bool other_written = !first.ok() ? second.ok() : first.ok();
    return other_written ? MarkContentChanged(std::move(failed)) : failed;
  }
  std::vector<ContentAttr> attrs = std::move(*first);
  attrs.insert(attrs.end(), second->begin(), second->end());
  return attrs;
}

bool ContentChangedDespiteError(const Status& st) {
  for (const auto& [key, value] : st.details()) {
    if (key == kContentChangedDetail) return true;
  }
  return false;
}

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
  Env* env = EnvOrDefault(options.env);
  SKALD_RETURN_IF_ERROR(env->CreateDirs(options.root));
  SKALD_RETURN_IF_ERROR(env->CreateDirs(options.trash_dir));
  return std::unique_ptr<ContentStore>(std::make_unique<LocalContentStore>(options));
}

}  // namespace skald
