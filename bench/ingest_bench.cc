// ingest_bench: add-resource throughput and find latency through the Db
// facade on embedded defaults (hashing embedder, extractive summaries).
//
//   ingest_bench [--files N] [--size BYTES] [--dirs D] [--queries Q] [--dir PATH] [--no-sync]
//                [--lexical-index fts5|memory] [--hits FILE] [--link-during-import]
//   ingest_bench --suite [--dir PATH] [--no-sync] [--lexical-index fts5|memory]
//                [--link-during-import]
//
// Generates N markdown files of about BYTES each in D directories (words
// drawn from a fixed vocabulary with a Zipf-like skew, so BM25 and the
// hashing embedder see realistic term statistics), imports them with one
// add-resource (wait=true), then runs Q find queries of 3 vocabulary words
// and reports latency percentiles. Prints the command, then the import's
// MB/s, files/s, CPU seconds and the share of each stage (from the task's
// `timings_ms`), then the find latencies.
//
// --lexical-index picks `retrieval.lexical_index` (without it: Skald's
// default): with "memory" the import's lexical stage skips SQLite FTS5.
// --hits writes every find's query and ranked hits (URI, level, score) to
// FILE, to compare two builds' search results.
// --link-during-import turns DbOptions::link_after_imports off: the vector
// linker runs during the import instead of after it. (The close saves what
// waits for links as waiting; it links nothing.)
//
// --suite runs the two standard imports one after the other, without finds:
// "small" = 5,000 files of 1.5 KiB in 50 directories, "large" = 500 files
// of 64 KiB in 10 directories (each split into sections).
//
// The heap is set up as in the `skald` binary (common/heap.h). The
// generated source is flushed to disk (sync) before the timed import.
// Removing a previous run's directory right before a run (as this bench
// does with --dir) can make the kernel's inode allocation slower for a
// while (ext4 skips inodes freed in the last seconds, longer while their
// inode table is not yet written back): use a new --dir, or let the
// machine settle, for figures that do not include it.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "common/heap.h"
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


double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

struct Config {
  std::string name = "custom";
  int files = 2000;
  size_t size = 4096;
  int dirs = 40;
  int queries = 500;
  bool sync = true;
  bool find_only = false;
  std::string dir = "/tmp/skald-ingest-bench";
  std::string lexical_index;  // "" = Skald's default
  std::string hits;  // file for the finds' hits; "" = none
  bool link_during_import = false;  // DbOptions::link_after_imports = false
};

// Prints the stage shares of the newest add_resource task of `who`.
void PrintStages(skald::Db& db, const skald::Identity& who) {
  skald::TaskFilter filter;
  filter.task_type = "add_resource";
  filter.limit = 1;
  auto tasks = db.ListTasks(who, filter);
  if (!tasks.ok() || tasks->empty()) return;
  nlohmann::json result = nlohmann::json::parse(tasks->front().result_json, nullptr, false);
  if (!result.is_object() || !result.contains("timings_ms")) return;
  const nlohmann::json& timings = result["timings_ms"];
  double total = timings.value("total", 0.0);
  if (total <= 0) return;
  std::printf("stages (ms, share of the job's %.0f ms):", total);
  for (const auto& [name, ms] : timings.items()) {
    if (name == "total" || !ms.is_number()) continue;
    std::printf(" %s=%.0f (%.0f%%)", name.c_str(), ms.get<double>(),
                100.0 * ms.get<double>() / total);
  }
  std::printf("\n");
}

// One import (and its finds); returns the exit code.
int Run(const Config& c) {
  std::string lexical = c.lexical_index.empty() ? "" : " --lexical-index " + c.lexical_index;
  std::printf(
      "command: ingest_bench --files %d --size %zu --dirs %d --queries %d --dir %s%s%s%s%s\n",
      c.files, c.size, c.dirs, c.queries, c.dir.c_str(), c.sync ? "" : " --no-sync",
      c.find_only ? " --find-only" : "", lexical.c_str(),
      c.link_during_import ? " --link-during-import" : "");
  const int files = c.files;
  const size_t size = c.size;
  const int dirs = c.dirs;
  const int queries = c.queries;
  const bool sync = c.sync;
  const bool find_only = c.find_only;
  const std::string& dir = c.dir;

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
  // The source is on disk before the clock starts, as a user's files are:
  // otherwise the import's first durability barrier (syncfs) would write
  // the bench's own freshly generated files.
  if (!find_only) ::sync();

  skald::DbOptions options;
  options.workspace = dir + "/ws";
  options.sync_writes = sync;
  options.link_after_imports = !c.link_during_import;
  if (!c.lexical_index.empty()) options.retrieval.lexical_index = c.lexical_index;
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
  double cpu_start = CpuSeconds();
  auto added = (*db)->AddResource(who, add);
  double ingest_s = Seconds(start);
  if (!added.ok()) {
    std::fprintf(stderr, "add-resource: %s\n", added.status().ToString().c_str());
    return 1;
  }
  mb_per_s = static_cast<double>(bytes) / 1e6 / ingest_s;
  double cpu_s = CpuSeconds() - cpu_start;
  std::printf(
      "ingest[%s]: files=%d bytes=%llu seconds=%.2f mb_per_s=%.2f files_per_s=%.0f "
      "cpu_s=%.2f cpu_mb_per_s=%.2f\n",
      c.name.c_str(), files, static_cast<unsigned long long>(bytes), ingest_s, mb_per_s,
      files / ingest_s, cpu_s, static_cast<double>(bytes) / 1e6 / cpu_s);
  PrintStages(**db, who);
  }
  if (queries == 0) {
    // The close saves the indexes (vectors still waiting for the linker are
    // saved waiting).
    auto close_start = Clock::now();
    (*db).reset();
    std::printf("close: seconds=%.2f\n", Seconds(close_start));
    return 0;
  }

  std::vector<double> latencies;
  uint64_t hits = 0;
  std::ofstream hits_out;
  if (!c.hits.empty()) hits_out.open(c.hits);
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
    if (hits_out.is_open()) {
      hits_out << "query: " << find.query << "\n";
      for (const auto* group : {&found->memories, &found->resources, &found->skills}) {
        for (const skald::MatchedContext& m : *group) {
          hits_out << "  " << m.uri << " " << m.level << " " << m.score << "\n";
        }
      }
    }
  }
  double p50 = Percentile(latencies, 0.50);
  double p99 = Percentile(latencies, 0.99);
  std::printf("find: queries=%d p50_ms=%.2f p99_ms=%.2f mean_hits=%.1f\n", queries, p50, p99,
              static_cast<double>(hits) / queries);
  std::printf("ingest_mb_per_s=%.2f find_p50_ms=%.2f find_p99_ms=%.2f\n", mb_per_s, p50, p99);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // As the `skald` binary runs (common/heap.h): what a user of it gets.
  skald::KeepFreedHeapForReuse();
  Config c;
  bool suite = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--files") c.files = std::atoi(next().c_str());
    else if (a == "--size") c.size = static_cast<size_t>(std::atoll(next().c_str()));
    else if (a == "--dirs") c.dirs = std::atoi(next().c_str());
    else if (a == "--queries") c.queries = std::atoi(next().c_str());
    else if (a == "--dir") c.dir = next();
    else if (a == "--no-sync") c.sync = false;
    else if (a == "--find-only") c.find_only = true;
    else if (a == "--suite") suite = true;
    else if (a == "--lexical-index") c.lexical_index = next();
    else if (a == "--link-during-import") c.link_during_import = true;
    else if (a == "--hits") c.hits = next();
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (c.files < 1 || c.dirs < 1 || c.size < 64 || c.queries < 0) {
    std::fprintf(stderr, "--files, --dirs must be >= 1, --queries >= 0 and --size >= 64\n");
    return 2;
  }
  if (!suite) return Run(c);
  Config small = c;
  small.name = "small";
  small.files = 5000;
  small.size = 1536;
  small.dirs = 50;
  small.queries = 0;
  small.dir = c.dir + "/small";
  Config large = small;
  large.name = "large";
  large.files = 500;
  large.size = 65536;
  large.dirs = 10;
  large.dir = c.dir + "/large";
  for (const Config& one : {small, large}) {
    if (int rc = Run(one); rc != 0) return rc;
  }
  return 0;
}
