// index_bench: the vector index against an exact scan (and, with
// --compare-faiss, against FAISS's IndexFlatIP and IndexHNSWFlat on the same
// vectors in the same run).
//
//   index_bench [--n N] [--dim D] [--queries Q] [--k K] [--threads T]
//               [--build-threads B] [--m M] [--ef-construction E]
//               [--ef E | --target-recall R] [--clusters C] [--seed S]
//               [--base FILE.fvecs --query FILE.fvecs] [--compare-faiss] [--filtered]
//               [--index-file PATH]   (reuse a saved HNSW index between runs; for tuning)
//
// Data: a seeded Gaussian mixture (C centres ~ N(0, 1), points = centre +
// N(0, sigma^2)), L2-normalized so inner product = cosine; or fvecs files.
// Ground truth comes from FlatIndex. The ANN search's ef is raised until
// recall@k >= the target (0.95), exactly as FAISS's efSearch is.
//
// Prints the command, one line per measurement, and a final summary line:
//   recall@10=R ann_qps=A exact_qps=E speedup=S build_s=B mem_mb=M bandwidth_gbs=W scan_gbs=G

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "index/vector_index.h"
#include "index/vector_kernels.h"

#ifdef SKALD_HAVE_FAISS
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <omp.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Args {
  size_t n = 100000;
  int dim = 128;
  size_t queries = 1000;
  int k = 10;
  int threads = 1;
  int build_threads = 0;  // 0 = hardware concurrency
  int m = 32;
  int ef_construction = 100;
  int ef = 0;  // 0 = sweep until target recall
  double target_recall = 0.95;
  int clusters = 0;  // 0 = n / 1000, at least 16
  double sigma = 0.0;  // 0 = default
  uint64_t seed = 42;
  std::string base_file, query_file;
  bool compare_faiss = false;
  bool filtered = false;
  std::string index_file;  // load the HNSW index from here if possible, else build and save it
};

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string f = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (f == "--compare-faiss") {
      a->compare_faiss = true;
    } else if (f == "--filtered") {
      a->filtered = true;
    } else if ((v = next()) == nullptr) {
      std::fprintf(stderr, "missing value for %s\n", f.c_str());
      return false;
    } else if (f == "--n") {
      a->n = std::strtoull(v, nullptr, 10);
    } else if (f == "--dim") {
      a->dim = std::atoi(v);
    } else if (f == "--queries") {
      a->queries = std::strtoull(v, nullptr, 10);
    } else if (f == "--k") {
      a->k = std::atoi(v);
    } else if (f == "--threads") {
      a->threads = std::max(1, std::atoi(v));
    } else if (f == "--build-threads") {
      a->build_threads = std::atoi(v);
    } else if (f == "--m") {
      a->m = std::atoi(v);
    } else if (f == "--ef-construction") {
      a->ef_construction = std::atoi(v);
    } else if (f == "--ef") {
      a->ef = std::atoi(v);
    } else if (f == "--target-recall") {
      a->target_recall = std::atof(v);
    } else if (f == "--clusters") {
      a->clusters = std::atoi(v);
    } else if (f == "--sigma") {
      a->sigma = std::atof(v);
    } else if (f == "--seed") {
      a->seed = std::strtoull(v, nullptr, 10);
    } else if (f == "--base") {
      a->base_file = v;
    } else if (f == "--query") {
      a->query_file = v;
    } else if (f == "--index-file") {
      a->index_file = v;
    } else {
      std::fprintf(stderr, "unknown flag %s\n", f.c_str());
      return false;
    }
  }
  if (a->build_threads <= 0) a->build_threads = std::max(1u, std::thread::hardware_concurrency());
  return a->n > 0 && a->dim > 0 && a->queries > 0 && a->k > 0;
}

// Reads an fvecs file (per vector: int32 d, then d float32). Returns false on error.
bool ReadFvecs(const std::string& path, int* dim, std::vector<float>* out, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->clear();
  int32_t d = 0;
  size_t count = 0;
  while (count < limit && in.read(reinterpret_cast<char*>(&d), 4)) {
    if (d <= 0 || d > 65536 || (*dim > 0 && d != *dim)) return false;
    *dim = d;
    size_t at = out->size();
    out->resize(at + size_t(d));
    if (!in.read(reinterpret_cast<char*>(out->data() + at), 4 * std::streamsize(d))) return false;
    ++count;
  }
  return count > 0;
}

void Normalize(std::vector<float>* v, int dim) {
  for (size_t i = 0; i + size_t(dim) <= v->size(); i += size_t(dim)) {
    skald::NormalizeL2(v->data() + i, size_t(dim));
  }
}

// Seeded Gaussian mixture; base and queries share the centres.
void Generate(const Args& a, std::vector<float>* base, std::vector<float>* queries) {
  int clusters = a.clusters > 0 ? a.clusters : std::max<int>(16, int(a.n / 1000));
  double sigma = a.sigma > 0 ? a.sigma : 1.0;
  std::mt19937_64 rng(a.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> centres(size_t(clusters) * a.dim);
  for (auto& c : centres) c = normal(rng);
  auto fill = [&](std::vector<float>* out, size_t count) {
    out->resize(count * a.dim);
    std::uniform_int_distribution<int> pick(0, clusters - 1);
    for (size_t i = 0; i < count; ++i) {
      const float* c = centres.data() + size_t(pick(rng)) * a.dim;
      for (int j = 0; j < a.dim; ++j) (*out)[i * a.dim + j] = c[j] + float(sigma) * normal(rng);
    }
    Normalize(out, a.dim);
  };
  fill(base, a.n);
  fill(queries, a.queries);
}

// Single-thread memory copy bandwidth (bytes copied per second) over a buffer
// as large as the vectors the exact scan reads; best of three.
double CopyBandwidthGbs(size_t bytes) {
  bytes = std::max<size_t>(bytes, 64 << 20);
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    auto t = Clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    best = std::min(best, Since(t));
    src[rep] = dst[bytes - 1 - rep];  // keep the copies observable
  }
  return double(bytes) / best / 1e9;
}

// Runs fn(q) for every query on `threads` threads; returns wall seconds.
double RunQueries(size_t count, int threads, const std::function<void(size_t)>& fn) {
  auto t = Clock::now();
  if (threads <= 1) {
    for (size_t q = 0; q < count; ++q) fn(q);
  } else {
    std::vector<std::thread> pool;
    for (int w = 0; w < threads; ++w) {
      pool.emplace_back([&, w] {
        for (size_t q = size_t(w); q < count; q += size_t(threads)) fn(q);
      });
    }
    for (auto& th : pool) th.join();
  }
  return Since(t);
}

double Recall(const std::vector<std::vector<uint64_t>>& truth,
              const std::vector<std::vector<uint64_t>>& got, int k) {
  double hits = 0, total = 0;
  for (size_t q = 0; q < truth.size(); ++q) {
    std::unordered_set<uint64_t> t(truth[q].begin(), truth[q].begin() +
                                                         std::min<size_t>(truth[q].size(), k));
    for (size_t i = 0; i < got[q].size() && i < size_t(k); ++i) hits += t.count(got[q][i]);
    total += double(t.size());
  }
  return total > 0 ? hits / total : 1.0;
}

void Fail(const std::string& what, const skald::Status& s) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(1);
}

struct Summary {
  double recall = 0, ann_qps = 0, exact_qps = 0, build_s = 0, mem_mb = 0, scan_gbs = 0;
  int ef = 0;
};

void PrintSummary(const char* prefix, const Summary& s, double bandwidth, int k) {
  std::printf(
      "%srecall@%d=%.4f ann_qps=%.0f exact_qps=%.1f speedup=%.1f build_s=%.1f mem_mb=%.0f "
      "bandwidth_gbs=%.2f scan_gbs=%.2f\n",
      prefix, k, s.recall, s.ann_qps, s.exact_qps, s.exact_qps > 0 ? s.ann_qps / s.exact_qps : 0,
      s.build_s, s.mem_mb, bandwidth, s.scan_gbs);
  std::fflush(stdout);
}

const std::vector<int> kEfSweep = {10,  16,  24,  32,  40,  48,  56,  64,  72,  80,   96,  112,
                                   128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1536, 2048};

// Record fields used by --filtered: context_type 90% resource / 9% memory /
// 1% skill, owner one of 1000 users, URIs in 1000 directories, a 50% tag.
skald::RecordFields MakeRecord(size_t i) {
  skald::RecordFields r;
  r.key = i;
  r.account = "bench";
  r.level = 2;
  size_t bucket = (i * 2654435761u) % 100;
  r.context_type = bucket < 90   ? skald::ContextType::kResource
                   : bucket < 99 ? skald::ContextType::kMemory
                                 : skald::ContextType::kSkill;
  r.owner = "u" + std::to_string((i * 40503u) % 1000);
  r.uri = "viking://resources/d" + std::to_string(i % 1000) + "/f" + std::to_string(i);
  r.tags = {(i / 7) % 2 ? "parity=odd" : "parity=even"};
  return r;
}

std::unique_ptr<skald::VectorIndex> BuildIndex(const skald::VectorIndexOptions& o,
                                               const std::vector<float>& base, size_t n, int dim,
                                               double* seconds) {
  auto created = skald::NewVectorIndex(o);
  if (!created.ok()) Fail("create index", created.status());
  std::unique_ptr<skald::VectorIndex> index = std::move(created).value();
  auto t = Clock::now();
  const size_t batch = 50000;
  std::vector<skald::RecordFields> records;
  for (size_t start = 0; start < n; start += batch) {
    size_t end = std::min(n, start + batch);
    records.clear();
    for (size_t i = start; i < end; ++i) records.push_back(MakeRecord(i));
    auto s = index->Upsert(records, std::span<const float>(base.data() + start * dim,
                                                           (end - start) * size_t(dim)));
    if (!s.ok()) Fail("upsert", s);
  }
  *seconds = Since(t);
  return index;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command = "index_bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::printf("command: %s\n", command.c_str());
  Args a;
  if (!ParseArgs(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: index_bench [--n N] [--dim D] [--queries Q] [--k K] [--threads T] "
                 "[--build-threads B] [--m M] [--ef-construction E] [--ef E] "
                 "[--target-recall R] [--clusters C] [--sigma S] [--seed S] "
                 "[--base F --query F] [--compare-faiss] [--filtered]\n");
    return 2;
  }
  std::vector<float> base, queries;
  if (!a.base_file.empty() || !a.query_file.empty()) {
    int dim = 0;
    if (!ReadFvecs(a.base_file, &dim, &base, a.n) ||
        !ReadFvecs(a.query_file, &dim, &queries, a.queries)) {
      std::fprintf(stderr, "cannot read fvecs %s / %s\n", a.base_file.c_str(),
                   a.query_file.c_str());
      return 1;
    }
    a.dim = dim;
    a.n = base.size() / dim;
    a.queries = queries.size() / dim;
    Normalize(&base, a.dim);
    Normalize(&queries, a.dim);
  } else {
    Generate(a, &base, &queries);
  }
  const int dim = a.dim;
  const size_t n = a.n, nq = a.queries;
  const double data_bytes = double(n) * dim * sizeof(float);
  std::printf("data: n=%zu dim=%d queries=%zu k=%d simd=%s search_threads=%d build_threads=%d\n",
              n, dim, nq, a.k, skald::GetVectorKernels().name, a.threads, a.build_threads);
  const double bandwidth = CopyBandwidthGbs(size_t(data_bytes));
  std::printf("memcpy bandwidth: %.2f GB/s (bytes copied per second, one thread)\n", bandwidth);
  std::fflush(stdout);

  // ---- exact: FlatIndex ----
  skald::VectorIndexOptions flat_opts;
  flat_opts.kind = "flat";
  flat_opts.embedder = "bench";
  flat_opts.dim = dim;
  flat_opts.metric = skald::Metric::kInnerProduct;
  double flat_build = 0;
  auto flat = BuildIndex(flat_opts, base, n, dim, &flat_build);
  std::vector<std::vector<uint64_t>> truth(nq);
  skald::SearchOptions exact_opts;
  exact_opts.k = a.k;
  double exact_s = RunQueries(nq, a.threads, [&](size_t q) {
    std::vector<skald::SearchHit> hits;
    auto s = flat->Search(std::span<const float>(queries.data() + q * dim, dim), {}, exact_opts,
                          &hits);
    if (!s.ok()) Fail("exact search", s);
    for (const auto& h : hits) truth[q].push_back(h.id);
  });
  Summary ours;
  ours.exact_qps = double(nq) / exact_s;
  ours.scan_gbs = data_bytes * ours.exact_qps / 1e9;
  std::printf("flat: exact_qps=%.1f scan_gbs=%.2f (%.0f%% of memcpy) build_s=%.2f mem_mb=%.0f\n",
              ours.exact_qps, ours.scan_gbs, 100 * ours.scan_gbs / bandwidth, flat_build,
              double(flat->MemoryBytes()) / (1 << 20));
  std::fflush(stdout);

  // ---- ANN: HnswIndex ----
  skald::VectorIndexOptions hnsw_opts = flat_opts;
  hnsw_opts.kind = "hnsw";
  hnsw_opts.hnsw.m = a.m;
  hnsw_opts.hnsw.ef_construction = a.ef_construction;
  hnsw_opts.hnsw.build_threads = a.build_threads;
  std::unique_ptr<skald::VectorIndex> hnsw;
  if (!a.index_file.empty()) {
    auto t = Clock::now();
    auto loaded = skald::LoadVectorIndex(a.index_file, hnsw_opts);
    if (loaded.ok() && (*loaded)->size() == n) {
      hnsw = std::move(loaded).value();
      std::printf("hnsw: loaded %s in %.2f s (not rebuilt; build_s below is 0)\n",
                  a.index_file.c_str(), Since(t));
    }
  }
  if (!hnsw) {
    hnsw = BuildIndex(hnsw_opts, base, n, dim, &ours.build_s);
    if (!a.index_file.empty()) {
      auto t = Clock::now();
      auto s = hnsw->Save(a.index_file);
      if (!s.ok()) Fail("save", s);
      std::printf("hnsw: saved %s in %.2f s\n", a.index_file.c_str(), Since(t));
    }
  }
  ours.mem_mb = double(hnsw->MemoryBytes()) / (1 << 20);
  std::printf("hnsw: built in %.1f s on %d threads, mem_mb=%.0f\n", ours.build_s, a.build_threads,
              ours.mem_mb);
  std::fflush(stdout);
  auto run_ann = [&](int ef, const skald::RecordFilter& filter, size_t count,
                     std::vector<std::vector<uint64_t>>* got, skald::SearchPath* path) {
    got->assign(count, {});
    skald::SearchOptions o;
    o.k = a.k;
    o.ef = ef;
    return RunQueries(count, a.threads, [&](size_t q) {
      std::vector<skald::SearchHit> hits;
      skald::SearchStats st;
      auto s = hnsw->Search(std::span<const float>(queries.data() + q * dim, dim), filter, o,
                            &hits, &st);
      if (!s.ok()) Fail("ann search", s);
      if (q == 0 && path) *path = st.path;
      for (const auto& h : hits) (*got)[q].push_back(h.id);
    });
  };
  std::vector<int> sweep = a.ef > 0 ? std::vector<int>{a.ef} : kEfSweep;
  for (int ef : sweep) {
    if (ef < a.k && a.ef == 0) continue;
    std::vector<std::vector<uint64_t>> got;
    double s = run_ann(ef, {}, nq, &got, nullptr);
    double recall = Recall(truth, got, a.k);
    double qps = double(nq) / s;
    std::printf("hnsw: ef=%d recall@%d=%.4f qps=%.0f\n", ef, a.k, recall, qps);
    std::fflush(stdout);
    ours.recall = recall;
    ours.ann_qps = qps;
    ours.ef = ef;
    if (recall >= a.target_recall) break;
  }

  if (a.filtered) {
    struct Case {
      const char* name;
      skald::RecordFilter filter;
    };
    std::vector<Case> cases(6);
    cases[0].name = "tag parity=odd (50%)";
    cases[0].filter.tags = {"parity=odd"};
    cases[1].name = "context_type=memory (9%)";
    cases[1].filter.context_types = {skald::ContextType::kMemory};
    cases[2].name = "context_type=skill (1%)";
    cases[2].filter.context_types = {skald::ContextType::kSkill};
    cases[3].name = "owner=u7 (0.1%)";
    cases[3].filter.owners = {"u7"};
    cases[4].name = "children of one directory (0.1%)";
    cases[4].filter.uri_scopes = {skald::UriScope::Children("viking://resources/d7")};
    cases[5].name = "subtree + memory|skill + odd (~5%)";
    cases[5].filter.uri_scopes = {skald::UriScope::Subtree("viking://resources")};
    cases[5].filter.context_types = {skald::ContextType::kMemory, skald::ContextType::kSkill};
    cases[5].filter.tags = {"parity=odd"};
    // Filtered exact scans are slow at 1M: 200 queries per case are enough.
    const size_t fq = std::min<size_t>(nq, 200);
    for (const auto& c : cases) {
      std::vector<std::vector<uint64_t>> ftruth(fq), got;
      double fs = RunQueries(fq, a.threads, [&](size_t q) {
        std::vector<skald::SearchHit> hits;
        auto s = flat->Search(std::span<const float>(queries.data() + q * dim, dim), c.filter,
                              exact_opts, &hits);
        if (!s.ok()) Fail("exact filtered search", s);
        for (const auto& h : hits) ftruth[q].push_back(h.id);
      });
      skald::SearchPath path = skald::SearchPath::kEmpty;
      double s = run_ann(ours.ef, c.filter, fq, &got, &path);
      const char* path_name = path == skald::SearchPath::kGraph            ? "graph"
                              : path == skald::SearchPath::kExactCandidates ? "exact-candidates"
                              : path == skald::SearchPath::kExactScan       ? "exact-scan"
                                                                            : "empty";
      std::printf("filtered %-34s recall@%d=%.4f qps=%.0f path=%s flat_qps=%.1f\n", c.name, a.k,
                  Recall(ftruth, got, a.k), double(fq) / s, path_name, double(fq) / fs);
      std::fflush(stdout);
    }
  }

#ifdef SKALD_HAVE_FAISS
  if (a.compare_faiss) {
    flat.reset();  // free memory for FAISS's copies
    Summary fs;
    omp_set_num_threads(1);
    faiss::IndexFlatIP fflat(dim);
    fflat.add(faiss::Index::idx_t(n), base.data());
    std::vector<float> dist(size_t(a.k));
    std::vector<faiss::Index::idx_t> labels(size_t(a.k));
    double t_exact = RunQueries(nq, 1, [&](size_t q) {
      fflat.search(1, queries.data() + q * dim, a.k, dist.data(), labels.data());
    });
    fs.exact_qps = double(nq) / t_exact;
    fs.scan_gbs = data_bytes * fs.exact_qps / 1e9;
    std::printf("faiss flat: exact_qps=%.1f scan_gbs=%.2f (%.0f%% of memcpy)\n", fs.exact_qps,
                fs.scan_gbs, 100 * fs.scan_gbs / bandwidth);
    std::fflush(stdout);

    omp_set_num_threads(a.build_threads);
    faiss::IndexHNSWFlat fhnsw(dim, 32, faiss::METRIC_INNER_PRODUCT);
    fhnsw.hnsw.efConstruction = 100;
    auto t = Clock::now();
    fhnsw.add(faiss::Index::idx_t(n), base.data());
    fs.build_s = Since(t);
    fs.mem_mb = (data_bytes + 4.0 * fhnsw.hnsw.neighbors.size() + 8.0 * fhnsw.hnsw.offsets.size() +
                 4.0 * fhnsw.hnsw.levels.size()) /
                (1 << 20);
    std::printf("faiss hnsw: built in %.1f s on %d threads (M=32, efConstruction=100)\n",
                fs.build_s, a.build_threads);
    omp_set_num_threads(1);
    for (int ef : kEfSweep) {
      if (ef < a.k) continue;
      // FAISS 1.7.3 ignores SearchParametersHNSW::efSearch (measured: recall
      // stays at the efSearch=16 value), so the index field is set instead.
      fhnsw.hnsw.efSearch = ef;
      faiss::SearchParametersHNSW params;
      params.efSearch = ef;
      std::vector<std::vector<uint64_t>> got(nq);
      double s = RunQueries(nq, 1, [&](size_t q) {
        std::vector<float> d(size_t(a.k));
        std::vector<faiss::Index::idx_t> l(size_t(a.k));
        fhnsw.search(1, queries.data() + q * dim, a.k, d.data(), l.data(), &params);
        for (auto id : l) {
          if (id >= 0) got[q].push_back(uint64_t(id));
        }
      });
      fs.recall = Recall(truth, got, a.k);
      fs.ann_qps = double(nq) / s;
      std::printf("faiss hnsw: efSearch=%d recall@%d=%.4f qps=%.0f\n", ef, a.k, fs.recall,
                  fs.ann_qps);
      std::fflush(stdout);
      if (fs.recall >= a.target_recall) break;
    }
    PrintSummary("faiss: ", fs, bandwidth, a.k);
  }
#else
  if (a.compare_faiss) std::printf("faiss: not available in this build\n");
#endif
  std::printf("skald hnsw: ef=%d m=%d ef_construction=%d\n", ours.ef, a.m, a.ef_construction);
  PrintSummary("", ours, bandwidth, a.k);
  return 0;
}
