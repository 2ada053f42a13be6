// ingest_bench: add-resource throughput and find latency through the Db
// facade on embedded defaults (hashing embedder, extractive summaries).
//
//   ingest_bench [--files N] [--size BYTES] [--dirs D] [--queries Q] [--dir PATH] [--no-sync]
//
// Generates N markdown files of about BYTES each in D directories (words
// drawn from a fixed vocabulary with a Zipf-like skew, so BM25 and the
// hashing embedder see realistic term statistics), imports them with one
// add-resource (wait=true), then runs Q find queries of 3 vocabulary words
// and reports latency percentiles. Prints the command, then one line per
// phase and a final summary line.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "skald/db.h"
#include "synthetic_text.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

using skald::bench::Pick;
using skald::bench::Vocabulary;

std::string Document(std::mt19937_64& rng, const std::vector<std::string>& vocab, size_t size,
                     int index) {
  std::string doc = "# Document " + std::to_string(index) + "\n\n";
  while (doc.size() < size) {
    for (int s = 0; s < 12 && doc.size() < size; ++s) {
      doc += vocab[Pick(rng, vocab.size())];
      doc += s == 11 ? ".\n" : " ";
    }
    if (rng() % 8 == 0) doc += "\n## Section " + std::to_string(rng() % 100) + "\n\n";
  }
  return doc;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  int files = 2000;
  size_t size = 4096;
  int dirs = 40;
  int queries = 500;
  bool sync = true;
  bool find_only = false;
  std::string dir = "/tmp/skald-ingest-bench";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--files") files = std::atoi(next().c_str());
    else if (a == "--size") size = static_cast<size_t>(std::atoll(next().c_str()));
    else if (a == "--dirs") dirs = std::atoi(next().c_str());
    else if (a == "--queries") queries = std::atoi(next().c_str());
    else if (a == "--dir") dir = next();
    else if (a == "--no-sync") sync = false;
    else if (a == "--find-only") find_only = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (files < 1 || dirs < 1 || size < 64 || queries < 1) {
    std::fprintf(stderr, "--files, --dirs, --queries must be >= 1 and --size >= 64\n");
    return 2;
  }
  std::printf("command: ingest_bench --files %d --size %zu --dirs %d --queries %d --dir %s%s%s\n",
              files, size, dirs, queries, dir.c_str(), sync ? "" : " --no-sync",
              find_only ? " --find-only" : "");

  namespace fs = std::filesystem;
  if (!find_only) fs::remove_all(dir);
  std::string source = dir + "/source/corpus";
  std::vector<std::string> vocab = Vocabulary(20000);
  std::mt19937_64 rng(42);
  uint64_t bytes = 0;
  for (int f = 0; f < files && !find_only; ++f) {
    std::string sub = source + "/d" + std::to_string(f % dirs);
    fs::create_directories(sub);
    std::string doc = Document(rng, vocab, size, f);
    bytes += doc.size();
    std::ofstream(sub + "/doc" + std::to_string(f) + ".md") << doc;
  }

  skald::DbOptions options;
  options.workspace = dir + "/ws";
  options.sync_writes = sync;
  auto db = skald::Db::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  skald::Identity who{"default", "default", skald::Role::kRoot};
  double mb_per_s = 0;
  if (!find_only) {
  skald::AddResourceRequest add;
  add.path = source;
  add.wait = true;
  auto start = Clock::now();
  auto added = (*db)->AddResource(who, add);
  double ingest_s = Seconds(start);
  if (!added.ok()) {
    std::fprintf(stderr, "add-resource: %s\n", added.status().ToString().c_str());
    return 1;
  }
  mb_per_s = static_cast<double>(bytes) / 1e6 / ingest_s;
  std::printf("ingest: files=%d bytes=%llu seconds=%.2f mb_per_s=%.2f files_per_s=%.0f\n", files,
              static_cast<unsigned long long>(bytes), ingest_s, mb_per_s, files / ingest_s);
  }

  std::vector<double> latencies;
  uint64_t hits = 0;
  for (int q = 0; q < queries; ++q) {
    skald::FindRequest find;
    for (int w = 0; w < 3; ++w) find.query += vocab[Pick(rng, 2000)] + " ";
    auto t0 = Clock::now();
    auto found = (*db)->Find(who, find);
    latencies.push_back(Seconds(t0) * 1000);
    if (!found.ok()) {
      std::fprintf(stderr, "find: %s\n", found.status().ToString().c_str());
      return 1;
    }
    hits += found->total();
  }
  double p50 = Percentile(latencies, 0.50);
  double p99 = Percentile(latencies, 0.99);
  std::printf("find: queries=%d p50_ms=%.2f p99_ms=%.2f mean_hits=%.1f\n", queries, p50, p99,
              static_cast<double>(hits) / queries);
  std::printf("ingest_mb_per_s=%.2f find_p50_ms=%.2f find_p99_ms=%.2f\n", mb_per_s, p50, p99);
  return 0;
}
