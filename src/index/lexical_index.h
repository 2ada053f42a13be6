#pragma once

// LexicalIndex: BM25 full-text search over record text, with the same record
// fields (RecordFields) and filter language (RecordFilter) as the vector
// index (index/vector_index.h), so
// hybrid retrieval can ask both indexes the same question.
//
// The implementation (OpenFts5LexicalIndex) keeps its own SQLite file: one
// FTS5 table per account (statistics and postings never cross tenants) with
// three weighted columns (title, abstract, body), tokenized by our Tokenizer
// through a custom FTS5 tokenizer, ranked by BM25F (index/fts5_bm25.h).
// Filters are part of the SQL statement that runs the full-text match, so a
// filtered search returns the k best *matching* records.
//
// Query text is never FTS5 syntax: it is tokenized with the index's
// tokenizer and every word becomes a quoted phrase, OR-ed together (BM25
// ranks documents matching more and rarer words first).
//
// Thread safety: safe for concurrent use. Searches and counts run in
// parallel on a pool of read connections (SQLite WAL: each statement sees one
// committed snapshot); writes are serialized on one write connection and
// never block readers.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "index/vector_index.h"
#include "skald/result.h"
#include "text/term_list.h"
#include "text/tokenizer.h"

namespace skald {

// The searchable text of one record, by BM25F field. The record's filter
// fields travel beside it as RecordFields (storage/record.h), never copied in.
struct LexicalText {
  std::string title;     // e.g. the file or directory name
  std::string abstract;  // e.g. the L0 abstract
  std::string body;      // e.g. the L1 overview or the file's text
  // The body's terms when the caller has them already (an import embedded
  // the file from them): an index with the same tokenizer takes them
  // instead of tokenizing `body` again, when their text_bytes() is the
  // body's size. `body` is still given (FTS5 and the memory index's log
  // store the text).
  std::shared_ptr<const TermList> body_terms = nullptr;
  // The same for the abstract.
  std::shared_ptr<const TermList> abstract_terms = nullptr;
};

struct LexicalIndexOptions {
  // SQLite database file (conventionally <workspace>/index/lexical.db);
  // created with its parent directories when missing.
  std::string path;

  // Tokenizer for documents and queries. Not owned; REQUIRES: outlives the
  // index. nullptr: the index creates and owns NewIcuTokenizer() with default
  // options. Its Name() is stored in the file: reopening with a different
  // tokenizer discards the index (see LexicalIndex::was_reset()).
  const Tokenizer* tokenizer = nullptr;

  // BM25 term-frequency saturation: larger lets repeated terms count longer.
  // The defaults (k1 1.2, b 0.75, title 2) scored best on SciFact among the
  // settings tried (docs/benchmarks.md), by small margins.
  double k1 = 1.2;
  // BM25 length normalization: 0 ignores document length, 1 divides by it fully.
  double b = 0.75;
  // Per-field weights (BM25F): a match in a field with weight 2 counts as two
  // matches. 0 makes a field unsearchable. At least one must be positive.
  double title_weight = 2.0;
  double abstract_weight = 1.0;
  double body_weight = 1.0;

  // MaxScore dynamic pruning (index/lexical_query.h): records that cannot
  // reach the top k are not scored. Off scores every record that contains a
  // query word; the results are the same, only slower (for tests and
  // measurements).
  bool prune = true;

  // Read connections (parallel searches). >= 1.
  int read_connections = 2;
  // synchronous=FULL: commits survive power loss. Off (NORMAL) survives
  // process crashes; the index is a cache rebuilt from the catalog, and
  // applied_seq() moves back together with any lost commit.
  bool sync = false;
  // SQLite's writes and syncs are offered to it first (storage/sqlite_env_vfs.h).
  // Borrowed; null = Env::Default().
  Env* env = nullptr;

  Status Validate() const;
};

class LexicalIndex {
 public:
  virtual ~LexicalIndex() = default;

  // "fts5": the implementation.
  virtual std::string_view Kind() const = 0;
  // Name() of the tokenizer the index was built with.
  virtual const std::string& tokenizer_name() const = 0;

  // Inserts or replaces records by key (RecordFields::key is the index id),
  // records[i] with the text texts[i], in one transaction (all or nothing).
  // A record may move between accounts. REQUIRES: records.size() ==
  // texts.size() (InvalidArgument otherwise), every account non-empty, keys
  // unique within the batch, text valid UTF-8 (invalid bytes are skipped).
  virtual Status Upsert(std::span<const RecordFields> records,
                        std::span<const LexicalText> texts) = 0;
  Status Upsert(const RecordFields& record, const LexicalText& text) {
    return Upsert(std::span<const RecordFields>(&record, 1),
                  std::span<const LexicalText>(&text, 1));
  }

  // Removes records by id in one transaction; unknown ids are ignored.
  // Returns how many records were removed.
  virtual Result<uint64_t> Delete(std::span<const uint64_t> ids) = 0;

  // The k best BM25 matches of `query` among the records that pass `filter`,
  // best first, into `*hits` (cleared first; score > 0, larger is better).
  // An empty filter account searches every account, each ranked with its own
  // statistics. A query with no searchable words returns no hits.
  // REQUIRES: k >= 1; filter valid (RecordFilter::Validate()).
  virtual Status Search(std::string_view query, const RecordFilter& filter, int k,
                        std::vector<SearchHit>* hits) const = 0;

  // Number of records that pass `filter`.
  virtual Result<uint64_t> Count(const RecordFilter& filter) const = 0;

  // The fields of the records among `ids` that the index holds in `account`
  // (as of applied_seq(); account filled in), appended to `*out` in no
  // particular order; ids it does not hold are skipped. False when the
  // index does not keep record fields at hand (FTS5): the caller asks the
  // catalog instead. The retriever ranks candidates by these and reads the
  // catalog only for the hits it returns.
  virtual bool Describe(std::string_view account, std::span<const uint64_t> ids,
                        std::vector<RecordFields>* out) const {
    (void)account;
    (void)ids;
    (void)out;
    return false;
  }

  // The catalog change sequence this index reflects (0 for a new or reset
  // index). Writes and SetAppliedSeq are separate transactions: replaying
  // changes after a crash is safe because Upsert and Delete are idempotent.
  virtual int64_t applied_seq() const = 0;
  virtual Status SetAppliedSeq(int64_t seq) = 0;

  // True when Open found an unusable file (corrupt, other format version,
  // other tokenizer) and started an empty index in its place; the caller
  // must feed every record again.
  virtual bool was_reset() const = 0;

  // Merges the FTS5 segments into one (faster searches). Worth calling after a
  // bulk load; blocks writers, not readers.
  virtual Status Optimize() = 0;

  // Writes now what closing the index would write (the in-memory index: a
  // snapshot, when its log holds entries), so that a close right after has
  // nothing to write: a caller that closes other files too writes them side
  // by side. Nothing to do for FTS5 (SQLite's own files).
  virtual Status Checkpoint() { return Status::Ok(); }
};

// The REQUIREs of LexicalIndex::Upsert and Search as statuses, for the
// implementations: InvalidArgument naming the first one broken.
Status CheckUpsertArguments(std::span<const RecordFields> records,
                            std::span<const LexicalText> texts);
Status CheckSearchArguments(const RecordFilter& filter, int k);

// Opens or creates the FTS5 lexical index described by `options`.
// Corruption of the file is not an error: the file is recreated empty and
// was_reset() is true.
Result<std::unique_ptr<LexicalIndex>> OpenFts5LexicalIndex(const LexicalIndexOptions& options);

}  // namespace skald
