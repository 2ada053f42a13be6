#include "storage/disk_reserve.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/file_util.h"

namespace skald {
namespace {

std::string DirOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
}

}  // namespace

DiskReserve::DiskReserve(Env* env, std::string path, uint64_t bytes)
    : env_(EnvOrDefault(env)), path_(std::move(path)), bytes_(bytes) {}

Status DiskReserve::Refill() {
  std::lock_guard<std::mutex> lock(mu_);
  if (in_place_.load()) return Status::Ok();
  Result<FileInfo> existing = env_->Stat(path_);
  if (existing.ok() && existing->is_regular() && existing->size >= bytes_) {
    in_place_ = true;
    return Status::Ok();
  }
  SKALD_ASSIGN_OR_RETURN(uint64_t free_bytes, env_->FreeSpace(DirOf(path_)));
  if (free_bytes < 2 * bytes_) {
    return DiskFullError("the workspace's file system is full; delete data to free space");
  }
  // Written (not fallocate'd) so that every file system really reserves it.
  std::string tmp = path_ + ".skald-tmp";
  Status st;
  {
    Result<std::unique_ptr<WritableFile>> file = env_->NewWritableFile(tmp);
    SKALD_RETURN_IF_ERROR(file.status());
    const std::string zeros(1 << 16, '\0');
    for (uint64_t done = 0; st.ok() && done < bytes_; done += zeros.size()) {
      st = (*file)->Append(std::string_view(zeros).substr(
          0, static_cast<size_t>(std::min<uint64_t>(zeros.size(), bytes_ - done))));
    }
    if (st.ok()) st = (*file)->Sync();
    Status closed = (*file)->Close();
    if (st.ok()) st = closed;
  }
  if (st.ok()) st = env_->Rename(tmp, path_);
  if (!st.ok()) {
    Status removed = env_->RemoveFile(tmp);
    (void)removed;
    return st;
  }
  in_place_ = true;
  spdlog::debug("disk reserve of {} bytes in place", bytes_);
  return Status::Ok();
}

Status DiskReserve::CheckWrite() {
  if (in_place_.load()) return Status::Ok();
  return Refill();
}

bool DiskReserve::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  Status removed = env_->RemoveFile(path_);
  bool was_in_place = in_place_.exchange(false);
  if (removed.ok()) {
    spdlog::warn("disk full: released the {}-byte disk reserve so that deletions can proceed; "
                 "writes are refused until space is freed",
                 bytes_);
    return true;
  }
  return was_in_place && removed.code() != StatusCode::kNotFound;
}

bool DiskReserve::ReleaseIfLow() {
  Result<uint64_t> free_bytes = env_->FreeSpace(DirOf(path_));
  if (free_bytes.ok() && *free_bytes >= bytes_) return false;
  return Release();
}

}  // namespace skald
