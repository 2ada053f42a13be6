#pragma once

// Internal to the semantic indexer (semantic_indexer.cc, which summarizes,
// and semantic_indexer_records.cc, which embeds and writes the records):
// what a pass has summarized and not yet written.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ingest/semantic_indexer.h"
#include "skald/status.h"
#include "storage/record.h"
#include "text/keyphrases.h"

namespace skald {
namespace semantic_indexer_internal {

// Records written per catalog transaction.
constexpr size_t kUpsertChunk = 512;
// Memory the files' entry terms of one pass may hold (Pending::entry_terms).
constexpr size_t kEntryTermsBudget = size_t{64} << 20;

}  // namespace semantic_indexer_internal

// Embedded records on their way to the catalog, with their sources (as in
// Pending).
struct SemanticIndexer::RecordBatch {
  std::vector<Record> records;
  std::vector<std::string> node_paths;
  std::vector<std::string> source_hashes;
  std::vector<bool> inherit_tags;
};

// Writes a pass's embedded records (WriteBatch) on a thread of its own, in
// the order they are handed over, while the pass summarizes and embeds what
// comes next: the record writes (catalog lookups, path locks, SQLite
// transactions) no longer wait in line with the rest. At most kQueued
// batches wait; Write blocks beyond that.
//
// Thread safety: Write and Finish from the pass's thread only.
class SemanticIndexer::RecordWriter {
 public:
  static constexpr size_t kQueued = 2;

  RecordWriter(SemanticIndexer* indexer, std::string account);
  // Writes what was handed over, then stops the thread.
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Queues `batch`; returns the first error of the batches written so far
  // (then `batch` is dropped).
  Status Write(RecordBatch batch);
  // Waits until everything queued is written; returns the first error and
  // adds the counts of the writes to `stats`.
  Status Finish(IndexStats* stats);
  // The first error of the batches written so far (without waiting).
  Status Error();

 private:
  void Run();

  SemanticIndexer* const indexer_;
  const std::string account_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<RecordBatch> queue_;  // GUARDED_BY(mu_)
  bool busy_ = false;              // GUARDED_BY(mu_): a batch is being written
  bool stop_ = false;              // GUARDED_BY(mu_)
  Status error_;                   // GUARDED_BY(mu_): the first one
  IndexStats stats_;               // GUARDED_BY(mu_)
  std::thread thread_;
};

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
  // path -> the file's entry terms (FileEntryScan), for its directory's
  // overview; kept while they take at most kEntryTermsBudget bytes (the
  // directory scans the rest itself).
  std::map<std::string, std::shared_ptr<const EntryTerms>, std::less<>> entry_terms;
  size_t entry_terms_bytes = 0;
  // False: vectors are computed again, not taken from the cache.
  bool use_cache = true;
  // Vectors computed ahead (FileBodies::Prepared), by index in `records`.
  std::map<size_t, std::vector<float>> prepared_vectors;
  // Term document frequencies over the file summaries of this pass: the
  // background a directory's salient terms are ranked against.
  TermStatistics background;
  // Writes what Flush embedded (null until the first Flush); declared last,
  // so that it is done before the rest goes.
  std::unique_ptr<RecordWriter> writer;
};

// One file summarized (SemanticIndexer::SummarizeFile).
struct SemanticIndexer::FileOutcome {
  Status status;
  bool skip = false;  // deleted meanwhile, or not text
  bool binary = false;
  std::string summary;
  // The summary's keys, counted into the background by the thread that
  // summarized it (then cleared), and its entry terms when the directory's
  // summarizer scans entries.
  FileEntryScan summary_terms;
  std::string text;        // what is embedded
  std::string hash;        // SHA-256 of the bytes summarized
  std::vector<float> vector;  // computed ahead; empty: embedded later
  Record record;              // the file's record (vector and embedder to come)
};

}  // namespace skald
