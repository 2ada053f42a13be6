#include "cli/local_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <system_error>
#include <vector>

#include "cli/backend.h"

namespace skald::cli {
namespace {

Status ErrnoError(std::string_view what, const std::string& path, int err) {
  return Status::IOError(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

}  // namespace

Result<std::string> ReadLocalInput(const std::string& path) {
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (fd != STDIN_FILENO) ::close(fd);
    return Status::IOError(fmt::format("cannot read {}: it is a directory", path));
  }
  std::string out;
  std::vector<char> buf(1 << 16);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      if (fd != STDIN_FILENO) ::close(fd);
      return ErrnoError("cannot read", path == "-" ? std::string("standard input") : path, err);
    }
    if (n == 0) break;
    out.append(buf.data(), static_cast<size_t>(n));
  }
  if (fd != STDIN_FILENO) ::close(fd);
  return out;
}

std::string ResolveDownloadPath(std::string_view uri, const std::string& local_path) {
  struct stat st {};
  if (local_path == "-" || ::stat(local_path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return local_path;
  }
  while (!uri.empty() && uri.back() == '/') uri.remove_suffix(1);
  size_t slash = uri.rfind('/');
  std::string_view name = slash == std::string_view::npos ? uri : uri.substr(slash + 1);
  std::string out = local_path;
  if (out.back() != '/') out.push_back('/');
  out += name;
  return out;
}

Status CheckWorkspaceDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) return UsageError(fmt::format("--data {}: not a directory", dir));
    return Status::Ok();
  }
  auto absent = [](const std::error_code& e) {
    return !e || e == std::errc::no_such_file_or_directory || e == std::errc::not_a_directory;
  };
  if (!absent(ec)) return Status::Ok();
  fs::path path(dir);
  if (!path.has_filename()) path = path.parent_path();  // "a/b/" names "a/b"
  const fs::path parent = path.parent_path();
  if (parent.empty()) return Status::Ok();  // in the current directory
  const fs::file_status parent_st = fs::status(parent, ec);
  if (!absent(ec)) return Status::Ok();
  if (!fs::exists(parent_st)) {
    return UsageError(fmt::format(
        "--data {}: the directory {} does not exist (the workspace directory is created when "
        "missing, its parents are not)",
        dir, parent.string()));
  }
  if (!fs::is_directory(parent_st)) {
    return UsageError(fmt::format("--data {}: {} is not a directory", dir, parent.string()));
  }
  return Status::Ok();
}

}  // namespace skald::cli
