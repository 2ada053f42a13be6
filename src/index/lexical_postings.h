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

namespace skald {

inline constexpr int kLexicalFields = 3;  // title, abstract, body

struct Bm25Params {
  double k1 = 1.2;
  double b = 0.75;
  std::array<double, kLexicalFields> weights = {2.0, 1.0, 1.0};
};

// One query word: its terms (one for a plain word, more for a phrase).
using LexicalPhrase = std::vector<std::string>;

class LexicalPartition {
 public:
  // Adds a document; `field_terms[c]` are the terms of field c in order
  // (one per token). REQUIRES: no live document with r.key in this partition.
  void Add(const RecordFields& r, const std::array<std::vector<std::string>, kLexicalFields>&
                                      field_terms);
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
  void Save(ByteBuilder* out) const;
  // False when `in` is malformed; the partition is then unusable.
  bool Load(ByteCursor* in);

 private:
  struct TermFreq {
    uint32_t term = 0;
    std::array<uint16_t, kLexicalFields> tf{};
  };
  struct Posting {
    uint32_t slot = 0;
    std::array<uint16_t, kLexicalFields> tf{};
  };
  struct Doc {
    RecordFields fields;  // account left empty (the partition's)
    int depth = 0;        // UriDepth(fields.uri)
    std::vector<TermFreq> terms;  // sorted by term
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
  // `check_scopes` false: the caller knows the document is in a scope.
  bool Matches(const Doc& doc, const CompiledFilter& filter, bool check_scopes = true) const;
  // Candidate slots of the scope plan, or false when it does not apply.
  bool ScopeCandidates(const RecordFilter& filter, size_t limit,
                       std::vector<uint32_t>* slots) const;

  // Looked up by string_view without building a string (one per token).
  struct TermHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, TermHash, std::equal_to<>> dict_;
  std::vector<std::string> term_text_;           // by term id
  std::vector<std::vector<Posting>> postings_;   // by term id, slot ascending
  std::vector<uint32_t> df_;                     // live documents per term id
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
