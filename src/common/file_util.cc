#include "common/file_util.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skald {
namespace {

Status ErrnoError(std::string_view what, const std::string& path, int err) {
  return Status::IOError(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  std::string tmp = path + ".skald-tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return ErrnoError("cannot create a temporary file next to", path, errno);
  auto fail = [&](std::string_view what, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return ErrnoError(what, path, err);
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write", errno);
    }
    done += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; give the file the mode an ordinary create would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) return fail("cannot chmod", errno);
  if (::fsync(fd) != 0) return fail("cannot fsync", errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("cannot close", path, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("cannot rename the temporary file onto", path, err);
  }
  return Status::Ok();
}

}  // namespace skald
