// find_bench: find latency at a given corpus size on embedded defaults
// (hashing embedder, default retrieval configuration), QUICK and THINKING,
// through the Db API in-process and through the HTTP API on loopback.
//
//   find_bench [--records N] [--workspace DIR] [--queries Q] [--rounds R]
//              [--size BYTES] [--fanout F] [--lexical fts5|memory|both]
//              [--no-http] [--rebuild]
//
// Builds (or reuses) a workspace of about N records: Markdown files of about
// BYTES each in a three-level directory tree (F x F x F leaf
// directories, F = 10), one topic per leaf directory (its own words mixed into a
// shared Zipf-distributed vocabulary), imported with add-resource (wait) so
// that every record is indexed. Records = files + 2 per directory (L0 and L1).
// A workspace built for the same N and BYTES is reused (DIR/built.txt), so
// re-runs only measure. Then runs Q fixed queries (half of them topic
// queries, half of them random common words) R times in each mode, one at a
// time, and prints p50/p99/QPS per mode and path (db, http) plus the HTTP
// overhead (http p50 - db p50), per lexical index (retrieval.lexical_index),
// and with `--lexical both` (the default) the ratios fts5/memory of one run.
// Client and server share the machine. The workspace is built with the
// default index; the other one is built from the catalog at its first open.

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "server/server.h"
#include "skald/db.h"
#include "synthetic_text.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int g_fanout = 10;  // directories per level (--fanout)
constexpr int kLevels = 3;      // levels of directories below the root
constexpr int kTopicWords = 40;  // words of a leaf directory's topic

// CPU time of the calling thread, ms: on a shared machine a query's wall
// time includes other processes' time slices, its CPU time does not.
double ThreadCpuMillis() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double Millis(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

using skald::bench::Pick;
using skald::bench::Vocabulary;

// The topic words of leaf directory `leaf`: mid-frequency vocabulary words.
std::vector<std::string> Topic(const std::vector<std::string>& vocab, int leaf) {
  std::mt19937_64 rng(1000 + static_cast<uint64_t>(leaf));
  std::vector<std::string> words;
  for (int i = 0; i < kTopicWords; ++i) words.push_back(vocab[500 + rng() % (vocab.size() - 500)]);
  return words;
}

std::string Document(std::mt19937_64& rng, const std::vector<std::string>& vocab,
                     const std::vector<std::string>& topic, size_t size, int index) {
  std::string doc = "# " + topic[rng() % topic.size()] + " " + topic[rng() % topic.size()] +
                    " note " + std::to_string(index) + "\n\n";
  while (doc.size() < size) {
    for (int s = 0; s < 12 && doc.size() < size; ++s) {
      // One word in six is the directory's topic.
      doc += rng() % 6 == 0 ? topic[Pick(rng, topic.size())] : vocab[Pick(rng, vocab.size())];
      doc += s == 11 ? ".\n" : " ";
    }
    if (rng() % 8 == 0) doc += "\n## " + vocab[Pick(rng, 3000)] + "\n\n";
  }
  return doc;
}

std::string LeafPath(int leaf) {
  std::string path;
  int rest = leaf;
  int div = 1;
  for (int l = 1; l < kLevels; ++l) div *= g_fanout;
  for (int l = 0; l < kLevels; ++l) {
    path += "/" + std::string(1, static_cast<char>('a' + l)) + std::to_string(rest / div);
    rest %= div;
    div = std::max(1, div / g_fanout);
  }
  return path;
}

struct Stats {
  double p50 = 0, p99 = 0, qps = 0, mean_hits = 0;
};

Stats Summarize(std::vector<double> ms, double total_ms, uint64_t hits) {
  Stats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.p50 = ms[ms.size() / 2];
  s.p99 = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  s.qps = static_cast<double>(ms.size()) / (total_ms / 1000);
  s.mean_hits = static_cast<double>(hits) / static_cast<double>(ms.size());
  return s;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

struct Measured {
  std::string mode, path;
  Stats stats;
};

// Opens the workspace with `options`, runs every query `rounds` times (after
// one unmeasured pass) per mode through the Db API and, with `http`, through
// a loopback server, and prints one line per mode and path.
skald::Status Measure(const skald::DbOptions& options, const std::vector<std::string>& queries,
                      int rounds, bool http, std::vector<Measured>* out) {
  const skald::Identity who{"default", "default", skald::Role::kRoot};
  auto opened_at = Clock::now();
  auto db = skald::Db::Open(options);
  if (!db.ok()) return db.status();
  std::printf("lexical_index=%s open_ms=%.0f\n", options.retrieval.lexical_index.c_str(),
              Millis(opened_at));
  std::unique_ptr<skald::HttpServer> server;
  std::thread serving;
  if (http) {
    skald::ServerOptions server_options;
    server_options.port = 0;
    server_options.access_log = false;  // one log line per request is not what is measured
    SKALD_ASSIGN_OR_RETURN(server, skald::HttpServer::Create(**db, server_options));
    SKALD_RETURN_IF_ERROR(server->Bind());
    serving = std::thread([&] { (void)server->Serve(); });
  }
  struct Mode {
    const char* name;
    skald::RetrievalMode mode;
  };
  const Mode modes[] = {{"quick", skald::RetrievalMode::kQuick},
                        {"thinking", skald::RetrievalMode::kThinking},
                        {"auto", skald::RetrievalMode::kAuto}};
  skald::Status status;
  for (const Mode& mode : modes) {
    std::vector<double> ms, cpu_ms;
    uint64_t hits = 0;
    double total = 0;
    // The warm-up pass also asks for the trace: how much work a query is.
    uint64_t traced = 0, rounds_total = 0, dirs_total = 0, thinking = 0;
    for (int r = -1; r < rounds && status.ok(); ++r) {
      for (const std::string& text : queries) {
        skald::FindRequest find;
        find.query = text;
        find.mode = mode.mode;
        find.include_provenance = r < 0;
        auto t0 = Clock::now();
        const double cpu0 = ThreadCpuMillis();
        auto found = (*db)->Find(who, find);
        const double elapsed = Millis(t0);
        const double cpu = ThreadCpuMillis() - cpu0;
        if (!found.ok()) {
          status = found.status();
          break;
        }
        if (r < 0) {  // warm-up
          if (found->trace) {
            ++traced;
            rounds_total += static_cast<uint64_t>(found->trace->rounds);
            dirs_total += found->trace->directories_visited.size();
            if (found->trace->mode == "thinking") ++thinking;
          }
          continue;
        }
        ms.push_back(elapsed);
        cpu_ms.push_back(cpu);
        total += elapsed;
        hits += found->total();
      }
    }
    if (!status.ok()) break;
    Measured in_process{mode.name, "db", Summarize(ms, total, hits)};
    std::printf("mode=%-8s path=db   p50_ms=%6.3f p99_ms=%7.3f qps=%7.0f mean_hits=%.1f\n",
                mode.name, in_process.stats.p50, in_process.stats.p99, in_process.stats.qps,
                in_process.stats.mean_hits);
    std::sort(cpu_ms.begin(), cpu_ms.end());
    if (!cpu_ms.empty()) {
      std::printf("mode=%-8s path=db   cpu_p50_ms=%6.3f cpu_p99_ms=%7.3f (thread CPU time)\n",
                  mode.name, cpu_ms[cpu_ms.size() / 2],
                  cpu_ms[std::min(cpu_ms.size() - 1, cpu_ms.size() * 99 / 100)]);
    }
    if (traced > 0) {
      const double n = static_cast<double>(traced);
      std::printf("mode=%-8s trace: descended=%.2f mean_rounds=%.2f mean_dirs_visited=%.1f\n",
                  mode.name, static_cast<double>(thinking) / n,
                  static_cast<double>(rounds_total) / n, static_cast<double>(dirs_total) / n);
    }
    out->push_back(in_process);
    if (!http) continue;
    httplib::Client client("127.0.0.1", server->port());
    client.set_keep_alive(true);
    client.set_read_timeout(30);
    client.set_tcp_nodelay(true);  // no Nagle delay between a request's headers and body
    ms.clear();
    total = 0;
    for (int r = -1; r < rounds && status.ok(); ++r) {
      for (const std::string& text : queries) {
        std::string body = "{\"query\":" + JsonString(text) + ",\"retrieval_mode\":\"" +
                           mode.name + "\"}";
        auto t0 = Clock::now();
        auto res = client.Post("/api/v1/search/find", body, "application/json");
        const double elapsed = Millis(t0);
        if (!res || res->status != 200) {
          status = skald::Status::Internal(
              "http find failed: " + std::to_string(res ? res->status : -1));
          break;
        }
        if (r < 0) continue;
        ms.push_back(elapsed);
        total += elapsed;
      }
    }
    if (!status.ok()) break;
    Measured over_http{mode.name, "http", Summarize(ms, total, 0)};
    std::printf("mode=%-8s path=http p50_ms=%6.3f p99_ms=%7.3f qps=%7.0f http_overhead_p50_ms=%.3f\n",
                mode.name, over_http.stats.p50, over_http.stats.p99, over_http.stats.qps,
                over_http.stats.p50 - in_process.stats.p50);
    out->push_back(over_http);
  }
  if (server) {
    server->Stop();
    serving.join();
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines as they come
  int64_t records = 100000;
  std::string dir = fs::temp_directory_path().string() + "/skald-find-bench";
  int queries = 200;
  int rounds = 3;
  size_t size = 600;
  bool http = true;
  bool rebuild = false;
  std::string lexical = "both";  // fts5 | memory | both (side by side)
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--records") records = std::atoll(next().c_str());
    else if (a == "--workspace") dir = next();
    else if (a == "--queries") queries = std::atoi(next().c_str());
    else if (a == "--rounds") rounds = std::atoi(next().c_str());
    else if (a == "--size") size = static_cast<size_t>(std::atoll(next().c_str()));
    else if (a == "--fanout") g_fanout = std::atoi(next().c_str());
    else if (a == "--no-http") http = false;
    else if (a == "--rebuild") rebuild = true;
    else if (a == "--lexical") lexical = next();
    else {
      std::fprintf(stderr,
                   "usage: find_bench [--records N] [--workspace DIR] [--queries Q] [--rounds R] "
                   "[--size BYTES] [--fanout F] [--lexical fts5|memory|both] [--no-http] [--rebuild]\n");
      return 2;
    }
  }
  int leaves = 1;
  for (int l = 0; l < kLevels; ++l) leaves *= g_fanout;
  const int64_t dirs = 1 + g_fanout + g_fanout * g_fanout + leaves;  // root included
  if ((lexical != "fts5" && lexical != "memory" && lexical != "both") || g_fanout < 1 ||
      g_fanout > 30 || records < 2 * dirs + 10 || queries < 1 || rounds < 1 ||
      size < 64) {
    std::fprintf(stderr,
                 "--fanout in 1..30, --records >= %lld, --queries and --rounds >= 1, --size >= 64\n",
                 static_cast<long long>(2 * dirs + 10));
    return 2;
  }
  const int64_t files = records - 2 * dirs;
  std::printf("command: find_bench --records %lld --workspace %s --queries %d --rounds %d "
              "--size %zu --fanout %d --lexical %s%s%s\n",
              static_cast<long long>(records), dir.c_str(), queries, rounds, size, g_fanout,
              lexical.c_str(),
              http ? "" : " --no-http", rebuild ? " --rebuild" : "");

  const std::vector<std::string> vocab = Vocabulary(30000);
  const std::string stamp = std::to_string(records) + " " + std::to_string(size) + " " +
                            std::to_string(g_fanout) + "\n";
  const std::string stamp_path = dir + "/built.txt";
  bool built = false;
  if (!rebuild) {
    std::ifstream in(stamp_path);
    std::stringstream text;
    text << in.rdbuf();
    built = in.good() && text.str() == stamp;
  }

  skald::DbOptions options;
  options.workspace = dir + "/ws";
  options.sync_writes = false;
  skald::Identity who{"default", "default", skald::Role::kRoot};
  if (!built) {
    fs::remove_all(dir);
    const std::string source = dir + "/source";
    std::mt19937_64 rng(42);
    std::vector<std::vector<std::string>> topics;
    for (int leaf = 0; leaf < leaves; ++leaf) topics.push_back(Topic(vocab, leaf));
    for (int64_t f = 0; f < files; ++f) {
      const int leaf = static_cast<int>(f % leaves);
      const std::string sub = source + "/corpus" + LeafPath(leaf);
      if (f < leaves) fs::create_directories(sub);
      std::ofstream(sub + "/n" + std::to_string(f) + ".md")
          << Document(rng, vocab, topics[static_cast<size_t>(leaf)], size, static_cast<int>(f));
    }
    auto db = skald::Db::Open(options);
    if (!db.ok()) {
      std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
      return 1;
    }
    auto start = Clock::now();
    skald::AddResourceRequest add;
    add.path = source + "/corpus";
    add.wait = true;
    auto added = (*db)->AddResource(who, add);
    if (!added.ok()) {
      std::fprintf(stderr, "add-resource: %s\n", added.status().ToString().c_str());
      return 1;
    }
    std::printf("built: files=%lld dirs=%lld records=%lld seconds=%.1f\n",
                static_cast<long long>(files), static_cast<long long>(dirs),
                static_cast<long long>(records), Millis(start) / 1000);
    db->reset();
    fs::remove_all(source);
    std::ofstream(stamp_path) << stamp;
  } else {
    std::printf("reused: %s (files=%lld dirs=%lld records=%lld)\n", options.workspace.c_str(),
                static_cast<long long>(files), static_cast<long long>(dirs),
                static_cast<long long>(records));
  }

  // The fixed queries: topic words of a leaf directory (THINKING has a
  // directory to find), or common and rarer words from the whole vocabulary.
  std::vector<std::string> query_texts;
  {
    std::mt19937_64 rng(99);
    for (int q = 0; q < queries; ++q) {
      std::string text;
      if (q % 2 == 0) {
        std::vector<std::string> topic = Topic(vocab, static_cast<int>(rng() % leaves));
        for (int w = 0; w < 2; ++w) text += topic[Pick(rng, topic.size())] + " ";
        text += vocab[Pick(rng, 5000)];
      } else {
        for (int w = 0; w < 3; ++w) text += vocab[Pick(rng, 5000)] + (w < 2 ? " " : "");
      }
      query_texts.push_back(text);
    }
  }

  std::vector<std::string> backends;
  if (lexical == "both") {
    backends = {"fts5", "memory"};
  } else {
    backends = {lexical};
  }
  std::vector<std::vector<Measured>> all;
  for (const std::string& backend : backends) {
    options.retrieval.lexical_index = backend;
    std::vector<Measured> measured;
    if (skald::Status st = Measure(options, query_texts, rounds, http, &measured); !st.ok()) {
      std::fprintf(stderr, "%s: %s\n", backend.c_str(), st.ToString().c_str());
      return 1;
    }
    all.push_back(std::move(measured));
  }
  std::string summary;
  for (size_t b = 0; b < backends.size(); ++b) {
    for (const Measured& m : all[b]) {
      char part[200];
      std::snprintf(part, sizeof(part), "%s%s_%s_%s_p50_ms=%.3f %s_%s_%s_p99_ms=%.3f",
                    summary.empty() ? "" : " ", backends[b].c_str(), m.mode.c_str(),
                    m.path.c_str(), m.stats.p50, backends[b].c_str(), m.mode.c_str(),
                    m.path.c_str(), m.stats.p99);
      summary += part;
    }
  }
  std::printf("%s\n", summary.c_str());
  if (backends.size() == 2) {
    // Side by side in one run (the machine is shared): fts5 / memory.
    for (size_t i = 0; i < all[0].size(); ++i) {
      const Measured& a = all[0][i];
      const Measured& b = all[1][i];
      std::printf("ratio fts5/memory mode=%-8s path=%-4s p50=%.1fx p99=%.1fx qps=%.1fx\n",
                  a.mode.c_str(), a.path.c_str(), a.stats.p50 / b.stats.p50,
                  a.stats.p99 / b.stats.p99, b.stats.qps / a.stats.qps);
    }
  }
  return 0;
}
