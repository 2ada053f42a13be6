#pragma once

// FileBodies: the bytes an import holds in memory for the files it has just
// written, lent to the two readers that would otherwise read them back from
// the content store:
//
//   - the semantic indexer summarizes and embeds a file from its bytes here
//     (and takes its content hash from here, computed once by the import),
//     or takes what it computed ahead from them (`prepared`:
//     SemanticIndexer::PrepareFiles, beside the import's tree write);
//   - the index catch-up takes the file text of a level-2 record it applies
//     from here, when that record is exactly one the indexer wrote from these
//     bytes (noted by the record's change sequence number, which any later
//     change of the record replaces), with the text's terms when the indexer
//     tokenized it to embed it (`terms`: tokenized once for both).
//
// Either reader falls back to the content store for anything not here, so
// lending is only ever a saving: the catalog stays the source of truth.
//
// Thread safety: Add before sharing; then Find is safe for concurrent use,
// and so are NoteRecord and TakeRecordBody. SetPrepared and SetTerms may run
// beside Find of other paths, and must be done (their thread joined, or the
// outcome handed over under a lock) before the indexer reads the path. The bytes are borrowed: their owner keeps them until the
// object is gone.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/summarizer.h"
#include "text/term_list.h"

namespace skald {

class FileBodies {
 public:
  // What the indexer computes for a file, computed ahead from its bytes.
  struct Prepared {
    std::string summary;
    FileEntryScan summary_terms;  // the summary's keys (and entry terms)
    std::vector<float> vector;   // of the text the indexer embeds; empty: none ahead
  };
  struct Body {
    std::string_view bytes;
    std::string sha256_hex;  // of `bytes`
    std::optional<Prepared> prepared;
    // The terms of `bytes` and of the file's summary (SetTerms), until
    // NoteRecord hands them on.
    mutable std::shared_ptr<const TermList> terms;
    mutable std::shared_ptr<const TermList> summary_terms;
  };
  // A level-2 record's text, lent (TakeRecordBody).
  struct RecordBody {
    std::string_view bytes;
    std::shared_ptr<const TermList> terms;  // null: not tokenized yet
    std::shared_ptr<const TermList> summary_terms;  // of the record's abstract
  };

  // Bodies of files of `account`.
  explicit FileBodies(std::string account) : account_(std::move(account)) {}
  FileBodies(const FileBodies&) = delete;
  FileBodies& operator=(const FileBodies&) = delete;

  // The bytes of the file at `path` (URI path without scheme).
  void Add(std::string path, std::string_view bytes, std::string sha256_hex);

  // The body of `path` of `account`, or null.
  const Body* Find(std::string_view account, std::string_view path) const;

  // Sets what was computed ahead for `path` (REQUIRES: added).
  void SetPrepared(std::string_view path, Prepared prepared);
  // Sets the terms of the bytes of `path` and of its summary, as the indexer
  // tokenized them; a null one leaves what was set (REQUIRES: added).
  void SetTerms(std::string_view path, std::shared_ptr<const TermList> terms,
                std::shared_ptr<const TermList> summary_terms = nullptr);
  // What was computed ahead for `path` of `account`, moved out (nullopt when
  // nothing was). Safe beside Find and TakePrepared of other paths.
  std::optional<Prepared> TakePrepared(std::string_view account, std::string_view path);

  // The level-2 record with change sequence number `seq` was written from
  // the body of `path` (REQUIRES: Find(account, path) non-null).
  void NoteRecord(int64_t seq, const Body* body);

  // The bytes the record `seq` was written from (and their terms, if they
  // were set before it was noted), if it was noted; each is handed out once.
  std::optional<RecordBody> TakeRecordBody(int64_t seq);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  const std::string account_;
  std::unordered_map<std::string, Body, Hash, std::equal_to<>> by_path_;  // fixed once shared
  std::mutex mu_;
  std::unordered_map<int64_t, RecordBody> by_seq_;  // GUARDED_BY(mu_)
};

}  // namespace skald
