// http_bench: request throughput and latency of the HTTP server on loopback,
// at several connection counts side by side in one run (DESIGN §7: the pool
// model must hold up at 16 and at 256 keep-alive connections).
//
//   http_bench [--seconds S] [--connections 16,256] [--route health|stat|ls] [--threads T]
//
// The server runs in-process on an ephemeral port with a fresh workspace;
// each connection is one client thread with a keep-alive cpp-httplib client.
// Client and server share the machine, so figures are a lower bound.

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "server/server.h"
#include "skald/db.h"

namespace {

using Clock = std::chrono::steady_clock;

struct RunResult {
  double rps = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  uint64_t errors = 0;
};

RunResult Load(int port, int connections, double seconds, const std::string& path) {
  std::atomic<bool> stop{false};
  std::vector<std::vector<float>> latencies(static_cast<size_t>(connections));
  std::vector<uint64_t> errors(static_cast<size_t>(connections), 0);
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      client.set_connection_timeout(10);
      client.set_read_timeout(10);
      auto& lat = latencies[static_cast<size_t>(c)];
      while (!stop.load(std::memory_order_relaxed)) {
        auto start = Clock::now();
        auto res = client.Get(path.c_str());
        float ms = std::chrono::duration<float, std::milli>(Clock::now() - start).count();
        if (!res || res->status != 200) {
          ++errors[static_cast<size_t>(c)];
        } else {
          lat.push_back(ms);
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  std::vector<float> all;
  RunResult r;
  for (size_t c = 0; c < latencies.size(); ++c) {
    all.insert(all.end(), latencies[c].begin(), latencies[c].end());
    r.errors += errors[c];
  }
  std::sort(all.begin(), all.end());
  if (!all.empty()) {
    r.rps = static_cast<double>(all.size()) / seconds;
    r.p50_ms = all[all.size() / 2];
    r.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
    r.max_ms = all.back();
  }
  return r;
}

std::vector<int> ParseList(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoi(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  std::string connections_arg = "16,256";
  std::string route = "health";
  int threads = 0;  // 0: the server default
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--seconds") seconds = std::stod(argv[i + 1]);
    else if (flag == "--connections") connections_arg = argv[i + 1];
    else if (flag == "--route") route = argv[i + 1];
    else if (flag == "--threads") threads = std::stoi(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: http_bench [--seconds S] [--connections 16,256] "
                   "[--route health|stat|ls] [--threads T]\n");
      return 2;
    }
  }
  std::vector<int> connection_counts = ParseList(connections_arg);
  std::string path = route == "health"  ? "/health"
                     : route == "stat" ? "/api/v1/fs/stat?uri=viking://resources/bench/f0.md"
                                        : "/api/v1/fs/ls?uri=viking://resources/bench";

  std::string dir = std::filesystem::temp_directory_path().string() + "/skald-http-bench";
  std::filesystem::remove_all(dir);
  skald::DbOptions db_options;
  db_options.workspace = dir;
  db_options.sync_writes = false;
  auto db = skald::Db::Open(db_options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  skald::Identity who{"default", "default", skald::Role::kRoot};
  for (int i = 0; i < 50; ++i) {
    skald::WriteRequest request;
    request.uri = "viking://resources/bench/f" + std::to_string(i) + ".md";
    request.content = "x";
    request.mode = skald::WriteMode::kCreate;
    auto w = (*db)->Write(who, request);
    if (!w.ok()) return 1;
  }
  skald::ServerOptions options;
  options.port = 0;
  int max_connections = *std::max_element(connection_counts.begin(), connection_counts.end());
  // The pool starts at options.threads (default: the server's) and grows on
  // demand; room for every client connection.
  if (threads > 0) options.threads = threads;
  options.max_connections = std::max({options.max_connections, options.threads, max_connections + 8});
  auto server = skald::HttpServer::Create(**db, options);
  if (!server.ok() || !(*server)->Bind().ok()) {
    std::fprintf(stderr, "server failed to start\n");
    return 1;
  }
  std::thread serving([&] { (void)(*server)->Serve(); });

  std::printf("command: http_bench --seconds %g --connections %s --route %s --threads %d\n",
              seconds, connections_arg.c_str(), route.c_str(), options.threads);
  std::string summary;
  for (int c : connection_counts) {
    RunResult r = Load((*server)->port(), c, seconds, path);
    std::printf("connections=%-4d rps=%8.0f p50_ms=%6.2f p99_ms=%7.2f max_ms=%7.1f errors=%llu\n", c,
                r.rps, r.p50_ms, r.p99_ms, r.max_ms, static_cast<unsigned long long>(r.errors));
    char part[128];
    std::snprintf(part, sizeof(part), "%srps_c%d=%.0f p99_ms_c%d=%.2f", summary.empty() ? "" : " ",
                  c, r.rps, c, r.p99_ms);
    summary += part;
  }
  std::printf("%s\n", summary.c_str());
  (*server)->Stop();
  serving.join();
  server->reset();
  db->reset();
  std::filesystem::remove_all(dir);
  return 0;
}
