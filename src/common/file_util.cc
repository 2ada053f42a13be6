#include "common/file_util.h"

#include <fmt/format.h>

#include <atomic>
#include <random>

namespace skald {

std::string RandomFileSuffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}());
  return fmt::format("{:012x}{:04x}", rng() & 0xFFFFFFFFFFFFULL, counter.fetch_add(1) & 0xFFFF);
}

std::string RandomHex128() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  return fmt::format("{:016x}{:016x}", rng(), rng());
}

Status WriteFileAtomically(Env* env, const std::string& path, std::string_view bytes) {
  env = EnvOrDefault(env);
  std::string tmp = path + ".skald-tmp-" + RandomFileSuffix();
  WritableFileOptions create;
  create.exclusive = true;
  create.mode = 0666;  // an ordinary create's mode: the umask applies
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(tmp, create));
  Status st = file->Append(bytes);
  if (st.ok()) st = file->Sync();
  Status closed = file->Close();
  if (st.ok()) st = closed;
  if (st.ok()) st = env->Rename(tmp, path);
  if (!st.ok()) {
    Status removed = env->RemoveFile(tmp);
    (void)removed;  // best effort: the write already failed
  }
  return st;
}

}  // namespace skald
