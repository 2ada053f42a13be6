#pragma once

// BEIR-format retrieval data sets for the benchmark programs (lexical_bench,
// retrieval_eval): loading one, and scoring a ranking against its qrels.
//
// A BEIR directory holds corpus.jsonl (a {"_id", "title", "text"} object a
// line), queries.jsonl (a {"_id", "text"} object a line) and qrels.tsv
// (query-id, corpus-id, grade a line, after a header line).
//
// Benchmark programs report problems on stderr and exit, so these functions
// print what went wrong and return false rather than a Status.
//
// Thread safety: free functions with no shared state; each writes only to its
// output arguments.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace skald::bench {

// One corpus.jsonl entry; a missing or non-string field reads as "".
struct BeirDocument {
  std::string id;
  std::string title;
  std::string text;
};

// What LoadBeir reads.
struct BeirDataSet {
  std::vector<BeirDocument> docs;                           // in corpus.jsonl order
  std::map<std::string, std::string> queries;               // id -> text
  std::map<std::string, std::map<std::string, int>> qrels;  // query -> doc -> grade (> 0)
};

// Appends the non-empty lines of the text file `path` to `*lines`, each
// without its line end ("\n" or "\r\n"). Returns false, after printing
// "cannot read PATH" to stderr, when the file cannot be opened.
// REQUIRES: lines != nullptr.
bool ReadLines(const std::string& path, std::vector<std::string>* lines);

// Adds the BEIR set in directory `dir` to `*data`: the first `max_docs`
// documents of corpus.jsonl (all of them when max_docs is 0), every query,
// and every qrels line with a grade above 0 (lines that do not parse as
// "query doc grade", such as the header, are skipped). Returns false, after
// printing the file and the problem to stderr, when a file cannot be read or
// a JSON line does not parse; `*data` then holds what was read before.
// REQUIRES: data != nullptr.
bool LoadBeir(const std::string& dir, size_t max_docs, BeirDataSet* data);

// nDCG@10 of `ranked` (document ids, best first) against `relevant`
// (document id -> grade): gain = grade and log2(rank + 1) discounts, as
// pytrec_eval's ndcg_cut_10 computes it and BEIR reports it. 0 when nothing
// is relevant.
double NdcgAt10(const std::vector<std::string>& ranked, const std::map<std::string, int>& relevant);

// The share of `relevant` found among the first `depth` ids of `ranked`;
// 0 when nothing is relevant.
double RecallAt(const std::vector<std::string>& ranked, const std::map<std::string, int>& relevant,
                size_t depth);

}  // namespace skald::bench
