// lexical_bench: BM25 retrieval quality and speed of the FTS5 lexical index on
// a BEIR-format data set (corpus.jsonl, queries.jsonl, qrels.tsv).
//
//   lexical_bench --beir DIR [--k1 X] [--b X] [--max-docs N]
//                 [--title-weight W] [--body-weight W] [--no-stem] [--no-stop]
//                 [--stop-words FILE] [--index PATH] [--replicate N] [--query-words N]
//                 [--no-prune] [--k K] [--reuse-index]
//   lexical_bench --generate-tiny DIR     (writes a small synthetic set, then runs on it)
//
// Indexes title (title field) + text (body field), runs every query that has
// qrels with k = 100 (--k) on one thread, and prints the command, then
//   ndcg@10=… recall@100=… qps=… cpu_qps=… p50_ms=… p99_ms=… build_s=… tokens_per_s=… docs=…
//   queries=…
// qps and latencies are wall time; cpu_qps and tokens_per_s use the process's
// CPU time, which a shared machine disturbs less (all of it is one thread).
// --replicate N indexes N copies of the corpus (copies 2..N never relevant)
// to measure speed at N times the size; quality then drops by construction.
// --query-words N keeps the first N words of each query (short agent queries).
// --reuse-index keeps the index file and reuses it when it holds as many
// records as the corpus (query-side experiments without rebuilding).
// nDCG@10 uses gain = qrels score and log2(rank + 1) discounts (pytrec_eval's
// ndcg_cut_10, as BEIR reports it).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "beir.h"
#include "common/json_util.h"
#include "index/lexical_index.h"
#include "text/tokenizer.h"

using skald::bench::BeirDataSet;
using skald::bench::BeirDocument;
using skald::bench::LoadBeir;
using skald::bench::NdcgAt10;
using skald::bench::ReadLines;
using skald::bench::RecallAt;

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds used by this process: steadier than wall time on a shared machine.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A small synthetic BEIR set: documents of Zipf-distributed words; each query
// takes a few words of one document, which is its single relevant answer.
bool GenerateTiny(const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::mt19937 rng(7);
  std::vector<std::string> vocab;
  for (int i = 0; i < 500; ++i) vocab.push_back("term" + std::to_string(i));
  std::vector<double> weights;
  for (int i = 0; i < 500; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> word(weights.begin(), weights.end());
  std::ofstream corpus(dir + "/corpus.jsonl"), queries(dir + "/queries.jsonl"),
      qrels(dir + "/qrels.tsv");
  qrels << "query-id\tcorpus-id\tscore\n";
  for (int d = 0; d < 300; ++d) {
    std::vector<std::string> words;
    for (int w = 0; w < 40; ++w) words.push_back(vocab[word(rng)]);
    std::string text;
    for (const auto& w : words) text += w + " ";
    corpus << skald::DumpJson({{"_id", "d" + std::to_string(d)},
                               {"title", words[0] + " " + words[1]},
                               {"text", text}})
           << "\n";
    if (d % 5 == 0) {
      std::string q = words[3] + " " + words[7] + " " + words[11] + " " + words[13];
      queries << skald::DumpJson({{"_id", "q" + std::to_string(d)}, {"text", q}}) << "\n";
      qrels << "q" << d << "\td" << d << "\t1\n";
    }
  }
  return static_cast<bool>(qrels);
}

// The SQLite file and its companions; nothing else at that path is touched.
void RemoveIndexFiles(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

int Usage() {
  std::fprintf(stderr,
               "usage: lexical_bench (--beir DIR | --generate-tiny DIR) [--k1 X] [--b X] "
               "[--max-docs N] [--title-weight W] [--body-weight W] [--no-stem] [--no-stop] "
               "[--stop-words FILE] [--index PATH] [--replicate N] [--query-words N] "
               "[--no-prune] [--k K] [--reuse-index]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string beir, tiny, stop_file;
  std::string index_path =
      (std::filesystem::temp_directory_path() / "skald-lexical-bench" / "lexical.db").string();
  size_t max_docs = 0;
  int replicate = 1;
  size_t query_words = 0;
  int k = 100;
  bool reuse_index = false;
  skald::LexicalIndexOptions options;
  skald::TokenizerOptions tokenizer_options;
  std::string command = "lexical_bench";
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    command += " " + flag;
    if (flag == "--no-stem") {
      tokenizer_options.stem_english = false;
      continue;
    }
    if (flag == "--reuse-index") {
      reuse_index = true;
      continue;
    }
    if (flag == "--no-prune") {
      options.prune = false;
      continue;
    }
    if (flag == "--no-stop") {
      tokenizer_options.remove_stop_words = false;
      continue;
    }
    if (i + 1 >= argc) return Usage();
    std::string value = argv[++i];
    command += " " + value;
    if (flag == "--beir")
      beir = value;
    else if (flag == "--generate-tiny")
      tiny = value;
    else if (flag == "--k1")
      options.k1 = std::atof(value.c_str());
    else if (flag == "--b")
      options.b = std::atof(value.c_str());
    else if (flag == "--title-weight")
      options.title_weight = std::atof(value.c_str());
    else if (flag == "--body-weight")
      options.body_weight = std::atof(value.c_str());
    else if (flag == "--max-docs")
      max_docs = static_cast<size_t>(std::atoll(value.c_str()));
    else if (flag == "--stop-words")
      stop_file = value;
    else if (flag == "--index")
      index_path = value;
    else if (flag == "--replicate")
      replicate = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--k")
      k = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--query-words")
      query_words = static_cast<size_t>(std::atoll(value.c_str()));
    else
      return Usage();
  }
  if (beir.empty() == tiny.empty()) return Usage();
  std::printf("command: %s\n", command.c_str());
  if (!tiny.empty()) {
    if (!GenerateTiny(tiny)) return 1;
    beir = tiny;
  }
  if (!stop_file.empty() && !ReadLines(stop_file, &tokenizer_options.stop_words)) return 1;

  BeirDataSet data;
  if (!LoadBeir(beir, max_docs, &data)) return 1;
  if (query_words > 0) {
    for (auto& [id, text] : data.queries) {
      size_t pos = 0;
      for (size_t words = 0; words < query_words && pos != std::string::npos; ++words) {
        pos = text.find(' ', pos + 1);
      }
      if (pos != std::string::npos) text.resize(pos);
    }
  }
  const size_t originals = data.docs.size();
  for (int copy = 2; copy <= replicate; ++copy) {
    for (size_t i = 0; i < originals; ++i) {
      BeirDocument doc = data.docs[i];
      doc.id += "#" + std::to_string(copy);
      data.docs.push_back(std::move(doc));
    }
  }

  auto tokenizer = skald::NewIcuTokenizer(tokenizer_options);
  if (!tokenizer.ok()) {
    std::fprintf(stderr, "tokenizer: %s\n", tokenizer.status().ToString().c_str());
    return 1;
  }
  // Tokenizer speed alone, over the same text the index will see.
  size_t tokens = 0, bytes = 0;
  std::vector<skald::Token> scratch;
  auto start = Clock::now();
  const double tokenize_cpu_start = CpuSeconds();
  for (const BeirDocument& doc : data.docs) {
    for (const std::string* text : {&doc.title, &doc.text}) {
      scratch.clear();
      (*tokenizer)->Tokenize(*text, &scratch);
      tokens += scratch.size();
      bytes += text->size();
    }
  }
  double tokenize_s = Seconds(start);
  double tokenize_cpu_s = CpuSeconds() - tokenize_cpu_start;

  if (!reuse_index) RemoveIndexFiles(index_path);
  options.path = index_path;
  options.tokenizer = tokenizer->get();
  options.read_connections = 1;
  auto index = skald::OpenFts5LexicalIndex(options);
  if (!index.ok()) {
    std::fprintf(stderr, "open: %s\n", index.status().ToString().c_str());
    return 1;
  }
  std::unordered_map<uint64_t, std::string> doc_ids;
  for (size_t i = 0; i < data.docs.size(); ++i) doc_ids[i + 1] = data.docs[i].id;
  skald::RecordFilter filter;
  filter.account = "bench";
  auto existing = (*index)->Count(filter);
  const bool build = !reuse_index || !existing.ok() || *existing != data.docs.size();
  start = Clock::now();
  const double build_cpu_start = CpuSeconds();
  constexpr size_t kBatch = 1000;
  for (size_t first = 0; build && first < data.docs.size(); first += kBatch) {
    std::vector<skald::RecordFields> records;
    std::vector<skald::LexicalText> texts;
    for (size_t i = first; i < std::min(first + kBatch, data.docs.size()); ++i) {
      skald::RecordFields record;
      record.key = i + 1;
      record.account = "bench";
      record.uri = "viking://resources/beir/" + data.docs[i].id;
      records.push_back(std::move(record));
      skald::LexicalText text;
      text.title = data.docs[i].title;
      text.body = data.docs[i].text;
      texts.push_back(std::move(text));
    }
    skald::Status status = (*index)->Upsert(records, texts);
    if (!status.ok()) {
      std::fprintf(stderr, "upsert: %s\n", status.ToString().c_str());
      return 1;
    }
  }
  skald::Status optimized = build ? (*index)->Optimize() : skald::Status::Ok();
  if (!optimized.ok()) {
    std::fprintf(stderr, "optimize: %s\n", optimized.ToString().c_str());
    return 1;
  }
  double build_s = Seconds(start);
  double build_cpu_s = CpuSeconds() - build_cpu_start;
  double ndcg = 0, recall = 0;
  size_t evaluated = 0;
  std::vector<skald::SearchHit> hits;
  std::vector<double> latencies;
  start = Clock::now();
  const double cpu_start = CpuSeconds();
  for (const auto& [query_id, relevant] : data.qrels) {
    auto query = data.queries.find(query_id);
    if (query == data.queries.end()) continue;
    auto query_start = Clock::now();
    skald::Status status = (*index)->Search(query->second, filter, k, &hits);
    latencies.push_back(Seconds(query_start) * 1e3);
    if (!status.ok()) {
      std::fprintf(stderr, "search: %s\n", status.ToString().c_str());
      return 1;
    }
    std::vector<std::string> ranked;
    for (const skald::SearchHit& hit : hits) ranked.push_back(doc_ids[hit.id]);
    ndcg += NdcgAt10(ranked, relevant);
    recall += RecallAt(ranked, relevant, 100);
    ++evaluated;
  }
  double search_s = Seconds(start);
  double search_cpu_s = CpuSeconds() - cpu_start;
  if (evaluated == 0) {
    std::fprintf(stderr, "no query has qrels\n");
    return 1;
  }
  std::printf(
      "tokenizer %s: %zu tokens from %.1f MB in %.3f s wall, %.3f s CPU "
      "(%.2f M tokens/s, %.1f MB/s per CPU second)\n",
      (*tokenizer)->Name().c_str(), tokens, bytes / 1e6, tokenize_s, tokenize_cpu_s,
      tokens / tokenize_cpu_s / 1e6, bytes / tokenize_cpu_s / 1e6);
  if (build) {
    std::printf(
        "index: %zu docs in %.2f s wall, %.2f s CPU (%.0f docs per CPU second, incl. "
        "optimize)\n",
        data.docs.size(), build_s, build_cpu_s, data.docs.size() / build_cpu_s);
  } else {
    std::printf("index: reused %s (%zu docs)\n", index_path.c_str(), data.docs.size());
  }
  std::printf("bm25: k1=%g b=%g weights title=%g body=%g prune=%s k=%d\n", options.k1, options.b,
              options.title_weight, options.body_weight, options.prune ? "on" : "off", k);
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) {
    return latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))];
  };
  std::printf(
      "ndcg@10=%.4f recall@%d=%.4f qps=%.0f cpu_qps=%.0f p50_ms=%.2f p99_ms=%.2f "
      "build_s=%.2f tokens_per_s=%.0f docs=%zu queries=%zu\n",
      ndcg / evaluated, std::min(k, 100), recall / evaluated, evaluated / search_s,
      evaluated / search_cpu_s, percentile(0.5), percentile(0.99), build_s, tokens / tokenize_cpu_s,
      data.docs.size(), evaluated);
  index->reset();
  if (!reuse_index) RemoveIndexFiles(index_path);
  return 0;
}
