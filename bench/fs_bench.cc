// fs_bench: throughput of the durable write path and of reads/listings
// through the Db facade, with fsync on and off side by side in one run.
//
//   fs_bench [--files N] [--size BYTES] [--dir PATH]
//
// Prints one line per phase and a final summary line, preceded by the command.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "skald/db.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Phase {
  double write_s = 0, read_s = 0, ls_s = 0;
};

int Run(const std::string& dir, bool sync, int files, size_t size, Phase* out) {
  std::filesystem::remove_all(dir);
  skald::DbOptions options;
  options.workspace = dir;
  options.sync_writes = sync;
  // The write path alone: no background indexing competing for the cores.
  options.background_workers = 0;
  auto db = skald::Db::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  skald::Identity who{"default", "default", skald::Role::kRoot};
  std::string body(size, 'x');
  auto start = Clock::now();
  for (int i = 0; i < files; ++i) {
    std::string uri = "viking://resources/d" + std::to_string(i % 32) + "/f" + std::to_string(i) +
                      ".md";
    skald::WriteRequest request;
    request.uri = uri;
    request.content = body;
    request.mode = skald::WriteMode::kCreate;
    auto r = (*db)->Write(who, request);
    if (!r.ok()) {
      std::fprintf(stderr, "write: %s\n", r.status().ToString().c_str());
      return 1;
    }
  }
  out->write_s = Seconds(start);
  start = Clock::now();
  for (int i = 0; i < files; ++i) {
    std::string uri = "viking://resources/d" + std::to_string(i % 32) + "/f" + std::to_string(i) +
                      ".md";
    auto r = (*db)->Read(who, uri, 0, -1, /*raw=*/true);
    if (!r.ok() || r->size() != size) return 1;
  }
  out->read_s = Seconds(start);
  start = Clock::now();
  for (int i = 0; i < 32; ++i) {
    auto r = (*db)->Ls(who, "viking://resources/d" + std::to_string(i), {});
    if (!r.ok()) return 1;
  }
  out->ls_s = Seconds(start) / 32;
  db->reset();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 2000;
  size_t size = 4096;
  std::string dir = std::filesystem::temp_directory_path().string() + "/skald-fs-bench";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--files") files = std::atoi(argv[i + 1]);
    else if (flag == "--size") size = static_cast<size_t>(std::atoll(argv[i + 1]));
    else if (flag == "--dir") dir = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: fs_bench [--files N] [--size BYTES] [--dir PATH]\n");
      return 2;
    }
  }
  std::printf("command: fs_bench --files %d --size %zu --dir %s\n", files, size, dir.c_str());
  Phase synced, unsynced;
  if (Run(dir, true, files, size, &synced) != 0 || Run(dir, false, files, size, &unsynced) != 0) {
    return 1;
  }
  double mb = static_cast<double>(files) * static_cast<double>(size) / 1e6;
  for (auto [name, p] : {std::pair{"fsync", synced}, std::pair{"nosync", unsynced}}) {
    std::printf("%-6s write %.0f files/s (%.1f MB/s)  read %.0f files/s  ls(%d/dir) %.3f ms\n", name,
                files / p.write_s, mb / p.write_s, files / p.read_s, files / 32, p.ls_s * 1e3);
  }
  std::printf("write_fsync_per_s=%.0f write_nosync_per_s=%.0f fsync_cost_ratio=%.1f "
              "read_per_s=%.0f ls_ms=%.3f\n",
              files / synced.write_s, files / unsynced.write_s, synced.write_s / unsynced.write_s,
              files / unsynced.read_s, unsynced.ls_s * 1e3);
  return 0;
}
