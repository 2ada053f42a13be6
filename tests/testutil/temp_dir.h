#pragma once

// TempDir: a fresh directory under $TMPDIR (or /tmp) removed on destruction.
//
// Thread safety: not shared between threads.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace skald::testing {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/skald-test-XXXXXX";
    char* made = ::mkdtemp(templ.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace skald::testing
