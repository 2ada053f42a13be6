// BEIR data sets for the benchmark programs (beir.h).

#include "beir.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

#include "common/json_util.h"

namespace skald::bench {

namespace {

// Calls `fn` on every non-empty line of `path`, its line end removed.
// Returns false when the file cannot be opened or `fn` returns false.
template <typename Fn>
bool ForEachLine(const std::string& path, Fn fn) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && !fn(std::move(line))) return false;
  }
  return true;
}

// Parses one line of the JSON Lines file `file` into `*out`.
bool ParseJsonLine(const char* file, const std::string& line, Json* out) {
  Result<Json> json = ParseJson(line);
  if (!json.ok()) {
    std::fprintf(stderr, "%s: %s\n", file, json.status().ToString().c_str());
    return false;
  }
  *out = std::move(json).value();
  return true;
}

std::string StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool ReadLines(const std::string& path, std::vector<std::string>* lines) {
  return ForEachLine(path, [lines](std::string line) {
    lines->push_back(std::move(line));
    return true;
  });
}

bool LoadBeir(const std::string& dir, size_t max_docs, BeirDataSet* data) {
  bool ok = ForEachLine(dir + "/corpus.jsonl", [&](const std::string& line) {
    if (max_docs > 0 && data->docs.size() >= max_docs) return true;
    Json doc;
    if (!ParseJsonLine("corpus.jsonl", line, &doc)) return false;
    data->docs.push_back(
        {StringField(doc, "_id"), StringField(doc, "title"), StringField(doc, "text")});
    return true;
  });
  ok = ok && ForEachLine(dir + "/queries.jsonl", [&](const std::string& line) {
         Json query;
         if (!ParseJsonLine("queries.jsonl", line, &query)) return false;
         data->queries[StringField(query, "_id")] = StringField(query, "text");
         return true;
       });
  ok = ok && ForEachLine(dir + "/qrels.tsv", [&](const std::string& line) {
         std::istringstream in(line);
         std::string query, doc;
         int grade = 0;
         if ((in >> query >> doc >> grade) && grade > 0) data->qrels[query][doc] = grade;
         return true;  // the header line does not parse and is skipped
       });
  return ok;
}

double NdcgAt10(const std::vector<std::string>& ranked,
                const std::map<std::string, int>& relevant) {
  double dcg = 0, ideal = 0;
  for (size_t i = 0; i < ranked.size() && i < 10; ++i) {
    auto it = relevant.find(ranked[i]);
    if (it != relevant.end()) dcg += it->second / std::log2(static_cast<double>(i) + 2);
  }
  std::vector<int> grades;
  for (const auto& [doc, grade] : relevant) grades.push_back(grade);
  std::sort(grades.rbegin(), grades.rend());
  for (size_t i = 0; i < grades.size() && i < 10; ++i) {
    ideal += grades[i] / std::log2(static_cast<double>(i) + 2);
  }
  return ideal > 0 ? dcg / ideal : 0;
}

double RecallAt(const std::vector<std::string>& ranked, const std::map<std::string, int>& relevant,
                size_t depth) {
  size_t found = 0;
  for (size_t i = 0; i < ranked.size() && i < depth; ++i) found += relevant.count(ranked[i]);
  return relevant.empty() ? 0 : static_cast<double>(found) / static_cast<double>(relevant.size());
}

}  // namespace skald::bench
