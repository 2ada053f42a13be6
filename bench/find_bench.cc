// find_bench: find latency at a given corpus size on embedded defaults
// (hashing embedder, default retrieval configuration), QUICK and THINKING,
// through the Db API in-process and through the HTTP API on loopback.
//
//   find_bench [--records N] [--workspace DIR] [--queries Q] [--rounds R]
//              [--size BYTES] [--fanout F] [--no-http] [--rebuild]
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
// overhead (http p50 - db p50). Client and server share the machine.

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

}  // namespace

int main(int argc, char** argv) {
  int64_t records = 100000;
  std::string dir = fs::temp_directory_path().string() + "/skald-find-bench";
  int queries = 200;
  int rounds = 3;
  size_t size = 600;
  bool http = true;
  bool rebuild = false;
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
    else {
      std::fprintf(stderr,
                   "usage: find_bench [--records N] [--workspace DIR] [--queries Q] [--rounds R] "
                   "[--size BYTES] [--fanout F] [--no-http] [--rebuild]\n");
      return 2;
    }
  }
  int leaves = 1;
  for (int l = 0; l < kLevels; ++l) leaves *= g_fanout;
  const int64_t dirs = 1 + g_fanout + g_fanout * g_fanout + leaves;  // root included
  if (g_fanout < 1 || g_fanout > 30 || records < 2 * dirs + 10 || queries < 1 || rounds < 1 ||
      size < 64) {
    std::fprintf(stderr,
                 "--fanout in 1..30, --records >= %lld, --queries and --rounds >= 1, --size >= 64\n",
                 static_cast<long long>(2 * dirs + 10));
    return 2;
  }
  const int64_t files = records - 2 * dirs;
  std::printf("command: find_bench --records %lld --workspace %s --queries %d --rounds %d "
              "--size %zu --fanout %d%s%s\n",
              static_cast<long long>(records), dir.c_str(), queries, rounds, size, g_fanout,
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

  auto opened_at = Clock::now();
  auto db = skald::Db::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  std::printf("open: ms=%.0f\n", Millis(opened_at));

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

  std::unique_ptr<skald::HttpServer> server;
  std::thread serving;
  if (http) {
    skald::ServerOptions server_options;
    server_options.port = 0;
    auto created = skald::HttpServer::Create(**db, server_options);
    if (!created.ok() || !(*created)->Bind().ok()) {
      std::fprintf(stderr, "server failed to start\n");
      return 1;
    }
    server = std::move(created).value();
    serving = std::thread([&] { (void)server->Serve(); });
  }

  struct Mode {
    const char* name;
    skald::RetrievalMode mode;
    const char* wire;
  };
  const Mode modes[] = {{"quick", skald::RetrievalMode::kQuick, "quick"},
                        {"thinking", skald::RetrievalMode::kThinking, "thinking"},
                        {"auto", skald::RetrievalMode::kAuto, "auto"}};
  std::string summary;
  for (const Mode& mode : modes) {
    Stats db_stats, http_stats;
    {
      // Warm-up: one pass over the queries, not measured.
      std::vector<double> ms;
      uint64_t hits = 0;
      double total = 0;
      for (int r = -1; r < rounds; ++r) {
        for (const std::string& text : query_texts) {
          skald::FindRequest find;
          find.query = text;
          find.mode = mode.mode;
          auto t0 = Clock::now();
          auto found = (*db)->Find(who, find);
          double elapsed = Millis(t0);
          if (!found.ok()) {
            std::fprintf(stderr, "find: %s\n", found.status().ToString().c_str());
            return 1;
          }
          if (r < 0) continue;
          ms.push_back(elapsed);
          total += elapsed;
          hits += found->total();
        }
      }
      db_stats = Summarize(ms, total, hits);
    }
    if (http) {
      httplib::Client client("127.0.0.1", server->port());
      client.set_keep_alive(true);
      client.set_read_timeout(30);
      client.set_tcp_nodelay(true);  // no Nagle delay between a request's headers and body
      std::vector<double> ms;
      double total = 0;
      for (int r = -1; r < rounds; ++r) {
        for (const std::string& text : query_texts) {
          std::string body = "{\"query\":" + JsonString(text) + ",\"retrieval_mode\":\"" +
                             mode.wire + "\"}";
          auto t0 = Clock::now();
          auto res = client.Post("/api/v1/search/find", body, "application/json");
          double elapsed = Millis(t0);
          if (!res || res->status != 200) {
            std::fprintf(stderr, "http find failed: %d %s\n", res ? res->status : -1,
                         res ? res->body.c_str() : "");
            return 1;
          }
          if (r < 0) continue;
          ms.push_back(elapsed);
          total += elapsed;
        }
      }
      http_stats = Summarize(ms, total, 0);
    }
    std::printf("mode=%-8s path=db   p50_ms=%6.3f p99_ms=%7.3f qps=%7.0f mean_hits=%.1f\n",
                mode.name, db_stats.p50, db_stats.p99, db_stats.qps, db_stats.mean_hits);
    if (http) {
      std::printf("mode=%-8s path=http p50_ms=%6.3f p99_ms=%7.3f qps=%7.0f http_overhead_p50_ms=%.3f\n",
                  mode.name, http_stats.p50, http_stats.p99, http_stats.qps,
                  http_stats.p50 - db_stats.p50);
    }
    char part[160];
    std::snprintf(part, sizeof(part), "%s%s_p50_ms=%.3f %s_p99_ms=%.3f", summary.empty() ? "" : " ",
                  mode.name, db_stats.p50, mode.name, db_stats.p99);
    summary += part;
    if (http) {
      std::snprintf(part, sizeof(part), " %s_http_p50_ms=%.3f", mode.name, http_stats.p50);
      summary += part;
    }
  }
  std::printf("%s\n", summary.c_str());
  if (server) {
    server->Stop();
    serving.join();
    server.reset();
  }
  db->reset();
  return 0;
}
