#pragma once

// LexicalPartition: the in-memory inverted index of one account, the core of
// the memory lexical index (memory_lexical_index.h). Postings are
// doc-ordered (slots only grow; an upsert appends a new slot) with the term
// frequency per BM25F field; each live document also keeps its forward list
// (term, frequencies), its field lengths and its filter fields.
//
// Search scores exactly what skald_bm25 (fts5_bm25.h) computes over FTS5:
//
//   tf~(t, d) = sum_c  w_c * tf(t, d, c) / (1 - b + b * len(d, c) / avglen(c))
//   score(d)  = sum_t  idf(t) * tf~ * (k1 + 1) / (tf~ + k1)
//
// with N and avglen over the partition's live documents. Two plans:
//
//   scope plan   when every URI scope of the filter names one node and/or
//                its direct children (THINKING's per-directory searches),
//                and those nodes hold fewer documents than the query's
//                posting lists: each such document is checked against the
//                filter and scored from its forward list.
//   MaxScore     document-at-a-time over the posting lists (Turtle & Flood
//                1995): terms sorted by their bound idf * (k1 + 1); the
//                lowest-bounded terms whose bounds sum to less than the
//                current k-th score are "non-essential" and only probed
//                (binary search) for documents an essential term brings.
//                The filter is checked for every document that would enter
//                the top k, before it does: it selects candidates, never
//                cuts finished results.
//
// A query word that the tokenizer splits into several terms (a phrase to
// FTS5) matches documents holding all of them, each field counting the least
// frequent one: positions are not kept, so adjacency is not checked.
//
// Deleted documents leave dead postings behind until Compact().
//
// Thread safety: none; the owner serializes writers against readers.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "index/index_file.h"
#include "index/vector_index.h"
#include "storage/record.h"
#include "text/flat_string_map.h"
#include "text/tokenizer.h"

namespace skald {

inline constexpr int kLexicalFields = 3;  // title, abstract, body

struct Bm25Params {
  double k1 = 1.2;
  double b = 0.75;
  std::array<double, kLexicalFields> weights = {2.0, 1.0, 1.0};
};

// One query word: its terms (one for a plain word, more for a phrase).
using LexicalPhrase = std::vector<std::string>;

class LexicalPartition;

// A term's frequencies in one document, per field (saturated at 65535).
struct LexicalTermFreq {
  uint32_t term = 0;
  std::array<uint16_t, kLexicalFields> tf{};
};

// The terms of a batch of documents, counted per document and field: what
// LexicalPartition::Add indexes. The tokenizer fills it (it is the
// TermSink of Tokenizer::ForEachTerm) outside the index's lock, so that
// the lock is held only to give each distinct term its partition term id
// and append postings. Each term's text is kept once per batch: a term
// repeated across the batch's documents is looked up in a partition once
// per batch, not once per token, and no string is made per token.
//
// Thread safety: none; a value owned by one caller.
class LexicalTermBatch final : public TermSink {
 public:
  // Starts the next document (documents are numbered 0, 1, ... in order).
  // REQUIRES: the previous one ended.
  void BeginDocument();
  // The field of the terms that follow (title 0, abstract 1, body 2).
  // REQUIRES: a document begun; 0 <= field < kLexicalFields.
  void BeginField(int field) { field_ = field; }
  // One token of the current field. REQUIRES: a document begun.
  void Term(std::string_view term) override;
  // Ends the current document.
  void EndDocument();

  size_t documents() const { return docs_.size(); }
  // Tokens of `field` in document `doc`, repeats and overlong terms counted.
  uint32_t length(size_t doc, int field) const { return docs_[doc].len[field]; }

 private:
  friend class LexicalPartition;
  static constexpr uint32_t kNone = 0xFFFFFFFF;
  struct LastSeen {        // per batch term
    uint32_t doc = kNone;  // the last document that holds it
    uint32_t pos = 0;      // its index in current_ while that document is counted
    uint32_t docs = 0;     // documents of the batch that hold it
  };
  struct Document {
    // Its distinct terms in order of first occurrence, `term` a batch term
    // (insertion index in terms_) until LexicalPartition::Add takes them.
    std::vector<LexicalTermFreq> terms;
    std::array<uint32_t, kLexicalFields> len{};
  };

  FlatStringMap<LastSeen> terms_;
  std::vector<Document> docs_;
  // The counts of the document being counted, copied to its own exactly
  // sized vector when it ends: one growing buffer for all documents.
  std::vector<LexicalTermFreq> current_;
  int field_ = 0;
  // Batch term -> term id in the partition ids_for_ (kNone: not looked up
  // yet), kept by LexicalPartition::Add across the documents it adds.
  const LexicalPartition* ids_for_ = nullptr;
  std::vector<uint32_t> ids_;
};

class LexicalPartition {
 public:
  // Adds document `doc` of `batch` (taking its terms), with the filter
  // fields `r`. Term ids are given in the order the terms first occur, as
  // adding the tokens one by one would. REQUIRES: no live document with
  // r.key in this partition; doc < batch->documents(), each added once; the
  // batch complete (no Term() after its first Add).
  void Add(const RecordFields& r, LexicalTermBatch* batch, size_t doc);
  // Removes the document with id `key`; false when there is none.
  bool Remove(uint64_t key);

  uint64_t live() const { return live_; }
  bool Contains(uint64_t key) const { return slot_of_.contains(key); }
  // The fields of the live document `key` (account empty), or null.
  const RecordFields* Fields(uint64_t key) const {
    auto it = slot_of_.find(key);
    return it == slot_of_.end() ? nullptr : &docs_[it->second].fields;
  }
  // Calls fn(key) for every live document.
  template <typename Fn>
  void ForEachKey(Fn&& fn) const {
    for (const auto& [key, slot] : slot_of_) fn(key);
  }

  // The k best documents passing `filter` (the account is not checked),
  // best first (score desc, id asc), appended to `*out`. Scores > 0 only.
  void Search(const std::vector<LexicalPhrase>& phrases, const RecordFilter& filter,
              const Bm25Params& params, int k, std::vector<SearchHit>* out) const;
  uint64_t Count(const RecordFilter& filter) const;

  // True when dead postings or documents outweigh live ones enough to rebuild.
  bool NeedsCompaction() const;
  // Rebuilds slots and postings from the live documents.
  void Compact();

  // Serialization of the live documents (the postings are rebuilt on load).
  // Writes them into the section open in `out` (a bounded buffer at a time).
  void Save(FileWriter* out) const;
  // False when `in` is malformed; the partition is then unusable.
  bool Load(ByteCursor* in);

 private:
  using TermFreq = LexicalTermFreq;
  struct Posting {
    uint32_t slot = 0;
    std::array<uint16_t, kLexicalFields> tf{};
  };
  struct Doc {
    RecordFields fields;  // account left empty (the partition's)
    int depth = 0;        // UriDepth(fields.uri)
    std::vector<TermFreq> terms;  // each term once, in no particular order
  };
  // What scoring reads of every document a posting list brings, kept apart
  // from Doc in a dense array (24 bytes a slot): a search walks postings in
  // slot order, and reading the scattered Doc instead was a cache miss per
  // posting, half of a search's time at 100k documents.
  struct SlotState {
    uint64_t key = 0;
    std::array<uint32_t, kLexicalFields> len{};
    bool alive = false;
  };
  struct Cursor;
  struct CompiledFilter;

  uint32_t TermId(std::string_view term);
  // Appends a document (not yet live) with its field lengths.
  void Append(Doc doc, const std::array<uint32_t, kLexicalFields>& len);
  void Index(uint32_t slot);  // postings, df, lengths and node maps of a new live slot
  // Index() of every slot from `first` on, each posting list grown once.
  void IndexFrom(uint32_t first);
  // `check_scopes` false: the caller knows the document is in a scope.
  bool Matches(const Doc& doc, const CompiledFilter& filter, bool check_scopes = true) const;
  // Candidate slots of the scope plan, or false when it does not apply.
  bool ScopeCandidates(const RecordFilter& filter, size_t limit,
                       std::vector<uint32_t>* slots) const;

  // Term text -> live documents holding it (df); the insertion index is
  // the term id. Open addressing, texts in one arena (flat_string_map.h).
  FlatStringMap<uint32_t> dict_;
  std::vector<std::vector<Posting>> postings_;   // by term id, slot ascending
  std::vector<Doc> docs_;                        // by slot
  std::vector<SlotState> slots_;                 // by slot, beside docs_
  std::unordered_map<uint64_t, uint32_t> slot_of_;  // live key -> slot
  // Slots by node URI and by parent URI (the scope plan); dead ones stay
  // until Compact().
  std::unordered_map<std::string, std::vector<uint32_t>> by_uri_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_parent_;
  uint64_t live_ = 0;
  uint64_t dead_postings_ = 0;
  uint64_t postings_total_ = 0;
  std::array<uint64_t, kLexicalFields> total_len_{};
};

}  // namespace skald
