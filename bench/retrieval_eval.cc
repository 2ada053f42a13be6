// retrieval_eval: quality of hybrid retrieval (retrieve/retriever.h, QUICK
// mode) on a BEIR-format data set (corpus.jsonl, queries.jsonl, qrels.tsv)
// for several hybrid weights, to choose `retrieval.hybrid_weight`.
//
//   retrieval_eval --beir DIR [--weights 0,0.3,0.5,0.7,1] [--norm max|saturate|both]
//                  [--saturation 10[,20...]] [--limit 100] [--threshold 0] [--dim 512]
//                  [--max-docs N] [--work DIR] [--function-words strip|keep|both]
//   retrieval_eval --generate-tiny DIR     (writes a small synthetic set, then runs on it)
//
// Every document becomes one L2 record: its vector is the built-in hashing
// embedder's of title + text (a FlatIndex, so the vector side is exact), its
// lexical document is title (title field) + text (body field) in the FTS5
// index. Every query with qrels runs through Retriever::Retrieve (QUICK,
// limit = --limit) once per (normalization, saturation, weight), and the
// program prints the command, then one line per setting:
//   norm=… sat=… weight=… ndcg@10=… recall@100=… tune_ndcg@10=… report_ndcg@10=… qps=…
// (tune = the queries at even positions of the qrels order, report = odd:
// choose a setting on one half, quote the other).
// nDCG@10 uses gain = qrels grade and log2(rank + 1) discounts, as
// lexical_bench does (pytrec_eval's ndcg_cut_10, as BEIR reports it).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "beir.h"
#include "common/json_util.h"
#include "index/lexical_index.h"
#include "index/vector_index.h"
#include "model/hashing_embedder.h"
#include "retrieve/retriever.h"

using skald::bench::BeirDataSet;
using skald::bench::BeirDocument;
using skald::bench::LoadBeir;
using skald::bench::NdcgAt10;
using skald::bench::RecallAt;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kUriPrefix = "viking://resources/beir/";

// Every document as one L2 record (key = index + 1, abstract = title) and
// its text; titles and texts are moved out of `beir->docs`.
struct Records {
  std::vector<skald::Record> records;
  std::vector<std::string> texts;  // per record
};

Records ToRecords(BeirDataSet* beir) {
  Records out;
  for (BeirDocument& doc : beir->docs) {
    skald::Record r;
    r.key = out.records.size() + 1;
    r.account = "bench";
    r.uri = std::string(kUriPrefix) + doc.id;
    r.level = 2;
    r.context_type = skald::ContextType::kResource;
    r.abstract = std::move(doc.title);
    out.records.push_back(std::move(r));
    out.texts.push_back(std::move(doc.text));
  }
  return out;
}

// A small synthetic set: documents of Zipf-distributed words; each query
// takes a few words of one document, its single relevant answer.
bool GenerateTiny(const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::mt19937 rng(11);
  std::vector<double> weights;
  for (int i = 0; i < 400; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> word(weights.begin(), weights.end());
  std::ofstream corpus(dir + "/corpus.jsonl"), queries(dir + "/queries.jsonl"),
      qrels(dir + "/qrels.tsv");
  qrels << "query-id\tcorpus-id\tscore\n";
  for (int d = 0; d < 200; ++d) {
    std::vector<std::string> words;
    std::string text;
    for (int w = 0; w < 30; ++w) {
      words.push_back("w" + std::to_string(word(rng)));
      text += words.back() + " ";
    }
    corpus << skald::DumpJson(
                  {{"_id", "d" + std::to_string(d)}, {"title", words[0]}, {"text", text}})
           << "\n";
    if (d % 4 == 0) {
      const std::string q = words[2] + " " + words[5] + " " + words[9];
      queries << skald::DumpJson({{"_id", "q" + std::to_string(d)}, {"text", q}}) << "\n";
      qrels << "q" << d << "\td" << d << "\t1\n";
    }
  }
  return static_cast<bool>(qrels);
}

std::vector<double> ParseList(const std::string& text) {
  std::vector<double> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atof(item.c_str()));
  return out;
}

int Fail(const char* what, const skald::Status& status) {
  std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
  return 1;
}

int Usage() {
  std::fprintf(stderr,
               "usage: retrieval_eval (--beir DIR | --generate-tiny DIR) [--weights LIST] "
               "[--norm max|saturate|both] [--saturation LIST] [--limit N] [--threshold X] "
               "[--dim D] [--max-docs N] [--work DIR] [--function-words strip|keep|both]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string beir, tiny, norm = "max", function_words = "strip";
  std::string work = (std::filesystem::temp_directory_path() / "skald-retrieval-eval").string();
  std::vector<double> weights = {0, 0.3, 0.5, 0.7, 1}, saturations = {10};
  int limit = 100, dim = 512;
  double threshold = 0;
  size_t max_docs = 0;
  std::string command = "retrieval_eval";
  if (argc % 2 == 0) return Usage();  // flags come with values
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    command += " " + flag + " " + value;
    if (flag == "--beir") {
      beir = value;
    } else if (flag == "--generate-tiny") {
      tiny = value;
    } else if (flag == "--weights") {
      weights = ParseList(value);
    } else if (flag == "--norm") {
      norm = value;
    } else if (flag == "--saturation") {
      saturations = ParseList(value);
    } else if (flag == "--limit") {
      limit = std::atoi(value.c_str());
    } else if (flag == "--threshold") {
      threshold = std::atof(value.c_str());
    } else if (flag == "--dim") {
      dim = std::atoi(value.c_str());
    } else if (flag == "--max-docs") {
      max_docs = static_cast<size_t>(std::atoll(value.c_str()));
    } else if (flag == "--work") {
      work = value;
    } else if (flag == "--function-words") {
      function_words = value;
    } else {
      return Usage();
    }
  }
  if (beir.empty() == tiny.empty()) return Usage();
  if (norm != "max" && norm != "saturate" && norm != "both") return Usage();
  if (function_words != "strip" && function_words != "keep" && function_words != "both") {
    return Usage();
  }
  std::vector<bool> strip_settings;
  if (function_words != "keep") strip_settings.push_back(true);
  if (function_words != "strip") strip_settings.push_back(false);
  std::printf("command: %s\n", command.c_str());
  if (!tiny.empty()) {
    if (!GenerateTiny(tiny)) return 1;
    beir = tiny;
  }
  BeirDataSet beir_set;
  if (!LoadBeir(beir, max_docs, &beir_set)) return 1;
  const Records data = ToRecords(&beir_set);

  // Index every document in both indexes.
  const auto build_start = Clock::now();
  skald::HashingEmbedderOptions embedder_options;
  embedder_options.dimension = dim;
  auto embedder = skald::NewDefaultHashingEmbedder(embedder_options);
  if (!embedder.ok()) return Fail("embedder", embedder.status());
  skald::VectorIndexOptions vector_options;
  vector_options.kind = "flat";
  vector_options.embedder = (*embedder)->Name();
  vector_options.dim = dim;
  auto vectors = skald::NewVectorIndex(vector_options);
  if (!vectors.ok()) return Fail("vector index", vectors.status());
  std::filesystem::remove_all(work);
  skald::LexicalIndexOptions lexical_options;
  lexical_options.path = work + "/lexical.db";
  auto lexical = skald::OpenFts5LexicalIndex(lexical_options);
  if (!lexical.ok()) return Fail("lexical index", lexical.status());
  constexpr size_t kBatch = 512;
  for (size_t first = 0; first < data.records.size(); first += kBatch) {
    const size_t end = std::min(first + kBatch, data.records.size());
    std::vector<std::string> texts;
    std::vector<skald::RecordFields> records;
    std::vector<skald::LexicalText> lexical_texts;
    for (size_t i = first; i < end; ++i) {
      const skald::Record& r = data.records[i];
      texts.push_back(r.abstract + "\n" + data.texts[i]);
      records.push_back(r);
      lexical_texts.push_back({r.abstract, "", data.texts[i]});
    }
    auto embedded = (*embedder)->Embed(texts);
    if (!embedded.ok()) return Fail("embed", embedded.status());
    std::vector<float> flat;
    for (const auto& v : *embedded) flat.insert(flat.end(), v.begin(), v.end());
    skald::Status status = (*vectors)->Upsert(records, flat);
    if (status.ok()) status = (*lexical)->Upsert(records, lexical_texts);
    if (!status.ok()) return Fail("upsert", status);
  }
  if (skald::Status status = (*lexical)->Optimize(); !status.ok()) return Fail("optimize", status);
  std::printf("index: %zu docs in %.2f s (hashing dim %d + fts5)\n", data.records.size(),
              std::chrono::duration<double>(Clock::now() - build_start).count(), dim);

  skald::RetrievalSources sources;
  sources.vectors = vectors->get();
  sources.lexical = lexical->get();
  sources.embedder = embedder->get();
  sources.lookup = [&data](std::string_view, std::span<const uint64_t> keys)
      -> skald::Result<std::vector<skald::Record>> {
    std::vector<skald::Record> out;
    for (uint64_t key : keys) {
      if (key >= 1 && key <= data.records.size()) out.push_back(data.records[key - 1]);
    }
    return out;
  };
  std::vector<skald::LexicalNormalization> rules;
  if (norm != "saturate") rules.push_back(skald::LexicalNormalization::kMax);
  if (norm != "max") rules.push_back(skald::LexicalNormalization::kSaturate);
  for (skald::LexicalNormalization rule : rules) {
    const std::vector<double> sats =
        rule == skald::LexicalNormalization::kMax ? std::vector<double>{0} : saturations;
    for (double saturation : sats) {
      for (size_t setting = 0; setting < weights.size() * strip_settings.size(); ++setting) {
        const double weight = weights[setting % weights.size()];
        const bool strip = strip_settings[setting / weights.size()];
        skald::RetrievalOptions options;
        options.hybrid_weight = weight;
        options.strip_query_function_words = strip;
        options.lexical_normalization = rule;
        if (saturation > 0) options.lexical_saturation = saturation;
        skald::Retriever retriever(options);
        // Per split: [0] tune = queries at even positions of the qrels
        // order, [1] report = odd positions; choose on one, report the other.
        double ndcg[2] = {0, 0}, recall[2] = {0, 0};
        size_t counted[2] = {0, 0};
        size_t evaluated = 0;
        const auto start = Clock::now();
        for (const auto& [query_id, relevant] : beir_set.qrels) {
          auto text = beir_set.queries.find(query_id);
          if (text == beir_set.queries.end()) continue;
          skald::RetrievalQuery query;
          query.text = text->second;
          query.account = "bench";
          query.limit = limit;
          query.mode = skald::RetrievalMode::kQuick;
          query.score_threshold = threshold;
          auto result = retriever.Retrieve(query, sources);
          if (!result.ok()) return Fail("retrieve", result.status());
          std::vector<std::string> ranked;
          for (const auto& hit : result->hits) {
            ranked.push_back(hit.uri.substr(kUriPrefix.size()));
          }
          const size_t part = evaluated % 2;
          ndcg[part] += NdcgAt10(ranked, relevant);
          recall[part] += RecallAt(ranked, relevant, 100);
          ++counted[part];
          ++evaluated;
        }
        if (evaluated == 0) {
          std::fprintf(stderr, "no query has qrels\n");
          return 1;
        }
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        const auto mean = [](double sum, size_t n) { return n ? sum / static_cast<double>(n) : 0.0; };
        std::printf(
            "norm=%s sat=%g weight=%.2f function_words=%s ndcg@10=%.4f recall@100=%.4f "
            "tune_ndcg@10=%.4f report_ndcg@10=%.4f qps=%.0f queries=%zu\n",
            std::string(skald::LexicalNormalizationName(rule)).c_str(), saturation, weight,
            strip ? "strip" : "keep",
            mean(ndcg[0] + ndcg[1], evaluated), mean(recall[0] + recall[1], evaluated),
            mean(ndcg[0], counted[0]), mean(ndcg[1], counted[1]), evaluated / seconds, evaluated);
      }
    }
  }
  lexical->reset();
  std::filesystem::remove_all(work);
  return 0;
}
