// routing_eval: how well directory summaries (L0 abstracts, L1 overviews)
// route a query to the right part of a tree, through the Db API a client
// uses, with embedded defaults (hashing embedder, extractive summaries).
//
//   routing_eval (--beir DIR | --generate-tiny DIR) [--max-docs N] [--top K1] [--leaves K2]
//                [--seed S] [--workspace DIR] [--show N] [--no-thinking] [--alpha A]
//   --alpha   retrieval.score_propagation_alpha for THINKING (default: the configured default)
//
// The corpus is laid out as a two-level topic tree with neutral directory
// names (tNN/lM/ID.md): spherical k-means (TF-IDF of the text module's
// tokens, k-means++ seeding from a fixed seed) splits the documents into K1
// top clusters (default 8), and each of those into K2 leaves (default 6).
// Every document is one markdown file, "# title" then its text. The tree is
// imported with one AddResource (wait=true), timed. Then, for every query
// with qrels (in query-id order; the tune half is the queries at even
// positions, the report half those at odd positions):
//   routing@k  leaves ranked by Find(levels 0,1) — directory abstracts and
//              overviews alone, QUICK — a leaf at its best record's rank; a
//              hit when a leaf holding a relevant document is among the
//              first k;
//   ceiling@k  the same with leaves ranked by their best document of a flat
//              Find(level 2);
//   ndcg@10    of Find(level 2) in QUICK and in THINKING mode.
// Prints the command, the tree, the import time, and one line per split.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "beir.h"
#include "common/json_util.h"
#include "skald/db.h"
#include "text/tokenizer.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using skald::bench::BeirDataSet;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A sparse L2-normalized vector: (term id, weight), sorted by term id.
using SparseVector = std::vector<std::pair<uint32_t, float>>;

// TF-IDF ((1 + ln tf) * ln(N / df)) of each document's title and text.
std::vector<SparseVector> TfIdf(const BeirDataSet& data, size_t* vocabulary) {
  auto tokenizer = skald::NewIcuTokenizer();
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::map<uint32_t, int>> counts(data.docs.size());
  std::vector<int> df;
  std::vector<skald::Token> tokens;
  for (size_t d = 0; d < data.docs.size(); ++d) {
    tokens.clear();
    (*tokenizer)->Tokenize(data.docs[d].title + "\n" + data.docs[d].text, &tokens);
    for (const skald::Token& t : tokens) {
      auto [it, added] = ids.emplace(t.term, static_cast<uint32_t>(ids.size()));
      if (added) df.push_back(0);
      if (counts[d][it->second]++ == 0) ++df[it->second];
    }
  }
  *vocabulary = ids.size();
  std::vector<SparseVector> out(data.docs.size());
  const double n = static_cast<double>(data.docs.size());
  for (size_t d = 0; d < counts.size(); ++d) {
    double norm = 0;
    for (auto [term, tf] : counts[d]) {
      if (df[term] < 2) continue;  // a term of one document groups nothing
      double w = (1 + std::log(tf)) * std::log(n / df[term]);
      out[d].emplace_back(term, static_cast<float>(w));
      norm += w * w;
    }
    for (auto& [term, w] : out[d]) w = static_cast<float>(w / std::sqrt(norm));
  }
  return out;
}

double Dot(const SparseVector& v, const std::vector<float>& centroid) {
  double s = 0;
  for (auto [term, w] : v) s += w * centroid[term];
  return s;
}

// Spherical k-means of the vectors `members` (indices into `vectors`) into
// at most k clusters; returns the cluster of each member, clusters numbered
// by their smallest member so the layout does not depend on seeding order.
std::vector<int> KMeans(const std::vector<SparseVector>& vectors, const std::vector<size_t>& members,
                        int k, size_t dim, uint64_t seed) {
  const size_t n = members.size();
  k = std::max(1, std::min<int>(k, static_cast<int>(n)));
  std::mt19937_64 rng(seed);
  std::vector<std::vector<float>> centroids;
  auto set_centroid = [&](size_t member) {
    std::vector<float> c(dim, 0);
    for (auto [term, w] : vectors[members[member]]) c[term] = w;
    centroids.push_back(std::move(c));
  };
  // k-means++: each next seed with probability ~ (1 - best cosine).
  set_centroid(rng() % n);
  std::vector<double> best(n, -1);
  while (static_cast<int>(centroids.size()) < k) {
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      best[i] = std::max(best[i], Dot(vectors[members[i]], centroids.back()));
      total += std::max(0.0, 1 - best[i]);
    }
    double r = std::uniform_real_distribution<double>(0, total)(rng);
    size_t pick = n - 1;
    for (size_t i = 0; i < n; ++i) {
      r -= std::max(0.0, 1 - best[i]);
      if (r <= 0) {
        pick = i;
        break;
      }
    }
    set_centroid(pick);
  }
  std::vector<int> assign(n, -1);
  for (int iteration = 0; iteration < 40; ++iteration) {
    bool changed = false;
    for (size_t i = 0; i < n; ++i) {
      int arg = 0;
      double top = -2;
      for (int c = 0; c < k; ++c) {
        double s = Dot(vectors[members[i]], centroids[c]);
        if (s > top) top = s, arg = c;
      }
      if (assign[i] != arg) changed = true, assign[i] = arg;
    }
    if (!changed) break;
    for (auto& c : centroids) std::fill(c.begin(), c.end(), 0.0f);
    std::vector<size_t> sizes(k, 0);
    for (size_t i = 0; i < n; ++i) {
      ++sizes[assign[i]];
      for (auto [term, w] : vectors[members[i]]) centroids[assign[i]][term] += w;
    }
    for (int c = 0; c < k; ++c) {
      double norm = 0;
      for (float w : centroids[c]) norm += double{w} * w;
      if (norm == 0) continue;  // empty: keeps no member, stays empty
      for (float& w : centroids[c]) w = static_cast<float>(w / std::sqrt(norm));
    }
  }
  // Renumber by first member, dropping empty clusters.
  std::map<int, int> renumber;
  for (size_t i = 0; i < n; ++i) renumber.emplace(assign[i], static_cast<int>(renumber.size()));
  for (int& a : assign) a = renumber[a];
  return assign;
}

// A small topical set for the CI run: four topics, each with its own words
// plus a shared background; each query takes words of one document.
bool GenerateTiny(const std::string& dir) {
  fs::create_directories(dir);
  std::mt19937 rng(5);
  std::ofstream corpus(dir + "/corpus.jsonl"), queries(dir + "/queries.jsonl"),
      qrels(dir + "/qrels.tsv");
  qrels << "query-id\tcorpus-id\tscore\n";
  const char* topics[] = {"ocean", "engine", "garden", "orbit"};
  for (int d = 0; d < 96; ++d) {
    const std::string topic = topics[d % 4];
    std::vector<std::string> words;
    std::string text;
    for (int w = 0; w < 40; ++w) {
      bool own = rng() % 3 != 0;
      words.push_back(own ? topic + std::to_string(rng() % 30) : "common" + std::to_string(rng() % 50));
      text += words.back() + (w % 10 == 9 ? ". " : " ");
    }
    corpus << skald::DumpJson({{"_id", "d" + std::to_string(d)},
                               {"title", topic + " " + words[1] + " " + words[3]},
                               {"text", text}})
           << "\n";
    if (d % 3 == 0) {
      queries << skald::DumpJson({{"_id", "q" + std::to_string(d)},
                                  {"text", words[4] + " " + words[7] + " " + words[11]}})
              << "\n";
      qrels << "q" << d << "\td" << d << "\t1\n";
    }
  }
  return static_cast<bool>(qrels);
}

struct Split {
  size_t queries = 0;
  double routing1 = 0, routing3 = 0, ceiling1 = 0, ceiling3 = 0, ndcg_quick = 0,
         ndcg_thinking = 0;
  void Add(const Split& o) {
    queries += o.queries;
    routing1 += o.routing1, routing3 += o.routing3, ceiling1 += o.ceiling1;
    ceiling3 += o.ceiling3, ndcg_quick += o.ndcg_quick, ndcg_thinking += o.ndcg_thinking;
  }
  void Print(const char* name, bool thinking) const {
    double n = std::max<size_t>(queries, 1);
    std::printf(
        "split=%s queries=%zu routing@1=%.3f routing@3=%.3f ceiling@1=%.3f ceiling@3=%.3f "
        "ndcg@10_quick=%.4f",
        name, queries, routing1 / n, routing3 / n, ceiling1 / n, ceiling3 / n, ndcg_quick / n);
    if (thinking) std::printf(" ndcg@10_thinking=%.4f", ndcg_thinking / n);
    std::printf("\n");
  }
};

// The node URI of a hit (without "/.abstract.md" or "/.overview.md").
std::string NodeUri(const std::string& uri) {
  for (std::string_view suffix : {"/.abstract.md", "/.overview.md"}) {
    if (uri.ends_with(suffix)) return uri.substr(0, uri.size() - suffix.size());
  }
  return uri;
}

std::string Parent(const std::string& uri) { return uri.substr(0, uri.rfind('/')); }

// 1 when one of the first k of `ranked` is in `wanted`.
double HitAt(const std::vector<std::string>& ranked, const std::set<std::string>& wanted,
             size_t k) {
  for (size_t i = 0; i < ranked.size() && i < k; ++i) {
    if (wanted.count(ranked[i])) return 1;
  }
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: routing_eval (--beir DIR | --generate-tiny DIR) [--max-docs N] [--top K1] "
               "[--leaves K2] [--seed S] [--workspace DIR] [--show N] [--no-thinking] [--alpha A]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string beir, tiny, workspace;
  size_t max_docs = 0;
  int top = 8, leaves = 6, show = 0;
  uint64_t seed = 17;
  bool thinking = true;
  double alpha = -1;  // retrieval.score_propagation_alpha; < 0 = the default
  std::string command = "routing_eval";
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    command += " " + flag;
    if (flag == "--no-thinking") {
      thinking = false;
      continue;
    }
    if (i + 1 >= argc) return Usage();
    const std::string value = argv[++i];
    command += " " + value;
    if (flag == "--beir") beir = value;
    else if (flag == "--generate-tiny") tiny = value;
    else if (flag == "--max-docs") max_docs = static_cast<size_t>(std::atoll(value.c_str()));
    else if (flag == "--top") top = std::atoi(value.c_str());
    else if (flag == "--leaves") leaves = std::atoi(value.c_str());
    else if (flag == "--seed") seed = static_cast<uint64_t>(std::atoll(value.c_str()));
    else if (flag == "--workspace") workspace = value;
    else if (flag == "--show") show = std::atoi(value.c_str());
    else if (flag == "--alpha") alpha = std::atof(value.c_str());
    else return Usage();
  }
  if (beir.empty() == tiny.empty() || top < 1 || leaves < 1) return Usage();
  std::printf("command: %s\n", command.c_str());
  if (!tiny.empty()) {
    if (!GenerateTiny(tiny)) return 1;
    beir = tiny;
  }
  BeirDataSet data;
  if (!skald::bench::LoadBeir(beir, max_docs, &data)) return 1;
  if (data.docs.empty()) {
    std::fprintf(stderr, "no documents\n");
    return 1;
  }

  // Cluster: top level, then leaves within each top cluster.
  auto cluster_start = Clock::now();
  size_t vocabulary = 0;
  std::vector<SparseVector> vectors = TfIdf(data, &vocabulary);
  std::vector<size_t> all(data.docs.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<int> top_of = KMeans(vectors, all, top, vocabulary, seed);
  int tops = *std::max_element(top_of.begin(), top_of.end()) + 1;
  std::vector<std::string> leaf_of(data.docs.size());  // "tNN/lM"
  std::map<std::string, size_t> leaf_sizes;
  for (int t = 0; t < tops; ++t) {
    std::vector<size_t> members;
    for (size_t i = 0; i < all.size(); ++i) {
      if (top_of[i] == t) members.push_back(i);
    }
    std::vector<int> sub = KMeans(vectors, members, leaves, vocabulary, seed + 1 + t);
    for (size_t j = 0; j < members.size(); ++j) {
      char name[32];
      std::snprintf(name, sizeof(name), "t%02d/l%d", t, sub[j]);
      leaf_of[members[j]] = name;
      ++leaf_sizes[name];
    }
  }
  size_t smallest = data.docs.size(), largest = 0;
  for (const auto& [leaf, size] : leaf_sizes) {
    smallest = std::min(smallest, size);
    largest = std::max(largest, size);
  }
  std::printf("tree: docs=%zu top=%d leaves=%zu leaf_docs=%zu..%zu cluster_s=%.1f\n",
              data.docs.size(), tops, leaf_sizes.size(), smallest, largest,
              Seconds(cluster_start));

  // Write the tree and import it.
  const bool own_workspace = workspace.empty();
  if (own_workspace) {
    workspace = (fs::temp_directory_path() / ("routing_eval." + std::to_string(::getpid()))).string();
  }
  fs::remove_all(workspace);
  const std::string source = workspace + "/source/corpus";
  std::map<std::string, std::string> leaf_of_id;
  uint64_t bytes = 0;
  for (size_t i = 0; i < data.docs.size(); ++i) {
    const auto& doc = data.docs[i];
    fs::create_directories(source + "/" + leaf_of[i]);
    std::string text = "# " + doc.title + "\n\n" + doc.text + "\n";
    bytes += text.size();
    std::ofstream(source + "/" + leaf_of[i] + "/" + doc.id + ".md") << text;
    leaf_of_id[doc.id] = leaf_of[i];
  }
  skald::DbOptions options;
  options.workspace = workspace + "/ws";
  if (alpha >= 0) options.retrieval.score_propagation_alpha = alpha;
  auto db = skald::Db::Open(options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  skald::Identity who{"default", "default", skald::Role::kRoot};
  skald::AddResourceRequest add;
  add.path = source;
  add.wait = true;
  auto import_start = Clock::now();
  auto added = (*db)->AddResource(who, add);
  if (!added.ok()) {
    std::fprintf(stderr, "add-resource: %s\n", added.status().ToString().c_str());
    return 1;
  }
  const double import_s = Seconds(import_start);
  std::printf("import: files=%zu bytes=%llu seconds=%.2f mb_per_s=%.2f\n", data.docs.size(),
              static_cast<unsigned long long>(bytes), import_s, bytes / 1e6 / import_s);
  const std::string root = added->root_uri;
  for (const auto& [leaf, size] : leaf_sizes) {
    if (show-- <= 0) break;
    auto abstract = (*db)->Abstract(who, root + "/" + leaf);
    std::printf("L0 %s/ (%zu docs): %s\n", leaf.c_str(), size,
                abstract.ok() ? abstract->c_str() : abstract.status().ToString().c_str());
  }

  auto find = [&](const std::string& query, std::vector<int> levels, int limit,
                  skald::RetrievalMode mode) -> skald::Result<std::vector<skald::MatchedContext>> {
    skald::FindRequest request;
    request.query = query;
    request.target_uris = {root};
    request.levels = std::move(levels);
    request.limit = limit;
    request.score_threshold = 0.0;
    request.mode = mode;
    SKALD_ASSIGN_OR_RETURN(skald::FindResult found, (*db)->Find(who, request));
    return found.resources;
  };
  // The leaf ("tNN/lM") of a node URI under root, or "" for other nodes.
  auto leaf_name = [&](const std::string& node) -> std::string {
    if (!node.starts_with(root + "/")) return "";
    std::string rel = node.substr(root.size() + 1);
    return leaf_sizes.count(rel) ? rel : "";
  };

  Split halves[2];
  size_t position = 0;
  auto eval_start = Clock::now();
  for (const auto& [query_id, relevant] : data.qrels) {
    auto text = data.queries.find(query_id);
    if (text == data.queries.end()) continue;
    std::set<std::string> wanted;
    for (const auto& [doc, grade] : relevant) {
      auto leaf = leaf_of_id.find(doc);
      if (leaf != leaf_of_id.end()) wanted.insert(leaf->second);
    }
    if (wanted.empty()) continue;  // relevant documents outside --max-docs
    Split& s = halves[position++ % 2];
    ++s.queries;

    auto dirs = find(text->second, {0, 1}, 200, skald::RetrievalMode::kQuick);
    auto docs = find(text->second, {2}, 100, skald::RetrievalMode::kQuick);
    if (!dirs.ok() || !docs.ok()) {
      std::fprintf(stderr, "find: %s\n",
                   (dirs.ok() ? docs.status() : dirs.status()).ToString().c_str());
      return 1;
    }
    std::vector<std::string> routed, ceiling, ranked_docs;
    for (const auto& hit : *dirs) {
      std::string leaf = leaf_name(NodeUri(hit.uri));
      if (!leaf.empty() && std::find(routed.begin(), routed.end(), leaf) == routed.end()) {
        routed.push_back(leaf);
      }
    }
    for (const auto& hit : *docs) {
      std::string leaf = leaf_name(Parent(hit.uri));
      if (!leaf.empty() && std::find(ceiling.begin(), ceiling.end(), leaf) == ceiling.end()) {
        ceiling.push_back(leaf);
      }
      std::string id = hit.uri.substr(hit.uri.rfind('/') + 1);
      ranked_docs.push_back(id.substr(0, id.size() - 3));  // without ".md"
    }
    s.routing1 += HitAt(routed, wanted, 1);
    s.routing3 += HitAt(routed, wanted, 3);
    s.ceiling1 += HitAt(ceiling, wanted, 1);
    s.ceiling3 += HitAt(ceiling, wanted, 3);
    s.ndcg_quick += skald::bench::NdcgAt10(ranked_docs, relevant);
    if (thinking) {
      auto deep = find(text->second, {2}, 10, skald::RetrievalMode::kThinking);
      if (!deep.ok()) {
        std::fprintf(stderr, "find (thinking): %s\n", deep.status().ToString().c_str());
        return 1;
      }
      std::vector<std::string> ranked;
      for (const auto& hit : *deep) {
        std::string id = hit.uri.substr(hit.uri.rfind('/') + 1);
        ranked.push_back(id.substr(0, id.size() - 3));
      }
      s.ndcg_thinking += skald::bench::NdcgAt10(ranked, relevant);
    }
  }
  if (position == 0) {
    std::fprintf(stderr, "no query has a relevant document in the corpus\n");
    return 1;
  }
  std::printf("eval: queries=%zu seconds=%.1f\n", position, Seconds(eval_start));
  halves[0].Print("tune", thinking);
  halves[1].Print("report", thinking);
  Split total = halves[0];
  total.Add(halves[1]);
  total.Print("all", thinking);
  db->reset();
  if (own_workspace) fs::remove_all(workspace);
  return 0;
}
