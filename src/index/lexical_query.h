#pragma once

// Query side of the lexical index: turning user text into safe FTS5 MATCH
// expressions, and MaxScore planning (Turtle & Flood 1995) so that a search
// scores only the records that can still reach the top k.
//
// FTS5 evaluates an OR query by visiting every record that contains any
// query term, and BM25 scoring of each visit dominates the cost. MaxScore
// splits the terms: a term's contribution is below idf * (k1 + 1) whatever
// its frequency, so the most common ("non-essential") terms, whose bounds
// add up to less than the k-th best score, cannot lift a record that has no
// other term into the top k. The planned expression therefore matches only
// records containing an essential term,
//
//   E1 OR E2 OR ((N1 OR N2) AND (E1 OR E2))
//
// and the AND branch makes FTS5 report the non-essential terms' positions
// for those records (so their scores are exact) while seeking through the
// long posting lists instead of scoring every entry. The caller checks the
// k-th score against the bound and re-plans once when the guess was wrong;
// results equal exhaustive scoring.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.h"

namespace skald {

// At most this many distinct words of a query are searched.
inline constexpr size_t kMaxQueryWords = 256;

// Per-phrase markers in the document-frequency table passed to skald_bm25
// (fts5_bm25.h): compute the frequency with a scan, or ignore the phrase.
inline constexpr int64_t kComputeDocFrequency = -1;
inline constexpr int64_t kIgnorePhrase = -2;

// One distinct term of a query.
struct LexicalQueryTerm {
  std::string term;    // the tokenizer's term
  std::string phrase;  // the source word as a quoted FTS5 phrase ("wo""rd")
  // True when the source word on its own tokenizes to exactly `term`, so the
  // phrase is that single term and its document frequency can be looked up.
  bool single = true;
  // The terms of the source word on its own (the phrase's terms, in order).
  std::vector<std::string> word_terms;
};

// The distinct terms of `query` in order of first occurrence (at most
// kMaxQueryWords). Phrases quote the source words, never the terms: FTS5
// runs phrase text through the same tokenizer, and stemming is not idempotent.
std::vector<LexicalQueryTerm> ExtractQueryTerms(const Tokenizer& tokenizer, std::string_view query);

// The exhaustive MATCH expression: every term's phrase, joined by OR. Empty
// when the query has no searchable word. User text can never become FTS5
// syntax: it only ever appears inside quotes, with quotes doubled.
std::string BuildFts5Query(const Tokenizer& tokenizer, std::string_view query);

// A term with its statistics in one partition.
struct ScoredQueryTerm {
  const LexicalQueryTerm* term = nullptr;
  int64_t doc_frequency = kComputeDocFrequency;  // kComputeDocFrequency when unknown
  double upper_bound = 0;                        // max contribution to a score; +inf when unknown
};

struct LexicalQueryPlan {
  std::string match;                     // the MATCH expression
  std::vector<int64_t> phrase_doc_freq;  // per phrase of `match`, in order
  // No record without an essential term scores above this.
  double non_essential_bound = 0;
  size_t essential = 0;  // number of essential terms
};

// BM25 idf, as skald_bm25 computes it: ln(1 + (N - n + 0.5) / (n + 0.5)).
double Bm25Idf(double rows, double doc_frequency);

// Plans a search over `terms`, which are sorted by descending upper_bound;
// the first `essential` of them (clamped to [1, size]) are essential.
// REQUIRES: !terms.empty().
LexicalQueryPlan PlanLexicalQuery(const std::vector<ScoredQueryTerm>& terms, size_t essential);

// The fewest essential terms such that the remaining terms' bounds sum to
// less than `threshold` (terms sorted as for PlanLexicalQuery).
size_t EssentialTermsFor(const std::vector<ScoredQueryTerm>& terms, double threshold);

}  // namespace skald
