#pragma once

// Keyphrases: the salient terms of a group of texts (a directory's entries),
// ranked against a background of document frequencies (the files being
// indexed), for summaries that say what a directory is about without a
// model.
//
// Terms are the Tokenizer's (NFKC, case folded, English stemmed) unigrams
// and bigrams of adjacent words (separated by nothing but spaces or one
// hyphen). Words of fewer than 3 characters, words with more than one digit
// more than letters ("e1000", "2024"; "p53" is kept) and common function
// words (a list longer than the tokenizer's, since a keyphrase must carry
// meaning) start or end no term. Each term is shown in the form the texts
// spell it most often ("insulin resistance", not "insulin resist"), a word
// capitalized only at its start in lower case ("DNA" and "mRNA" are kept).
//
// Thread safety: the free functions are safe to call concurrently;
// TermStatistics is a value type (no internal locking).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/flat_string_map.h"

namespace skald {

// The distinct term keys of one text, in order of first occurrence: what
// TermStatistics::Add counts, computed apart (on another thread).
struct TermKeys {
  std::string bytes;           // the keys one after another
  std::vector<uint32_t> ends;  // end offset in `bytes` of each key
  // FlatStringMap's Hash of each key (taken on the same thread); empty:
  // Add hashes the keys itself.
  std::vector<uint64_t> hashes;
};

// How many of a set of texts each term occurs in.
class TermStatistics {
 public:
  // Counts each distinct term of `text` once; a text is one document.
  void Add(std::string_view text);
  // The same for a text whose keys were taken by KeysOf.
  void Add(const TermKeys& keys);
  static TermKeys KeysOf(std::string_view text);
  // Adds the documents counted in `other`, taken over (counts do not depend
  // on the order: statistics counted in parts and merged answer as one
  // would). Its counts are kept apart and added up at each lookup: folding
  // them in key by key was a pass over ~10^5 keys on one thread, between
  // the threads that counted them and the directories that read them.
  void Merge(TermStatistics&& other);
  size_t documents() const { return documents_; }
  // Documents holding `key` (a term key of ExtractTerms), 0 if none.
  uint32_t DocumentFrequency(std::string_view key) const;
  // DocumentFrequency of every keys[i] into out[i], `hashes[i]` being
  // FlatStringMap's Hash of keys[i]: the same answers, with the cache
  // misses of the lookups overlapped (a background holds ~10^5 keys).
  // REQUIRES: hashes.size() == out.size() == keys.size().
  void DocumentFrequencies(std::span<const std::string_view> keys,
                           std::span<const uint64_t> hashes, std::span<uint32_t> out) const;

 private:
  // Counts one document's distinct keys (key(i), hash(i) for i < n).
  template <typename KeyAt, typename HashAt>
  void CountDocument(size_t n, const KeyAt& key, const HashAt& hash);

  size_t documents_ = 0;
  FlatStringMap<uint32_t> frequency_;
  std::vector<FlatStringMap<uint32_t>> merged_;  // parts taken over by Merge
};

// One term of a text: `key` identifies it across texts (stems, bigrams
// joined by a space), `display` is its spelling in the text.
struct TextTerm {
  std::string key;
  std::string display;
  uint32_t count = 0;  // occurrences in the text
};

// The distinct terms of `text`, in order of first occurrence. Empty when the
// tokenizer cannot be loaded.
std::vector<TextTerm> ExtractTerms(std::string_view text);

// A salient term of a group of texts.
struct Keyphrase {
  std::string text;             // most frequent spelling
  double score = 0;             // > 0; higher is more salient
  std::vector<size_t> sources;  // indices of the texts holding it, increasing
};

// The up to `limit` most salient terms of `texts`, best first: a term scores
// (texts holding it) x idf², idf = ln((N + 1) / (df + 0.5)), where N and df
// come from `background` when it is given and covers at least as many
// documents as `texts`; else N and df come from `texts` themselves and the
// idf is 1 + ln(...), so that a term every text shares (what they are about)
// still counts. A bigram said twice or more scores 1.5x, one said once 0.75x
// (a chance pairing as likely as a phrase). Ties go to the term said more
// often, then to the one said first, then by spelling: the order is
// deterministic. A unigram held by no more texts than an already chosen
// bigram containing it is dropped (the bigram says it), as is a second
// spelling of a chosen term.
std::vector<Keyphrase> RankKeyphrases(std::span<const std::string> texts,
                                      const TermStatistics* background, size_t limit);

// RankKeyphrases of texts whose terms were extracted already:
// `texts[i]` is ExtractTerms of the i-th text (the same result, without
// tokenizing the texts again).
std::vector<Keyphrase> RankKeyphrasesOfTerms(std::span<const std::vector<TextTerm>> texts,
                                             const TermStatistics* background, size_t limit);

// The up to `limit` most salient terms of one text, best first: a term
// scores (1 + ln count) x ln((N + 1) / (df + 0.5)) against `background`
// (null or empty: (1 + ln count) alone), with the bigram weights, dropping
// and tie rules of RankKeyphrases. `sources` is {0}.
std::vector<Keyphrase> TextKeyphrases(std::string_view text, const TermStatistics* background,
                                      size_t limit);

}  // namespace skald
