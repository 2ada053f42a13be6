#pragma once

// Internal to the semantic indexer (semantic_indexer.cc, which summarizes,
// and semantic_indexer_records.cc, which embeds and writes the records):
// what a pass has summarized and not yet written.

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ingest/semantic_indexer.h"
#include "storage/record.h"
#include "text/keyphrases.h"

namespace skald {
namespace semantic_indexer_internal {

// Records written per catalog transaction.
constexpr size_t kUpsertChunk = 512;

}  // namespace semantic_indexer_internal

// Records waiting for vectors, with the text each one embeds, and the
// summaries computed so far (a directory's children are looked up here
// before falling back to the catalog).
struct SemanticIndexer::Pending {
  std::vector<Record> records;
  std::vector<std::string> texts;
  // Per record: the node's path and, for files, the SHA-256 of the bytes
  // that were summarized ("" for directories). Checked again before the
  // records are written, so a file changed or removed meanwhile never gets
  // its old record back.
  std::vector<std::string> node_paths;
  std::vector<std::string> source_hashes;
  std::vector<bool> inherit_tags;  // keep the stored record's tags
  std::map<std::string, std::string, std::less<>> summaries;  // path -> file summary / dir L0
  // False: vectors are computed again, not taken from the cache.
  bool use_cache = true;
  // Vectors computed ahead (FileBodies::Prepared), by index in `records`.
  std::map<size_t, std::vector<float>> prepared_vectors;
  // Term document frequencies over the file summaries of this pass: the
  // background a directory's salient terms are ranked against.
  TermStatistics background;
};

// One file summarized (SemanticIndexer::SummarizeFile).
struct SemanticIndexer::FileOutcome {
  Status status;
  bool skip = false;  // deleted meanwhile, or not text
  bool binary = false;
  std::string summary;
  TermKeys summary_terms;  // counted into the background on the caller's thread
  std::string text;        // what is embedded
  std::string hash;        // SHA-256 of the bytes summarized
  std::vector<float> vector;  // computed ahead; empty: embedded later
};

}  // namespace skald
