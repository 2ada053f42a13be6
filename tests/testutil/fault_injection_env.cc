#include "tests/testutil/fault_injection_env.h"

#include <fmt/format.h>

namespace skald::testing {
namespace {

std::string_view OpName(FaultOp op) {
  switch (op) {
    case FaultOp::kWrite: return "write";
    case FaultOp::kSync: return "fsync";
    case FaultOp::kRename: return "rename";
    case FaultOp::kCreate: return "create";
    case FaultOp::kRemove: return "remove";
  }
  return "operation";
}

// A WritableFile whose writes and syncs ask the env first.
class FaultWritableFile final : public WritableFile {
 public:
  FaultWritableFile(FaultInjectionEnv* env, std::string path, std::unique_ptr<WritableFile> base)
      : env_(env), path_(std::move(path)), base_(std::move(base)) {}

  Status Append(std::string_view data) override {
    SKALD_RETURN_IF_ERROR(env_->CheckFile(path_, FaultOp::kWrite, data.size()));
    return base_->Append(data);
  }
  Status WriteAt(uint64_t offset, std::string_view data) override {
    // Overwrites in place: no new space, but still a write that can fail.
    SKALD_RETURN_IF_ERROR(env_->CheckFile(path_, FaultOp::kWrite, 0));
    return base_->WriteAt(offset, data);
  }
  Status Sync() override {
    SKALD_RETURN_IF_ERROR(env_->CheckFile(path_, FaultOp::kSync, 0));
    return base_->Sync();
  }
  Status Close() override { return base_->Close(); }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  std::unique_ptr<WritableFile> base_;
};

}  // namespace

Status FaultInjectionEnv::Make(Error error, FaultOp op) {
  if (error == Error::kNoSpace) {
    return DiskFullError(fmt::format("{} failed: no space left on the device (injected)",
                                     OpName(op)));
  }
  return Status::IOError(fmt::format("{}: Input/output error (injected)", OpName(op)));
}

void FaultInjectionEnv::FailNth(FaultOp op, uint64_t n, Error error) {
  std::lock_guard<std::mutex> lock(mu_);
  Rule& r = rules_[static_cast<int>(op)];
  r.armed = true;
  r.every_after = false;
  r.fire_at = counts_[static_cast<int>(op)] + n;
  r.error = error;
}

void FaultInjectionEnv::FailFrom(FaultOp op, uint64_t n, Error error) {
  FailNth(op, n, error);
  std::lock_guard<std::mutex> lock(mu_);
  rules_[static_cast<int>(op)].every_after = true;
}

void FaultInjectionEnv::FillAfter(uint64_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  full_armed_ = true;
  space_left_ = limit;
}

void FaultInjectionEnv::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Rule& r : rules_) r = Rule();
  full_armed_ = false;
  space_left_ = 0;
  path_part_.clear();
}

uint64_t FaultInjectionEnv::count(FaultOp op) const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_[static_cast<int>(op)];
}

Status FaultInjectionEnv::Check(FaultOp op, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = ++counts_[static_cast<int>(op)];
  Rule& r = rules_[static_cast<int>(op)];
  if (r.armed && (n == r.fire_at || (r.every_after && n > r.fire_at))) {
    injected_.fetch_add(1);
    return Make(r.error, op);
  }
  if (full_armed_ && (op == FaultOp::kWrite || op == FaultOp::kCreate)) {
    // A full disk refuses new files as well as new bytes.
    if (bytes > space_left_ || (op == FaultOp::kCreate && space_left_ == 0)) {
      injected_.fetch_add(1);
      return Make(Error::kNoSpace, op);
    }
    space_left_ -= bytes;
  }
  bytes_written_.fetch_add(bytes);
  return Status::Ok();
}

Status FaultInjectionEnv::CheckFile(const std::string& path, FaultOp op, uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!path_part_.empty() && path.find(path_part_) != std::string::npos) {
      ++counts_[static_cast<int>(op)];
      injected_.fetch_add(1);
      return Make(path_error_, op);
    }
  }
  return Check(op, bytes);
}

void FaultInjectionEnv::Credit(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (full_armed_) space_left_ += bytes;
}

uint64_t FaultInjectionEnv::TreeBytes(const std::string& path) {
  Result<FileInfo> info = target()->LinkStat(path);
  if (!info.ok()) return 0;
  if (!info->is_dir()) return info->size;
  uint64_t total = 0;
  Result<std::vector<std::string>> names = target()->ListDir(path);
  if (names.ok()) {
    for (const std::string& name : *names) total += TreeBytes(path + "/" + name);
  }
  return total;
}

Result<std::unique_ptr<WritableFile>> FaultInjectionEnv::NewWritableFile(
    const std::string& path, const WritableFileOptions& options) {
  SKALD_RETURN_IF_ERROR(CheckFile(path, FaultOp::kCreate, 0));
  // Truncating an existing file gives its bytes back.
  if (!options.exclusive) Credit(TreeBytes(path));
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> base,
                         target()->NewWritableFile(path, options));
  return std::unique_ptr<WritableFile>(
      std::make_unique<FaultWritableFile>(this, path, std::move(base)));
}

Status FaultInjectionEnv::SyncDir(const std::string& path) {
  SKALD_RETURN_IF_ERROR(Check(FaultOp::kSync, 0));
  return target()->SyncDir(path);
}

Status FaultInjectionEnv::Rename(const std::string& from, const std::string& to) {
  SKALD_RETURN_IF_ERROR(Check(FaultOp::kRename, 0));
  uint64_t replaced = TreeBytes(to);
  SKALD_RETURN_IF_ERROR(target()->Rename(from, to));
  Credit(replaced);
  return Status::Ok();
}

Status FaultInjectionEnv::RenameNoReplace(const std::string& from, const std::string& to) {
  SKALD_RETURN_IF_ERROR(Check(FaultOp::kRename, 0));
  return target()->RenameNoReplace(from, to);
}

Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  SKALD_RETURN_IF_ERROR(Check(FaultOp::kRemove, 0));
  uint64_t bytes = TreeBytes(path);
  SKALD_RETURN_IF_ERROR(target()->RemoveFile(path));
  Credit(bytes);
  return Status::Ok();
}

Status FaultInjectionEnv::RemoveTree(const std::string& path) {
  SKALD_RETURN_IF_ERROR(Check(FaultOp::kRemove, 0));
  uint64_t bytes = TreeBytes(path);
  SKALD_RETURN_IF_ERROR(target()->RemoveTree(path));
  Credit(bytes);
  return Status::Ok();
}

Status FaultInjectionEnv::CreateDir(const std::string& path) {
  SKALD_RETURN_IF_ERROR(Check(FaultOp::kCreate, 0));
  return target()->CreateDir(path);
}

Status FaultInjectionEnv::CreateDirs(const std::string& path) {
  // Creating what already exists writes nothing: not an operation.
  Result<FileInfo> info = target()->Stat(path);
  if (info.ok() && info->is_dir()) return Status::Ok();
  SKALD_RETURN_IF_ERROR(Check(FaultOp::kCreate, 0));
  return target()->CreateDirs(path);
}

Result<uint64_t> FaultInjectionEnv::FreeSpace(const std::string& path) {
  SKALD_ASSIGN_OR_RETURN(uint64_t real, target()->FreeSpace(path));
  std::lock_guard<std::mutex> lock(mu_);
  return full_armed_ ? std::min(real, space_left_) : real;
}

void FaultInjectionEnv::FailWritesTo(std::string path_part, Error error) {
  std::lock_guard<std::mutex> lock(mu_);
  path_part_ = std::move(path_part);
  path_error_ = error;
}

Status FaultInjectionEnv::BeforeForeignWrite(const std::string& path, uint64_t bytes) {
  SKALD_RETURN_IF_ERROR(CheckFile(path, bytes > 0 ? FaultOp::kWrite : FaultOp::kSync, bytes));
  return target()->BeforeForeignWrite(path, bytes);
}

}  // namespace skald::testing
